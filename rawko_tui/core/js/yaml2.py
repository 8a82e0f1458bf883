"""YAML as rawko-sdk reads it: npm ``yaml`` 2.8.2's ``parse()`` (YAML 1.2, core schema).

The differences from js-yaml 4 (``yamljs``, the spec profiles' reading) that
decide which memories load:

* only the core schema resolves plain scalars: ``2026-01-23`` and unquoted
  timestamps stay strings, ``0b101`` and ``1_000`` are strings, ``0123`` is 123;
* ``<<`` is an ordinary key (merge keys are YAML 1.1);
* a scalar with an unknown tag (``!custom``, ``!!python/…``) is read as its
  text (a warning there, not an error); a collection keeps its items;
* an explicit core tag that does not fit its value (``!!float 1``) gives the
  text; ``!!timestamp`` gives a date, or an error when it is not one;
* an anchor whose aliases are dereferenced too often is an error
  ("Excessive alias count", the library's resource-exhaustion guard);
* keys become strings as JavaScript objects need them (``null`` is ``""``),
  and two keys that are the same scalar value are an error.

The scanner and parser are libyaml's, as for ``yamljs``; only resolution and
construction follow the other library.
"""

from __future__ import annotations

import base64
import math
import re

from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.resolver import BaseResolver

from .values import JsDate, js_number_to_string, js_to_string
from .jsyaml import (
    _LINE_BREAK,
    _NOT_SIMPLE,
    BreaksRestoringConstructor,
    YamlError,
    _parse_timestamp,
    make_loader,
    parse_document,
    simple_mapping,
    walk_nodes,
)

MAX_ALIAS_COUNT = 100  # the library's default maxAliasCount
_TAG = "tag:yaml.org,2002:"
_PLAIN = _TAG + "plain"

_NULL_RE = re.compile(r"(?:~|[Nn]ull|NULL)?\Z")
_BOOL_RE = re.compile(r"(?:[Tt]rue|TRUE|[Ff]alse|FALSE)\Z")
_OCT_RE = re.compile(r"0o[0-7]+\Z")
_INT_RE = re.compile(r"[-+]?[0-9]+\Z")
_HEX_RE = re.compile(r"0x[0-9a-fA-F]+\Z")
_NAN_RE = re.compile(r"(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)\Z")
_EXP_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+\Z")
_FLOAT_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)\Z")


def _number(value: int | float) -> int | float:
    """A JavaScript number: integers beyond 2**53 are doubles, and past the largest double Infinity."""
    if isinstance(value, int) and abs(value) > 2**53:
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    return value


def _core_int(text: str, base: int, start: int = 0) -> int | float:
    digits = text[start:]
    if base == 10:  # int() refuses a text of over 4,300 digits, leading zeros included; parseInt gives Infinity
        sign, digits = ("-", digits[1:]) if digits[:1] == "-" else ("", digits.lstrip("+"))
        digits = digits.lstrip("0") or "0"
        if len(digits) > 400:
            return -math.inf if sign else math.inf
        digits = sign + digits
    return _number(int(digits, base))


def _core_float(text: str) -> float:
    lowered = text.lower()
    if lowered.endswith("nan"):
        return math.nan
    if lowered.endswith("inf"):
        return -math.inf if lowered.startswith("-") else math.inf
    return float(text)


# (tag, test, construct) in the core schema's order
_CORE = (
    ("null", _NULL_RE, lambda s: None),
    ("bool", _BOOL_RE, lambda s: s[0] in "Tt"),
    ("int", _OCT_RE, lambda s: _core_int(s, 8, 2)),
    ("int", _INT_RE, lambda s: _core_int(s, 10)),
    ("int", _HEX_RE, lambda s: _core_int(s, 16, 2)),
    ("float", _NAN_RE, _core_float),
    ("float", _EXP_RE, _core_float),
    ("float", _FLOAT_RE, _core_float),
)


def resolve_core_scalar(text: str) -> object:
    """The value the core schema gives an untagged plain scalar."""
    if text[:1].isalpha() and text[0] not in "nNtTfF":
        return text
    for _, test, construct in _CORE:
        if test.match(text):
            return construct(text)
    return text


def _explicit(tag: str, text: str) -> object:
    """A scalar with an explicit core tag: its value when the text fits the tag, else the text."""
    if tag == "str":
        return text
    for name, test, construct in _CORE:
        if name == tag and test.match(text):
            return construct(text)
    return text


class _Resolver(BaseResolver):
    yaml_implicit_resolvers: dict = {}

    def resolve(self, kind, value, implicit):  # noqa: D401 - PyYAML hook
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _TAG + "str"
        return _TAG + ("seq" if kind is SequenceNode else "map")


def _key_identity(value: object) -> object:
    """What makes two keys "the same" for the library's uniqueness check (scalar value, ===)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", float(value)) if not (isinstance(value, float) and math.isnan(value)) else object()
    if isinstance(value, (str, type(None), JsDate)):
        return (type(value).__name__, value if not isinstance(value, JsDate) else value.ms)
    return object()  # collections are never equal to another node


def _key_string(value: object) -> str:
    """A key as the JavaScript object the library builds holds it."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return js_number_to_string(value)
    return js_to_string(value)


