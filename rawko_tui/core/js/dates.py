"""``Date.parse(text)`` as V8 (node, Deno) computes it, the legacy parser included.

V8 first reads the ES5 ISO form (``2026-11-21T10:00:00Z``); whatever is left goes
to its legacy parser, which is older than any standard and accepts what people
write in frontmatter: ``2026-11-21 10:00:00 +0100``, ``2026/11/21``,
``Nov 21, 2026``, ``Mon, 21 Nov 2026 10:00:00 GMT``, ``21 Nov 2026 UTC``.
Its rules, as V8 documents them in ``src/date/dateparser-inl.h``:

- words before the first number are ignored; text in parentheses is ignored;
- a number followed by ``:`` is a time field, ``n::`` adds a zero second,
  ``n.`` is seconds followed by milliseconds;
- any other number is a date field; three of them are year-month-day when the
  first cannot be a day, else month-day-year; years 0-49 mean 2000-2049 and
  50-99 mean 1950-1999;
- a word whose first three letters are a month's is that month
  (``Novembre``, ``mayonnaise``); ``am``/``pm`` after a time shift it;
- ``UT``, ``UTC``, ``GMT``, ``Z`` and the six US zones (``EST`` ...) set the
  offset, as does a sign after a time or after UTC: ``+01``, ``+0100``,
  ``+1:`` (the minutes after a colon are read as the next number);
- after the first number, any other word, a stray sign or ``)`` makes the
  whole string NaN.

Only the first nine digits of a number count, a NUL character ends the text,
and everything from ``A`` upwards (all non-ASCII too) is a word character.
The tests compare every answer with node's ``new Date(s).getTime()`` on tens of
thousands of generated strings (tests/test_jsdate.py).
"""

from __future__ import annotations

import functools
import math
import os
import re
import time
from ..records import record

# Token kinds
_NUMBER, _SYMBOL, _SPACE, _END, _UNKNOWN, _INVALID, _WORD = range(7)
# Word kinds (V8's KeywordType)
_NOT_A_KEYWORD, _MONTH, _ZONE, _TIME_SEPARATOR, _AM_PM = range(5)

_KEYWORDS: tuple[tuple[str, int, int], ...] = (
    *((name, _MONTH, number) for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)),
    ("am", _AM_PM, 0), ("pm", _AM_PM, 12),
    ("ut", _ZONE, 0), ("utc", _ZONE, 0), ("z", _ZONE, 0), ("gmt", _ZONE, 0),
    ("cdt", _ZONE, -5), ("cst", _ZONE, -6), ("edt", _ZONE, -4), ("est", _ZONE, -5),
    ("mdt", _ZONE, -6), ("mst", _ZONE, -7), ("pdt", _ZONE, -7), ("pst", _ZONE, -8),
    ("t", _TIME_SEPARATOR, 0),
)
_KEYWORD_PREFIXES = [(tuple(ord(c) for c in name.ljust(3, "\0")), kind, value) for name, kind, value in _KEYWORDS]

_SIGNIFICANT_DIGITS = 9  # digits after the ninth are skipped, not counted
# JavaScript's white space (it ends a word) and line terminators (which do not end one, but are skipped)
_WHITE_SPACE = frozenset((0x09, 0x0B, 0x0C, 0x20, 0xA0, 0x1680, 0x202F, 0x205F, 0x3000, 0xFEFF, *range(0x2000, 0x200B)))
_SPACE_CHARS = _WHITE_SPACE | {0x0A, 0x0D, 0x2028, 0x2029}
_SMI_MAX = 2**31 - 1  # a small integer on 64-bit builds without pointer compression (node, Deno)
_MAX_TIME_MS = 8.64e15
_MAX_TIME_BEFORE_UTC_MS = _MAX_TIME_MS + 864_000_000  # ten days of slack before the zone is applied
_MIN_YEAR, _MAX_YEAR = -1_000_000, 1_000_000


def _is_month(x: int) -> bool:
    return 1 <= x <= 12


def _is_day(x: int) -> bool:
    return 1 <= x <= 31


def _is_minute(x: int) -> bool:
    return 0 <= x <= 59


def _is_hour(x: int) -> bool:
    return 0 <= x <= 23


