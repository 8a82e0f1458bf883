"""Untrusted text (every memory's content, every file name) made safe for a terminal.

Memory files are written by agents and may be hostile. Control characters --
terminal escape sequences, carriage returns, bidirectional overrides -- are
replaced by visible stand-ins, so that nothing a memory holds reaches a
terminal as a command, whether the app or the command line shows it.
"""

from __future__ import annotations

import re

_C0 = {code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)}
_C0[0x7F] = "\u2421"  # ␡
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# In a name or a one-line report, a newline or a tab would break the line: shown too.
_UNSAFE_IN_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAME_STAND_INS = {**_C0, 0x09: "\u2409", 0x0A: "\u240a"}


def _replace(match: re.Match) -> str:
    code = ord(match.group())
    if code in _NAME_STAND_INS:
        return _NAME_STAND_INS[code]
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"\\u{code:04x}" if code > 0xFF else f"\\x{code:02x}"


def clean(text: str, limit: int | None = None) -> str:
    """The text with control characters made visible (tabs and newlines kept), cut to ``limit`` characters."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    return _UNSAFE.sub(_replace, text)


def one_line(text: str, limit: int = 200) -> str:
    return clean(" ".join(text.split()), limit)


def clean_name(name: str) -> str:
    """A file name shown on one line: a newline or tab in it becomes a visible stand-in."""
    return _UNSAFE_IN_NAME.sub(_replace, name)


def escape_json_controls(text: str) -> str:
    """JSON text with the characters JSON leaves raw (C1 controls, bidi overrides) as ``\\uXXXX`` escapes.

    They can only occur inside JSON strings, so the escaped text is the same JSON value.
    """
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 commit``, ``2 commits``: a count with its noun in the right number."""
    return f"{count:,} {noun if count == 1 else (nouns or noun + 's')}"
