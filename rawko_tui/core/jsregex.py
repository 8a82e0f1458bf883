"""JavaScript regular expressions (flag ``i``, no ``u``), run in linear time.

SPEC-0007's arbiter builds patterns with ``new RegExp(source, "i")`` and runs
them on V8.  To say exactly what that arbiter decides, this module parses the
source with the ECMAScript grammar *including Annex B* (the lenient web
grammar V8 uses without the ``u`` flag), reports the same syntax errors, and
translates the pattern into RE2 syntax so that no user pattern can take more
than linear time.  Patterns RE2 cannot express (backreferences, lookaround,
repetition counts over 1000) run on the ``regex`` module under a time limit.

Such a pattern's answer has three values: a match, no match, or *undecided*
(``JsRegexUndecided``): the time given ran out, the pattern is larger than
the backtracking engine is given in-process, or it uses captures whose
meaning differs between that engine and V8 (``caveat``).  An undecided answer
is never reported as "no match"; ``RegexBudget`` spreads one total time over
every search of a ranking, and ``ANSWERS`` keeps answers decided elsewhere
(``regexdecide``'s worker processes) for the next ranking to use.

JavaScript semantics that differ from Python's and are reproduced here:

* matching works on UTF-16 code units: an astral character is two units, so
  ``.`` matches half of it.  Both the pattern and the text are mapped to
  code units; surrogate units are carried as plane-15 code points, which
  cannot otherwise occur in the mapped text.
* ``i`` compares ``Canonicalize(ch)`` (simple upper-casing that never maps a
  non-ASCII unit to ASCII), not Unicode case folding; literals and classes
  are expanded into explicit sets so the engines run case-sensitively.
* ``.`` excludes ``\\n``, ``\\r``, U+2028 and U+2029; ``$`` matches only at the
  very end; ``\\s`` is JavaScript's white-space set; ``\\d``/``\\w``/``\\b`` are
  ASCII.
"""

from __future__ import annotations

import bisect
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

from . import cache

# The time one ranking gives backtracking regexes, in total, unless told otherwise (the CLI's
# --regex-budget; the app gives a keystroke far less and decides the rest in a worker process)
DEFAULT_REGEX_BUDGET_SECONDS = 0.5
# A search given no budget (lint's probes) has this long: long enough for any sane
# pattern, short enough that nothing waits on a pathological one.
FALLBACK_TIMEOUT_SECONDS = 0.05
# The largest pattern (in parts of its parsed tree) the backtracking engine compiles in-process:
# compiling cannot be interrupted (100,000 alternatives took 74 s and 1.5 GB); a larger one is
# not even written out for it here, is undecided, and is decided when asked in a worker process
# with a memory limit (``regexdecide``). 5,000 parts compile in some 30 ms.
BACKTRACKING_MAX_PARTS = 5_000
# RE2's memory for one pattern that does not fit its default (the engine stays linear-time)
_RE2_LARGE_MAX_MEM = 64 << 20

_RE2_MAX_REPEAT = 1000
_SURROGATE_LO, _SURROGATE_HI = 0xD800, 0xDFFF
_SURROGATE_CARRIER = 0xF0000  # plane 15: where surrogate units travel

JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_LINE_TERMINATORS = (0x0A, 0x0D, 0x2028, 0x2029)


class JsRegexSyntaxError(ValueError):
    """The pattern is not a valid JavaScript regular expression (V8 would throw)."""


# Why a search is undecided (``JsRegexUndecided.kind``)
TIMEOUT = "timeout"  # the search ran for the time it was given and did not finish
BUDGET_SPENT = "budget-spent"  # not run: the ranking's time for backtracking regexes was spent before it
TOO_LARGE = "too-large"  # not run in-process: compiling it could take seconds and gigabytes
SEMANTICS = "semantics"  # the backtracking engine's captures differ from V8's here: its answer proves nothing
MEMORY = "memory"  # a worker ran out of the memory it is allowed (regexdecide)


class JsRegexUndecided(RuntimeError):
    """rawko-tui cannot say whether the pattern matches this text (``kind`` says why, ``reason`` in words).

    ``seconds``: the time the search was given, where time ran out.
    """

    def __init__(self, source: str, kind: str, reason: str, seconds: float | None = None):
        super().__init__(f"/{source}/: {reason}")
        self.source, self.kind, self.reason, self.seconds = source, kind, reason, seconds

    @property
    def decidable(self) -> bool:
        """Whether more time (or a worker process) could decide it: not when the engine's answer would prove nothing."""
        return self.kind != SEMANTICS


JsRegexTimeout = JsRegexUndecided  # the older name: whoever catches it catches every undecided search


Ranges = list[tuple[int, int]]  # sorted, disjoint, inclusive, in code-unit space


# --------------------------------------------------------------------------
# Character sets
# --------------------------------------------------------------------------