class _Token:
    __slots__ = ("kind", "value", "length", "word")

    def __init__(self, kind: int, value: int = -1, length: int = 0, word: int = _NOT_A_KEYWORD):
        self.kind, self.value, self.length, self.word = kind, value, length, word

    def is_number(self, length: int | None = None) -> bool:
        return self.kind == _NUMBER and (length is None or self.length == length)

    def is_symbol(self, symbol: str) -> bool:
        return self.kind == _SYMBOL and self.value == ord(symbol)

    def is_sign(self) -> bool:
        return self.kind == _SYMBOL and self.value in (0x2B, 0x2D)

    def sign(self) -> int:
        return 44 - self.value  # "+" is 43, "-" is 45

    def is_word(self, word_kind: int) -> bool:
        return self.kind == _WORD and self.word == word_kind

    def is_z(self) -> bool:
        return self.is_word(_ZONE) and self.length == 1 and self.value == 0


class _Scanner:
    """V8's DateStringTokenizer over UTF-16 code units, with one token of look-ahead."""

    def __init__(self, units: list[int]):
        self.units = units
        self.index = 0
        self.ch = 0
        self._advance()
        self.peek = self._scan()

    def _advance(self) -> None:
        self.ch = self.units[self.index] if self.index < len(self.units) else 0
        self.index += 1

    def next(self) -> _Token:
        token = self.peek
        self.peek = self._scan()
        return token

    def skip_symbol(self, symbol: str) -> bool:
        if self.peek.is_symbol(symbol):
            self.peek = self._scan()
            return True
        return False

    def _scan(self) -> _Token:
        ch = self.ch
        if ch == 0:  # the end, or a NUL character: V8 stops reading there
            return _Token(_END)
        if 0x30 <= ch <= 0x39:
            value = digits = 0
            while self.ch == 0x30:  # leading zeros count in the length, not in the nine digits
                digits += 1
                self._advance()
            significant = 0
            while 0x30 <= self.ch <= 0x39:
                if significant < _SIGNIFICANT_DIGITS:
                    value = value * 10 + self.ch - 0x30
                significant += 1
                digits += 1
                self._advance()
            return _Token(_NUMBER, value, digits)
        if ch in (0x3A, 0x2D, 0x2B, 0x2E, 0x29):  # : - + . )
            self._advance()
            return _Token(_SYMBOL, ch, 1)
        if ch >= 0x41 and ch not in _WHITE_SPACE:  # a word: "A" and everything above it but white space
            prefix = [0, 0, 0]
            length = 0
            while self.ch >= 0x41 and self.ch not in _WHITE_SPACE:
                if length < 3:
                    prefix[length] = self.ch | 0x20  # V8's AsciiAlphaToLower
                length += 1
                self._advance()
            kind, value = _lookup(tuple(prefix), length)
            return _Token(_WORD, value, length, kind)
        if ch in _SPACE_CHARS:
            self._advance()
            return _Token(_SPACE, -1, 1)
        if ch == 0x28:  # "(": skip to the matching ")" or the end
            balance = 0
            while True:
                if self.ch == 0x29:
                    balance -= 1
                elif self.ch == 0x28:
                    balance += 1
                self._advance()
                if not (balance > 0 and self.ch):
                    break
            return _Token(_UNKNOWN, -1, 1)
        self._advance()
        return _Token(_UNKNOWN, -1, 1)


def _lookup(prefix: tuple[int, int, int], length: int) -> tuple[int, int]:
    for letters, kind, value in _KEYWORD_PREFIXES:
        # a word longer than its keyword counts only for month names ("November", not "Zulu")
        if letters == prefix and (length <= 3 or kind == _MONTH):
            return kind, value
    return _NOT_A_KEYWORD, 0


