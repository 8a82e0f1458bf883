"""YAML as SPEC-0007's arbiter reads it: YAML 1.2, js-yaml's default schema.

Deno's ``@std/yaml`` (which the spec's ``extractFrontmatter`` uses) is a port
of js-yaml, so the values the arbiter sees follow js-yaml 4's resolvers:
``yes``/``on`` stay strings, ``0123`` is the integer 123, unquoted ISO dates
become Date objects, a duplicate key is an error and an unknown tag such as
``!!python/object`` is an error, never executed.

The scanner and parser are libyaml's (through PyYAML's C binding when
present), for speed; resolution and construction are js-yaml's rules.
Aliases are allowed, as in js-yaml, but a document whose aliases would
expand beyond ``MAX_EXPANDED_NODES`` nodes or add more than
``MAX_ALIAS_CHARACTERS`` characters (a "billion laughs", or one long string
used thousands of times) is refused.
"""

from __future__ import annotations

import base64
import math
import re

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.composer import Composer as _PyComposer
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.resolver import BaseResolver

from ..records import record
from .dates import rollover_note, utc_ms
from .values import UNDEFINED, JsDate, js_to_string

try:  # libyaml's parser is ~10x faster; fall back to the pure-Python one
    from yaml.cyaml import CParser as _Parser
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml.parser import Parser as _Parser  # type: ignore[assignment]
    from yaml.reader import Reader as _Reader
    from yaml.scanner import Scanner as _Scanner
    from yaml.composer import Composer as _Composer
else:
    _Reader = _Scanner = _Composer = None  # type: ignore[assignment]
_ScanLoader = yaml.BaseLoader if _Reader is not None else yaml.CBaseLoader  # tokens only, to find bad escapes

MAX_EXPANDED_NODES = 100_000
# What aliases may add in characters: each node counts once to the node limit however long its text, so an
# 8 MB string used 50,000 times passed it. A document without aliases holds at most its file's characters.
MAX_ALIAS_CHARACTERS = 1_000_000
# rawko-tui's own files never hold a number this long; a longer one could only be a trap (Python refuses to
# write an integer of over 4,300 digits, and converting one takes time quadratic in its length).
MAX_NUMBER_DIGITS = 1_000
# Values (scalars, lists, mappings, aliases) in one document. A memory's frontmatter holds tens; composing one
# of 16 million (a 64 MB list of "- x") took 1.6 GB, and two such files exhausted 2 GB. Counted on the
# parser's events before anything is composed, and only for a document long enough to hold that many.
MAX_NODES = 1_000_000
# Deeper documents are refused: every walker of parsed values (display, JSON, the
# parse cache) would otherwise need a recursion guard of its own.
MAX_DEPTH = 100
_TAG = "tag:yaml.org,2002:"


@record(eq=False)  # not frozen: Python sets __traceback__ on an exception as it travels
class YamlError(Exception):
    """A YAML document that js-yaml would refuse; ``line`` is 0-based within the document."""

    message: str
    line: int | None = None
    column: int | None = None
    tab: bool = False  # a tab where YAML wants indentation: ``tab_message`` says so with the line and column

    def __str__(self) -> str:
        return self.message


def tab_message(line: int | None, column: int) -> str:
    """The plain words for a tab in YAML's indentation (libyaml says "cannot start any token"); 1-based places."""
    where = f"line {line}, column {column}" if line is not None else f"column {column}"
    return f"a tab at {where}: YAML cannot be indented with tabs; indent with spaces"


# --------------------------------------------------------------------------
# js-yaml 4.3.2 resolvers (lib/type/*.js), applied to plain scalars in order
# --------------------------------------------------------------------------

_FLOAT_RE = re.compile(
    r"^(?:[-+]?(?:[0-9]+)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?"
    r"|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN))\Z"
)
_FLOAT_SPECIAL_RE = re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z")
_DATE_RE = re.compile(r"^([0-9][0-9][0-9][0-9])-([0-9][0-9])-([0-9][0-9])\Z")
_TIMESTAMP_RE = re.compile(
    r"^([0-9][0-9][0-9][0-9])-([0-9][0-9]?)-([0-9][0-9]?)(?:[Tt]|[ \t]+)"
    r"([0-9][0-9]?):([0-9][0-9]):([0-9][0-9])(?:\.([0-9]*))?"
    r"(?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9][0-9]))?))?\Z"
)
_NULLS = {"~", "null", "Null", "NULL"}
_TRUES = {"true", "True", "TRUE"}
_FALSES = {"false", "False", "FALSE"}
_WORDS = _NULLS | _TRUES | _FALSES


def _parse_int(data: str) -> float | int | None:
    """js-yaml's resolveYamlInteger + parseYamlInteger; None when it does not resolve."""
    if not data:
        return None
    sign, body = 1, data
    if body[0] in "+-":
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if body == "0":
        return 0
    if body[:2] in ("0b", "0x", "0o"):
        digits, base = body[2:], {"0b": 2, "0x": 16, "0o": 8}[body[:2]]
        allowed = {2: "01", 8: "01234567", 16: "0123456789abcdefABCDEF"}[base]
        if not digits or any(c not in allowed for c in digits):
            return None
        value = sign * int(digits, base)
    else:
        if not body or any(not ("0" <= c <= "9") for c in body):
            return None
        body = body.lstrip("0") or "0"  # int() refuses a text of over 4,300 digits, leading zeros included
        if len(body) > 400:  # past any double: Infinity, which is not an integer here
            return None
        value = sign * int(body, 10)
    try:
        as_float = float(value)
    except OverflowError:
        return None
    if math.isinf(as_float):
        return None
    # JavaScript numbers are doubles: keep ints only where they are exact
    return value if abs(value) <= 2**53 else as_float


