"""``new Date(string)`` is V8's: every generated string gets node's answer, NaN included.

The strings are the forms people write in frontmatter (Jekyll's ``2026-11-21 10:00:00 +0100``,
``Nov 21, 2026``, RFC 2822, ``Date.prototype.toString``), with time zone names and offsets in
every spelling, two-digit years, month names in three languages, weekday prefixes and
parenthesised comments, then mutated: spacing, case, separators, out-of-range fields,
leading and trailing text (tests/dategen.py). bench/dates.py runs the same comparison on a
larger sample and on every date of the real-world corpus.
"""

from __future__ import annotations

import math
import time

import pytest

from dategen import date_strings, differences, node_times
from rawko_tui.core.js.dates import parse_date

# The forms of issue reports and real frontmatter, each of which once read as NaN here
PEOPLES_FORMS = [
    "2026-11-21 10:00:00 +0100", "2026-11-21 9:58:26 +0800", "2026-11-21 10:00:00 Z", "2026-11-21 10:00:00 UTC",
    "2026-11-21 10:00:00 GMT", "2026-11-21 10:00:00 +01:00", "2026/11/21", "Nov 21, 2026", "21 Nov 2026",
    "Sat, 21 Nov 2026 10:00:00 GMT", "Sat, 21 Nov 2026 10:00:00 +0000", "November 21, 2026 10:00 PM",
    "21 novembre 2026", "2026-11-21T10:00:00Z", "2025-13-45T10:00:00Z", "2026-11-21", "12", "Tue Nov 24 2026 10:00:00 GMT+0100 (CET)",
]


GENERATED = 20_000


@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin"])
def test_every_generated_date_string_reads_as_node_reads_it(oracle, monkeypatch, zone):
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    strings = PEOPLES_FORMS + date_strings(GENERATED, seed=2026 if zone == "UTC" else 7)
    want = node_times(oracle.node, strings, zone)
    assert sum(w is not None for w in want) > GENERATED // 5  # the sample is not all NaN
    assert differences(strings, want) == []


def test_local_times_around_daylight_saving_changes_read_as_node_reads_them(oracle, monkeypatch):
    strings = [
        f"{year}-{day}{sep}{clock}"
        for year in (1900, 1969, 2026, 2038, 2100, 10000)
        for day in ("03-29", "10-25", "11-01", "03-08")
        for sep in ("T", " ")
        for clock in ("01:30", "02:00", "02:30", "03:00", "23:59")
    ]
    for zone in ("Europe/Berlin", "America/New_York", "Australia/Lord_Howe"):
        monkeypatch.setenv("TZ", zone)
        time.tzset()
        assert differences(strings, node_times(oracle.node, strings, zone)) == [], zone


def test_the_forms_people_write_are_dates_not_nan():
    # The oracle test above is the authority; this one reads without node and names the cases
    for text in PEOPLES_FORMS[:-4]:
        assert not math.isnan(parse_date(text)), text
    assert parse_date("2026-11-21 10:00:00 +0100") == parse_date("2026-11-21T09:00:00Z")
    assert parse_date("Nov 21, 2026") == parse_date("2026-11-21T00:00:00")  # local midnight, as in V8
    assert math.isnan(parse_date("2025-13-45T10:00:00Z"))  # an impossible ISO date is NaN in V8 (js-yaml rolls it over)
    assert parse_date("12") == parse_date("2001-12-01T00:00:00")  # a lone number is a month of 2001


def test_a_zone_changed_in_the_process_is_never_answered_from_another_zones_reading(oracle, monkeypatch):
    # New York and Indianapolis share their names and offsets today, not in 2000
    for zone in ("America/New_York", "America/Indiana/Indianapolis", "Europe/Amsterdam", "Europe/Paris"):
        monkeypatch.setenv("TZ", zone)
        time.tzset()
        strings = ["2000-07-01T12:00", "1985-07-01 12:00", "2026-03-29T02:30"]
        assert differences(strings, node_times(oracle.node, strings, zone)) == [], zone


def test_an_object_becomes_its_text_before_it_is_read_as_a_date():
    from rawko_tui.core.js.values import js_new_date

    assert js_new_date(b"\x01").ms == parse_date("1")  # !!binary AQ== is a Uint8Array: String() gives "1"
    assert js_new_date([2026, 1]).ms == parse_date("2026,1")
    assert math.isnan(js_new_date({"a": 1}).ms)  # "[object Object]"


def test_every_generated_time_value_is_written_as_node_writes_it(oracle):
    """``JsDate.iso`` is ``toISOString()``: 20,000 time values over the whole range a Date holds (±8.64e15 ms),
    crowded about the years where the form changes (0, 1000, 9999 to 10000, the epoch, a negative year), against
    node's own. A year outside 0 to 9999 is signed and six digits long; one below 1000 keeps its leading zeros."""
    import random

    from rawko_tui.core.js.values import JsDate

    rng = random.Random(2026)
    limit = 8_640_000_000_000_000
    year_starts = [-62_198_755_200_000, -62_167_219_200_000, -30_610_224_000_000, 0, 253_402_300_800_000]  # -1, 0, 1000, 1970, 10000
    values = [-limit, limit, -1, 1, 999, -999]
    values += [rng.randint(-limit, limit) for _ in range(10_000)]
    values += [start + rng.randint(-10**11, 10**11) for start in year_starts for _ in range(2_000)]
    want = oracle.run([["iso", ms] for ms in values], "value_probe.js")
    assert None not in want
    assert [(ms, w) for ms, w in zip(values, want) if JsDate(float(ms)).iso() != w] == []