class _Day:
    def __init__(self) -> None:
        self.fields: list[int] = []
        self.digits: list[int] = []  # how many digits each field was written with
        self.named_month: int | None = None
        self.iso = False

    def add(self, n: int, digits: int = 0) -> bool:
        if len(self.fields) < 3:
            self.fields.append(n)
            self.digits.append(digits)
            return True
        return False

    def write(self) -> tuple[int, int, int, str, int, int] | None:
        """(year, month 1-12, day, the order read, the year's written digits: 0 when there was none, the year as written)."""
        if not self.fields:
            return None
        # Missing fields become 1 before the order is chosen, so "12" is month 12, day 1, year 1 (2001)
        first, second, third = self.fields + [1] * (3 - len(self.fields))
        digits = self.digits + [0] * (3 - len(self.digits))
        if self.named_month is None:
            if self.iso or not _is_day(first):
                year, month, day, order, year_digits = first, second, third, "year-month-day", digits[0]
            else:
                month, day, year, order, year_digits = first, second, third, "month-day-year", digits[2]
        else:
            month = self.named_month
            if not _is_day(first):
                year, day, order, year_digits = first, second, "year-day", digits[0]
            else:
                day, year, order, year_digits = first, second, "day-year", digits[1]
        written = year
        if not self.iso:
            if 0 <= year <= 49:
                year += 2000
            elif 50 <= year <= 99:
                year += 1900
        if not (_is_month(month) and _is_day(day)):
            return None
        return year, month, day, order, year_digits, written


class _Time:
    def __init__(self) -> None:
        self.fields: list[int] = []
        self.hour_offset: int | None = None

    def empty(self) -> bool:
        return not self.fields

    def expecting(self, n: int) -> bool:
        index = len(self.fields)
        return (index in (1, 2) and _is_minute(n)) or (index == 3 and 0 <= n <= 999)

    def add(self, n: int) -> bool:
        if len(self.fields) < 4:
            self.fields.append(n)
            return True
        return False

    def add_final(self, n: int) -> bool:
        if not self.add(n):
            return False
        self.fields += [0] * (4 - len(self.fields))
        return True

    def write(self) -> tuple[int, int, int, int] | None:
        hour, minute, second, millisecond = self.fields + [0] * (4 - len(self.fields))
        if self.hour_offset is not None:
            if not 0 <= hour <= 12:
                return None
            hour = hour % 12 + self.hour_offset
        if not (_is_hour(hour) and _is_minute(minute) and _is_minute(second) and 0 <= millisecond <= 999):
            if hour != 24 or minute or second or millisecond:  # 24:00 is the end of the day
                return None
        return hour, minute, second, millisecond


class _Zone:
    def __init__(self) -> None:
        self.sign: int | None = None
        self.hour: int | None = None
        self.minute: int | None = None

    def set(self, hours: int) -> None:
        self.sign = -1 if hours < 0 else 1
        self.hour = hours * self.sign
        self.minute = 0

    def expecting(self, n: int) -> bool:
        return self.hour is not None and self.minute is None and _is_minute(n)

    def is_utc(self) -> bool:
        return self.hour == 0 and self.minute == 0

    def empty(self) -> bool:
        return self.hour is None

    def write(self) -> tuple[bool, int | None]:
        """(valid, offset in seconds or None when no zone was given)."""
        if self.sign is None:
            return True, None
        # V8 adds in unsigned 32-bit arithmetic and refuses what exceeds a small integer
        total = ((self.hour or 0) * 3600 + (self.minute or 0) * 60) & 0xFFFFFFFF
        if total > _SMI_MAX:
            return False, None
        return True, -total if self.sign < 0 else total


def _read_milliseconds(token: _Token) -> int:
    """The first three significant digits, leading zeros included ("05" is 50 ms)."""
    number, length = token.value, token.length
    if length == 1:
        return number * 100
    if length == 2:
        return number * 10
    if length > 3:
        return number // 10 ** (min(length, _SIGNIFICANT_DIGITS) - 3)
    return number


