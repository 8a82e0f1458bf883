"""The parts of a Markdown text a renderer does not show, though an agent reads every byte of them.

A memory's body reaches an agent's prompt verbatim, while a person reviews it
rendered (GitHub, an editor's preview, the app's Memory pane). What the
rendering drops is where an instruction hides:

* HTML comments, ``<!-- … -->``, in a block or inside a paragraph; an HTML
  block that opens a comment and never closes it hides the rest of the file;
* link reference definitions nothing links to (``[//]: # (…)``, ``[comment]: <> (…)``):
  CommonMark renders no definition, and one no link uses shows nothing at all;
  a used one's title is shown only on hover;
* HTML elements a browser hides: the ``hidden`` attribute, ``display: none``,
  ``visibility: hidden``, ``font-size: 0`` or ``opacity: 0`` in a style, a hidden
  ``<input>``'s value, and ``<script>``, ``<style>``, ``<template>``, ``<noscript>`` elements.

``<details>`` is not hidden: its content is a click away. Code blocks and code
spans show what they hold, so nothing in them is hidden. The reading follows
CommonMark (markdown-it, which GitHub's renderer and the app's agree with on
these constructs); ``tests/test_injection.py`` compares it with markdown-it-py.
Imports nothing of the core.
"""

from __future__ import annotations

import re
from ..records import record

COMMENT = "an HTML comment"
UNCLOSED_COMMENT = "an HTML comment never closed (it hides the rest of the file)"
UNUSED_DEFINITION = "a link reference definition nothing links to"
DEFINITION_TITLE = "a link reference definition's title (shown only on hover)"
HIDDEN_ELEMENT = "HTML a browser hides"
HIDDEN_INPUT = "a hidden <input>'s value"


@record(frozen=True)
class HiddenPart:
    """One hidden part: what it is, where it is (offsets in the text, 1-based lines) and the text an agent reads."""

    kind: str
    start: int
    end: int
    line: int
    end_line: int
    text: str


