"""Untrusted text (every memory's content, every file name) made safe for a terminal.

Memory files are written by agents and may be hostile. Control characters --
terminal escape sequences, carriage returns, bidirectional overrides -- and
characters a reader cannot see (zero-width spaces, Unicode tag characters that
spell a hidden instruction, other format characters) are replaced by visible
stand-ins, so that nothing a memory holds reaches a terminal as a command or
passes a reader unseen, whether the app or the command line shows it.

``clean`` keeps the text's own line breaks (a body); ``inline`` is for text
placed on one line of a report (a title, a file name, a finding): every line
break and tab in it is shown too, so a store's text can never start a line
of its own. The exact bytes (``preview --prompt`` for another program, the
values of ``--json``) are never changed here.
"""

from __future__ import annotations

import re

from .firstuse import OnFirstUse

# Bidirectional controls: they reorder what is shown (a "Trojan Source" line reads one way, runs another).
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Characters that draw nothing: Unicode's default-ignorable code points (zero-width space and
# non-joiner, word joiner and the invisible operators, the tag characters U+E0000-E007F that can
# spell a whole instruction, variation selectors, fillers) and the format characters that draw
# nothing (soft hyphen, BOM inside text, interlinear annotation, Egyptian and musical format
# controls). Bidi controls are above; ZWJ and the two emoji presentation selectors below.
# The format characters left out (U+0600-0605, U+06DD, U+070F, U+0890-0891, U+08E2, U+110BD,
# U+110CD) are number signs drawn as visible marks.
_INVISIBLE = (
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200c\u2060-\u2065\u206a-\u206f\u3164"
    "\ufe00-\ufe0d\ufeff\uffa0\ufff0-\ufffb"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_PICTOGRAPH = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u2199\u21a9\u21aa\u231a-\u23ff\u24c2\u25aa-\u27bf"
    "\u2934\u2935\u2b05-\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001faff"
)
# Two invisible characters are ordinary in emoji and stay: a zero-width joiner between two
# pictographs (👨‍👩‍👧), and one presentation selector (VS15/VS16) right after a visible character (⚠️).
# Anywhere else they hide something, as a run of selectors smuggling bytes after an emoji does.
# (The patterns below are plain character classes, which the regex engine scans at C speed;
# the context of these two is looked at only where one occurs.)
_EMOJI_PARTS = "\u200d\ufe0e\ufe0f"


_IS_PICTOGRAPH = OnFirstUse(f"[{_PICTOGRAPH}]")
_IS_HIDDEN = OnFirstUse(f"[{_INVISIBLE}{_BIDI}{_EMOJI_PARTS}\\s]")
# Line breaks other than the newline: a terminal or a viewer may start a line at each.
_OTHER_BREAKS = "\u2028\u2029"  # VT, FF, CR are C0 and NEL is C1: shown with them

_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but tab and newline, DEL, C1
_SURROGATE = "\ud800-\udfff"
_HIDING = f"{_INVISIBLE}{_BIDI}{_EMOJI_PARTS}"
_SHOWN = OnFirstUse(f"[{_CONTROL}{_SURROGATE}{_OTHER_BREAKS}{_HIDING}]")
_SHOWN_INLINE = OnFirstUse(f"[\t\n{_CONTROL}{_SURROGATE}{_OTHER_BREAKS}{_HIDING}]")
# JSON: only what json.dumps leaves raw (C0 it escapes itself); the escaped text is the same value
_JSON_ESCAPED = OnFirstUse(f"[\x7f-\x9f{_SURROGATE}{_OTHER_BREAKS}{_HIDING}]")
_HIDDEN = OnFirstUse(f"[{_HIDING}]")
# A quick test that decides whether a text needs the substitution at all
_PLAIN = re.compile("[\t\n\x20-\x7e]*")
_PLAIN_LINE = re.compile("[\x20-\x7e]*")

_STAND_INS = {code: chr(0x2400 + code) for code in range(0x20)}  # ␀ … ␟, ␉ for tab, ␊ for newline
_STAND_INS[0x7F] = "\u2421"  # ␡


def _ordinary_in_emoji(text: str, at: int) -> bool:
    """Whether the ZWJ or presentation selector at ``at`` is part of an emoji (drawn, hiding nothing)."""
    char = text[at]
    before = text[at - 1] if at > 0 else ""
    if char == "\u200d":
        after = text[at + 1] if at + 1 < len(text) else ""
        return bool(after) and _IS_PICTOGRAPH.match(after) is not None and (before == "\ufe0f" or (before != "" and _IS_PICTOGRAPH.match(before) is not None))
    if char in "\ufe0e\ufe0f":
        return before != "" and _IS_HIDDEN.match(before) is None
    return False