def _normalize(ranges: Ranges) -> Ranges:
    out: Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _complement(ranges: Ranges) -> Ranges:
    out: Ranges = []
    start = 0
    for lo, hi in _normalize(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= 0xFFFF:
        out.append((start, 0xFFFF))
    return out


def _contains(ranges: Ranges, unit: int) -> bool:
    i = bisect.bisect_right(ranges, (unit, 0x10FFFF)) - 1
    return i >= 0 and ranges[i][0] <= unit <= ranges[i][1]


_DIGIT: Ranges = [(0x30, 0x39)]
_WORD: Ranges = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_SPACE: Ranges = _normalize([(ord(c), ord(c)) for c in JS_WHITESPACE])
_DOT: Ranges = _complement([(u, u) for u in _LINE_TERMINATORS])
_CLASS_ESCAPES: dict[str, Ranges] = {
    "d": _DIGIT,
    "D": _complement(_DIGIT),
    "w": _WORD,
    "W": _complement(_WORD),
    "s": _SPACE,
    "S": _complement(_SPACE),
}


@functools.cache
def _case_groups() -> tuple[list[int], dict[int, tuple[int, ...]]]:
    """Units that ``Canonicalize`` (non-unicode, ignoreCase) makes equal to another unit.

    Returns the sorted list of such units and, for each, its whole group.
    """
    canon: dict[int, int] = {}
    for unit in range(0x10000):
        if _SURROGATE_LO <= unit <= _SURROGATE_HI:
            continue
        upper = chr(unit).upper()
        if len(upper) != 1:
            continue
        cu = ord(upper)
        if cu == unit or cu > 0xFFFF or (unit >= 128 and cu < 128):
            continue
        canon[unit] = cu
    members: dict[int, set[int]] = {}
    for unit, cu in canon.items():
        members.setdefault(cu, {cu}).add(unit)
    group_of: dict[int, tuple[int, ...]] = {}
    for group in members.values():
        ordered = tuple(sorted(group))
        for unit in ordered:
            group_of[unit] = ordered
    return sorted(group_of), group_of


@functools.lru_cache(maxsize=8192)
def _case_closure(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """All units equal under ``Canonicalize`` to some unit of the set."""
    cased, group_of = _case_groups()
    extra: Ranges = []
    for lo, hi in ranges:
        start = bisect.bisect_left(cased, lo)
        stop = bisect.bisect_right(cased, hi)
        for unit in cased[start:stop]:
            extra.extend((u, u) for u in group_of[unit])
    return tuple(_normalize(list(ranges) + extra)) if extra else ranges


# --------------------------------------------------------------------------
# Syntax tree
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    kind: str  # alt, seq, set, assert, group, look, backref, repeat
    children: tuple = ()
    ranges: tuple = ()  # for "set": the matching set (already case-closed)
    value: object = None  # assert: ^ $ b B; group: capture flag; look: = ! <= <!; backref: n
    min: int = 0
    max: int | None = None  # None = unbounded
    greedy: bool = True


def _to_units(text: str) -> list[int]:
    units: list[int] = []
    for ch in text:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            units.append(0xD800 + (cp >> 10))
            units.append(0xDC00 + (cp & 0x3FF))
        else:
            units.append(cp)
    return units


def _is_hex(u: int) -> bool:
    return 0x30 <= u <= 0x39 or 0x41 <= u <= 0x46 or 0x61 <= u <= 0x66


def _is_digit(u: int) -> bool:
    return 0x30 <= u <= 0x39


def _is_ascii_letter(u: int) -> bool:
    return 0x41 <= u <= 0x5A or 0x61 <= u <= 0x7A


class _Parser:
    """ECMAScript RegExp grammar, non-unicode mode with Annex B extensions."""

    def __init__(self, source: str, ignore_case: bool):
        self.src = _to_units(source)
        self.pos = 0
        self.ignore_case = ignore_case
        self.capture_count, self.group_names = self._prescan()
        self.has_named = bool(self.group_names)
        self.needs_backtracking = False
        self.max_count = 0
        self.opened = 0  # capture groups opened so far (their numbers, in order)
        self.open_groups: list[int] = []  # the capture groups the parser is inside
        self.notes: list[str] = []  # where Annex B (JavaScript's lenient web syntax) decided the meaning

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # -- helpers -------------------------------------------------------
    def _peek(self, offset: int = 0) -> int | None:
        i = self.pos + offset
        return self.src[i] if i < len(self.src) else None

    def _eat(self, unit: str) -> bool:
        if self._peek() == ord(unit):
            self.pos += 1
            return True
        return False

    def _error(self, message: str) -> JsRegexSyntaxError:
        return JsRegexSyntaxError(message)

    def _prescan(self) -> tuple[int, list[str]]:
        count, names, i, in_class = 0, [], 0, False
        src = self.src
        while i < len(src):
            u = src[i]
            if u == 0x5C:  # backslash
                i += 2
                continue
            if in_class:
                in_class = u != 0x5D
            elif u == 0x5B:
                in_class = True
            elif u == 0x28:
                if i + 1 < len(src) and src[i + 1] == 0x3F:  # (?
                    if i + 2 < len(src) and src[i + 2] == 0x3C and i + 3 < len(src) and src[i + 3] not in (0x3D, 0x21):
                        count += 1
                        end = i + 3
                        while end < len(src) and src[end] != 0x3E:
                            end += 1
                        names.append("".join(chr(c) for c in src[i + 3 : end]))
                else:
                    count += 1
            i += 1
        return count, names

    def _set(self, ranges: Ranges, negate: bool = False) -> Node:
        closed = tuple(_normalize(ranges))
        if self.ignore_case:
            closed = _case_closure(closed)
        if negate:
            closed = tuple(_complement(list(closed)))
        return Node("set", ranges=closed)

    def _char(self, unit: int) -> Node:
        return self._set([(unit, unit)])

    # -- grammar -------------------------------------------------------
    def parse(self) -> Node:
        node = self._disjunction()
        if self.pos < len(self.src):
            if self._peek() == 0x29:
                raise self._error("Unmatched ')'")
            raise self._error("Unexpected character")  # pragma: no cover - defensive
        return node

    def _disjunction(self) -> Node:
        alternatives = [self._alternative()]
        while self._eat("|"):
            alternatives.append(self._alternative())
        return alternatives[0] if len(alternatives) == 1 else Node("alt", tuple(alternatives))

    def _alternative(self) -> Node:
        terms: list[Node] = []
        while True:
            u = self._peek()
            if u is None or u in (0x7C, 0x29):  # | )
                break
            terms.append(self._term())
        return Node("seq", tuple(terms))

    def _term(self) -> Node:
        u = self._peek()
        # Assertions
        if u == 0x5E or u == 0x24:  # ^ $
            self.pos += 1
            self._no_quantifier_allowed()
            return Node("assert", value=chr(u))
        if u == 0x5C and self._peek(1) in (0x62, 0x42):  # \b \B
            self.pos += 2
            self._no_quantifier_allowed()
            return Node("assert", value=chr(self.src[self.pos - 1]))
        if u == 0x28 and self._peek(1) == 0x3F:  # (?
            kind = self._peek(2)
            if kind in (0x3D, 0x21):  # (?= (?!  -- Annex B: quantifiable
                self.pos += 3
                inner = self._disjunction()
                self._expect_close()
                self.needs_backtracking = True
                if self._peek() in (0x2A, 0x2B, 0x3F) or self._braced_quantifier_at(self.pos):
                    self._note("a quantifier on a lookahead is allowed only in JavaScript")
                return self._quantified(Node("look", (inner,), value="=" if kind == 0x3D else "!"))
            if kind == 0x3C and self._peek(3) in (0x3D, 0x21):  # (?<= (?<!
                self.pos += 4
                lookbehind = self._peek(-1)
                inner = self._disjunction()
                self._expect_close()
                self.needs_backtracking = True
                self._no_quantifier_allowed()
                return Node("look", (inner,), value="<=" if lookbehind == 0x3D else "<!")
        atom = self._atom()
        return self._quantified(atom)

    def _expect_close(self) -> None:
        if not self._eat(")"):
            raise self._error("Unterminated group")

    def _braced_quantifier_at(self, i: int) -> tuple[int, int | None, int] | None:
        """Parse ``{n}``, ``{n,}`` or ``{n,m}`` starting at ``i``; return (min, max, end)."""
        src = self.src
        if i >= len(src) or src[i] != 0x7B:
            return None
        j = i + 1
        start = j
        while j < len(src) and _is_digit(src[j]):
            j += 1
        if j == start:
            return None
        low = int("".join(chr(c) for c in src[start:j]))
        high: int | None = low
        if j < len(src) and src[j] == 0x2C:
            j += 1
            start = j
            while j < len(src) and _is_digit(src[j]):
                j += 1
            high = int("".join(chr(c) for c in src[start:j])) if j > start else None
        if j < len(src) and src[j] == 0x7D:
            return low, high, j + 1
        return None

    def _no_quantifier_allowed(self) -> None:
        u = self._peek()
        if u in (0x2A, 0x2B, 0x3F) or self._braced_quantifier_at(self.pos):
            raise self._error("Nothing to repeat")

    def _quantified(self, atom: Node) -> Node:
        u = self._peek()
        if u == 0x2A:
            low, high, end = 0, None, self.pos + 1
        elif u == 0x2B:
            low, high, end = 1, None, self.pos + 1
        elif u == 0x3F:
            low, high, end = 0, 1, self.pos + 1
        else:
            braced = self._braced_quantifier_at(self.pos)
            if braced is None:
                return atom
            low, high, end = braced
            if high is not None and high < low:
                raise self._error("numbers out of order in {} quantifier")
        self.pos = end
        greedy = not self._eat("?")
        self.max_count = max(self.max_count, low, high or 0)
        return Node("repeat", (atom,), min=low, max=high, greedy=greedy)

    def _atom(self) -> Node:
        u = self._peek()
        assert u is not None
        if u == 0x2E:  # .
            self.pos += 1
            return self._set(list(_DOT))
        if u == 0x28:  # (
            self.pos += 1
            capture = True
            if self._eat("?"):
                if self._eat(":"):
                    capture = False
                elif self._peek() == 0x3C:  # named group
                    end = self.pos + 1
                    while end < len(self.src) and self.src[end] != 0x3E:
                        end += 1
                    name = "".join(chr(c) for c in self.src[self.pos + 1 : end])
                    if end >= len(self.src) or not _valid_group_name(name):
                        raise self._error("Invalid capture group name")
                    if self.group_names.count(name) > 1:
                        raise self._error("Duplicate capture group name")
                    self.pos = end + 1
                else:
                    raise self._error("Invalid group")
            if capture:
                self.opened += 1
                self.open_groups.append(self.opened)
            inner = self._disjunction()
            self._expect_close()
            if capture:
                self.open_groups.pop()
            return Node("group", (inner,), value=capture)
        if u == 0x29:
            raise self._error("Unmatched ')'")
        if u in (0x2A, 0x2B, 0x3F):
            raise self._error("Nothing to repeat")
        if u == 0x7B and self._braced_quantifier_at(self.pos):
            raise self._error("Nothing to repeat")
        if u == 0x5B:
            return self._class()
        if u == 0x5C:
            return self._atom_escape()
        if u in (0x5D, 0x7B, 0x7D):
            self._note("']' outside a class is a literal ']'" if u == 0x5D else f"{chr(u)!r} that is not part of a count is a literal {chr(u)!r}")
        self.pos += 1
        return self._char(u)

    def _atom_escape(self) -> Node:
        self.pos += 1  # backslash
        u = self._peek()
        if u is None:
            raise self._error("\\ at end of pattern")
        if 0x31 <= u <= 0x39:  # \1-\9: backreference, or Annex B legacy octal
            start = self.pos
            while _is_digit(self._peek() or 0):
                self.pos += 1
            number = int("".join(chr(c) for c in self.src[start : self.pos]))
            if number <= self.capture_count:
                self.needs_backtracking = True
                return self._backref(number)
            self.pos = start
            self._note(f"'\\{number}' with no group {number} is not a backreference but an octal escape or a literal digit")
            return self._char(self._legacy_octal_or_identity())
        if u == 0x6B and self.has_named:  # \k<name>
            self.pos += 1
            if self._peek() != 0x3C:
                raise self._error("Invalid named reference")
            end = self.pos + 1
            while end < len(self.src) and self.src[end] != 0x3E:
                end += 1
            name = "".join(chr(c) for c in self.src[self.pos + 1 : end])
            if end >= len(self.src) or name not in self.group_names:
                raise self._error("Invalid named capture referenced")
            self.pos = end + 1
            self.needs_backtracking = True
            return self._backref(_named_group_number(self.src, name))
        if chr(u) in _CLASS_ESCAPES:
            self.pos += 1
            return self._set(list(_CLASS_ESCAPES[chr(u)]))
        unit = self._character_escape(in_class=False)
        if unit is None:  # "\c" not followed by a letter: a literal backslash
            self._note("'\\c' without a control letter is a literal backslash")
            return self._char(0x5C)
        return self._char(unit)

    def _backref(self, number: int) -> Node:
        if number in self.open_groups:
            # inside its own group the capture is never set yet (a repetition forgets the last one): V8 matches empty
            self._note(f"'\\{number}' inside group {number} itself always matches the empty string")
            return Node("seq", ())
        return Node("backref", value=number)

    def _legacy_octal_or_identity(self) -> int:
        u = self.src[self.pos]
        if u in (0x38, 0x39):  # \8 \9: identity escapes
            self.pos += 1
            return u
        digits = []
        while len(digits) < 3 and 0x30 <= (self._peek() or 0) <= 0x37:
            candidate = digits + [self.src[self.pos] - 0x30]
            value = 0
            for d in candidate:
                value = value * 8 + d
            if value > 0o377:
                break
            digits = candidate
            self.pos += 1
        value = 0
        for d in digits:
            value = value * 8 + d
        return value

    def _character_escape(self, in_class: bool) -> int | None:
        """After a backslash: the escaped code unit, or None for a bare ``\\c``."""
        u = self.src[self.pos]
        simple = {0x66: 0x0C, 0x6E: 0x0A, 0x72: 0x0D, 0x74: 0x09, 0x76: 0x0B}
        if u in simple:
            self.pos += 1
            return simple[u]
        if u == 0x63:  # \c
            nxt = self._peek(1)
            if nxt is not None and (_is_ascii_letter(nxt) or (in_class and (_is_digit(nxt) or nxt == 0x5F))):
                self.pos += 2
                return nxt % 32
            return None  # the backslash stands for itself; "c" is parsed next
        if u == 0x30 and not _is_digit(self._peek(1) or 0):
            self.pos += 1
            return 0
        if _is_digit(u):
            return self._legacy_octal_or_identity()
        if u == 0x78:  # \xHH
            if all(_is_hex(self._peek(k) or 0) for k in (1, 2)):
                value = int(chr(self.src[self.pos + 1]) + chr(self.src[self.pos + 2]), 16)
                self.pos += 3
                return value
            self.pos += 1
            self._note("'\\x' without two hex digits is a literal 'x'")
            return 0x78
        if u == 0x75:  # \uHHHH
            if all(_is_hex(self._peek(k) or 0) for k in (1, 2, 3, 4)):
                value = int("".join(chr(self.src[self.pos + k]) for k in range(1, 5)), 16)
                self.pos += 5
                return value
            self.pos += 1
            self._note("'\\u' without four hex digits is a literal 'u'")
            return 0x75
        if u == 0x6B and self.has_named:
            raise self._error("Invalid escape")
        self.pos += 1
        if _is_ascii_letter(u):
            self._note(f"'\\{chr(u)}' is a plain {chr(u)!r} (not an escape in JavaScript)")
        return u  # identity escape

    def _class(self) -> Node:
        self.pos += 1  # [
        negate = self._eat("^")
        if self._peek() == 0x5D:
            self._note("'[^]' matches any character, newlines too" if negate else "'[]' matches nothing")
        ranges: Ranges = []
        while True:
            u = self._peek()
            if u is None:
                raise self._error("Unterminated character class")
            if u == 0x5D:
                self.pos += 1
                break
            first = self._class_atom()
            if self._peek() == 0x2D and self._peek(1) not in (None, 0x5D):
                self.pos += 1  # -
                second = self._class_atom()
                if isinstance(first, int) and isinstance(second, int):
                    if first > second:
                        raise self._error("Range out of order in character class")
                    ranges.append((first, second))
                    continue
                # Annex B: a class escape at either end makes "-" a literal
                self._note("'-' beside a class escape such as '\\w' in a class is a literal '-'")
                for part in (first, second):
                    ranges.extend([(part, part)] if isinstance(part, int) else part)
                ranges.append((0x2D, 0x2D))
                continue
            ranges.extend([(first, first)] if isinstance(first, int) else first)
        return self._set(ranges, negate=negate)

    def _class_atom(self) -> int | Ranges:
        u = self.src[self.pos]
        if u != 0x5C:
            self.pos += 1
            return u
        self.pos += 1
        u = self._peek()
        if u is None:
            raise self._error("\\ at end of pattern")
        if u == 0x62:  # \b in a class is backspace
            self.pos += 1
            return 0x08
        if chr(u) in _CLASS_ESCAPES:
            self.pos += 1
            return list(_CLASS_ESCAPES[chr(u)])
        if u == 0x2D:
            self.pos += 1
            return 0x2D
        unit = self._character_escape(in_class=True)
        return 0x5C if unit is None else unit


def _valid_group_name(name: str) -> bool:
    if not name:
        return False
    first, rest = name[0], name[1:]
    return (first.isidentifier() or first == "$") and all(("a" + c).isidentifier() or c == "$" for c in rest)


def _named_group_number(src: list[int], name: str) -> int:
    text = "".join(chr(c) for c in src)
    count, i, in_class = 0, 0, False
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            if text.startswith("(?<", i) and not text.startswith(("(?<=", "(?<!"), i):
                count += 1
                if text.startswith(f"(?<{name}>", i):
                    return count
            elif not text.startswith("(?", i):
                count += 1
        i += 1
    return 0  # pragma: no cover - validated before


# --------------------------------------------------------------------------
# Emission
# --------------------------------------------------------------------------


def _carrier(unit: int) -> int:
    if _SURROGATE_LO <= unit <= _SURROGATE_HI:
        return _SURROGATE_CARRIER + (unit - _SURROGATE_LO)
    return unit


def _code_point(cp: int, for_re2: bool) -> str:
    return f"\\x{{{cp:X}}}" if for_re2 else f"\\U{cp:08X}"


def _emit_ranges(ranges: tuple, for_re2: bool) -> str:
    parts: list[str] = []
    for lo, hi in ranges:
        # split around the surrogate block, which travels in plane 15
        for a, b in _split_surrogates(lo, hi):
            ca, cb = _carrier(a), _carrier(b)
            first = _code_point(ca, for_re2)
            parts.append(first if ca == cb else f"{first}-{_code_point(cb, for_re2)}")
    if not parts:
        # the empty class: matches nothing
        return f"[^{_code_point(0, for_re2)}-{_code_point(0x10FFFF, for_re2)}]"
    if len(parts) == 1 and "-" not in parts[0]:
        return parts[0]
    return "[" + "".join(parts) + "]"


def _split_surrogates(lo: int, hi: int) -> list[tuple[int, int]]:
    out = []
    for a, b in ((lo, min(hi, _SURROGATE_LO - 1)), (max(lo, _SURROGATE_LO), min(hi, _SURROGATE_HI)), (max(lo, _SURROGATE_HI + 1), hi)):
        if a <= b:
            out.append((a, b))
    return out


def _emit(node: Node, for_re2: bool) -> str:
    kind = node.kind
    if kind == "set":
        return _emit_ranges(node.ranges, for_re2)
    if kind == "seq":
        return "".join(_emit(c, for_re2) for c in node.children)
    if kind == "alt":
        return "(?:" + "|".join(_emit(c, for_re2) for c in node.children) + ")"
    if kind == "assert":
        return {"^": "^", "$": "$" if for_re2 else r"\Z", "b": r"\b", "B": r"\B"}[node.value]
    if kind == "group":
        inner = _emit(node.children[0], for_re2)
        return f"({inner})" if node.value else f"(?:{inner})"
    if kind == "look":
        return f"(?{node.value}{_emit(node.children[0], for_re2)})"
    if kind == "backref":
        # JavaScript: a reference to a group that has not matched matches empty.
        return f"(?({node.value})\\{node.value}|)"
    if kind == "repeat":
        inner = _emit(node.children[0], for_re2)
        if node.children[0].kind not in ("set", "group"):
            inner = f"(?:{inner})"
        if node.min == 0 and node.max is None:
            q = "*"
        elif node.min == 1 and node.max is None:
            q = "+"
        elif node.min == 0 and node.max == 1:
            q = "?"
        elif node.max is None:
            q = f"{{{node.min},}}"
        elif node.min == node.max:
            q = f"{{{node.min}}}"
        else:
            q = f"{{{node.min},{node.max}}}"
        return inner + q + ("" if node.greedy else "?")
    raise AssertionError(kind)  # pragma: no cover


# --------------------------------------------------------------------------
# Required needles: a prefilter that lets one task skip most regexes
# --------------------------------------------------------------------------

_MAX_NEEDLES = 16  # more alternatives than this filter too little to be worth carrying
_MAX_SET_CHARS = 8


def required_needles(tree: Node) -> tuple[str, ...] | None:
    """Strings such that every match in an ASCII text contains one of them, lowered.

    So on ASCII text, ``any(n in text.lower() for n in needles)`` is false only
    where the regex cannot match: one task is then tested against the few
    regexes whose needles it holds (Russ Cox's "regular expression matching
    with a trigram index", with whole literals).  None: nothing is known (the
    regex may match a text that holds no particular string).  ``()``: the regex
    cannot match ASCII text at all.
    """
    exact, must = _needle_info(tree)
    needles = exact if exact is not None else must
    if needles is None or "" in needles or len(needles) > _MAX_NEEDLES:
        return None
    return tuple(sorted(needles))


_Info = tuple[frozenset | None, frozenset | None]  # (every string the node matches, if few; a set one of which it contains)
_EMPTY: _Info = (frozenset({""}), None)
_UNKNOWN: _Info = (None, None)


def _needle_info(node: Node) -> _Info:
    kind = node.kind
    if kind == "set":
        chars = {chr(u).lower() for lo, hi in node.ranges for u in range(lo, min(hi, 0x7F) + 1)} if node.ranges else set()
        return (frozenset(chars), None) if len(chars) <= _MAX_SET_CHARS else _UNKNOWN
    if kind in ("assert", "look"):  # zero width
        return _EMPTY
    if kind == "group":
        return _needle_info(node.children[0])
    if kind == "repeat":
        exact, must = _needle_info(node.children[0])
        if node.min == node.max == 1:
            return exact, must
        if node.min == 0:
            return _UNKNOWN
        return None, _better(must, exact)
    if kind == "seq":
        return _seq_info([_needle_info(child) for child in node.children])
    if kind == "alt":
        infos = [_needle_info(child) for child in node.children]
        if all(exact is not None for exact, _ in infos):
            union = frozenset().union(*(exact for exact, _ in infos))
            if len(union) <= _MAX_NEEDLES:
                return union, None
        musts = [exact if exact is not None else must for exact, must in infos]
        if any(m is None for m in musts):
            return _UNKNOWN
        return None, frozenset().union(*musts)
    return _UNKNOWN  # a backreference matches what its group took: any string


def _seq_info(infos: list[_Info]) -> _Info:
    exact: frozenset | None = frozenset({""})
    whole = True  # every string of the sequence is still in ``exact``
    best: frozenset | None = None
    for child_exact, child_must in infos:
        if exact is not None and child_exact is not None and len(exact) * len(child_exact) <= _MAX_NEEDLES:
            exact = frozenset(a + b for a in exact for b in child_exact)
            continue
        best = _better(best, exact)
        whole = False
        exact = child_exact
        best = _better(best, child_must)
    if whole:
        return exact, None
    return None, _better(best, exact)


def _better(a: frozenset | None, b: frozenset | None) -> frozenset | None:
    """The more selective of two needle sets: the longer shortest needle, then fewer needles."""
    if a is None or not _useful(a):
        return b if b is not None and _useful(b) else a if a is not None and _useful(a) else None
    if b is None or not _useful(b):
        return a
    return a if _selectivity(a) >= _selectivity(b) else b


def _selectivity(needles: frozenset) -> tuple[int, int]:
    return min(map(len, needles), default=1 << 30), -len(needles)


def _useful(needles: frozenset) -> bool:
    return "" not in needles and len(needles) <= _MAX_NEEDLES


# --------------------------------------------------------------------------
# Compiled patterns
# --------------------------------------------------------------------------


def _to_carrier_text(text: str) -> tuple[str, list[int] | None]:
    """The text as the engines see it, plus a map from its indices back to ``text``'s."""
    if text.isascii() or all(ord(c) < _SURROGATE_LO or _SURROGATE_HI < ord(c) <= 0xFFFF for c in text):
        return text, None
    out: list[str] = []
    back: list[int] = []
    for i, ch in enumerate(text):
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            out.append(chr(_carrier(0xD800 + (cp >> 10))))
            out.append(chr(_carrier(0xDC00 + (cp & 0x3FF))))
            back.extend((i, i))
        else:
            out.append(chr(_carrier(cp)))
            back.append(i)
    back.append(len(text))
    return "".join(out), back


@dataclass(frozen=True)
class JsRegex:
    """A compiled JavaScript pattern. ``engine`` is ``"re2"`` (linear time) or ``"backtracking"``.

    ``translated`` is the pattern in the engine's syntax; the engine compiles
    it on the first search (the ranking's RE2 sets need only the text).
    ``needles`` (``required_needles``): on ASCII text, a match is possible
    only where the lowered text contains one of them; None when unknown.
    ``caveat``: why the backtracking engine's answer would not be V8's (every
    search is then undecided); None when they agree.
    """

    source: str
    engine: str
    translated: str
    ignore_case: bool = True
    needles: tuple[str, ...] | None = None
    caveat: str | None = None

    def __reduce__(self):  # kept by value, without the compiled engine (made again on the first search)
        return JsRegex, (self.source, self.engine, self.translated, self.ignore_case, self.needles, self.caveat)

    def may_match(self, lowered_ascii: str) -> bool:
        """False only when no match is possible in this text (ASCII, lowered), whatever the engine would do."""
        needles = self.needles
        return needles is None or any(needle in lowered_ascii for needle in needles)

    def search(self, text: str, timeout: float | None = None, in_process_cap: bool = True) -> tuple[int, int] | None:
        """The span of the first match in ``text`` (Python indices), as ``RegExp.prototype.exec`` finds it.

        A backtracking search runs for ``timeout`` seconds at most (default
        ``FALLBACK_TIMEOUT_SECONDS``; None with ``in_process_cap`` off: no
        limit, for a worker process that is killed instead). Raises
        JsRegexUndecided when it cannot say: time ran out, the pattern is
        over the in-process size cap, or its answer would not be V8's.
        """
        if self.backtracking and in_process_cap:
            known = known_answer(self, text, timeout if timeout is not None else FALLBACK_TIMEOUT_SECONDS)
            if known is not _UNKNOWN_ANSWER:
                return known
        carrier, back = _to_carrier_text(text)
        span = self._searcher(in_process_cap)(carrier, timeout if timeout is not None or not in_process_cap else FALLBACK_TIMEOUT_SECONDS)
        if span is not None and back is not None:
            span = back[span[0]], back[span[1]] if span[1] < len(back) else len(text)
        if self.backtracking:
            remember_answer(self.source, self.ignore_case, text, span)
        return span

    def test(self, text: str, timeout: float | None = None) -> bool:
        return self.search(text, timeout) is not None

    @property
    def linear_time(self) -> bool:
        return self.engine == "re2"

    @property
    def backtracking(self) -> bool:
        """Whether searches run on the backtracking engine (and can be undecided)."""
        return self.engine == "backtracking" or self._re2_failed

    @functools.cached_property
    def _re2(self):
        """The compiled RE2 pattern, or None where RE2 cannot hold it even with more memory (then it backtracks)."""
        import re2

        for max_mem in (None, _RE2_LARGE_MAX_MEM):
            try:
                return re2.compile(self.translated, re2_options(max_mem))
            except re2.error:
                continue
        return None

    @property
    def _re2_failed(self) -> bool:
        return self.engine == "re2" and self._re2 is None

    @functools.cached_property
    def _backtracking_translation(self) -> tuple[str, str | None, int]:
        """The pattern for the backtracking engine, its caveat and its size in parts.

        The translation is written again from the source when it was not kept:
        an RE2 translation RE2 could not hold, or a pattern too large to be
        written out in-process (its ``translated`` is empty).
        """
        if self.engine == "backtracking" and self.translated:
            return self.translated, self.caveat, 0
        tree = _Parser(self.source, self.ignore_case).parse()
        return _emit(tree, for_re2=False), backtracking_caveat(tree), _parts(tree)

    @property
    def too_large(self) -> bool:
        """Whether the backtracking engine is not given this pattern in-process (it is decided in a worker, when asked)."""
        return self.engine == "backtracking" and not self.translated

    def _searcher(self, in_process_cap: bool) -> Callable[[str, float | None], tuple[int, int] | None]:
        """The search to run (raising JsRegexUndecided at once where no time would decide it here)."""
        if self.engine == "re2" and self._re2 is not None:
            return self._re2_search
        if in_process_cap and self.too_large:
            raise JsRegexUndecided(self.source, TOO_LARGE, _TOO_LARGE_WORDS)
        _, caveat, parts = self._backtracking_translation
        if caveat is not None:
            raise JsRegexUndecided(self.source, SEMANTICS, caveat)
        if in_process_cap and parts > BACKTRACKING_MAX_PARTS:  # an RE2 translation too large for RE2 too
            raise JsRegexUndecided(self.source, TOO_LARGE, _TOO_LARGE_WORDS)
        return self._backtracking_search

    def _re2_search(self, text: str, _timeout: float | None) -> tuple[int, int] | None:
        m = self._re2.search(text)
        return None if m is None else m.span()

    @functools.cached_property
    def _backtracking_compiled(self):
        import regex

        # ASCII: \b and \B are JavaScript's (ASCII word characters); every class is given explicitly
        return regex.compile(self._backtracking_translation[0], regex.VERSION0 | regex.DOTALL | regex.ASCII)

    def _backtracking_search(self, text: str, timeout: float | None) -> tuple[int, int] | None:
        compiled = self._backtracking_compiled
        if self.ignore_case and "(?(" in compiled.pattern:
            # a backreference under flag i compares Canonicalize(ch): search the text with each unit
            # replaced by its canonical unit (every class is case-closed, so only backreferences notice)
            text = text.translate(_canonical_units())
        try:
            m = compiled.search(text, timeout=timeout, concurrent=True)  # the interpreter lock is free meanwhile: the UI thread runs
        except TimeoutError:
            raise JsRegexUndecided(self.source, TIMEOUT, f"did not finish in {_seconds(timeout)}", timeout) from None
        return None if m is None else m.span()


_TOO_LARGE_WORDS = (
    f"too large to run here (over {BACKTRACKING_MAX_PARTS:,} parts for the backtracking engine, whose compiling cannot be interrupted)"
)


def _parts(tree: Node) -> int:
    """How many nodes the parsed pattern has (what compiling it costs, roughly)."""
    count, stack = 0, [tree]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node.children)
    return count


def _seconds(seconds: float | None) -> str:
    if seconds is None:
        return "the time it had"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:g} s"


