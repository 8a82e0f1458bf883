"""The few JavaScript value semantics SPEC-0007's arbiter relies on.

The arbiter is TypeScript running on V8; these helpers give the same answers
for frontmatter values loaded from YAML: ``String(x)``, ``Number(x)``,
``new Date(x)``, ``String.prototype.trim``, ``split(/\\s+/)``, UTF-16 lengths
and slices, and JavaScript's default string sort order.  ``String(x)`` and
``Number(x)`` are checked against node on generated values by the tens of
thousands (tests/test_jsvalue.py).
"""

from __future__ import annotations

import math
import re
import time

from ..text.firstuse import OnFirstUse
from ..records import record
from .dates import parse_date, time_clip
from .regexp import JS_WHITESPACE


class _Undefined:
    """JavaScript's ``undefined``: a frontmatter field that is absent."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED = _Undefined()


@record(frozen=True, slots=True)
class JsDate:
    """A JavaScript Date: milliseconds since the epoch, or NaN for an invalid date."""

    ms: float

    def __reduce__(self):  # pickled by value (the parse cache holds thousands)
        return (JsDate, (self.ms,))

    @property
    def valid(self) -> bool:
        return not math.isnan(self.ms)

    def iso(self) -> str:
        """``toISOString()``: a year from 0 to 9999 in four digits, any other signed in six (``+010000``, ``-000001``)."""
        if not self.valid:
            return "Invalid Date"
        seconds, millis = divmod(int(self.ms), 1000)
        moment = time.gmtime(seconds)
        year = moment.tm_year
        shown = f"{year:04d}" if 0 <= year <= 9999 else f"{'+' if year > 0 else '-'}{abs(year):06d}"
        return f"{shown}-{moment.tm_mon:02d}-{moment.tm_mday:02d}T{moment.tm_hour:02d}:{moment.tm_min:02d}:{moment.tm_sec:02d}.{millis:03d}Z"


_JS_SPACE_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"
_SPLIT_RE = re.compile(f"{_JS_SPACE_CLASS}+")
_PROTOTYPE_KEYS = frozenset(
    {
        "constructor",
        "__proto__",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toLocaleString",
        "toString",
        "valueOf",
    }
)


def is_prototype_key(key: str) -> bool:
    """Whether ``{}[key]`` finds something on Object.prototype (a plain object is not empty there)."""
    return key in _PROTOTYPE_KEYS


def js_trim(text: str) -> str:
    # str.strip, not a regex: ``\s+$`` retries every run of spaces to the end (quadratic)
    return text.strip(JS_WHITESPACE)


def js_split_whitespace(text: str) -> list[str]:
    """``text.split(/\\s+/)``: leading or trailing white space yields an empty word."""
    return _SPLIT_RE.split(text)


def js_number_to_string(x: float) -> str:
    """``Number.prototype.toString()`` (ECMAScript Number::toString, radix 10)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        try:
            x = float(x)
        except OverflowError:
            return "Infinity" if x > 0 else "-Infinity"
    if math.isnan(x):
        return "NaN"
    if x == 0:
        return "0"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x < 0:
        return "-" + js_number_to_string(-x)
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, frac = mantissa.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    # n: position of the decimal point relative to the digit string
    shift = int(exponent) if exponent else 0
    if whole == "0":  # 0.000ddd: the point sits before the leading zeros of the fraction
        n = shift - (len(frac) - len(frac.lstrip("0")))
    else:
        n = len(whole) + shift
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    sign = "+" if n - 1 >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{sign}{abs(n - 1)}"


# StringToNumber's grammar (ECMAScript StringNumericLiteral): no separators, no "inf" or "nan",
# a sign only on decimals, white space is JavaScript's (trimmed before)
_DECIMAL_LITERAL = OnFirstUse(r"[+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_NON_DECIMAL_LITERAL = OnFirstUse(r"0(?:[xX](?P<x>[0-9a-fA-F]+)|[oO](?P<o>[0-7]+)|[bB](?P<b>[01]+))")


def js_string_to_number(text: str) -> float:
    """``Number(text)`` for a string, exactly (correctly rounded; too large is Infinity, not an error)."""
    text = text.strip(JS_WHITESPACE)
    if text == "":
        return 0.0
    if _DECIMAL_LITERAL.fullmatch(text):
        return float(text)  # Python's parse of this grammar is correctly rounded, and gives inf past the range
    match = _NON_DECIMAL_LITERAL.fullmatch(text)
    if match is None:
        return math.nan
    base, digits = next((b, d) for b, d in zip((16, 8, 2), match.group("x", "o", "b")) if d is not None)
    try:
        return float(int(digits, base))  # a power-of-two base has no digit limit; rounding is to nearest, ties to even
    except OverflowError:
        return math.inf


def js_to_number(value: object) -> float:
    """``Number(value)`` for values loaded from YAML (an object is read through ``String(value)``, a date is its time)."""
    if value is UNDEFINED:
        return math.nan
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, float):
        return value
    if isinstance(value, str):
        return js_string_to_number(value)
    if isinstance(value, JsDate):
        return value.ms
    return js_string_to_number(js_to_string(value))  # ToPrimitive: an array joins, a mapping is "[object Object]"