def _parse_iso(scanner: _Scanner, day: _Day, clock: _Time, zone: _Zone) -> _Token:
    """The ES5 form; returns the first token it did not use (END when it took everything, INVALID to fail)."""
    if scanner.peek.is_sign():
        sign_token = scanner.next()
        if not scanner.peek.is_number(6):
            return sign_token
        year = scanner.next().value
        if sign_token.sign() < 0 and year == 0:
            return sign_token
        day.add(sign_token.sign() * year, 6)
    elif scanner.peek.is_number(4):
        day.add(scanner.next().value, 4)
    else:
        return scanner.next()
    if scanner.skip_symbol("-"):
        if not scanner.peek.is_number(2) or not _is_month(scanner.peek.value):
            return scanner.next()
        day.add(scanner.next().value, 2)
        if scanner.skip_symbol("-"):
            if not scanner.peek.is_number(2) or not _is_day(scanner.peek.value):
                return scanner.next()
            day.add(scanner.next().value, 2)
    if not scanner.peek.is_word(_TIME_SEPARATOR):
        if scanner.peek.kind != _END:
            return scanner.next()
    else:
        invalid = _Token(_INVALID)
        scanner.next()
        if not scanner.peek.is_number(2) or not 0 <= scanner.peek.value <= 24:
            return invalid
        hour_is_24 = scanner.peek.value == 24
        clock.add(scanner.next().value)
        if not scanner.skip_symbol(":"):
            return invalid
        if not scanner.peek.is_number(2) or not _is_minute(scanner.peek.value) or (hour_is_24 and scanner.peek.value > 0):
            return invalid
        clock.add(scanner.next().value)
        if scanner.skip_symbol(":"):
            if not scanner.peek.is_number(2) or not _is_minute(scanner.peek.value) or (hour_is_24 and scanner.peek.value > 0):
                return invalid
            clock.add(scanner.next().value)
            if scanner.skip_symbol("."):
                if not scanner.peek.is_number() or (hour_is_24 and scanner.peek.value > 0):
                    return invalid
                clock.add(_read_milliseconds(scanner.next()))
        if scanner.peek.is_z():
            scanner.next()
            zone.set(0)
        elif scanner.peek.is_sign():
            zone.sign = scanner.next().sign()
            if scanner.peek.is_number(4):
                hours, minutes = divmod(scanner.next().value, 100)
                if not _is_hour(hours) or not _is_minute(minutes):
                    return invalid
                zone.hour, zone.minute = hours, minutes
            else:
                if not scanner.peek.is_number(2) or not _is_hour(scanner.peek.value):
                    return invalid
                zone.hour = scanner.next().value
                if not scanner.skip_symbol(":"):
                    return invalid
                if not scanner.peek.is_number(2) or not _is_minute(scanner.peek.value):
                    return invalid
                zone.minute = scanner.next().value
        if scanner.peek.kind != _END:
            return invalid
    # date-only forms are UTC, date-time forms without an offset are local time
    if zone.empty() and clock.empty():
        zone.set(0)
    day.iso = True
    return _Token(_END)


@record(frozen=True)
class DateFields:
    """What V8's parser read from a string, before the fields are turned into a time."""

    year: int
    month: int  # 1-12
    day: int  # 1-31: may not exist in that month (February 30 rolls into March)
    hour: int  # 0-24: 24:00 is the next day's midnight
    minute: int
    second: int
    millisecond: int
    offset_seconds: int | None  # None: no zone written, the host's local time applies
    iso: bool  # read as the ES5 ISO form (else the legacy parser)
    order: str  # "year-month-day", "month-day-year", "year-day" or "day-year" (a named month)
    year_digits: int  # how many digits the year was written with; 0 when no year was written
    year_written: int  # the year before V8 makes 0-49 into 2000-2049 and 50-99 into 1950-1999 (1 when none was written)
    date_numbers: int  # how many numbers of the date were written (1-3); V8 supplies the rest


