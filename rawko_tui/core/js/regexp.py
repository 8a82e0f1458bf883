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
the backtracking engine is given in-process, it uses captures whose
meaning differs between that engine and V8 (``caveat``), or V8 itself may
refuse it (``refusal``: V8's compiler has limits of its own).  An undecided
answer is never reported as "no match"; ``RegexBudget`` spreads one total
time over every search of a ranking, and ``ANSWERS`` keeps answers decided
elsewhere (``regexdecide``'s worker processes) for the next ranking to use.

Nothing a pattern says can make this module recurse, allocate or work
without bound: the parser and every walk over the tree use explicit stacks
(V8 accepts thousands of nested groups); a repetition count is read as V8
reads it (at most 2**31 - 1) and then bounded by the length of the texts it
is exact for (``EXACT_TEXT_UNITS``: a count larger than any such text can
hold is "never" or "unbounded"), so no engine is asked to unroll two billion
copies; what would still be too large is undecided.

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
import collections
import functools
import time
from collections.abc import Callable

from ..text.firstuse import OnFirstUse
from ..records import record
from ..disk import cache

# The time one ranking gives backtracking regexes, in total, unless told otherwise (the CLI's
# --regex-budget; the app gives a keystroke far less and decides the rest in a worker process)
DEFAULT_REGEX_BUDGET_SECONDS = 0.5
# A search given no budget (lint's probes) has this long: long enough for any sane
# pattern, short enough that nothing waits on a pathological one.
FALLBACK_TIMEOUT_SECONDS = 0.05
# The largest pattern the backtracking engine compiles in-process, in parts of its parsed tree, each
# counted as often as a repetition count copies it (the engine's memory grows with the count):
# compiling cannot be interrupted (100,000 alternatives took 74 s and 1.5 GB; ``.{1000000}`` 260 MB);
# a larger one is not even written out for it here, is undecided, and is decided when asked in a
# worker process with a memory limit (``regexdecide``). 5,000 parts compile in some 30 ms.
BACKTRACKING_MAX_PARTS = 5_000
# Translations are exact for every text of at most this many UTF-16 units: a repetition whose
# minimum needs more can never match such a text, and a maximum beyond it is "unbounded" for it.
# A longer text is searched with a translation made for its length (in a worker process).
EXACT_TEXT_UNITS = 4096
# RE2's memory for one pattern that does not fit its default (the engine stays linear-time)
_RE2_LARGE_MAX_MEM = 64 << 20

_RE2_MAX_REPEAT = 1000
_SURROGATE_LO, _SURROGATE_HI = 0xD800, 0xDFFF
_SURROGATE_CARRIER = 0xF0000  # plane 15: where surrogate units travel

# V8's own limits (checked against node near each: tests/test_v8_limits.py)
V8_MAX_CAPTURES = 32767  # RegExpMacroAssembler::kMaxCaptures: one more is "Too many captures" as the pattern is read
V8_MAX_COUNT = 2147483647  # a repetition count is read up to kMaxInt: a{99999999999,99999999998} is valid
V8_MAX_TEXT_RUN = 32767  # kMaxCPOffset: more units read in one stretch is "Regular expression too large"
V8_MAX_REGISTERS = 65535  # kMaxRegister: captures, counters and lookaround positions past it are "too large"
# How deep V8's compiler may recurse through a pattern's nodes before its stack runs out ("Stack
# overflow") depends on its build and stack; node 20 fails from about 17,000 of the steps counted
# here (``_v8_estimates``): below a quarter of that, every V8 compiles it.
V8_SAFE_DEPTH = 4000

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
TOO_LARGE = "too-large"  # not run in-process: compiling it could take seconds and gigabytes (or the text is longer than its translation is exact for)
SEMANTICS = "semantics"  # the backtracking engine's captures differ from V8's here: its answer proves nothing
MEMORY = "memory"  # a worker ran out of the memory it is allowed (regexdecide)
V8_LIMIT = "v8-limit"  # V8 itself may refuse to compile it ("Stack overflow", "Regular expression too large")
_NOT_DECIDABLE = (SEMANTICS, V8_LIMIT)  # no time or worker decides these


class JsRegexUndecided(RuntimeError):
    """rawko-tui cannot say whether the pattern matches this text (``kind`` says why, ``reason`` in words).

    ``seconds``: the time the search was given, where time ran out.
    ``matched_if_accepted`` (kind ``v8-limit``): whether it matches if V8
    does compile it (None: not known either), so that a caller can decide
    where what happens on a refusal gives the same answer.
    """

    def __init__(self, source: str, kind: str, reason: str, seconds: float | None = None, matched_if_accepted: bool | None = None):
        super().__init__(f"/{source[:200]}/: {reason}")
        self.source, self.kind, self.reason, self.seconds = source, kind, reason, seconds
        self.matched_if_accepted = matched_if_accepted

    @property
    def decidable(self) -> bool:
        """Whether more time (or a worker process) could decide it: not when the engine's answer would prove nothing, nor when V8 may refuse it."""
        return self.kind not in _NOT_DECIDABLE


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


class Node:
    """One part of a parsed pattern: immutable once made (a literal's node is shared by every use)."""

    __slots__ = ("kind", "children", "ranges", "value", "min", "max", "greedy")

    def __init__(self, kind: str, children: tuple = (), ranges: tuple = (), value: object = None, min: int = 0, max: int | None = None, greedy: bool = True):
        self.kind = kind  # alt, seq, set, text, assert, group, look, backref, repeat
        self.children = children
        self.ranges = ranges  # "set": the matching set (already case-closed)
        self.value = value  # assert: ^ $ b B; group: capture flag; look: = ! <= <!; backref: n; text: (its units as a str, ignore_case)
        self.min = min
        self.max = max  # None = unbounded
        self.greedy = greedy

    def __repr__(self) -> str:
        return f"Node({self.kind!r}, {len(self.children)} children, value={self.value!r}, min={self.min}, max={self.max})"


# A pattern's children lists are walked without recursion: V8 accepts thousands of nested groups.
def _postorder(tree: Node) -> list[Node]:
    """Every node after all of its children (a shared node once per place it occurs)."""
    order, stack = [], [tree]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    order.reverse()
    return order


_FAIL = Node("set", ranges=())  # matches nothing


def _to_units(text: str) -> list[int]:
    if not text or max(text) <= "\uffff":
        return list(map(ord, text))
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


_QUANTIFIER_UNITS = (0x2A, 0x2B, 0x3F)  # * + ?
_SYNTAX_UNITS = frozenset(map(ord, "^$\\.*+?()[]{}|"))
_PLAIN_RUN = OnFirstUse(r"[^\^$\\.*+?()\[\]{}|]+")  # units that stand for themselves, read at once
_CHAR_NODES: dict[tuple[int, bool], Node] = {}
_PRESCAN_TOKENS = OnFirstUse(r"\\[\s\S]?|[\[\]()]")  # an escape (with the unit it escapes), a class bracket, a parenthesis


@functools.lru_cache(maxsize=65536)
def _unit_ranges(unit: int, ignore_case: bool) -> tuple:
    """The set one literal unit matches (with its other cases under flag i)."""
    return _case_closure(((unit, unit),)) if ignore_case else ((unit, unit),)


class _UnitEmission(dict):
    """unit -> how one literal unit is written for an engine, made when first asked (a ``str.translate`` table)."""

    def __init__(self, ignore_case: bool, for_re2: bool):
        super().__init__()
        self.ignore_case, self.for_re2 = ignore_case, for_re2

    def __missing__(self, unit: int) -> str:
        written = self[unit] = _emit_ranges(_unit_ranges(unit, self.ignore_case), self.for_re2)
        return written


_UNIT_EMISSION = {(ignore_case, for_re2): _UnitEmission(ignore_case, for_re2) for ignore_case in (True, False) for for_re2 in (True, False)}


def _count_value(digits: list[int]) -> int:
    """A repetition count as V8 reads it: at most 2**31 - 1, however many digits (no huge integers made)."""
    text = "".join(chr(c) for c in digits).lstrip("0")
    return V8_MAX_COUNT if len(text) > 10 else min(int(text or "0"), V8_MAX_COUNT)


class _Parser:
    """ECMAScript RegExp grammar, non-unicode mode with Annex B extensions.

    Groups are read with an explicit stack of the open ones, so no nesting
    depth makes it recurse; every step is linear in the pattern's length.
    """

    def __init__(self, source: str, ignore_case: bool):
        self.src = _to_units(source)
        self.text = "".join(map(chr, self.src))  # the units as one string, for reading literal runs at once
        self.pos = 0
        self.ignore_case = ignore_case
        self.capture_count, self.group_names, self.named_numbers = self._prescan()
        self.name_counts = collections.Counter(self.group_names)
        self.has_named = bool(self.group_names)
        self.needs_backtracking = False
        self.max_count = 0
        self.quantifiers = 0  # how many quantifiers it has
        self.lookarounds = 0
        self.opened = 0  # capture groups opened so far (their numbers, in order)
        self.open_groups: list[int] = []  # the capture groups the parser is inside
        self._notes: dict[str, None] = {}  # where Annex B (JavaScript's lenient web syntax) decided the meaning

    @property
    def notes(self) -> list[str]:
        return list(self._notes)

    def _note(self, text: str) -> None:
        self._notes.setdefault(text)

    # -- helpers -------------------------------------------------------
    def _peek(self, offset: int = 0) -> int | None:
        i = self.pos + offset
        return self.src[i] if 0 <= i < len(self.src) else None

    def _eat(self, unit: str) -> bool:
        if self._peek() == ord(unit):
            self.pos += 1
            return True
        return False

    def _error(self, message: str) -> JsRegexSyntaxError:
        return JsRegexSyntaxError(message)

    def _prescan(self) -> tuple[int, list[str], dict[str, int]]:
        """How many capture groups there are, the group names in order, and each name's (first) group number."""
        count, names, numbers, in_class = 0, [], {}, False
        src = self.src
        for token in _PRESCAN_TOKENS.finditer(self.text):  # only what can open a group or a class, or escape
            i = token.start()
            u = src[i]
            if u == 0x5C:  # an escaped unit: skipped
                continue
            if in_class:
                in_class = u != 0x5D
            elif u == 0x5B:
                in_class = True
            elif u == 0x28:
                if i + 1 < len(src) and src[i + 1] == 0x3F:  # (?
                    if i + 2 < len(src) and src[i + 2] == 0x3C and i + 3 < len(src) and src[i + 3] not in (0x3D, 0x21):
                        count += 1
                        end = self.text.find(">", i + 3)
                        name = self.text[i + 3 : end if end >= 0 else len(src)]
                        names.append(name)
                        numbers.setdefault(name, count)
                else:
                    count += 1
        return count, names, numbers

    def _set(self, ranges: Ranges, negate: bool = False) -> Node:
        closed = tuple(_normalize(ranges))
        if self.ignore_case:
            closed = _case_closure(closed)
        if negate:
            closed = tuple(_complement(list(closed)))
        return Node("set", ranges=closed)

    def _char(self, unit: int) -> Node:
        key = (unit, self.ignore_case)
        node = _CHAR_NODES.get(key)
        if node is None:
            node = _CHAR_NODES[key] = Node("set", ranges=_unit_ranges(unit, self.ignore_case))
        return node

    # -- grammar -------------------------------------------------------
    def parse(self) -> Node:
        src, text, end = self.src, self.text, len(self.src)
        frames: list[tuple[list[Node], list[Node], str, object]] = []  # the groups open around the current one
        alternatives: list[Node] = []
        terms: list[Node] = []
        while True:
            pos = self.pos
            if pos >= end:
                if frames:
                    raise self._error("Unterminated group")
                break
            u = src[pos]
            if u == 0x7C:  # |
                alternatives.append(Node("seq", tuple(terms)))
                terms = []
                self.pos += 1
            elif u == 0x29:  # )
                if not frames:
                    raise self._error("Unmatched ')'")
                alternatives.append(Node("seq", tuple(terms)))
                inner = alternatives[0] if len(alternatives) == 1 else Node("alt", tuple(alternatives))
                self.pos += 1
                alternatives, terms, kind, value = frames.pop()
                terms.append(self._close_group(kind, value, inner))
            elif u == 0x28:  # (
                kind, value = self._open_group()
                frames.append((alternatives, terms, kind, value))
                alternatives, terms = [], []
            elif u not in _SYNTAX_UNITS:
                run = _PLAIN_RUN.match(text, pos).end()
                stop = run
                if run < end and (src[run] in _QUANTIFIER_UNITS or (src[run] == 0x7B and self._braced_quantifier_at(run))):
                    stop = run - 1  # the last unit is quantified alone
                if stop - pos == 1:
                    terms.append(self._char(src[pos]))
                elif stop > pos:  # a literal run: one node (a pattern of 100,000 letters is not 100,000 nodes)
                    terms.append(Node("text", value=(text[pos:stop], self.ignore_case)))
                self.pos = stop
                if stop < run:
                    terms.append(self._quantified(self._atom()))
            else:
                terms.append(self._term())
        alternatives.append(Node("seq", tuple(terms)))
        return alternatives[0] if len(alternatives) == 1 else Node("alt", tuple(alternatives))

    def _open_group(self) -> tuple[str, object]:
        """After reading ``(`` and what follows it: the group's kind and value (capture flag or lookaround)."""
        if self._peek(1) == 0x3F:  # (?
            kind = self._peek(2)
            if kind in (0x3D, 0x21):  # (?= (?!  -- Annex B: quantifiable
                self.pos += 3
                return "ahead", "=" if kind == 0x3D else "!"
            if kind == 0x3C and self._peek(3) in (0x3D, 0x21):  # (?<= (?<!
                self.pos += 4
                return "behind", "<=" if self._peek(-1) == 0x3D else "<!"
            self.pos += 2
            if self._eat(":"):
                return "group", False
            if self._peek() != 0x3C:
                raise self._error("Invalid group")
            end = self.pos + 1  # a named group
            while end < len(self.src) and self.src[end] != 0x3E:
                end += 1
            name = "".join(chr(c) for c in self.src[self.pos + 1 : end])
            if end >= len(self.src) or not _valid_group_name(name):
                raise self._error("Invalid capture group name")
            if self.name_counts[name] > 1:
                raise self._error("Duplicate capture group name")
            self.pos = end + 1
        else:
            self.pos += 1
        if self.opened >= V8_MAX_CAPTURES:
            raise self._error("Too many captures")
        self.opened += 1
        self.open_groups.append(self.opened)
        return "group", True

    def _close_group(self, kind: str, value: object, inner: Node) -> Node:
        """The node for a group just closed, with its quantifier (a lookbehind takes none)."""
        self.lookarounds += kind != "group"
        if kind == "ahead":
            self.needs_backtracking = True
            if self._peek() in _QUANTIFIER_UNITS or self._braced_quantifier_at(self.pos):
                self._note("a quantifier on a lookahead is allowed only in JavaScript")
            return self._quantified(Node("look", (inner,), value=value))
        if kind == "behind":
            self.needs_backtracking = True
            self._no_quantifier_allowed()
            return Node("look", (inner,), value=value)
        if value:
            self.open_groups.pop()
        return self._quantified(Node("group", (inner,), value=value))

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
        return self._quantified(self._atom())

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
        low = _count_value(src[start:j])
        high: int | None = low
        if j < len(src) and src[j] == 0x2C:
            j += 1
            start = j
            while j < len(src) and _is_digit(src[j]):
                j += 1
            high = _count_value(src[start:j]) if j > start else None
        if j < len(src) and src[j] == 0x7D:
            return low, high, j + 1
        return None

    def _no_quantifier_allowed(self) -> None:
        u = self._peek()
        if u in _QUANTIFIER_UNITS or self._braced_quantifier_at(self.pos):
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
        self.quantifiers += 1
        return Node("repeat", (atom,), min=low, max=high, greedy=greedy)

    def _atom(self) -> Node:
        u = self._peek()
        assert u is not None
        if u == 0x2E:  # .
            self.pos += 1
            return self._set(list(_DOT))
        if u == 0x29:  # pragma: no cover - the parse loop closes groups
            raise self._error("Unmatched ')'")
        if u in _QUANTIFIER_UNITS:
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
            digits = self.src[start : self.pos]
            number = int("".join(chr(c) for c in digits)) if len(digits) <= 10 else V8_MAX_COUNT + 1  # no group has a larger number
            if number <= self.capture_count:
                self.needs_backtracking = True
                return self._backref(number)
            self.pos = start
            self._note(f"'\\{number if len(digits) <= 10 else ''.join(chr(c) for c in digits[:10]) + '…'}' with no such group is not a backreference but an octal escape or a literal digit")
            return self._char(self._legacy_octal_or_identity())
        if u == 0x6B and self.has_named:  # \k<name>
            self.pos += 1
            if self._peek() != 0x3C:
                raise self._error("Invalid named reference")
            end = self.pos + 1
            while end < len(self.src) and self.src[end] != 0x3E:
                end += 1
            name = "".join(chr(c) for c in self.src[self.pos + 1 : end])
            if end >= len(self.src) or name not in self.named_numbers:
                raise self._error("Invalid named capture referenced")
            self.pos = end + 1
            self.needs_backtracking = True
            return self._backref(self.named_numbers[name])
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


# --------------------------------------------------------------------------
# Emission
# --------------------------------------------------------------------------


def _carrier(unit: int) -> int:
    if _SURROGATE_LO <= unit <= _SURROGATE_HI:
        return _SURROGATE_CARRIER + (unit - _SURROGATE_LO)
    return unit


def _code_point(cp: int, for_re2: bool) -> str:
    return f"\\x{{{cp:X}}}" if for_re2 else f"\\U{cp:08X}"


@functools.lru_cache(maxsize=16384)
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


_ASSERTIONS = {True: {"^": "^", "$": "$", "b": r"\b", "B": r"\B"}, False: {"^": "^", "$": r"\Z", "b": r"\b", "B": r"\B"}}


def _quantifier(node: Node) -> str:
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
    return q + ("" if node.greedy else "?")


def _emit(tree: Node, for_re2: bool) -> str:
    """The pattern in the engine's syntax, written in one pass with an explicit stack (no recursion, no quadratic joins)."""
    out: list[str] = []
    stack: list[Node | str] = [tree]
    assertions = _ASSERTIONS[for_re2]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        kind = item.kind
        if kind == "set":
            out.append(_emit_ranges(item.ranges, for_re2))
        elif kind == "text":
            run, ignore_case = item.value
            out.append(run.translate(_UNIT_EMISSION[ignore_case, for_re2]))
        elif kind == "seq":
            stack.extend(reversed(item.children))
        elif kind == "alt":
            out.append("(?:")
            stack.append(")")
            for index in range(len(item.children) - 1, -1, -1):
                stack.append(item.children[index])
                if index:
                    stack.append("|")
        elif kind == "assert":
            out.append(assertions[item.value])
        elif kind == "group":
            # RE2 gets no captures: nothing reads a group's span, and each capture costs every NFA thread two slots
            # (24,000 nested groups took gigabytes), while the match itself is the same without them
            out.append("(" if item.value and not for_re2 else "(?:")
            stack.append(")")
            stack.append(item.children[0])
        elif kind == "look":
            out.append(f"(?{item.value}")
            stack.append(")")
            stack.append(item.children[0])
        elif kind == "backref":
            # JavaScript: a reference to a group that has not matched matches empty.
            out.append(f"(?({item.value})\\{item.value}|)")
        elif kind == "repeat":
            body = item.children[0]
            stack.append(_quantifier(item))
            if body.kind in ("set", "group"):
                stack.append(body)
            else:
                out.append("(?:")
                stack.append(")")
                stack.append(body)
        else:  # pragma: no cover
            raise AssertionError(kind)
    return "".join(out)


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
    return _needles_of(_needle_table(_postorder(tree))[id(tree)])


def _needle_table(order: list[Node]) -> dict[int, _Info]:
    """Every node's needle information (``order``: the nodes after their children)."""
    infos: dict[int, _Info] = {}
    for node in order:
        if id(node) not in infos:
            infos[id(node)] = _needle_info(node, [infos[id(child)] for child in node.children])
    return infos


def _needles_of(info: _Info) -> tuple[str, ...] | None:
    exact, must = info
    needles = exact if exact is not None else must
    if needles is None or "" in needles or len(needles) > _MAX_NEEDLES:
        return None
    return tuple(sorted(needles))


_Info = tuple[frozenset | None, frozenset | None]  # (every string the node matches, if few; a set one of which it contains)
_EMPTY: _Info = (frozenset({""}), None)
_UNKNOWN: _Info = (None, None)
_MAX_NEEDLE_CHARS = 64  # a needle this long is selective enough: a longer literal is not copied ever longer


@functools.lru_cache(maxsize=16384)
def _set_needle_info(ranges: tuple) -> _Info:
    chars = {chr(u).lower() for lo, hi in ranges for u in range(lo, min(hi, 0x7F) + 1)} if ranges else set()
    return (frozenset(chars), None) if len(chars) <= _MAX_SET_CHARS else _UNKNOWN


def _needle_info(node: Node, children: list[_Info]) -> _Info:
    """One node's needle information, from its children's."""
    kind = node.kind
    if kind == "set":
        return _set_needle_info(node.ranges)
    if kind == "text":
        return _text_needle_info(*node.value)
    if kind in ("assert", "look"):  # zero width
        return _EMPTY
    if kind == "group":
        return children[0]
    if kind == "repeat":
        exact, must = children[0]
        if node.min == node.max == 1:
            return exact, must
        if node.min == 0:
            return _UNKNOWN
        return None, _better(must, exact)
    if kind == "seq":
        return _seq_info(children)
    if kind == "alt":
        if all(exact is not None for exact, _ in children):
            union = frozenset().union(*(exact for exact, _ in children))
            if len(union) <= _MAX_NEEDLES:
                return union, None
        musts = [exact if exact is not None else must for exact, must in children]
        if any(m is None for m in musts):
            return _UNKNOWN
        return None, frozenset().union(*musts)
    return _UNKNOWN  # a backreference matches what its group took: any string


def _text_needle_info(run: str, ignore_case: bool) -> _Info:
    """A literal run's needle: itself, lowered (its first 64 characters must be in every match when longer)."""
    if not run.isascii():  # a unit with no ASCII form: the general way
        return _seq_info([_set_needle_info(_unit_ranges(ord(unit), ignore_case)) for unit in run])
    text = run.lower()  # an ASCII unit's set holds no other ASCII letter than its other case
    return (frozenset({text}), None) if len(text) <= _MAX_NEEDLE_CHARS else (None, frozenset({text[:_MAX_NEEDLE_CHARS]}))


def _seq_info(infos: list[_Info]) -> _Info:
    if len(infos) == 1:
        return infos[0]
    exact: frozenset | None = frozenset({""})
    whole = True  # every string of the sequence is still in ``exact``
    best: frozenset | None = None
    longest = 0
    for child_exact, child_must in infos:
        if exact is not None and child_exact is not None and len(exact) * len(child_exact) <= _MAX_NEEDLES and longest < _MAX_NEEDLE_CHARS:
            exact = frozenset(a + b for a in exact for b in child_exact)
            longest = max(map(len, exact), default=0)
            continue
        best = _better(best, exact)
        whole = False
        exact = child_exact
        longest = 0 if exact is None else max(map(len, exact), default=0)
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


# --------------------------------------------------------------------------
# Analysis: repetition counts, size, V8's limits, top-level alternatives
# --------------------------------------------------------------------------

_HUGE = 1 << 62  # sizes are capped here: a count of 2**31 - 1 inside another need not make giant integers


def _min_units(tree: Node) -> dict[int, int]:
    """Each node's shortest match in UTF-16 units (lookaround, assertions and backreferences: 0)."""
    mins: dict[int, int] = {}
    for node in _postorder(tree):
        kind = node.kind
        if kind == "set":
            value = 1
        elif kind == "text":
            value = len(node.value[0])
        elif kind == "seq":
            value = sum(mins[id(c)] for c in node.children)
        elif kind == "alt":
            value = min(mins[id(c)] for c in node.children)
        elif kind == "group":
            value = mins[id(node.children[0])]
        elif kind == "repeat":
            value = node.min * mins[id(node.children[0])]
        else:
            value = 0
        mins[id(node)] = min(value, _HUGE)
    return mins


def _rebuilt(node: Node, children: tuple) -> Node:
    """``node`` with new children (itself when they are the same)."""
    if all(a is b for a, b in zip(children, node.children)):
        return node
    return Node(node.kind, children, node.ranges, node.value, node.min, node.max, node.greedy)


def _bound_counts(tree: Node, bound: int | None) -> tuple[Node, bool, bool]:
    """The pattern with every repetition count at most what a text of ``bound`` units can use.

    For texts that long or shorter it is the same pattern (None: unchanged):
    a repetition whose body takes at least one unit and whose minimum needs
    more units than the text has can never match, and a maximum the text
    cannot reach is "unbounded".  A body that can match empty only keeps its
    language that way (``x{5000}`` with ``x`` possibly empty is ``x*`` on
    such texts), which is all RE2 is asked for; the backtracking engine's
    captures would not be V8's (the third value: True when that happened).
    Returns (pattern, whether a count was changed, whether only the language is kept).
    """
    if bound is None:
        return tree, False, False
    mins = _min_units(tree)
    new: dict[int, Node] = {}
    changed = inexact = False
    for node in _postorder(tree):
        if id(node) in new:
            continue
        children = tuple(new[id(c)] for c in node.children)
        if node.kind != "repeat":
            new[id(node)] = _rebuilt(node, children)
            continue
        body_min = mins[id(node.children[0])]
        low, high = node.min, node.max
        if body_min >= 1:
            if low * body_min > bound:  # never matches such a text; the body stays, so the groups keep their numbers
                new[id(node)] = Node("seq", (_FAIL, children[0]))
                changed = True
                continue
            if high is not None and high * body_min > bound:
                high, changed = None, True
        elif low > bound or (high is not None and high > bound):
            low, high, changed, inexact = 0, None, True, True
        if (low, high) == (node.min, node.max):
            new[id(node)] = _rebuilt(node, children)
        else:
            new[id(node)] = Node("repeat", children, min=low, max=high, greedy=node.greedy)
    return new[id(tree)], changed, inexact


def _cost(tree: Node) -> int:
    """What compiling it costs the backtracking engine: its parts, each counted as often as a repetition copies it."""
    return _cost_table(_postorder(tree))[id(tree)]


def _cost_table(order: list[Node]) -> dict[int, int]:
    costs: dict[int, int] = {}
    for node in order:
        if node.kind == "repeat":
            copies = max(1, node.max if node.max is not None else node.min)
            value = 1 + costs[id(node.children[0])] * copies
        elif node.kind == "text":
            value = len(node.value[0])
        else:
            value = 1 + sum(costs[id(c)] for c in node.children)
        costs[id(node)] = min(value, _HUGE)
    return costs


def _linear_table(order: list[Node]) -> dict[int, bool]:
    """For each node: whether RE2 can run it (no backreference or lookaround, every count at most 1000)."""
    linear: dict[int, bool] = {}
    for node in order:
        kind = node.kind
        if kind in ("backref", "look"):
            value = False
        elif kind == "repeat" and max(node.min, node.max or 0) > _RE2_MAX_REPEAT:
            value = False
        else:
            value = all(linear[id(c)] for c in node.children)
        linear[id(node)] = value
    return linear


def _unrolled_copies(node: Node) -> int:
    """How many copies of a repetition's body V8 may unroll (RegExpQuantifier::ToNode); 1 for a loop."""
    low, high = node.min, node.max
    if 0 < low <= 3:
        return low + (0 if high == low else 1)
    if low == 0 and high is not None and high <= 3:
        return max(1, high)
    return 1


def _v8_estimates(tree: Node, captures: int, order: list[Node], repeated: bool = True) -> tuple[int, int, int]:
    """Upper bounds of what V8's compiler meets: (how deep it recurses, units read in one stretch, registers).

    V8 turns the pattern into a graph of nodes (consecutive characters are one
    text node) and analyses it depth first: a chain of thousands of groups,
    repetitions or alternatives runs its stack out ("Stack overflow").  It
    unrolls small repetitions (at most 6 copies in all, ``RegExpExpansionLimiter``),
    reads at most 32,767 units in one stretch and has 65,535 registers
    ("Regular expression too large").  Checked against node: tests/test_v8_limits.py.
    ``order``: the nodes after their children; ``repeated``: whether it has
    a repetition or a lookaround at all.
    """
    copies: dict[int, int] = {}
    registers = 2 * (captures + 1)
    stack = [(tree, 1)] if repeated else []
    while stack:  # top down: how many copies unrolling makes of each part
        node, factor = stack.pop()
        inner = factor
        if node.kind == "repeat":
            k = _unrolled_copies(node)
            k = k if factor * k <= 6 else 1
            copies[id(node)] = k
            inner = factor * k
            registers += 2 * factor  # a counter and a position for the empty check, per copy
        elif node.kind == "look":
            registers += 2 * factor  # the position and the backtrack stack it restores
        stack.extend((child, inner) for child in node.children)
    depth: dict[int, int] = {}
    run: dict[int, int] = {}
    for node in order:
        kind, children = node.kind, node.children
        if kind in ("set", "text"):
            d, r = 1, (len(node.value[0]) if kind == "text" else 1)
        elif kind == "seq":
            d = r = 0
            in_text = False
            for child in children:
                if child.kind in ("set", "text"):  # consecutive characters are one V8 text node
                    d += 0 if in_text else 1
                    in_text = True
                else:
                    d += depth[id(child)]
                    in_text = False
                r += run[id(child)]
        elif kind == "alt":
            d = 1 + max(depth[id(c)] for c in children)
            r = max(run[id(c)] for c in children)
        elif kind in ("group", "look"):
            d = (2 if kind == "look" or node.value else 1) + depth[id(children[0])]
            r = run[id(children[0])]
        elif kind == "repeat":
            k = copies[id(node)]
            d = 3 + k * depth[id(children[0])]
            r = k * run[id(children[0])]
        else:  # assertions, backreferences
            d, r = 1, 0
        depth[id(node)], run[id(node)] = min(d, _HUGE), min(r, _HUGE)
    return depth[id(tree)], run[id(tree)], registers


def _v8_refusal(tree: Node, captures: int, order: list[Node] | None = None, repeated: bool = True) -> str | None:
    """Why V8 may refuse to compile the pattern when it first runs it (it throws a SyntaxError then); None when every V8 compiles it."""
    depth, run, registers = _v8_estimates(tree, captures, _postorder(tree) if order is None else order, repeated)
    if depth > V8_SAFE_DEPTH:
        return (
            f"its groups, repetitions and alternatives chain about {depth:,} steps deep, where V8's compiler may run out of "
            f"stack ('Stack overflow'; below {V8_SAFE_DEPTH:,} every V8 compiles it, how far beyond depends on V8's build and stack)"
        )
    if run > V8_MAX_TEXT_RUN:
        return f"it may read up to {run:,} characters in one stretch, past V8's {V8_MAX_TEXT_RUN:,} ('Regular expression too large')"
    if registers > V8_MAX_REGISTERS:
        return f"it may need up to {registers:,} registers for its captures, counts and lookarounds, past V8's {V8_MAX_REGISTERS:,} ('Regular expression too large')"
    return None


def _group_numbers(tree: Node) -> dict[int, int]:
    """id(capture group) -> its number, in the order V8 (and the emitted pattern) numbers them."""
    numbers: dict[int, int] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.kind == "group" and node.value:
            numbers[id(node)] = len(numbers) + 1
        stack.extend(reversed(node.children))
    return numbers


def _renumbered(tree: Node, old_numbers: dict[int, int]) -> Node:
    """``tree`` as a pattern of its own: its groups numbered from 1, a reference to a group outside it empty (as V8 matches one never set)."""
    mapping = {old_numbers[key]: new for key, new in _group_numbers(tree).items()}
    new: dict[int, Node] = {}
    for node in _postorder(tree):
        if id(node) in new:
            continue
        if node.kind == "backref":
            number = mapping.get(node.value)
            new[id(node)] = Node("seq", ()) if number is None else Node("backref", value=number)
        else:
            new[id(node)] = _rebuilt(node, tuple(new[id(c)] for c in node.children))
    return new[id(tree)]


_INEXACT_WORDS = "a repetition count is larger than the text and its body can match empty: the backtracking engine would not capture as V8 does"


def _split(tree: Node, tables: tuple[dict, dict, dict], source: str, ignore_case: bool, text_bound: int | None) -> tuple:
    """Top-level alternatives RE2 can run, apart from the rest: (their RE2 pattern, its needles, the rest as a JsRegex) or three Nones.

    A match of one of them is a match of the whole (an alternative has
    only its own captures); where none of them matches anywhere in a text,
    the whole finds exactly what the rest finds.  The rest is None when it
    is itself too large to run here.
    """
    if tree.kind != "alt":
        return None, None, None
    linear, costs, needles = tables
    ours = [c for c in tree.children if linear[id(c)]]
    rest = [c for c in tree.children if not linear[id(c)]]
    if not ours or not rest:
        return None, None, None
    linear_part = ours[0] if len(ours) == 1 else Node("alt", tuple(ours))
    ours_needles = _needles_of(_needle_info(linear_part, [needles[id(c)] for c in ours]) if len(ours) > 1 else needles[id(ours[0])])
    kept = None
    if 1 + sum(costs[id(c)] for c in rest) <= BACKTRACKING_MAX_PARTS:
        remainder = _renumbered(rest[0] if len(rest) == 1 else Node("alt", tuple(rest)), _group_numbers(tree))
        kept = JsRegex(source, "backtracking", _emit(remainder, for_re2=False), ignore_case, None, backtracking_caveat(remainder), text_bound)
    return _emit(linear_part, for_re2=True), ours_needles, kept


@functools.lru_cache(maxsize=4096)
def _compiled_re2(translated: str):
    """An RE2 translation compiled (None where RE2 cannot hold it)."""
    import re2

    for max_mem in (None, _RE2_LARGE_MAX_MEM):
        try:
            return re2.compile(translated, re2_options(max_mem))
        except re2.error:
            continue
    return None


# --------------------------------------------------------------------------
# Compiled patterns
# --------------------------------------------------------------------------


def forget_compiled_re2() -> None:
    """Let go of the RE2 translations kept compiled for reuse (each holds native memory): a ranking made once under
    another profile tests thousands of patterns one by one, and nothing searches with those again. A regex keeps
    its own compiled pattern: only later translations compiled anew pay for this."""
    _compiled_re2.cache_clear()


def needles_may_match(needles: tuple[str, ...] | None, lowered_ascii: str) -> bool:
    """Whether a regex of these ``required_needles`` may match this text (ASCII, lowered): False only when none is in it."""
    return needles is None or any(needle in lowered_ascii for needle in needles)


# A pattern of ASCII letters, digits, "_", "-" and spaces, alternated: every character is itself, and "|" the only
# operator. On ASCII text, whether it matches is whether one of its words occurs; with the i flag, compared in
# lower case (V8's case folding maps no non-ASCII character onto an ASCII letter without the u flag, and the text
# holds none).
_LITERAL_ALTERNATION = OnFirstUse(r"[A-Za-z0-9_\- ]+(?:\|[A-Za-z0-9_\- ]+)*")


def literal_alternation(regex: JsRegex) -> tuple[str, ...] | None:
    """The words of a regex that is only words and their alternation (``cache-test|react``), lowered when it ignores
    case: on ASCII text it matches exactly when one of them occurs (in the lowered text, when it ignores case)."""
    if regex.engine != "re2" or regex.caveat is not None or regex.refusal is not None or regex.text_bound is not None:
        return None
    if _LITERAL_ALTERNATION.fullmatch(regex.source) is None:
        return None
    words = regex.source.split("|")
    return tuple(word.lower() for word in words) if regex.ignore_case else tuple(words)


@record(frozen=True)
class JsRegex:
    """A compiled JavaScript pattern. ``engine`` is ``"re2"`` (linear time) or ``"backtracking"``.

    ``translated`` is the pattern in the engine's syntax; the engine compiles
    it on the first search (the ranking's RE2 sets need only the text).
    ``needles`` (``required_needles``): on ASCII text, a match is possible
    only where the lowered text contains one of them; None when unknown.
    ``caveat``: why the backtracking engine's answer would not be V8's (every
    search is then undecided); None when they agree.
    ``text_bound``: the translation is exact for texts of at most this many
    UTF-16 units (a repetition count was larger); None: for every text.
    ``refusal``: why V8 itself may refuse to compile it (every answer is
    then undecided, with what it would be if V8 does compile it).
    ``alternatives``, ``alternatives_needles``, ``remainder``: for a
    backtracking pattern, its top-level alternatives RE2 can run (one RE2
    pattern) and the rest (a JsRegex of the same source, or None when too
    large to run here): whether it matches at all is decided by RE2 when
    one of them matches.
    """

    source: str
    engine: str
    translated: str
    ignore_case: bool = True
    needles: tuple[str, ...] | None = None
    caveat: str | None = None
    text_bound: int | None = None
    refusal: str | None = None
    alternatives: str | None = None
    alternatives_needles: tuple[str, ...] | None = None
    remainder: JsRegex | None = None

    def __reduce__(self):  # kept by value, without the compiled engine (made again on the first search)
        return JsRegex, self._fields()

    def _fields(self) -> tuple:
        return (
            self.source, self.engine, self.translated, self.ignore_case, self.needles, self.caveat,
            self.text_bound, self.refusal, self.alternatives, self.alternatives_needles, self.remainder,
        )  # fmt: skip

    def may_match(self, lowered_ascii: str) -> bool:
        """False only when no match is possible in this text (ASCII, lowered), whatever the engine would do."""
        return needles_may_match(self.needles, lowered_ascii)

    def search(self, text: str, timeout: float | None = None, in_process_cap: bool = True) -> tuple[int, int] | None:
        """The span of the first match in ``text`` (Python indices), as ``RegExp.prototype.exec`` finds it.

        A backtracking search runs for ``timeout`` seconds at most (default
        ``FALLBACK_TIMEOUT_SECONDS``; None with ``in_process_cap`` off: no
        limit, for a worker process that is killed instead). Raises
        JsRegexUndecided when it cannot say: time ran out, the pattern is
        over the in-process size cap, its answer would not be V8's, or V8
        may refuse it.
        """
        if self.refusal is not None:
            raise self.refused(lambda: self._search(text, timeout, in_process_cap) is not None)
        return self._search(text, timeout, in_process_cap)

    def test(self, text: str, timeout: float | None = None) -> bool:
        """Whether it matches anywhere in ``text`` (``RegExp.prototype.test``): decided by RE2 where an alternative RE2 runs matches."""
        if self.refusal is not None:
            raise self.refused(lambda: self.exists(text, lambda regex, t: regex._search(t, timeout)))
        return self.exists(text, lambda regex, t: regex._search(t, timeout))

    def refused(self, decide: Callable[[], bool]) -> JsRegexUndecided:
        """The undecided answer of a pattern V8 may refuse, with whether it matches if V8 does compile it (``decide``), where that is known."""
        try:
            matched = decide()
        except JsRegexUndecided:
            matched = None
        return JsRegexUndecided(self.source, V8_LIMIT, f"V8 may refuse to run it: {self.refusal}", matched_if_accepted=matched)

    def exists(self, text: str, search: Callable[[JsRegex, str], tuple[int, int] | None], skip_alternatives: bool = False) -> bool:
        """Whether it matches anywhere in ``text`` as V8 would (not minding ``refusal``), with ``search`` running the backtracking engine.

        ``skip_alternatives``: the caller knows the alternatives RE2 runs do
        not match this text (its RE2 sets said so).
        """
        if not self.backtracking or self.alternatives is None:
            return search(self, text) is not None
        if not skip_alternatives:
            hit = self._alternatives_hit(text)
            if hit is None:  # RE2 cannot hold them, or the text is longer than they are exact for
                return search(self, text) is not None
            if hit:
                return True
        if self.remainder is None:  # the rest is too large to run here: a worker decides the whole
            known = ANSWERS.get((self.source, self.ignore_case, text), _UNKNOWN_ANSWER)
            if known is _UNKNOWN_ANSWER or isinstance(known, JsRegexUndecided):
                raise JsRegexUndecided(self.source, TOO_LARGE, _TOO_LARGE_WORDS)
            return known is not None
        # none of them matches here: the whole finds what the rest finds (its answers are the whole's)
        return search(self.remainder, text) is not None

    def _alternatives_hit(self, text: str) -> bool | None:
        compiled = _compiled_re2(self.alternatives)
        carrier = _to_carrier_text(text)[0]
        if compiled is None or (self.text_bound is not None and len(carrier) > self.text_bound):
            return None
        return compiled.search(carrier) is not None

    def _search(self, text: str, timeout: float | None = None, in_process_cap: bool = True) -> tuple[int, int] | None:
        """``search`` without minding ``refusal``."""
        carrier, back = _to_carrier_text(text)
        if self.text_bound is not None and len(carrier) > self.text_bound:
            if in_process_cap:
                raise JsRegexUndecided(self.source, TOO_LARGE, self._long_text_words(len(carrier)))
            # a worker: translated again for this text's length (the counts it may need)
            return _translate(self.source, self.ignore_case, len(carrier))._search(text, timeout, in_process_cap)
        if self.backtracking and in_process_cap:
            known = known_answer(self, text, timeout if timeout is not None else FALLBACK_TIMEOUT_SECONDS)
            if known is not _UNKNOWN_ANSWER:
                return known
        try:
            span = self._searcher(in_process_cap)(carrier, timeout if timeout is not None or not in_process_cap else FALLBACK_TIMEOUT_SECONDS)
        except MemoryError:
            if not in_process_cap:
                raise  # a worker says how much it may take
            raise JsRegexUndecided(self.source, MEMORY, "the backtracking engine ran out of memory compiling it here") from None
        if span is not None and back is not None:
            span = back[span[0]], back[span[1]] if span[1] < len(back) else len(text)
        if self.backtracking:
            remember_answer(self.source, self.ignore_case, text, span)
        return span

    def _long_text_words(self, units: int) -> str:
        return (
            f"the text is {units:,} characters long and this pattern is translated here for texts of at most {self.text_bound:,} "
            "(a repetition count is larger than that): a worker process translates it for the text"
        )

    def check_text(self, text: str) -> None:
        """Raise JsRegexUndecided when ``text`` is longer than the translation is exact for (a worker can decide it)."""
        if self.text_bound is not None:
            units = len(_to_carrier_text(text)[0])
            if units > self.text_bound:
                raise JsRegexUndecided(self.source, TOO_LARGE, self._long_text_words(units))

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
        return _compiled_re2(self.translated)

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
        parser = _Parser(self.source, self.ignore_case)
        tree, _, inexact = _bound_counts(parser.parse(), self.text_bound)
        return _emit(tree, for_re2=False), backtracking_caveat(tree) or (_INEXACT_WORDS if inexact else None), _cost(tree)

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
        try:
            return regex.compile(self._backtracking_translation[0], regex.VERSION0 | regex.DOTALL | regex.ASCII)
        except (RecursionError, OverflowError, regex.error) as exc:  # the engine's own parser nests; its limits are not V8's
            raise JsRegexUndecided(self.source, TOO_LARGE, f"the backtracking engine cannot compile it ({type(exc).__name__})") from None

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
        if regex.refusal is not None:
            raise regex.refused(lambda: self._search(regex, text, last_round) is not None)
        return self._search(regex, text, last_round)

    def test(self, regex: JsRegex, text: str, last_round: bool = False, skip_alternatives: bool = False) -> bool:
        """Whether ``regex`` matches anywhere in ``text``, within what is left of the budget.

        An alternative RE2 runs that matches decides it at once
        (``skip_alternatives``: the caller's RE2 sets already said none does).
        """
        if regex.refusal is not None:
            raise regex.refused(lambda: regex.exists(text, lambda r, t: self._search(r, t, last_round), skip_alternatives))
        return regex.exists(text, lambda r, t: self._search(r, t, last_round), skip_alternatives)

    def _search(self, regex: JsRegex, text: str, last_round: bool) -> tuple[int, int] | None:
        if not regex.backtracking:
            return regex._search(text)
        known = known_answer(regex, text, self.left if last_round else min(self.left, self.slice))
        if known is not _UNKNOWN_ANSWER:
            return known
        regex.check_text(text)
        regex._searcher(in_process_cap=True)  # a pattern no time decides here is said so, not "out of time"
        if self.left <= 0:
            said = f"the {_seconds(self.seconds)} this ranking gives backtracking regexes were spent on others" if self.seconds else "this ranking gives backtracking regexes no time"
            raise JsRegexUndecided(regex.source, BUDGET_SPENT, f"not run: {said}", self.seconds)
        timeout = self.left if last_round else min(self.left, self.slice)
        started = time.perf_counter()
        try:
            return regex._search(text, timeout)
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


# (source, ignore_case) -> JsRegex's fields after the first two, kept between runs (the first 64 made directly)
TRANSLATIONS = cache.SharedRecords("translations", direct=64)
_RECORD_FIELDS = 9
_WORTH_READING_THE_CACHE = 2000  # characters of pattern source
# A pattern this short is far from every V8 limit (``_v8_estimates`` counts at most 18 steps, 6 units
# and 14 registers per character): its estimates are not computed.
_SHORT_FOR_V8 = V8_SAFE_DEPTH // 18


@functools.lru_cache(maxsize=65536)
def compile_js(source: str, ignore_case: bool = True) -> JsRegex:
    """Translate a JavaScript RegExp source (flags ``i`` or none). Raises JsRegexSyntaxError.

    A translation made before (by this code: the cache is keyed by its modules) is
    taken from the cache; lint of 10,000 patterns otherwise spends seconds here.
    """
    if len(source) > _WORTH_READING_THE_CACHE:
        TRANSLATIONS.direct = 0  # translating it costs more than reading every kept translation
    record = TRANSLATIONS.get((source, ignore_case))
    if isinstance(record, tuple) and len(record) == _RECORD_FIELDS and record[0] in ("re2", "backtracking") and isinstance(record[1], str):
        return JsRegex(source, record[0], record[1], ignore_case, *record[2:])
    regex = _translate(source, ignore_case)
    fields = regex._fields()
    TRANSLATIONS.add((source, ignore_case), (*fields[1:3], *fields[4:]))  # all but the key
    return regex


def v8_refusal(source: str, ignore_case: bool = True) -> str | None:
    """``compile_js(source, ignore_case).refusal`` without the translation (a search for the largest pattern of a
    shape V8 compiles asks it of a dozen sizes). Raises JsRegexSyntaxError."""
    parser = _Parser(source, ignore_case)
    tree = parser.parse()
    return _refusal_as_parsed(parser, tree, _postorder(tree))


def _refusal_as_parsed(parser: _Parser, tree: Node, order: list[Node]) -> str | None:
    if len(parser.src) <= _SHORT_FOR_V8:
        return None  # V8 compiles the pattern as written
    return _v8_refusal(tree, parser.opened, order, parser.quantifiers > 0 or parser.lookarounds > 0)


def _translate(source: str, ignore_case: bool, text_units: int | None = EXACT_TEXT_UNITS) -> JsRegex:
    """The translation, exact for texts of at most ``text_units`` UTF-16 units (None: every text)."""
    parser = _Parser(source, ignore_case)
    tree = parser.parse()
    order = _postorder(tree)  # every walk below reads this one list (the tree is not recursed into)
    refusal = _refusal_as_parsed(parser, tree, order)
    needle_table = _needle_table(order)
    needles = _needles_of(needle_table[id(tree)])  # from the pattern as written: true of every text
    if parser.quantifiers == 0 or (parser.max_count <= 1 and text_units is not None and len(parser.src) <= text_units):
        bounded = inexact = False  # no count can exceed what such a text holds
    else:
        tree, bounded, inexact = _bound_counts(tree, text_units)
        if bounded:
            order = _postorder(tree)
            needle_table = _needle_table(order)
    text_bound = text_units if bounded else None
    linear = _linear_table(order)
    if linear[id(tree)]:
        return JsRegex(source, "re2", _emit(tree, for_re2=True), ignore_case, needles, None, text_bound, refusal)
    costs = _cost_table(order)
    split = _split(tree, (linear, costs, needle_table), source, ignore_case, text_bound)
    if costs[id(tree)] > BACKTRACKING_MAX_PARTS:
        # not written out: it is never compiled here (a worker writes it again from the source)
        return JsRegex(source, "backtracking", "", ignore_case, needles, None, text_bound, refusal, *split)
    caveat = backtracking_caveat(tree) or (_INEXACT_WORDS if inexact else None)
    return JsRegex(source, "backtracking", _emit(tree, for_re2=False), ignore_case, needles, caveat, text_bound, refusal, *split)


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
    groups: dict[int, tuple[tuple | None, bool]] = {}  # number -> (repetitions around it, inside a lookbehind)
    references: list[tuple[int, tuple | None, bool]] = []
    # the repetitions around a node are a chain (repeat, outer chain): shared, never copied
    stack: list[tuple[Node, tuple | None, bool]] = [(tree, None, False)]
    while stack:
        node, repeats, behind = stack.pop()
        if node.kind == "group" and node.value:
            numbers[id(node)] = len(numbers) + 1
            groups[len(numbers)] = (repeats, behind)
        elif node.kind == "backref":
            references.append((node.value, repeats, behind))
        if node.kind == "repeat" and not node.min == node.max == 1:
            repeats = (node, repeats)
        behind = behind or (node.kind == "look" and node.value in ("<=", "<!"))
        stack.extend((child, repeats, behind) for child in reversed(node.children))
    if not references:
        return None
    always, empty = _capture_tables(tree, numbers)
    for number, around_reference, reference_behind in references:
        if number not in groups:
            continue
        around_group, group_behind = groups[number]
        if reference_behind or group_behind:
            return f"\\{number} and its group meet a lookbehind, which V8 matches right to left"
        enclosing = set(map(id, _chain(around_reference)))
        for repeat in _chain(around_group):
            body = repeat.children[0]
            repeated = repeat.max is None or repeat.max > 1
            if repeated and id(repeat) in enclosing:
                return f"\\{number} is inside the repetition that sets group {number}: V8 forgets the capture at each repetition"
            if repeated and number not in always[id(body)]:
                return f"group {number} is repeated and a repetition may leave it unset: V8 forgets the capture, the backtracking engine keeps it"
            if empty[id(body)] and (repeat.max is None or repeat.max > repeat.min):
                return f"group {number} is in a repetition that can match empty: V8 refuses such a repetition and its capture, the backtracking engine keeps it"
    return None


def _chain(chain: tuple | None):
    while chain is not None:
        yield chain[0]
        chain = chain[1]


def _capture_tables(tree: Node, numbers: dict[int, int]) -> tuple[dict[int, frozenset[int]], dict[int, bool]]:
    """For every node: the capture groups each of its matches sets, and whether it can match empty."""
    always: dict[int, frozenset[int]] = {}
    empty: dict[int, bool] = {}
    none: frozenset[int] = frozenset()
    for node in _postorder(tree):
        kind, children = node.kind, node.children
        if kind == "group":
            inner = always[id(children[0])]
            always[id(node)] = inner | {numbers[id(node)]} if node.value else inner
            empty[id(node)] = empty[id(children[0])]
        elif kind == "seq":
            always[id(node)] = none.union(*(always[id(c)] for c in children))
            empty[id(node)] = all(empty[id(c)] for c in children)
        elif kind == "alt":
            always[id(node)] = frozenset.intersection(*(always[id(c)] for c in children))
            empty[id(node)] = any(empty[id(c)] for c in children)
        elif kind == "repeat":
            always[id(node)] = always[id(children[0])] if node.min >= 1 else none
            empty[id(node)] = node.min == 0 or empty[id(children[0])]
        else:
            always[id(node)] = none
            empty[id(node)] = kind not in ("set", "text")  # assertions, lookaround, backreferences can match empty
    return always, empty


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
    unbounded: dict[int, bool] = {}
    for node in _postorder(tree):
        inside = any(unbounded[id(c)] for c in node.children)
        if node.kind == "repeat" and (node.max is None or node.max > 1) and unbounded[id(node.children[0])]:
            return True
        unbounded[id(node)] = inside or (node.kind == "repeat" and node.max is None)
    return False