def js_to_integer_or_infinity(value: object) -> float:
    """``ToIntegerOrInfinity``: NaN is 0, infinities stay, the rest is truncated (as ``slice`` reads its arguments)."""
    number = js_to_number(value)
    if math.isnan(number):
        return 0.0
    if math.isinf(number):
        return number
    return float(math.trunc(number)) + 0.0  # no negative zero


def js_to_string(value: object) -> str:
    """``String(value)`` for values loaded from YAML."""
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number_to_string(value)
    if isinstance(value, str):
        return value
    if isinstance(value, JsDate):
        return js_date_to_string(value)
    if isinstance(value, (bytes, bytearray)):  # !!binary is a Uint8Array
        return ",".join(str(b) for b in value)
    if isinstance(value, list):
        return ",".join("" if v is None or v is UNDEFINED else js_to_string(v) for v in value)
    return "[object Object]"


def display_value(value: object) -> str:
    """A YAML value for people: dates as ISO 8601, lists and mappings spelled out, the rest as String() does."""
    if isinstance(value, JsDate):
        return value.iso()
    if isinstance(value, list):
        return "[" + ", ".join(display_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {display_value(v)}" for k, v in value.items()) + "}"
    return js_to_string(value)


def js_date_to_string(date: JsDate) -> str:
    """``Date.prototype.toString()`` in the local time zone (V8's format)."""
    if not date.valid:
        return "Invalid Date"
    seconds = date.ms / 1000
    from datetime import datetime  # only to say a date in the local zone

    local = datetime.fromtimestamp(seconds).astimezone()
    offset = local.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset else 0
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    zone = local.tzname() or ""
    zone_name = "Coordinated Universal Time" if zone in ("UTC", "GMT") and minutes == 0 else zone
    return local.strftime("%a %b %d %Y %H:%M:%S") + f" GMT{sign}{minutes // 60:02d}{minutes % 60:02d} ({zone_name})"


def type_name(value: object) -> str:
    """A YAML value's type in words, for messages: "number", "list", "mapping", …"""
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, JsDate):
        return "date"
    return type(value).__name__


def js_truthy(value: object) -> bool:
    if value is UNDEFINED or value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True


# --------------------------------------------------------------------------
# Dates
# --------------------------------------------------------------------------

# Date.parse is V8's, legacy parser included (jsdate.py).


def js_new_date(value: object) -> JsDate:
    """``new Date(value)`` for values loaded from YAML."""
    if isinstance(value, JsDate):
        return value
    if value is UNDEFINED:
        return JsDate(math.nan)
    if value is None or value is False:
        return JsDate(0.0)
    if value is True:
        return JsDate(1.0)
    if isinstance(value, (int, float)):
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            return JsDate(math.nan)
        return JsDate(time_clip(float(math.trunc(number))))
    if isinstance(value, str):
        return JsDate(parse_date(value))
    # any other object (a list, a Uint8Array from !!binary, a mapping) is turned into its text, then parsed
    return JsDate(parse_date(js_to_string(value)))


# --------------------------------------------------------------------------
# UTF-16
# --------------------------------------------------------------------------


_ASTRAL = OnFirstUse("[\U00010000-\U0010ffff]")


def utf16_length(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def utf16_units(text: str) -> str:
    """The string with astral characters as surrogate pairs (one Python char per UTF-16 unit)."""
    if text.isascii() or not _ASTRAL.search(text):
        return text
    return "".join(
        c if ord(c) <= 0xFFFF else chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF))
        for c in text
    )


def from_utf16_units(units: str) -> str:
    """Rejoin surrogate pairs; a lone surrogate stays as it is (as in a JavaScript string)."""
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def utf16_sort_key(name: str) -> bytes:
    """JavaScript's default ``sort()`` order: by UTF-16 code units."""
    return name.encode("utf-16-be", "surrogatepass")


def replace_lone_surrogates(text: str) -> str:
    """What a JavaScript runtime writes for a lone surrogate when it encodes UTF-8: U+FFFD."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)