@functools.cache
def _canonical_units() -> dict[int, int]:
    """Each code unit whose ``Canonicalize`` (non-unicode, ignoreCase) is another unit, to that unit (for str.translate)."""
    table: dict[int, int] = {}
    for unit in _case_groups()[0]:
        upper = chr(unit).upper()
        if len(upper) == 1 and ord(upper) <= 0xFFFF and not (unit >= 128 and ord(upper) < 128) and ord(upper) != unit:
            table[unit] = ord(upper)
    return table


class RegexBudget:
    """The time the backtracking engine may take over one ranking, in total.

    A search is first given a slice (``seconds / 16``, so one pathological
    pattern cannot take every other pattern's time); ``search`` with
    ``last_round`` gives it whatever is left.  Compiling counts too.  Once the
    time is spent, a search is undecided without running.
    """

    def __init__(self, seconds: float):
        self.seconds = max(0.0, float(seconds))
        self.left = self.seconds
        self.slice = max(self.seconds / 16, min(self.seconds, 0.002))

    @property
    def spent(self) -> float:
        return min(self.seconds, self.seconds - self.left)

    def search(self, regex: JsRegex, text: str, last_round: bool = False) -> tuple[int, int] | None:
        """``regex.search`` within what is left of the budget (an RE2 search is not counted: it is linear-time)."""
        if not regex.backtracking:
            return regex.search(text)
        known = known_answer(regex, text, self.left if last_round else min(self.left, self.slice))
        if known is not _UNKNOWN_ANSWER:
            return known
        regex._searcher(in_process_cap=True)  # a pattern no time decides here is said so, not "out of time"
        if self.left <= 0:
            said = f"the {_seconds(self.seconds)} this ranking gives backtracking regexes were spent on others" if self.seconds else "this ranking gives backtracking regexes no time"
            raise JsRegexUndecided(regex.source, BUDGET_SPENT, f"not run: {said}", self.seconds)
        timeout = self.left if last_round else min(self.left, self.slice)
        started = time.perf_counter()
        try:
            return regex.search(text, timeout)
        except JsRegexUndecided as exc:
            if exc.kind == TIMEOUT and last_round:  # said with the budget, which is what a person can raise
                had = "" if timeout >= self.seconds else f"the {_seconds(timeout)} left of "
                said = JsRegexUndecided(regex.source, TIMEOUT, f"did not finish in {had}the {_seconds(self.seconds)} this ranking gives backtracking regexes", timeout)
                remember_answer(regex.source, regex.ignore_case, text, said)
                raise said from None
            raise
        finally:
            self.left -= time.perf_counter() - started


