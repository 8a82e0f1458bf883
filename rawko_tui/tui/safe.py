"""Untrusted text (every memory's content) made safe to put on screen.

Memory files are written by agents and may be hostile: Rich/Textual markup is
never interpreted (everything here builds ``rich.text.Text`` objects, which
are literal), and control characters -- terminal escape sequences, carriage
returns, bidirectional overrides -- are replaced by visible stand-ins so that
nothing written by a memory reaches the terminal as a command.
"""

from __future__ import annotations

import re

from rich.text import Text

_C0 = {code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)}
_C0[0x7F] = "\u2421"  # ␡
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _replace(match: re.Match) -> str:
    ch = match.group()
    code = ord(ch)
    if code in _C0:
        return _C0[code]
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"\\u{code:04x}" if code > 0xFF else f"\\x{code:02x}"


def clean(text: str, limit: int | None = None) -> str:
    """The text with control characters made visible, cut to ``limit`` characters."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    return _UNSAFE.sub(_replace, text)


def one_line(text: str, limit: int = 200) -> str:
    return clean(" ".join(text.split()), limit)


def literal(text: str, style: str = "", limit: int | None = None) -> Text:
    """A Text that shows ``text`` exactly as written: no markup, no escapes."""
    return Text(clean(text, limit), style=style, no_wrap=False)


def cell(text: str, style: str = "", limit: int = 200) -> Text:
    """A table cell: one line, literal, cut with an ellipsis."""
    return Text(one_line(text, limit), style=style, no_wrap=True, overflow="ellipsis")