def _parse_float(data: str) -> float | None:
    if not _FLOAT_RE.match(data):
        return None
    lowered = data.lower()
    sign = -1.0 if lowered.startswith("-") else 1.0
    body = lowered[1:] if lowered[:1] in "+-" else lowered
    if body == ".inf":
        return sign * math.inf
    if body == ".nan":
        return math.nan
    value = sign * float(body)
    if math.isinf(value) and not _FLOAT_SPECIAL_RE.match(data):
        return None
    return value


def _date_utc(year: int, month0: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, ms: int = 0) -> float:
    """``Date.UTC``: years 0-99 mean 1900-1999, and fields overflow into the next unit."""
    if 0 <= year <= 99:
        year += 1900
    return utc_ms(year, month0 + 1, day, hour, minute, second, ms)


def _parse_timestamp(data: str) -> JsDate | None:
    m = _DATE_RE.match(data)
    if m:
        return JsDate(_date_utc(int(m[1]), int(m[2]) - 1, int(m[3])))
    m = _TIMESTAMP_RE.match(data)
    if not m:
        return None
    fraction = int((m[7] or "")[:3].ljust(3, "0")) if m[7] else 0
    ms = _date_utc(int(m[1]), int(m[2]) - 1, int(m[3]), int(m[4]), int(m[5]), int(m[6]), fraction)
    if m[9]:
        delta = (int(m[10]) * 60 + int(m[11] or 0)) * 60_000
        ms -= -delta if m[9] == "-" else delta
    return JsDate(ms)


def timestamp_notes(data: str) -> list[str]:
    """Where js-yaml's reading of a plain timestamp differs from how it looks (it rolls over, years 0-99)."""
    m = _DATE_RE.match(data) or _TIMESTAMP_RE.match(data)
    if not m:
        return []
    numbers = [int(m[i]) if m.re is _TIMESTAMP_RE else 0 for i in (4, 5, 6)]
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    notes = []
    if year <= 99:
        notes.append(f"js-yaml reads year {m[1]} as {1900 + year}")
        year += 1900
    rolled = rollover_note(year, month, day, *numbers)
    if rolled:
        notes.append(f"{rolled}, so js-yaml rolls it over")
    return notes


def resolve_plain_scalar(data: str) -> object:
    """The value js-yaml gives an untagged plain scalar."""
    if data[:1].isalpha() and data not in _WORDS:
        return data  # numbers and dates start with a digit, a sign or "."
    if data[4:5] == "-" and data[:4].isdigit():  # "2026-…" is neither an integer nor a float
        stamp = _parse_timestamp(data)
        return data if stamp is None else stamp
    if data == "" or data in _NULLS:
        return None
    if data in _TRUES:
        return True
    if data in _FALSES:
        return False
    integer = _parse_int(data)
    if integer is not None:
        return integer
    number = _parse_float(data)
    if number is not None:
        return number
    stamp = _parse_timestamp(data)
    if stamp is not None:
        return stamp
    return data


# --------------------------------------------------------------------------
# Loader
# --------------------------------------------------------------------------

_PLAIN = _TAG + "plain"  # internal marker for unresolved plain scalars


class _Resolver(BaseResolver):
    """Tag every plain scalar for js-yaml resolution at construction time."""

    yaml_implicit_resolvers: dict = {}

    def resolve(self, kind, value, implicit):  # noqa: D401 - PyYAML hook
        if kind is ScalarNode and implicit[0]:
            return _PLAIN if value != "<<" else _TAG + "merge"
        if kind is ScalarNode:
            return _TAG + "str"
        if kind is SequenceNode:
            return _TAG + "seq"
        return _TAG + "map"


# libyaml reads YAML 1.1, where NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR break
# lines; js-yaml reads YAML 1.2, where they are ordinary characters. They go to
# libyaml as private-use stand-ins (one character for one, so marks stay right)
# and come back in every constructed string.
_YAML11_BREAKS = {0x85: 0xF0085, 0x2028: 0xF2028, 0x2029: 0xF2029}
_RESTORE_BREAKS = {stand_in: original for original, stand_in in _YAML11_BREAKS.items()}


def _hide_yaml11_breaks(text: str) -> tuple[str, bool]:
    if not any(chr(c) in text for c in _YAML11_BREAKS) or any(chr(c) in text for c in _RESTORE_BREAKS):
        return text, False
    return text.translate(_YAML11_BREAKS), True


class BreaksRestoringConstructor(SafeConstructor):
    """A constructor that gives back the NEL, LS and PS ``_hide_yaml11_breaks`` hid from libyaml (both dialects)."""

    restore_breaks = False  # set when _hide_yaml11_breaks changed the text
    restore_surrogates = False  # set when lone surrogate escapes went to libyaml as stand-ins

    def construct_scalar(self, node):
        value = super().construct_scalar(node)
        if isinstance(value, str):
            if self.restore_breaks:
                value = value.translate(_RESTORE_BREAKS)
            if self.restore_surrogates:
                value = value.translate(_RESTORE_SURROGATES)
        return value