# Answers of backtracking searches, found in this process or by a worker: (source, ignore_case, text) -> the span
# (None: no match), or the JsRegexUndecided of a search that ran out of time (not run again with no more time)
ANSWERS: dict[tuple[str, bool, str], object] = {}
_MAX_ANSWERS = 65536
_UNKNOWN_ANSWER = object()


def remember_answer(source: str, ignore_case: bool, text: str, answer: tuple[int, int] | None | JsRegexUndecided) -> None:
    """Keep an answer (a worker's, or one found here) for the next search of the same text."""
    if len(ANSWERS) >= _MAX_ANSWERS:  # texts change with every key: the oldest half goes
        for old in list(ANSWERS)[: _MAX_ANSWERS // 2]:
            ANSWERS.pop(old, None)  # another thread may have taken it already
    key = (source, ignore_case, text)
    if isinstance(answer, JsRegexUndecided) and not isinstance(ANSWERS.get(key, answer), JsRegexUndecided):
        return  # a decided answer is never replaced by an undecided one
    ANSWERS[key] = answer


def known_answer(regex: JsRegex, text: str, timeout: float):
    """A kept answer for this search (raising the kept JsRegexUndecided when ``timeout`` is no longer than the time it had), else a marker."""
    known = ANSWERS.get((regex.source, regex.ignore_case, text), _UNKNOWN_ANSWER)
    if isinstance(known, JsRegexUndecided):
        if known.kind == TIMEOUT and (known.seconds is None or timeout > known.seconds):
            return _UNKNOWN_ANSWER  # more time now: try again
        raise JsRegexUndecided(known.source, known.kind, known.reason, known.seconds)
    return known


def carrier_text(text: str) -> str:
    """The text as the RE2 translations expect it (UTF-16 code units, surrogates on plane 15)."""
    return _to_carrier_text(text)[0]


def re2_options(max_mem: int | None = None):
    """The RE2 options every translation is compiled with (``.`` is given explicitly, so dot_nl)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.dot_nl = True
    if max_mem is not None:
        options.max_mem = max_mem
    return options


# (source, ignore_case) -> (engine, translated, needles, caveat), kept between runs (the first 64 made directly)
TRANSLATIONS = cache.SharedRecords("translations", direct=64)


@functools.lru_cache(maxsize=65536)
def compile_js(source: str, ignore_case: bool = True) -> JsRegex:
    """Translate a JavaScript RegExp source (flags ``i`` or none). Raises JsRegexSyntaxError.

    A translation made before (by this code: the cache is keyed by its source) is
    taken from the cache; lint of 10,000 patterns otherwise spends seconds here.
    """
    record = TRANSLATIONS.get((source, ignore_case))
    if isinstance(record, tuple) and len(record) == 4 and record[0] in ("re2", "backtracking") and isinstance(record[1], str):
        return JsRegex(source, record[0], record[1], ignore_case, record[2], record[3])
    regex = _translate(source, ignore_case)
    TRANSLATIONS.add((source, ignore_case), (regex.engine, regex.translated, regex.needles, regex.caveat))
    return regex


def _translate(source: str, ignore_case: bool) -> JsRegex:
    parser = _Parser(source, ignore_case)
    tree = parser.parse()
    engine = "re2" if not parser.needs_backtracking and parser.max_count <= _RE2_MAX_REPEAT else "backtracking"
    if engine == "backtracking" and _parts(tree) > BACKTRACKING_MAX_PARTS:
        # not written out: it is never compiled here (a worker writes it again from the source)
        return JsRegex(source, engine, "", ignore_case, required_needles(tree), None)
    caveat = backtracking_caveat(tree) if engine == "backtracking" else None
    return JsRegex(source, engine, _emit(tree, for_re2=engine == "re2"), ignore_case, required_needles(tree), caveat)


def backtracking_caveat(tree: Node) -> str | None:
    """Where the backtracking engine (``regex``) would capture otherwise than V8, so its answer proves nothing.

    Backreferences see what a group captured, and V8 captures by the
    ECMAScript rules: a repeated group's capture is forgotten at each
    repetition (and an empty repetition after the minimum is refused), and a
    lookbehind matches right to left.  The backtracking engine keeps captures
    across repetitions, so a backreference to a repeated group agrees only
    when every repetition sets the group and none can be empty, and the
    reference is outside the repetition.  Anything else involving
    lookbehind and backreferences is left undecided.  (Checked against V8 on
    generated patterns: ``tests/test_undecided.py``.)
    """
    numbers: dict[int, int] = {}  # id(group node) -> its number
    groups: dict[int, tuple[tuple[Node, ...], bool]] = {}  # number -> (repetitions around it, inside a lookbehind)
    references: list[tuple[int, tuple[Node, ...], bool]] = []

    def walk(node: Node, repeats: tuple[Node, ...], behind: bool) -> None:
        if node.kind == "group" and node.value:
            numbers[id(node)] = len(numbers) + 1
            groups[len(numbers)] = (repeats, behind)
        elif node.kind == "backref":
            references.append((node.value, repeats, behind))
        if node.kind == "repeat" and not node.min == node.max == 1:
            repeats = repeats + (node,)
        behind = behind or (node.kind == "look" and node.value in ("<=", "<!"))
        for child in node.children:
            walk(child, repeats, behind)

    walk(tree, (), False)
    for number, around_reference, reference_behind in references:
        if number not in groups:
            continue
        around_group, group_behind = groups[number]
        if reference_behind or group_behind:
            return f"\\{number} and its group meet a lookbehind, which V8 matches right to left"
        for repeat in around_group:
            body = repeat.children[0]
            repeated = repeat.max is None or repeat.max > 1
            if repeated and any(r is repeat for r in around_reference):
                return f"\\{number} is inside the repetition that sets group {number}: V8 forgets the capture at each repetition"
            if repeated and number not in _always_sets(body, numbers):
                return f"group {number} is repeated and a repetition may leave it unset: V8 forgets the capture, the backtracking engine keeps it"
            if _can_be_empty(body) and (repeat.max is None or repeat.max > repeat.min):
                return f"group {number} is in a repetition that can match empty: V8 refuses such a repetition and its capture, the backtracking engine keeps it"
    return None


def _always_sets(node: Node, numbers: dict[int, int]) -> frozenset[int]:
    """The capture groups every match of ``node`` sets."""
    kind = node.kind
    if kind == "group":
        inner = _always_sets(node.children[0], numbers)
        return inner | {numbers[id(node)]} if node.value else inner
    if kind == "seq":
        return frozenset().union(*(_always_sets(c, numbers) for c in node.children))
    if kind == "alt":
        sets = [_always_sets(c, numbers) for c in node.children]
        return frozenset.intersection(*sets) if sets else frozenset()
    if kind == "repeat" and node.min >= 1:
        return _always_sets(node.children[0], numbers)
    return frozenset()


def _can_be_empty(node: Node) -> bool:
    kind = node.kind
    if kind == "set":
        return False
    if kind == "seq":
        return all(_can_be_empty(c) for c in node.children)
    if kind == "alt":
        return any(_can_be_empty(c) for c in node.children)
    if kind == "group":
        return _can_be_empty(node.children[0])
    if kind == "repeat":
        return node.min == 0 or _can_be_empty(node.children[0])
    return True  # assertions, lookaround, backreferences


@functools.lru_cache(maxsize=4096)
def annex_b_notes(source: str) -> tuple[str, ...]:
    """Where JavaScript's lenient (Annex B) syntax gives the pattern a meaning other engines would not."""
    parser = _Parser(source, ignore_case=True)
    try:
        parser.parse()
    except JsRegexSyntaxError:
        return ()
    return tuple(parser.notes)


@functools.lru_cache(maxsize=4096)
def nested_quantifier_risk(source: str) -> bool:
    """Whether a backtracking engine (V8) may take exponential time on this pattern.

    A heuristic: a quantified group whose body itself ends in, or contains, an
    unbounded quantifier -- the shape of ``(a+)+`` and ``(x+x+)+y``.
    """
    try:
        tree = _Parser(source, ignore_case=False).parse()
    except JsRegexSyntaxError:
        return False

    def unbounded_inside(node: Node) -> bool:
        if node.kind == "repeat" and node.max is None:
            return True
        return any(unbounded_inside(c) for c in node.children)

    def walk(node: Node) -> bool:
        if node.kind == "repeat" and (node.max is None or node.max > 1) and unbounded_inside(node.children[0]):
            return True
        return any(walk(c) for c in node.children)

    return walk(tree)