def parse_fields(text: str) -> DateFields | None:
    """V8's DateParser on ``text``, or None where ``Date.parse`` gives NaN before any arithmetic."""
    units = list(memoryview(text.encode("utf-16-le", "surrogatepass")).cast("H"))
    scanner = _Scanner(units)
    day, clock, zone = _Day(), _Time(), _Zone()
    token = _parse_iso(scanner, day, clock, zone)
    if token.kind == _INVALID:
        return None
    has_read_number = bool(day.fields)
    while token.kind != _END:
        if token.kind == _NUMBER:
            has_read_number = True
            n = token.value
            if scanner.skip_symbol(":"):
                if scanner.skip_symbol(":"):  # "n::" is hours (or minutes) and a zero
                    if not clock.empty():
                        return None
                    clock.add(n)
                    clock.add(0)
                else:
                    if not clock.add(n):
                        return None
                    if scanner.peek.is_symbol("."):
                        scanner.next()
            elif scanner.skip_symbol(".") and clock.expecting(n):  # the skip happens whatever follows
                clock.add(n)
                if not scanner.peek.is_number():
                    return None
                clock.add_final(_read_milliseconds(scanner.next()))
            elif zone.expecting(n):
                zone.minute = n
            elif clock.expecting(n):
                clock.add_final(n)
                peek = scanner.peek
                if peek.kind not in (_END, _SPACE) and not peek.is_z() and not peek.is_sign():
                    return None
            else:
                if not day.add(n, token.length):
                    return None
                scanner.skip_symbol("-")
        elif token.kind == _WORD:
            kind, value = token.word, token.value
            if kind == _AM_PM and not clock.empty():
                clock.hour_offset = value
            elif kind == _MONTH:
                day.named_month = value
                scanner.skip_symbol("-")
            elif kind == _ZONE and has_read_number:
                zone.set(value)
            else:
                if has_read_number:  # a word after the first number spoils the date
                    return None
                if scanner.peek.is_number():  # and it must not touch the first number
                    return None
        elif token.is_sign() and (zone.is_utc() or not clock.empty()):
            zone.sign = token.sign()
            n = length = 0
            if scanner.peek.is_number():
                number = scanner.next()
                n, length = number.value, number.length
            has_read_number = True
            if scanner.peek.is_symbol(":"):
                zone.hour, zone.minute = n, None  # the minutes come as the next number
            elif length in (1, 2):
                zone.hour, zone.minute = n, 0
            elif length in (3, 4):
                zone.hour, zone.minute = n // 100, n % 100
            else:
                return None
        elif (token.is_sign() or token.is_symbol(")")) and has_read_number:
            return None
        token = scanner.next()
    date = day.write()
    clock_fields = clock.write()
    valid, offset = zone.write()
    if date is None or clock_fields is None or not valid:
        return None
    year, month, day_of_month, order, year_digits, year_written = date
    return DateFields(year, month, day_of_month, *clock_fields, offset, day.iso, order, year_digits, year_written, len(day.fields))


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400  # Python's floor division: no correction for negative years
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def utc_ms(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, ms: int = 0) -> float:
    """``Date.UTC`` with JavaScript's overflow (month 13 rolls into the next year, day 45 into the next month)."""
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    days = _days_from_civil(year, month, 1) + (day - 1)
    return float(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + ms)


def _offset_at(instant: int) -> int | None:
    """The host zone's UTC offset in seconds at an instant (seconds since the epoch)."""
    try:
        return time.localtime(instant).tm_gmtoff
    except (OverflowError, OSError, ValueError):
        return None


def local_offset_ms(wall_ms: float) -> float:
    """Milliseconds to subtract from a local wall-clock time (written as if it were UTC) to get UTC, as V8 asks
    ICU for it. A wall time that happens twice (clocks going back) is the first one; one that never happens
    (clocks going forward) is read with the offset from before the change: ICU's "former" rule.
    """
    wall = int(wall_ms) // 1000
    before, after = _offset_at(wall - 86_400), _offset_at(wall + 86_400)
    if before is None or after is None:
        return 0.0
    if before != after and _offset_at(wall - before) != before and _offset_at(wall - after) == after:
        return after * 1000.0  # a change a day earlier, not at this wall time
    return before * 1000.0


def time_clip(ms: float) -> float:
    return float(math.trunc(ms)) if abs(ms) <= _MAX_TIME_MS else math.nan


def parse_date(text: str) -> float:
    """``Date.parse(text)``: milliseconds since the epoch, or NaN."""
    # A store repeats its dates in every preview; the host zone is part of the key (tests change it)
    return _parse_date_in_zone(text, os.environ.get("TZ"), time.tzname, time.timezone, time.altzone)


# The ES5 form as nearly every arbiter date is written (2026-01-23 or 2026-01-23T10:30:00Z): read here by
# arithmetic, the same answer as the parser below (the differential tests cover both), five times faster.
_COMMON_ISO = re.compile(r"(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(Z|[+-]\d\d:\d\d)?)?", re.ASCII)