class _Constructor(BreaksRestoringConstructor):
    def construct_mapping(self, node, deep=False):
        if not isinstance(node, MappingNode):
            raise ConstructorError(None, None, "expected a mapping node", node.start_mark)
        seen: set[str] = set()
        for key_node, _ in node.value:
            if key_node.tag == _TAG + "merge":
                continue
            key = js_to_string(self.construct_object(key_node, deep=True))
            if key in seen:
                raise ConstructorError(None, None, "duplicated mapping key", key_node.start_mark)
            seen.add(key)
        self.flatten_mapping(node)
        mapping: dict[str, object] = {}
        for key_node, value_node in node.value:
            key = js_to_string(self.construct_object(key_node, deep=True))
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def construct_plain(self, node):
        return resolve_plain_scalar(self.construct_scalar(node))

    def construct_explicit(self, node, tag: str):
        value = self.construct_scalar(node)
        resolved = resolve_plain_scalar(value)
        checks = {
            "null": lambda v: v is None,
            "bool": lambda v: isinstance(v, bool),
            "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
            "timestamp": lambda v: isinstance(v, JsDate),
        }
        if value == "" and tag == "null":
            return None
        if not checks[tag](resolved):
            raise ConstructorError(None, None, f"cannot resolve a node with !<{_TAG}{tag}> explicit tag", node.start_mark)
        return float(resolved) if tag == "float" else resolved

    def construct_undefined(self, node):
        raise ConstructorError(None, None, f"unknown tag !<{node.tag}>", node.start_mark)

    def construct_binary(self, node):
        try:
            return base64.b64decode("".join(self.construct_scalar(node).split()))
        except ValueError as exc:
            raise ConstructorError(None, None, f"invalid !!binary: {exc}", node.start_mark) from exc

    def construct_set(self, node):
        return {key: None for key in self.construct_mapping(node)}

    def construct_pairs(self, node):
        if not isinstance(node, SequenceNode):
            raise ConstructorError(None, None, "expected a sequence for !!pairs", node.start_mark)
        out = []
        for item in node.value:
            if not isinstance(item, MappingNode) or len(item.value) != 1:
                raise ConstructorError(None, None, "each !!pairs item must be a one-key mapping", item.start_mark)
            key_node, value_node = item.value[0]
            out.append([self.construct_object(key_node, deep=True), self.construct_object(value_node, deep=True)])
        return out

    def construct_omap(self, node):
        if not isinstance(node, SequenceNode):
            raise ConstructorError(None, None, "expected a sequence for !!omap", node.start_mark)
        return [self.construct_mapping(item, deep=True) for item in node.value]


_Constructor.yaml_constructors = {}
_Constructor.add_constructor(_PLAIN, _Constructor.construct_plain)
_Constructor.add_constructor(_TAG + "str", SafeConstructor.construct_yaml_str)
_Constructor.add_constructor(_TAG + "seq", SafeConstructor.construct_yaml_seq)
_Constructor.add_constructor(_TAG + "map", SafeConstructor.construct_yaml_map)
for _name in ("null", "bool", "int", "float", "timestamp"):
    _Constructor.add_constructor(_TAG + _name, lambda self, node, _n=_name: self.construct_explicit(node, _n))
_Constructor.add_constructor(_TAG + "binary", _Constructor.construct_binary)
_Constructor.add_constructor(_TAG + "set", _Constructor.construct_set)
_Constructor.add_constructor(_TAG + "pairs", _Constructor.construct_pairs)
_Constructor.add_constructor(_TAG + "omap", _Constructor.construct_omap)
_Constructor.add_constructor("!", SafeConstructor.construct_yaml_str)
_Constructor.add_constructor(None, _Constructor.construct_undefined)
_Constructor.add_constructor(_TAG + "merge", lambda self, node: "<<")  # "<<" as a value; as a key it merges


class _JsComposer(_PyComposer):
    """PyYAML's composer with the two rules both JavaScript libraries follow and libyaml's composer does not:
    an anchor defined again replaces the earlier one (YAML 1.2), and a scalar tagged with the non-specific
    ``!`` is text (``! 12`` is "12"; libyaml resolves it as if untagged)."""

    def compose_node(self, parent, index):
        event = self.peek_event()
        anchor = getattr(event, "anchor", None)
        if anchor is not None and not isinstance(event, AliasEvent):
            self.anchors.pop(anchor, None)
        return super().compose_node(parent, index)

    def compose_scalar_node(self, anchor):
        event = self.peek_event()
        if event.tag == "!":
            self.get_event()
            node = ScalarNode(_TAG + "str", event.value, event.start_mark, event.end_mark, style=event.style)
            if anchor is not None:
                self.anchors[anchor] = node
            return node
        return super().compose_scalar_node(anchor)


def make_loader(constructor: type, resolver: type) -> type:
    """A loader class: libyaml's parser (PyYAML's own when libyaml is missing) with this resolution and construction.

    Its ``js_composer`` attribute is the same loader with ``_JsComposer``, for the documents that need it
    (``needs_js_composer``): libyaml's own composer is faster, and right for every other document.
    """
    loader = _make_loader(constructor, resolver)

    class JsComposerLoader(_JsComposer, loader):  # type: ignore[misc,valid-type]
        def __init__(self, stream):
            loader.__init__(self, stream)
            _JsComposer.__init__(self)

    loader.js_composer = JsComposerLoader
    return loader


_NON_SPECIFIC_TAG = re.compile(r"(?<![^\s\[\]{},:?-])!(?=[\s,\]}]|\Z)")


def needs_js_composer(text: str) -> bool:
    """Whether a document holds a non-specific ``!`` tag (a cheap test; an anchor defined twice shows up as an error)."""
    return "!" in text and _NON_SPECIFIC_TAG.search(text) is not None