def _replace(match: re.Match) -> str:
    char = match.group()
    code = ord(char)
    if code in _STAND_INS:
        return _STAND_INS[code]
    if char in _EMOJI_PARTS and _ordinary_in_emoji(match.string, match.start()):
        return char
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def clean(text: str, limit: int | None = None) -> str:
    """The text with control and invisible characters made visible (tabs and newlines kept), cut to ``limit`` characters."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    if _PLAIN.fullmatch(text):
        return text
    if len(text) > _LONG and "\n" in text:  # a long report: its lines of printable ASCII (most) pass as they are
        return "\n".join(line if line.isascii() and _PLAIN.fullmatch(line) else _SHOWN.sub(_replace, line) for line in text.split("\n"))
    return _SHOWN.sub(_replace, text)


# Past this many characters a text is cleaned line by line: the search for the characters to show runs only on
# the lines that hold one (a line break is shown as it was either way, and what is shown depends on nothing
# across one: a break is neither a pictograph nor hidden).
_LONG = 4096


def inline(text: str, limit: int | None = None) -> str:
    """Text placed on one line of a report: every line break (``\\n``, ``\\r``, VT, FF, NEL, U+2028,
    U+2029) and tab in it shown as a visible stand-in, as every control and invisible character is."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    if _PLAIN_LINE.fullmatch(text):
        return text
    return _SHOWN_INLINE.sub(_replace, text)


def inline_lines(texts: list[str]) -> str | None:
    """The texts one per line, each as ``inline`` shows it, when every line of ASCII among them is printable (what
    ``inline`` gives back unchanged): those, most often all of them, are checked at once rather than one each, and
    the others (a title in another script, a bar of blocks) shown one by one. None when a line of ASCII is not
    printable (a tab, a control character): each is then shown with ``inline``."""
    ascii_lines = [text for text in texts if text.isascii()]  # isascii is O(1) on CPython
    # a text of ASCII is printable (str.isprintable, a C loop) exactly when it holds only \x20-\x7e: no line break, no tab
    if not all(map(str.isprintable, ascii_lines)):
        return None
    if len(ascii_lines) == len(texts):
        return "\n".join(texts)
    return "\n".join(text if text.isascii() else inline(text) for text in texts)


def clean_name(name: str) -> str:
    """A file name shown on one line: a newline or tab in it becomes a visible stand-in."""
    return inline(name)


_SPACE_RUN = re.compile(r"[ \t\n]+")


def one_line(text: str, limit: int = 200) -> str:
    """The text's runs of spaces, tabs and newlines as single spaces: a table cell, a notification. Other line
    breaks (a lone carriage return, which a terminal would draw over the line's start; VT, FF, U+2028) are shown."""
    return clean(_SPACE_RUN.sub(" ", text).strip(" "), limit)


def escape_json_controls(text: str) -> str:
    """JSON text with the characters JSON leaves raw (C1 controls, bidi overrides, invisible characters,
    U+2028/2029) as ``\\uXXXX`` escapes (a surrogate pair above U+FFFF).

    They can only occur inside JSON strings, so the escaped text is the same JSON value.
    """
    if text.isascii() and "\x7f" not in text:  # nothing to escape (isascii is O(1) on CPython): a 4 MB listing skips the scan
        return text
    return _JSON_ESCAPED.sub(_json_escape, text)


def _json_escape(match: re.Match) -> str:
    char = match.group()
    if char in _EMOJI_PARTS and _ordinary_in_emoji(match.string, match.start()):
        return char
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def invisible_characters(text: str):
    """(offset, character) of each character a reader cannot see, bidi controls included, in order."""
    if text.isascii():
        return
    for match in _HIDDEN.finditer(text):
        if match.group() not in _EMOJI_PARTS or not _ordinary_in_emoji(text, match.start()):
            yield match.start(), match.group()


def character_name(char: str) -> str:
    """``U+200B ZERO WIDTH SPACE``."""
    code = ord(char)
    import unicodedata  # only to name a character shown

    return f"U+{code:04X} {unicodedata.name(char, 'unnamed')}"


def tag_text(text: str) -> str:
    """What the Unicode tag characters (U+E0020-E007E) in ``text`` spell, in order (they mirror ASCII)."""
    return "".join(chr(ord(c) - 0xE0000) for c in text if 0xE0020 <= ord(c) <= 0xE007E)


def without_invisible(text: str, joiner: str = "") -> str:
    """The text with every invisible and bidi character removed (or replaced by ``joiner``)."""
    if text.isascii():
        return text
    return _HIDDEN.sub(joiner, text)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 commit``, ``2 commits``: a count with its noun in the right number."""
    return f"{count:,} {noun if count == 1 else (nouns or noun + 's')}"