class _Constructor(BreaksRestoringConstructor):
    def construct_mapping(self, node, deep=False):
        if not isinstance(node, MappingNode):
            raise ConstructorError(None, None, "expected a mapping node", node.start_mark)
        seen: set = set()
        mapping: dict[str, object] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            identity = _key_identity(key)
            if identity in seen:
                raise ConstructorError(None, None, "Map keys must be unique", key_node.start_mark)
            seen.add(identity)
            mapping[_key_string(key)] = self.construct_object(value_node, deep=deep)
        return mapping

    def construct_plain(self, node):
        return resolve_core_scalar(self.construct_scalar(node))

    def construct_tagged(self, node):
        tag = node.tag[len(_TAG) :] if node.tag.startswith(_TAG) else None
        if isinstance(node, ScalarNode):
            text = self.construct_scalar(node)
            if tag in ("str", "null", "bool", "int", "float"):
                return _explicit(tag, text)
            if tag == "timestamp":
                stamp = _parse_timestamp(text)
                if stamp is None:
                    raise ConstructorError(None, None, "!!timestamp expects a date, starting with yyyy-mm-dd", node.start_mark)
                return stamp
            if tag == "binary":
                try:
                    return base64.b64decode("".join(text.split()))
                except ValueError as exc:
                    raise ConstructorError(None, None, f"invalid !!binary: {exc}", node.start_mark) from exc
            return text  # an unknown tag: a warning, and the text
        if isinstance(node, SequenceNode):
            items = [self.construct_object(child, deep=True) for child in node.value]
            if tag in ("omap", "pairs"):
                return {"__map__": items}  # a Map: an object, never an array
            return items
        mapping = self.construct_mapping(node, deep=True)
        if tag == "set":
            return {"__set__": list(mapping)}  # a Set: an object, never an array
        return mapping


_Constructor.yaml_constructors = {}
_Constructor.add_constructor(_PLAIN, _Constructor.construct_plain)
_Constructor.add_constructor(_TAG + "str", SafeConstructor.construct_yaml_str)
_Constructor.add_constructor(_TAG + "seq", SafeConstructor.construct_yaml_seq)
_Constructor.add_constructor(_TAG + "map", SafeConstructor.construct_yaml_map)
_Constructor.add_constructor("!", SafeConstructor.construct_yaml_str)
_Constructor.add_constructor(None, _Constructor.construct_tagged)


_Loader = make_loader(_Constructor, _Resolver)


def _check_alias_count(root) -> None:
    """The library's guard: an anchor's dereferences times its nested aliases may not exceed 100."""
    seen: set[int] = set()
    alias_at: set[tuple[int, int]] = set()  # (parent id, child position) where a child is an alias

    def children(node) -> list:
        if isinstance(node, SequenceNode):
            return list(node.value)
        if isinstance(node, MappingNode):
            return [part for pair in node.value for part in pair]
        return []

    # first pass, in document order: which positions hold an alias (the node was seen before)
    stack = [root]
    seen.add(id(root))
    while stack:
        node = stack.pop()
        kids = children(node)
        fresh = []
        for position, child in enumerate(kids):
            if id(child) in seen:
                alias_at.add((id(node), position))
            else:
                seen.add(id(child))
                fresh.append(child)
        stack.extend(reversed(fresh))
    if not alias_at:
        return
    anchors: dict[int, list[int]] = {}  # node id -> [count, aliasCount]

    def alias_count(node) -> int:
        kids = children(node)
        if not kids:
            return 0 if isinstance(node, (SequenceNode, MappingNode)) else 1
        best = 0
        for position, child in enumerate(kids):
            if (id(node), position) in alias_at:
                data = anchors.get(id(child))
                value = data[0] * data[1] if data else 0
            else:
                value = alias_count(child)
            best = max(best, value)
        return best

    def visit(node) -> None:
        anchors.setdefault(id(node), [1, 0])
        for position, child in enumerate(children(node)):
            if (id(node), position) in alias_at:
                data = anchors.setdefault(id(child), [1, 0])
                data[0] += 1
                if data[1] == 0:
                    data[1] = alias_count(child)
                if data[0] * data[1] > MAX_ALIAS_COUNT:
                    raise YamlError("Excessive alias count indicates a resource exhaustion attack", child.start_mark.line)
            else:
                visit(child)

    visit(root)


def load_yaml12(text: str) -> object:
    """Parse one document as npm ``yaml`` 2.8.2's ``parse()``; an empty document is None. Raises YamlError."""
    simple = simple_mapping(text, resolve_core_scalar)  # the common flat frontmatter, without a parser
    if simple is not _NOT_SIMPLE:
        return simple
    return load_yaml12_fully(text)


def load_yaml12_fully(text: str) -> object:
    """``load_yaml12`` through libyaml, for any document (the fast path's reference)."""
    return parse_document(_Loader, text, None, _check_alias_count, _check_quoted_lines)


def _check_quoted_lines(root, text: str) -> None:
    """What npm yaml's lexer refuses and libyaml reads: a quoted scalar with a line indented no deeper than
    the block collection holding it ("Missing closing quote"; blank lines do not count), and a comment
    with no space before it after a quoted scalar or a flow collection (``title: "Alpha"# note``)."""
    if '"' not in text and "'" not in text and "#" not in text:
        return
    lines = _LINE_BREAK.split(text)
    for node, block, _ in walk_nodes(root):
        quoted = isinstance(node, ScalarNode) and node.style in ('"', "'")
        if quoted and block is not None and node.end_mark.line > node.start_mark.line:
            for number in range(node.start_mark.line + 1, node.end_mark.line + 1):
                line = lines[number]
                if line.strip(" ") and len(line) - len(line.lstrip(" ")) <= block.start_mark.column:
                    raise YamlError(f"Missing closing {node.style}quote", number, 0)
        if quoted or (not isinstance(node, ScalarNode) and node.flow_style):
            end = node.end_mark
            if end.line < len(lines) and lines[end.line][end.column : end.column + 1] == "#":
                raise YamlError("Comments must be separated from other tokens by white space characters", end.line, end.column)