def _no_document(text: str) -> bool:
    """Whether js-yaml's ``load`` finds no document at all (``undefined``): nothing but spaces before a final
    line break. Anything else that composes to nothing, a comment or a tab, is a document: ``null``."""
    if text and text[-1] not in "\n\r":
        text += "\n"
    return len(text.lstrip(" ")) <= 1


def _make_loader(constructor: type, resolver: type) -> type:
    if _Reader is None:

        class Loader(_Parser, constructor, resolver):  # type: ignore[misc,valid-type]
            def __init__(self, stream):
                _Parser.__init__(self, stream)
                constructor.__init__(self)
                resolver.__init__(self)

    else:  # pragma: no cover - pure-Python PyYAML

        class Loader(_Reader, _Scanner, _Parser, _Composer, constructor, resolver):  # type: ignore[misc,valid-type]
            def __init__(self, stream):
                _Reader.__init__(self, stream)
                _Scanner.__init__(self)
                _Parser.__init__(self)
                _Composer.__init__(self)
                constructor.__init__(self)
                resolver.__init__(self)

    return Loader


_Loader = make_loader(_Constructor, _Resolver)


def _expanded_size(node, limit: int, character_limit: int = MAX_ALIAS_CHARACTERS) -> tuple[int, int]:
    """(nodes a full walk of the document visits, characters its aliases add): an alias counts each time it is used.

    Stops counting once either is past its limit (the caller only compares).
    """
    sizes: dict[int, tuple[int, int]] = {}  # per node: (nodes, characters) with aliases expanded
    active: set[int] = set()
    own = 0  # characters of the document as written (each node once)

    def size(n) -> tuple[int, int]:
        nonlocal own
        key = id(n)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise YamlError("recursive alias: the document refers to itself")
        active.add(key)
        total = 1
        characters = len(n.value) if isinstance(n, ScalarNode) else 0
        own += characters
        for child in _children(n):
            nodes, chars = size(child)
            total += nodes
            characters += chars
            if total > limit or characters - own > character_limit:
                break
        active.discard(key)
        sizes[key] = (total, characters)
        return sizes[key]

    nodes, characters = size(node)
    return nodes, characters - own


def _shape(node) -> tuple[bool, int]:
    """(whether any node is used twice, the deepest nesting once aliases are expanded).

    Walked without recursion, each node once: a node's depth is remembered, so
    an alias nested inside another alias counts its full depth, cheaply.
    """
    depth_of: dict[int, int] = {}
    on_path: set[int] = set()
    reused = False
    stack = [(node, False)]
    while stack:
        n, children_done = stack.pop()
        key = id(n)
        if children_done:
            on_path.discard(key)
            children = _children(n)
            depth_of[key] = 1 + max((depth_of[id(c)] for c in children), default=0)
            continue
        if key in depth_of:
            reused = True
            continue
        on_path.add(key)
        stack.append((n, True))
        for child in _children(n):
            if id(child) in on_path:
                raise YamlError("recursive alias: the document refers to itself")
            stack.append((child, False))
    return reused, depth_of[id(node)]


def _children(n) -> list:
    if isinstance(n, SequenceNode):
        return n.value
    if isinstance(n, MappingNode):
        return [part for pair in n.value for part in pair]
    return []


# --------------------------------------------------------------------------
# The common case without a parser
# --------------------------------------------------------------------------
#
# Nearly every memory's frontmatter is a flat mapping of ``key: value`` lines,
# values plain, quoted without escapes, ``[a, b]`` or a block list of such.
# ``simple_mapping`` reads exactly that subset and declines everything else
# (comments, escapes, anchors, tags, multi-line scalars, odd characters),
# which then goes through libyaml.  A test compares the two on generated
# documents.

_NOT_SIMPLE = object()
_ODD_CHARS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: +(.*))?\Z")
_ITEM_LINE = re.compile(r"( *)- +(\S.*)\Z")
_PLAIN_BLOCK = re.compile(r"[^\s\-?:,\[\]{}#&*!|>'\"%@`<=](?:(?!: |:\Z| #)[^\t])*\Z")
_PLAIN_FLOW = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_ ./+()-]*\Z")
_DOUBLE_QUOTED = re.compile(r'"((?:[^"\\]|\\[\\"])*)" *\Z')  # escapes: only \\ and \"
_QUOTED_ESCAPE = re.compile(r"\\(.)")
_SINGLE_QUOTED = re.compile(r"'([^']*)' *\Z")


def simple_mapping(text: str, resolve=resolve_plain_scalar) -> object:
    """The mapping js-yaml would give for a plain ``key: value`` document, or ``_NOT_SIMPLE``.

    ``resolve`` reads plain scalars (another YAML library's schema reads the same subset).
    """
    if len(text) > MAX_NODES:  # it could hold more values than a document may: the parser's events count them
        return _NOT_SIMPLE
    if "\r" in text:
        text = text.replace("\r\n", "\n")  # a CRLF line break is a line break; any other CR is odd
    if not text or _ODD_CHARS.search(text):
        return _NOT_SIMPLE
    lines = text.split("\n")
    mapping: dict[str, object] = {}
    i = 0
    while i < len(lines):
        match = _KEY_LINE.match(lines[i])
        if match is None:
            return _NOT_SIMPLE
        key, raw = match.group(1), match.group(2)
        if key in mapping or (key in _WORDS or not key[0].isalpha()) and resolve(key) != key:
            return _NOT_SIMPLE
        i += 1
        if raw is None or not raw.strip():
            items, indent = [], None
            while i < len(lines):
                item = _ITEM_LINE.match(lines[i])
                if item is None or (indent is not None and len(item.group(1)) != indent):
                    break
                indent = len(item.group(1))
                value = _scalar(item.group(2), False, resolve)
                if value is _NOT_SIMPLE:
                    return _NOT_SIMPLE
                items.append(value)
                i += 1
            mapping[key] = items if indent is not None else None
            continue
        value = _flow_list(raw, resolve) if raw.startswith("[") else _scalar(raw, False, resolve)
        if value is _NOT_SIMPLE:
            return _NOT_SIMPLE
        mapping[key] = value
    return mapping