_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})([^\n]*)$")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?: |$)")
_BLOCKQUOTE = re.compile(r"^ {0,3}>")
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?: |$)")
_THEMATIC = re.compile(r"^ {0,3}(?:(?:\* *){3,}|(?:- *){3,}|(?:_ *){3,})$")
_COMMENT_BLOCK_START = re.compile(r"^ {0,3}<!--")
# an HTML block of types 6 and 7 starts with a tag: it runs to a blank line
_HTML_BLOCK_TAG = re.compile(r"^ {0,3}</?[A-Za-z][A-Za-z0-9-]*(?:\s|/?>|$)")
_TITLE = r"(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\))"
_DEFINITION = re.compile(
    r"^ {0,3}\[(?P<label>(?:[^\[\]\\]|\\.){0,999}(?:[^\[\]\\\s]|\\.)(?:[^\[\]\\]|\\.){0,999})\]:[ \t]*"
    r"(?P<destination><[^<>\n]*>|[^\s<]\S*)"
    rf"(?:[ \t]+(?P<title>{_TITLE}))?[ \t]*$"
)
_TITLE_LINE = re.compile(rf"^[ \t]*(?P<title>{_TITLE})[ \t]*$")
_OPEN_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)((?:\s+[^\s<>\"'=/]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*)\s*(/?)>")
_HIDING_STYLE = re.compile(r"(?i)(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9]))")
_HIDDEN_ATTRIBUTE = re.compile(r"(?i)(?:^|\s)hidden(?:\s|=|$)")
_STYLE_ATTRIBUTE = re.compile(r"(?i)(?:^|\s)style\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+)")
_HIDDEN_INPUT = re.compile(r"(?i)(?:^|\s)type\s*=\s*[\"']?hidden\b")
_VALUE_ATTRIBUTE = re.compile(r"(?i)(?:^|\s)value\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+)")
_HIDING_ELEMENTS = frozenset({"script", "style", "template", "noscript"})  # noscript: a browser running scripts does not show it
_BACKTICKS = re.compile(r"`+")
# the quick test: without one of these a text has no hidden part
_MAY_HIDE = re.compile(r"<!--|\]:|<[A-Za-z][^<>]*?(?:hidden|style|script|template)", re.IGNORECASE)  # "noscript" holds "script"


def may_hide(text: str) -> bool:
    return ("<" in text or "]:" in text) and _MAY_HIDE.search(text) is not None


def hidden_parts(text: str) -> list[HiddenPart]:
    """Every part of ``text`` a Markdown renderer hides, in order (``may_hide`` first: most texts have none)."""
    if not may_hide(text):
        return []
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    code = _code_lines(lines)
    found: list[HiddenPart] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if code[index]:
            index += 1
            continue
        body = _without_quote_markers(line)
        if not body.strip():
            index += 1
            continue
        if _COMMENT_BLOCK_START.match(body):
            # an HTML block of type 2: it ends on the line holding "-->", or with the document
            open_at = starts[index] + line.index("<!--")
            close = text.find("-->", open_at + 4)
            if close < 0:
                found.append(_part(UNCLOSED_COMMENT, open_at, max(open_at + 4, len(text.rstrip())), text, starts))
                break
            end = close + 3
            found.append(_part(COMMENT, open_at, end, text, starts))
            end_index = _line_of(starts, end - 1)
            tail = text[end : starts[end_index] + len(lines[end_index])]
            found.extend(_inline_parts(tail, end, text, starts))  # e.g. a second comment on the closing line
            index = end_index + 1
            continue
        if _HTML_BLOCK_TAG.match(body):
            # an HTML block (types 6/7) runs to a blank line; hidden elements in it are found below
            end_index = index
            while end_index + 1 < len(lines) and lines[end_index + 1].strip() and not code[end_index + 1]:
                end_index += 1
            block_start, block_end = starts[index], starts[end_index] + len(lines[end_index])
            found.extend(_inline_parts(text[block_start:block_end], block_start, text, starts, in_block=True))
            index = end_index + 1
            continue
        definition = _DEFINITION.match(body)
        if definition is not None:
            last = index
            title = definition.span("title") if definition.group("title") else None
            title_line = _TITLE_LINE.match(lines[index + 1]) if index + 1 < len(lines) and title is None else None
            if title_line is not None:
                last, title = index + 1, title_line.span("title")
                title = (starts[last] + title[0], starts[last] + title[1])
            elif title is not None:
                shift = starts[index] + len(line) - len(body)
                title = (shift + title[0], shift + title[1])
            part = _definition_part(text, starts[index], starts[last] + len(lines[last]), definition.group("label"), title, starts)
            if part is not None:
                found.append(part)
            index = last + 1
            continue
        if _ATX_HEADING.match(body) or _THEMATIC.match(body):
            found.extend(_inline_parts(line, starts[index], text, starts))
            index += 1
            continue
        # a paragraph (or a list item, a table row): inline comments and hidden elements may span its lines
        end_index = index
        while end_index + 1 < len(lines) and lines[end_index + 1].strip() and not code[end_index + 1] and not _COMMENT_BLOCK_START.match(
            _without_quote_markers(lines[end_index + 1])
        ):
            end_index += 1
        block_start, block_end = starts[index], starts[end_index] + len(lines[end_index])
        found.extend(_inline_parts(text[block_start:block_end], block_start, text, starts))
        index = end_index + 1
    return _merged(found)


def _part(kind: str, start: int, end: int, text: str, starts: list[int]) -> HiddenPart:
    return HiddenPart(kind, start, end, _line_of(starts, start) + 1, _line_of(starts, max(start, end - 1)) + 1, text[start:end])


def _line_of(starts: list[int], offset: int) -> int:
    """The 0-based line holding ``offset``."""
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low


def _without_quote_markers(line: str) -> str:
    while _BLOCKQUOTE.match(line):
        line = line[line.index(">") + 1 :]
        if line.startswith(" "):
            line = line[1:]
    return line


def _code_lines(lines: list[str]) -> list[bool]:
    """Which lines are code: fenced blocks (a fence in a list item may be indented) and top-level indented code."""
    code = [False] * len(lines)
    fence: tuple[str, int] | None = None
    in_list = False
    previous_blank = True
    for number, line in enumerate(lines):
        body = _without_quote_markers(line)
        if fence is not None:
            code[number] = True
            stripped = body.strip()
            if stripped.startswith(fence[0] * fence[1]) and set(stripped) == {fence[0]}:
                fence = None
            continue
        if not body.strip():
            previous_blank = True
            continue
        indent = len(body) - len(body.lstrip(" "))
        if _LIST_ITEM.match(body):
            in_list = True
        elif indent == 0:
            in_list = False
        stripped = body.lstrip(" ")
        opening = _FENCE_OPEN.match(" " * min(indent, 3) + stripped) if (indent <= 3 or in_list) else None
        if opening is not None and not (opening.group(2)[0] == "`" and "`" in opening.group(3)):
            fence = (opening.group(2)[0], len(opening.group(2)))
            code[number] = True
        elif indent >= 4 and not in_list and (previous_blank or (number > 0 and code[number - 1])):
            code[number] = True
        previous_blank = False
    return code


def _code_spans(chunk: str) -> list[tuple[int, int]]:
    """Code spans in an inline chunk: a run of n backticks closed by a run of exactly n."""
    spans = []
    runs = list(_BACKTICKS.finditer(chunk))
    used = set()
    for i, run in enumerate(runs):
        if i in used:
            continue
        for j in range(i + 1, len(runs)):
            if j not in used and len(runs[j].group()) == len(run.group()):
                spans.append((run.start(), runs[j].end()))
                used.update(range(i, j + 1))
                break
    return spans


def _inline_parts(chunk: str, offset: int, text: str, starts: list[int], in_block: bool = False) -> list[HiddenPart]:
    """Comments and hidden elements in a paragraph (or an HTML block's lines), outside code spans."""
    if "<" not in chunk:
        return []
    spans = [] if in_block else _code_spans(chunk)

    def in_code(at: int) -> bool:
        return any(a <= at < b for a, b in spans)

    found = []
    at = 0
    while True:
        at = chunk.find("<", at)
        if at < 0:
            break
        if in_code(at):
            at = next(b for a, b in spans if a <= at < b)
            continue
        if chunk.startswith("<!--", at):
            if chunk.startswith("<!-->", at) or chunk.startswith("<!--->", at):
                at += 5
                continue
            close = chunk.find("-->", at + 4)
            if close < 0:
                at += 4
                continue
            found.append(_part(COMMENT, offset + at, offset + close + 3, text, starts))
            at = close + 3
            continue
        tag = _OPEN_TAG.match(chunk, at)
        if tag is None:
            at += 1
            continue
        name, attributes, self_closing = tag.group(1).lower(), tag.group(2), tag.group(3)
        if name == "input" and _HIDDEN_INPUT.search(attributes):
            value = _VALUE_ATTRIBUTE.search(attributes)
            if value is not None:
                found.append(_part(HIDDEN_INPUT, offset + at, offset + tag.end(), text, starts))
            at = tag.end()
            continue
        style = _STYLE_ATTRIBUTE.search(attributes)
        hides = name in _HIDING_ELEMENTS or _HIDDEN_ATTRIBUTE.search(attributes) is not None or (style is not None and _HIDING_STYLE.search(style.group(1)) is not None)
        if not hides or self_closing:
            at = tag.end()
            continue
        # the element runs to its matching end tag, in the whole text (a blank line does not end it in a browser)
        end = _element_end(text, offset + tag.end(), name)
        found.append(_part(HIDDEN_ELEMENT, offset + at, end, text, starts))
        if end >= offset + len(chunk):
            break
        at = end - offset
    return found


def _element_end(text: str, after: int, name: str) -> int:
    """The offset just past the end tag that closes an element opened before ``after`` (nested ones counted), or the text's end."""
    pattern = re.compile(rf"<(/?){re.escape(name)}(?=[\s/>])[^<>]*>", re.IGNORECASE)
    depth = 1
    for match in pattern.finditer(text, after):
        if match.group(1):
            depth -= 1
            if depth == 0:
                return match.end()
        elif not match.group().endswith("/>"):
            depth += 1
    return len(text)


def _normal_label(label: str) -> str:
    return " ".join(label.casefold().split())


def _definition_part(text: str, start: int, end: int, label: str, title: tuple[int, int] | None, starts: list[int]) -> HiddenPart | None:
    """A definition nothing links to is hidden whole; a used one hides only its title."""
    wanted = _normal_label(label)
    for match in re.finditer(r"\[((?:[^\[\]\\]|\\.){1,999})\]", text):
        # a link naming the label (another definition of it, "[label]:", is no link)
        if not start <= match.start() < end and _normal_label(match.group(1)) == wanted and not text.startswith(":", match.end()):
            return None if title is None else _part(DEFINITION_TITLE, title[0], title[1], text, starts)
    return _part(UNUSED_DEFINITION, start, end, text, starts)


def _merged(parts: list[HiddenPart]) -> list[HiddenPart]:
    """In order, a part inside another (a comment in a hidden element) dropped."""
    parts.sort(key=lambda p: (p.start, -p.end))
    kept: list[HiddenPart] = []
    for part in parts:
        if kept and part.end <= kept[-1].end:
            continue
        kept.append(part)
    return kept
