"""Date strings in the forms people write, and mutations of them, for the differential test
against node's ``new Date(s)`` (tests/test_jsdate.py, bench/dates.py)."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
from pathlib import Path

from rawko_tui.core.js.dates import parse_date

DATE_PROBE = Path(__file__).parent / "oracle" / "date_probe.js"

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
FOREIGN_MONTHS = ["Janvier", "Février", "Mars", "Avril", "Mai", "Juin", "Juillet", "Août", "Septembre", "Octobre", "Novembre", "Décembre",
                  "Januar", "Februar", "März", "Dezember", "Oktober", "enero", "marzo", "agosto", "dic", "Mayo", "Sept", "Sept."]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ZONES = ["Z", "z", "UTC", "UT", "GMT", "utc", "gmt", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT", "CET", "BST", "IST", "JST",
         "Zulu", "GMT+1", "GMT-0800", "UTC+01:00", "UTC-5", "+0100", "-0800", "+01:00", "-08:00", "+01", "-8", "+5:30", "+0530", "+123",
         "+12345", "(CET)", "(Central European Standard Time)", "GMT+0100 (CET)", "+01:00:00",
         "+011111111:00", "-596523:", "+596524:", "+1193046:10", "-0999999999:"]  # offsets around the small-integer limit
TRAILERS = ["", " ", "  ", "\t", "\n", " foo", "Z", ")", "(", "+", "-", " +", " -", ".", ",", " (note)", "x", " 12", ":", "::", " am", " PM",
            "\u00a0", "\x00junk", " T", "T", "/", " 2026"]
SEPARATORS = ["-", "/", ".", " ", ", ", "_", ""]


def _two(n: int) -> str:
    return f"{n:02d}"


def _field(rng: random.Random, low: int, high: int, spread: int = 3) -> int:
    """Mostly in range, sometimes just outside it (month 13, day 32, hour 24, minute 60)."""
    roll = rng.random()
    if roll < 0.85:
        return rng.randint(low, high)
    if roll < 0.95:
        return rng.choice([low - 1, high + 1, high + rng.randint(1, spread)]) if low > 0 else rng.choice([high + 1, high + rng.randint(1, spread)])
    return rng.randint(0, 99)


def _year(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.7:
        return str(rng.randint(1990, 2030))
    if roll < 0.8:
        return _two(rng.randint(0, 99))
    if roll < 0.85:
        return str(rng.randint(0, 9))
    if roll < 0.9:
        return rng.choice(["+", "-"]) + f"{rng.randint(0, 300000):06d}"
    if roll < 0.95:
        return str(rng.randint(100, 999))
    return str(rng.randint(10000, 99999999999))


def _time(rng: random.Random) -> str:
    hour, minute, second = _field(rng, 0, 23), _field(rng, 0, 59), _field(rng, 0, 59)
    hour_text = str(hour) if rng.random() < 0.2 else _two(hour)
    parts = [hour_text, _two(minute)]
    if rng.random() < 0.7:
        parts.append(_two(second))
    text = ":".join(parts)
    if rng.random() < 0.25:
        text += "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 10)))
    if rng.random() < 0.1:
        text += rng.choice(["::", ":", "."])
    if rng.random() < 0.15:
        text += rng.choice([" am", " pm", " AM", " PM", "am", "pm", " a.m."])
    return text


def _zone(rng: random.Random) -> str:
    zone = rng.choice(ZONES)
    return zone if rng.random() < 0.4 and zone[0] in "+-Zz" else " " + zone


def _month_name(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.15:
        name = rng.choice(FOREIGN_MONTHS)
    else:
        name = rng.choice(MONTHS)
        name = name[:3] if rng.random() < 0.5 else name
        if rng.random() < 0.1:
            name += "."
    roll = rng.random()
    return name.upper() if roll < 0.1 else name.lower() if roll < 0.2 else name


def _weekday(rng: random.Random) -> str:
    day = rng.choice(WEEKDAYS)
    day = day[:3] if rng.random() < 0.6 else day
    return day + rng.choice([", ", " ", ",", ". ", ""])


def _form(rng: random.Random) -> str:
    y, m, d = _year(rng), _field(rng, 1, 12), _field(rng, 1, 31)
    form = rng.randrange(12)
    if form == 0:  # ISO date, maybe with a time
        text = f"{y}-{_two(m)}-{_two(d)}"
        if rng.random() < 0.7:
            text += rng.choice(["T", "t", " ", "  ", "T "]) + _time(rng)
            if rng.random() < 0.7:
                text += _zone(rng)
        return text
    if form == 1:  # Jekyll: date, space, time, space, offset
        return f"{y}-{_two(m)}-{_two(d)} {_time(rng)} {rng.choice(['+', '-'])}{rng.choice(['0100', '0800', '0000', '0530', '01:00', '1', '100', '12', '2400'])}"
    if form == 2:  # year first with another separator
        sep = rng.choice(SEPARATORS)
        text = f"{y}{sep}{m if rng.random() < 0.3 else _two(m)}{sep}{d if rng.random() < 0.3 else _two(d)}"
        if rng.random() < 0.5:
            text += rng.choice([" ", "T", ", "]) + _time(rng)
        return text
    if form == 3:  # US and European numeric dates
        sep = rng.choice(["/", "-", ".", " "])
        first, second = (m, d) if rng.random() < 0.5 else (d, m)
        text = f"{first}{sep}{second}{sep}{y}"
        if rng.random() < 0.4:
            text += " " + _time(rng)
        return text
    if form == 4:  # Nov 21, 2026
        text = f"{_month_name(rng)} {d}{rng.choice([', ', ' ', ',', 'th, ', ' - '])}{y}"
        if rng.random() < 0.5:
            text += rng.choice([" ", " at ", ", "]) + _time(rng)
        return text
    if form == 5:  # 21 Nov 2026, 21-Nov-2026
        sep = rng.choice([" ", "-", "/", ". ", "."])
        text = f"{d}{sep}{_month_name(rng)}{sep}{y}"
        if rng.random() < 0.5:
            text += " " + _time(rng)
        return text
    if form == 6:  # RFC 2822
        zone = rng.choice(["GMT", "+0000", "-0500", "+0100", "UT", "EST", "PDT", "Z", "+01:00", "(CET)"])
        return f"{_weekday(rng)}{_two(d)} {_month_name(rng)[:3]} {y} {_time(rng)} {zone}"
    if form == 7:  # Date.prototype.toString
        return f"{_weekday(rng).strip(', ')} {_month_name(rng)[:3]} {_two(d)} {y} {_time(rng)} GMT{rng.choice(['+', '-'])}{rng.choice(['0100', '0000', '0800'])} ({rng.choice(['Central European Standard Time', 'Coordinated Universal Time', 'PST'])})"
    if form == 8:  # only a time, or a time then a date
        return f"{_time(rng)} {rng.choice([f'{y}-{_two(m)}-{_two(d)}', f'{m}/{d}/{y}', f'{d} {_month_name(rng)} {y}', ''])}"
    if form == 9:  # a weekday or other words first
        return rng.choice([_weekday(rng), "on ", "Published ", "date: ", "le ", "am ", "T", "(x) ", "12", "x12 "]) + f"{_month_name(rng)} {d} {y}"
    if form == 10:  # numbers only
        return rng.choice([str(rng.randint(0, 99999999)), f"{y}", f"{m}", f"{y}{_two(m)}{_two(d)}", f"{m} {d}", f"{y} {m} {d} {m}"])
    return "".join(rng.choice("0123456789-/:.+ TZtzJanNovGMTUTCpmam,()\t") for _ in range(rng.randint(1, 24)))


def _mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        op = rng.randrange(7)
        if op == 0 and text:  # drop a character
            i = rng.randrange(len(text))
            text = text[:i] + text[i + 1:]
        elif op == 1:  # insert a separator or space
            i = rng.randint(0, len(text))
            text = text[:i] + rng.choice([" ", "  ", "\t", "-", "/", ":", ".", ",", "(", ")", "+", "\u00a0", "\u3000"]) + text[i:]
        elif op == 2:  # change case
            text = text.swapcase() if rng.random() < 0.5 else text.upper()
        elif op == 3:  # trailing text
            text += rng.choice(TRAILERS)
        elif op == 4:  # leading text
            text = rng.choice([" ", "\t", "\n", "x", "(", "+", "-", "on ", "\ufeff", "０"]) + text
        elif op == 5 and text:  # replace a digit
            digits = [i for i, c in enumerate(text) if c.isdigit()]
            if digits:
                i = rng.choice(digits)
                text = text[:i] + rng.choice("0123456789") + text[i + 1:]
        elif op == 6:  # double a number's length
            digits = [i for i, c in enumerate(text) if c.isdigit()]
            if digits:
                i = rng.choice(digits)
                text = text[:i] + text[i] * rng.randint(1, 10) + text[i:]
    return text


def date_strings(count: int, seed: int = 0) -> list[str]:
    """``count`` distinct strings: the forms above, about half of them mutated."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < count:
        text = _form(rng)
        if rng.random() < 0.5:
            text = _mutate(text, rng)
        seen.setdefault(text, None)
    return list(seen)


def node_times(node: str, strings: list[str], zone: str) -> list[float | None]:
    """node's ``new Date(s).getTime()`` for each string in the zone (NaN as None)."""
    proc = subprocess.run([node, str(DATE_PROBE)], input=json.dumps(strings), capture_output=True, text=True, env={**os.environ, "TZ": zone}, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def differences(strings: list[str], want: list[float | None]) -> list[tuple[str, float | None, float | None]]:
    """(string, node's time, rawko-tui's) wherever they differ, in the current zone (TZ and time.tzset())."""
    found = []
    for text, expected in zip(strings, want, strict=True):
        got = parse_date(text)
        got = None if math.isnan(got) else got
        if got != expected:
            found.append((text, expected, got))
    return found