def _scalar(raw: str, flow: bool, resolve=resolve_plain_scalar) -> object:
    raw = raw.rstrip(" ")
    if raw[:1] == '"':
        quoted = _DOUBLE_QUOTED.match(raw)
        if quoted is None:
            return _NOT_SIMPLE
        inner = quoted.group(1)
        return _QUOTED_ESCAPE.sub(r"\1", inner) if "\\" in inner else inner
    if raw[:1] == "'":
        quoted = _SINGLE_QUOTED.match(raw)
        return quoted.group(1) if quoted else _NOT_SIMPLE
    if not (_PLAIN_FLOW if flow else _PLAIN_BLOCK).match(raw):
        return _NOT_SIMPLE
    return resolve(raw)


def _flow_list(raw: str, resolve=resolve_plain_scalar) -> object:
    raw = raw.rstrip(" ")
    if not raw.endswith("]") or raw.count("[") != 1 or raw.count("]") != 1:
        return _NOT_SIMPLE
    inner = raw[1:-1].strip(" ")
    if not inner:
        return []
    items = []
    for part in inner.split(","):
        part = part.strip(" ")
        if not part or "'" in part[1:-1] or '"' in part[1:-1]:
            return _NOT_SIMPLE
        value = _scalar(part, True, resolve)
        if value is _NOT_SIMPLE:
            return _NOT_SIMPLE
        items.append(value)
    return items


def load_with_ruamel(text: str) -> object:
    """ruamel.yaml's safe load (settings, sessions, saved tasks, the decisions log: files that keep their
    comments when rewritten), with the limits of memories checked first (``refuse_yaml_bombs``)."""
    from ruamel.yaml import YAML

    refuse_yaml_bombs(text)
    return YAML(typ="safe").load(text)


def refuse_yaml_bombs(text: str) -> None:
    """Raise YamlError for a document whose aliases add more than MAX_EXPANDED_NODES nodes or
    MAX_ALIAS_CHARACTERS characters (a "billion laughs"), refer to themselves, nest deeper than MAX_DEPTH
    once expanded, or that holds a number of more than MAX_NUMBER_DIGITS characters.

    Decided from parser events before ruamel composes anything: ruamel builds an
    alias bomb in milliseconds (each alias is the same object), and then every
    walk of the value (a setting shown in a message, a session's text, a saved
    task's names) expands it for minutes and gigabytes; an integer of thousands
    of digits makes every ``str()`` of it fail. libyaml's events are cheap; a
    document it cannot parse is counted on ruamel's own events.
    """
    if (
        not ("&" in text and "*" in text)
        and len(text) <= MAX_NODES  # each value takes a character at least
        and sum(map(text.count, _NESTING_CHARS)) <= MAX_DEPTH  # every level needs one of those characters
        and "!" not in text  # a tag can make a quoted or escaped text a number
        and _LONG_WORD.search(text) is None  # a plain number is one run of these characters
    ):
        return
    loader = _Loader(_hide_yaml11_breaks(text)[0])
    try:
        _count_events(iter(loader.get_event, None))
        return
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError as RuamelError

    try:
        _count_events(YAML(typ="safe").parse(text))
    except RuamelError:
        return  # the load reports it, with its line


# A run of the characters a number is written with (the lookbehind makes each run searched once: linear time).
_LONG_WORD = re.compile(rf"(?<![0-9A-Za-z_:.])[0-9A-Za-z_:.]{{{MAX_NUMBER_DIGITS},}}")
# What ruamel may read as a number (YAML 1.2 and 1.1: 0x, 0o, 0b, 1_000, sexagesimal 1:30, floats)
_NUMBER_LIKE = re.compile(r"[-+]?\.?[0-9][0-9A-Za-z_:.+-]*\Z")


def _too_long_number(event) -> bool:
    """Whether a scalar event is a number (plain, or tagged ``!!int``/``!!float``) too long to use."""
    value = event.value
    if len(value) <= MAX_NUMBER_DIGITS:
        return False
    tag = str(event.tag or "")
    if tag.endswith((":int", ":float")):
        return True
    return bool(event.implicit[0]) and _NUMBER_LIKE.match(value) is not None