def _common_iso(text: str) -> float | None:
    match = _COMMON_ISO.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    month, day = int(month), int(day)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None  # the full parser says what V8 makes of it
    if hour is None:
        return utc_ms(int(year), month, day)
    hour, minute, second = int(hour), int(minute), int(second or 0)
    millisecond = int(fraction[:3].ljust(3, "0")) if fraction else 0
    if hour > 24 or minute > 59 or second > 59 or (hour == 24 and (minute or second or millisecond)) or zone is None:
        return None
    ms = utc_ms(int(year), month, day, hour, minute, second, millisecond)
    if zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        zone_hour, zone_minute = int(zone[1:3]), int(zone[4:6])
        if zone_hour > 23 or zone_minute > 59:
            return None
        ms -= sign * (zone_hour * 60 + zone_minute) * 60_000
    return time_clip(ms)


@functools.lru_cache(maxsize=65_536)
def _parse_date_in_zone(text: str, *zone: object) -> float:
    common = _common_iso(text)
    if common is not None:
        return common
    fields = parse_fields(text)
    if fields is None:
        return math.nan
    offset = fields.offset_seconds
    if not _MIN_YEAR <= fields.year <= _MAX_YEAR:
        return math.nan
    ms = utc_ms(fields.year, fields.month, fields.day, fields.hour, fields.minute, fields.second, fields.millisecond)
    if offset is None:
        if not -_MAX_TIME_BEFORE_UTC_MS <= ms <= _MAX_TIME_BEFORE_UTC_MS:
            return math.nan
        ms -= local_offset_ms(ms)  # the wall clock is read in the host's zone
    else:
        ms -= offset * 1000.0
        if not -_MAX_TIME_MS <= ms <= _MAX_TIME_MS:
            return math.nan
    return time_clip(ms)


MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")


def days_in_month(year: int, month: int) -> int:
    return _days_from_civil(year + month // 12, month % 12 + 1, 1) - _days_from_civil(year, month, 1)


def rollover_note(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> str | None:
    """Words for a written date or time that does not exist and rolls into the next one, or None."""
    if not 1 <= month <= 12:
        return f"month {month} does not exist"
    if not 1 <= day <= days_in_month(year, month):
        return f"{MONTH_NAMES[month - 1]} {day} does not exist in {year}"
    if hour == 24 and not (minute or second):
        return "24:00 is the next day's midnight"
    if hour > 23 or minute > 59 or second > 59:
        return f"{hour:02d}:{minute:02d}:{second:02d} is not a time of day"
    return None


def reading_notes(text: str) -> list[tuple[bool, str]]:
    """Where V8 reads a date string differently from how it looks: (whether the date itself moves, words).

    Empty where it reads as written, and for strings it does not read at all (NaN).
    """
    fields = parse_fields(text)
    if fields is None:
        return []
    notes: list[tuple[bool, str]] = []
    if fields.year_digits == 0:
        notes.append((True, f"it has no year, and V8 supplies {fields.year}"))
    elif fields.year_digits <= 2 and not fields.iso:
        notes.append((True, f"V8 reads its two-digit year as {fields.year}"))
    elif fields.year != fields.year_written:  # "0099-12-31 10:00 Z": any year 0-99 outside the ISO form
        notes.append((True, f"V8 reads year {fields.year_written:0{fields.year_digits}d} as {fields.year}"))
    if fields.order == "month-day-year" and fields.date_numbers >= 2 and fields.month <= 12 and fields.day <= 12 and fields.month != fields.day:
        notes.append((True, f"V8 reads the month first: {MONTH_NAMES[fields.month - 1]} {fields.day}, not {MONTH_NAMES[fields.day - 1]} {fields.month}"))
    rolled = rollover_note(fields.year, fields.month, fields.day, fields.hour, fields.minute, fields.second)
    if rolled:
        notes.append((True, f"{rolled}, so it rolls over"))
    if fields.offset_seconds is None and not fields.iso:
        notes.append((False, "it names no time zone, so V8 reads it in the arbiter machine's local time"))
    return notes


_ISO_SHAPE = re.compile(r"[+-]?\d{4,6}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?", re.ASCII)


def parse_iso_date(text: str) -> float:
    """``Date.parse`` for what rawko-tui asks of a person (``--now``, ``--discovered-at``): ISO 8601 only.

    V8 would also take "12" (December 2001) or "Tuesday 5"; a typo there should be an error, not a date.
    """
    text = text.strip()
    return parse_date(text) if _ISO_SHAPE.fullmatch(text) else math.nan