def _count_events(events) -> None:
    """``refuse_yaml_bombs`` on a stream of events (libyaml's or ruamel's: the same names and fields).

    Per anchor: its nodes and characters with aliases expanded, and its height
    in collections. An alias adds its anchor's nodes less the one it stands for,
    and all its characters; the document is refused as soon as aliases have
    added more than a limit, so a large document without aliases is never
    refused, and a bomb is stopped early.
    """
    anchors: dict[str, tuple[int, int, int]] = {}
    open_collections: list[list] = []  # [anchor, nodes so far, tallest child, characters so far]
    added = added_characters = written = 0
    for event in events:
        kind = type(event).__name__
        if kind in ("SequenceStartEvent", "MappingStartEvent", "ScalarEvent", "AliasEvent"):
            written += 1
            if written > MAX_NODES:
                raise _too_many_nodes(event.start_mark.line)
        if kind in ("SequenceStartEvent", "MappingStartEvent"):
            open_collections.append([event.anchor, 1, 0, 0])
            if len(open_collections) > MAX_DEPTH:
                raise _too_deep(event.start_mark.line)
            continue
        if kind in ("SequenceEndEvent", "MappingEndEvent"):
            anchor, nodes, tallest, characters = open_collections.pop()
            height = tallest + 1
        elif kind == "ScalarEvent":
            if _too_long_number(event):
                raise _too_long(event.value, event.start_mark.line)
            anchor, nodes, height, characters = event.anchor, 1, 0, len(event.value)
        elif kind == "AliasEvent":
            if any(collection[0] == event.anchor for collection in open_collections):
                raise YamlError("recursive alias: the document refers to itself", event.start_mark.line)
            anchor = None
            nodes, height, characters = anchors.get(event.anchor, (1, 0, 0))  # an undefined alias: the load reports it
            added += nodes - 1
            added_characters += characters
            if added > MAX_EXPANDED_NODES:
                raise YamlError(f"aliases expand to more than {MAX_EXPANDED_NODES:,} nodes (an alias bomb); refused", event.start_mark.line)
            if added_characters > MAX_ALIAS_CHARACTERS:
                raise _too_many_characters(event.start_mark.line)
        elif kind == "StreamEndEvent":
            return
        else:
            continue
        if anchor is not None:
            anchors[anchor] = (nodes, height, characters)
        if len(open_collections) + height > MAX_DEPTH:
            raise _too_deep(event.start_mark.line)
        if open_collections:
            parent = open_collections[-1]
            parent[1] += nodes
            parent[2] = max(parent[2], height)
            parent[3] += characters


def _too_many_nodes(line: int | None) -> YamlError:
    return YamlError(f"more than {MAX_NODES:,} values in one document; refused (no rawko file holds that many)", line)


def _too_many_characters(line: int | None) -> YamlError:
    return YamlError(f"aliases expand to more than {MAX_ALIAS_CHARACTERS:,} characters (an alias bomb); refused", line)


def _too_long(value: str, line: int | None) -> YamlError:
    return YamlError(f"a number {len(value):,} characters long (rawko-tui reads numbers of up to {MAX_NUMBER_DIGITS:,}; no rawko file holds a longer one); refused", line)


# How each refusal above ends: a document a real arbiter would read but rawko-tui will not (``is_refusal``).
REFUSED_SUFFIXES = ("(an alias bomb); refused", "(no rawko file nests like that)", "(no rawko file holds that many)")


def is_refusal(reason: str) -> bool:
    """Whether an error's words say rawko-tui refused the document (a limit), not that it is invalid YAML."""
    return reason.endswith(REFUSED_SUFFIXES)


def plain_yaml_error(exc: BaseException) -> tuple[str, int | None]:
    """A failure of ``load_with_ruamel`` (or of reading or decoding its file) as (plain reason, 1-based line)."""
    if isinstance(exc, OSError):  # safeio.UnsafeFile among them: a link, a device, too large
        return f"cannot be read: {exc.strerror or exc}", None
    if isinstance(exc, YamlError):
        return exc.message, (exc.line + 1 if exc.line is not None else None)
    if isinstance(exc, RecursionError):
        return "nested too deeply to read", None
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start} is not)", None
    first = str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__
    line = getattr(getattr(exc, "problem_mark", None), "line", None)
    return f"not valid YAML: {first}", (line + 1 if line is not None else None)


def load_yaml(text: str) -> object:
    """Parse one YAML document as js-yaml's ``load`` does. Raises YamlError.

    An empty document (or one holding only comments) is ``UNDEFINED``.
    """
    simple = simple_mapping(text)
    if simple is not _NOT_SIMPLE:
        return simple
    return load_yaml_fully(text)


_NESTING_CHARS = ("[", "{", "-", ":", "?")


# libyaml's scanner reads a run of flow openers ahead of the parser, so its own nesting limit can be met before the
# parser's events reach rawko-tui's: said as rawko-tui's refusal, which it implies
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"


def _too_deep(line: int | None) -> YamlError:
    return YamlError(f"nested more than {MAX_DEPTH} levels deep; refused (no rawko file nests like that)", line)


# What ``_refuse_deep_nesting`` found in the last document it walked (None: nothing to refuse), by the document's
# fingerprint: every dialect reads a frontmatter, so the same document comes again, and walking one of a million
# values took 1.8 s each time. A fingerprint rather than the text: that would keep a copy of megabytes alive.
_last_nesting_check: tuple[tuple[int, bytes], tuple | None] | None = None


def _fingerprint(text: str) -> tuple[int, bytes]:
    try:
        from _blake2 import blake2b  # the interpreter's own: hashlib would load OpenSSL
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b
    digest = blake2b(digest_size=32)
    for start in range(0, len(text), _FINGERPRINT_CHUNK):  # a chunk at a time: no copy of the document whole
        digest.update(text[start : start + _FINGERPRINT_CHUNK].encode("utf-8", "surrogatepass"))
    return len(text), digest.digest()


_FINGERPRINT_CHUNK = 1 << 20


def _refuse_deep_nesting(text: str) -> None:
    """``_walk_for_nesting`` once for a document, however many dialects read it: the last document's answer is
    kept by its fingerprint (its length and BLAKE2 digest)."""
    global _last_nesting_check
    fingerprint = _fingerprint(text)
    last = _last_nesting_check  # one read: another thread may replace it
    if last is None or last[0] != fingerprint:
        try:
            _walk_for_nesting(text)
        except YamlError as exc:  # its fields, not the exception: its traceback holds the walk's frames and the document
            last = _last_nesting_check = (fingerprint, (exc.message, exc.line, exc.column, exc.tab))
        else:
            last = _last_nesting_check = (fingerprint, None)
    if last[1] is not None:
        raise YamlError(*last[1])


def _walk_for_nesting(text: str) -> None:
    """Raise YamlError for a document nested deeper than MAX_DEPTH or holding more than MAX_NODES values, found from
    the parser's events.

    Checked before composing: libyaml's parser keeps its own stack, but the
    composer of PyYAML's C binding recurses once per level and overflows the C
    stack (a crash, not an exception) some tens of thousands of levels down;
    and each composed node costs a hundred bytes or so.
    """
    loader = _Loader(text)
    try:
        depth = nodes = 0
        while True:
            event = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return
            if isinstance(event, yaml.NodeEvent):  # a scalar, an alias or a collection
                nodes += 1
                if nodes > MAX_NODES:
                    raise _too_many_nodes(event.start_mark.line)
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise _too_deep(event.start_mark.line)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return  # the full parse reports it, with its line
    finally:
        loader.dispose()


def load_yaml_shared(text: str) -> object:
    """js-yaml's reading of a document rawko-tui refuses to expand (an alias bomb), with every alias the same
    Python object as its anchor, as js-yaml shares them: built in time linear in the document, it may only be
    looked at, never walked whole (``String(list)`` of it would be the expansion). Raises YamlError."""
    return parse_document(_Loader, text, UNDEFINED, shared=True)


def load_yaml_fully(text: str) -> object:
    """``load_yaml`` through libyaml, for any document (the fast path's reference)."""
    return parse_document(_Loader, text, UNDEFINED)


def _refuse_alias_bomb(node) -> None:
    """Refuse a document whose aliases expand past MAX_EXPANDED_NODES nodes or add MAX_ALIAS_CHARACTERS characters
    (every dialect: js-yaml has no guard of its own, and npm yaml's counts aliases, not what they expand to)."""
    nodes, characters = _expanded_size(node, MAX_EXPANDED_NODES)
    if nodes > MAX_EXPANDED_NODES:
        raise YamlError(f"aliases expand to more than {MAX_EXPANDED_NODES:,} nodes (an alias bomb); refused", node.start_mark.line)
    if characters > MAX_ALIAS_CHARACTERS:
        raise _too_many_characters(node.start_mark.line)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BLOCK_HEADER = re.compile(r"[|>][0-9+-]*")


def walk_nodes(root):
    """Every node once with its innermost block collection and whether it sits in a flow collection."""
    seen: set[int] = set()
    stack = [(root, None, False)]
    while stack:
        node, block, in_flow = stack.pop()
        if id(node) in seen:  # an alias: the same node again
            continue
        seen.add(id(node))
        yield node, block, in_flow
        if isinstance(node, ScalarNode):
            continue
        children = node.value if isinstance(node, SequenceNode) else [part for pair in node.value for part in pair]
        inner = (block if node.flow_style else node, in_flow or bool(node.flow_style))
        stack.extend((child, *inner) for child in children)


def check_js_syntax(root, text: str) -> None:
    """What both JavaScript libraries refuse and libyaml reads: a block scalar header followed by ``#``
    without a space (``description: ># note``), and a lone ``-`` in a flow collection (``[-]``)."""
    lines: list[str] | None = None
    keys: set[int] = set()  # "-" may be a key in a flow mapping ({-: 1}); only an entry is refused
    for node, _, in_flow in walk_nodes(root):
        if isinstance(node, MappingNode):
            keys.update(id(key) for key, _ in node.value)
        if not isinstance(node, ScalarNode):
            continue
        if node.style in ("|", ">"):
            lines = _LINE_BREAK.split(text) if lines is None else lines
            line = lines[node.start_mark.line]
            header = _BLOCK_HEADER.match(line, node.start_mark.column)
            if header and header.end() < len(line) and line[header.end()] not in " \t":
                raise YamlError("a line break is expected after a block scalar header", node.start_mark.line, header.end())
        elif not node.style and in_flow and node.value == "-" and id(node) not in keys:  # plain: None, or "" from libyaml
            raise YamlError("missed comma between flow collection entries", node.start_mark.line, node.start_mark.column)


def _checked_by_js_syntax(text: str) -> bool:
    """Whether ``check_js_syntax`` could find anything (a cheap test, so most documents skip the walk)."""
    return ("-" in text and ("[" in text or "{" in text)) or (("#" in text) and (">" in text or "|" in text))


_LONE_SURROGATE_BASE = 0x100000  # lone surrogates go to libyaml as plane-16 private-use stand-ins
_RESTORE_SURROGATES = {_LONE_SURROGATE_BASE + offset: 0xD800 + offset for offset in range(0x800)}
_BAD_ESCAPE = "found invalid Unicode character escape code"
MAX_SURROGATE_SCALARS = 200  # double-quoted scalars with surrogate escapes rewritten per document


def _surrogate_escapes_for_libyaml(text: str) -> tuple[str, bool]:
    """``"\\ud83d\\ude80"`` is one character to both JavaScript libraries (their strings are UTF-16), and a
    lone ``"\\ud83d"`` a lone surrogate; libyaml refuses both escapes. Each double-quoted scalar libyaml
    stops at is rewritten from its opening quote to its closing one: a pair as the ``\\U`` escape of its
    code point, a lone one as a stand-in the constructor turns back. Only where libyaml itself reports the
    escape, so block, single-quoted and plain scalars are never touched. (the text, stand-ins used)"""
    stand_ins = False
    for _ in range(MAX_SURROGATE_SCALARS):
        try:
            for _token in yaml.scan(text, Loader=_ScanLoader):
                pass
            return text, stand_ins
        except yaml.MarkedYAMLError as exc:
            if exc.problem != _BAD_ESCAPE or exc.context_mark is None:
                return text, stand_ins
            start = _offset(text, exc.context_mark.line, exc.context_mark.column)
            text, used = _rewrite_quoted(text, start)
            stand_ins = stand_ins or used
    return text, stand_ins


def _offset(text: str, line: int, column: int) -> int:
    starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]
    return starts[line] + column


def _rewrite_quoted(text: str, start: int) -> tuple[str, bool]:
    """The double-quoted scalar opening at ``start`` with its surrogate escapes written as libyaml reads them."""
    out = [text[: start + 1]]
    used = False
    i = start + 1
    while i < len(text) and text[i] != '"':
        if text[i] != "\\":
            out.append(text[i])
            i += 1
            continue
        escape = text[i : i + 6]
        code = int(escape[2:], 16) if len(escape) == 6 and escape[1] == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", escape[2:]) else None
        if code is None or not 0xD800 <= code <= 0xDFFF:
            out.append(text[i : i + 2])
            i += 2
            continue
        low = text[i + 6 : i + 12]
        low_code = int(low[2:], 16) if len(low) == 6 and low[:2] == "\\u" and re.fullmatch(r"[0-9a-fA-F]{4}", low[2:]) else None
        if code < 0xDC00 and low_code is not None and 0xDC00 <= low_code <= 0xDFFF:
            out.append(f"\\U{0x10000 + ((code - 0xD800) << 10) + (low_code - 0xDC00):08x}")
            i += 12
        else:
            out.append(chr(_LONE_SURROGATE_BASE + code - 0xD800))
            used = True
            i += 6
    out.append(text[i:])
    return "".join(out), used


def _character_at(text: str, line: int, column: int) -> str:
    lines = text.split("\n", line + 1)
    return lines[line][column : column + 1] if line < len(lines) else ""


def parse_document(loader_class, text: str, empty: object, check_aliases=None, check_document=None, shared: bool = False) -> object:
    """One YAML document through libyaml with ``loader_class``'s resolution and construction.

    The safety rules are the same for every dialect: NEL, LS and PS are
    ordinary characters (YAML 1.2), nesting past MAX_DEPTH is refused before
    composing, and a document that uses a node twice is judged first by the
    dialect's own guard (``check_aliases(node)``: what the real library refuses,
    it refuses in its words), then by rawko-tui's alias-bomb limits (what it
    would read but rawko-tui will not expand: "refused"). ``empty`` is what a
    document with no content gives. Raises YamlError.
    """
    written = text
    text, hidden = _hide_yaml11_breaks(text)
    surrogates = False
    if "\\u" in text and "\\ud" in text.lower() and not any(_LONE_SURROGATE_BASE <= ord(c) < _LONE_SURROGATE_BASE + 0x800 for c in text if ord(c) >= 0x100000):
        text, surrogates = _surrogate_escapes_for_libyaml(text)
    if text and text[-1] not in "\n\r":
        # Both JavaScript libraries end the input with a line break: a block scalar that closes the
        # frontmatter ("discoveredBy: |" then "  developer") keeps its final newline there, not in libyaml
        text += "\n"
    if len(text) > MAX_NODES or sum(map(text.count, _NESTING_CHARS)) > MAX_DEPTH:  # every value takes a character, every level one of these
        _refuse_deep_nesting(text)
    if needs_js_composer(text):
        loader_class = loader_class.js_composer
    loader = loader_class(text)
    loader.restore_breaks, loader.restore_surrogates = hidden, surrogates
    try:
        try:
            node = loader.get_single_node()
        except yaml.composer.ComposerError as exc:
            if "duplicate anchor" not in str(exc) or not hasattr(loader_class, "js_composer"):
                raise
            loader.dispose()
            loader = loader_class.js_composer(text)
            loader.restore_breaks, loader.restore_surrogates = hidden, surrogates
            node = loader.get_single_node()
        if node is None:
            return empty if _no_document(written) else None
        reused, depth = _shape(node)
        if depth > MAX_DEPTH:
            raise _too_deep(node.start_mark.line)
        if _checked_by_js_syntax(text):
            check_js_syntax(node, text)
        if check_document is not None:  # what the dialect's own parser refuses and libyaml reads
            check_document(node, text)
        if reused and not shared:
            if check_aliases is not None:
                check_aliases(node)
            _refuse_alias_bomb(node)
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.problem == _LIBYAML_TOO_DEEP:  # libyaml's own limit (1,000 levels, from PyYAML 6.0.4), past rawko-tui's
            raise _too_deep(mark.line if mark else None) from None
        problem = exc.problem or exc.context or "invalid YAML"
        if mark is not None and (_character_at(text, mark.line, mark.column) == "\t" or "tab character" in problem):
            raise YamlError(tab_message(None, mark.column + 1), mark.line, mark.column, tab=True) from None
        context = f" ({exc.context})" if exc.context and exc.problem else ""
        raise YamlError(f"{problem}{context}", mark.line if mark else None, mark.column if mark else None) from None
    except yaml.YAMLError as exc:
        raise YamlError(str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None
    except RecursionError:
        raise YamlError("nesting is too deep to read") from None
    finally:
        loader.dispose()
