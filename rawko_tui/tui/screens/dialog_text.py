"""What the write dialogs show: bytes exactly as committed (cut past a limit), an impact, the keys in force."""

from __future__ import annotations

import re

from rich.text import Text

from ..keys import shown_keys
from ..safe import clean, literal


# Every byte a confirmation asks about is on screen, in a pane that scrolls. Past this much, laying the
# text out would freeze the screen for seconds; then yes is not offered, and the dialog says what to do.
SHOWN_BYTES = 200_000
SHOWN_LINES = 5_000
_NOT_UTF8 = re.compile("[\udc80-\udcff]+")  # bytes that are not UTF-8, as surrogateescape carries them


def bytes_text(data: bytes, style: str = "") -> Text:
    """Bytes exactly as they are committed: UTF-8 text made safe to show (control and invisible characters
    as visible stand-ins, never markup), and each byte that is not UTF-8 as an escape (``\\xff``) in reverse video,
    never a replacement character."""
    text = data.decode("utf-8", "surrogateescape")
    shown = Text()
    at = 0
    for run in _NOT_UTF8.finditer(text):
        shown.append(clean(text[at : run.start()]), style)
        shown.append("".join(f"\\x{ord(c) - 0xDC00:02x}" for c in run.group()), f"{style} reverse".strip())
        at = run.end()
    shown.append(clean(text[at:]), style)
    return shown


def too_many(*pieces: bytes) -> bool:
    """Whether these bytes, together, are more than a dialog shows."""
    return sum(len(p) for p in pieces) > SHOWN_BYTES or sum(p.count(b"\n") for p in pieces) > SHOWN_LINES


def beginning(data: bytes, keep: int = 2_000) -> tuple[bytes, int]:
    """The first ``keep`` bytes (never cutting a character in two) and how many are left out."""
    if len(data) <= keep:
        return data, 0
    while keep > 0 and data[keep] & 0xC0 == 0x80:
        keep -= 1
    return data[:keep], len(data) - keep


def cut_bytes(data: bytes, style: str = "", keep: int | None = None) -> Text:
    """``bytes_text`` of all of ``data``, or with ``keep`` of its beginning, saying how many bytes are not shown."""
    if keep is None:
        return bytes_text(data, style)
    head, left = beginning(data, keep)
    shown = bytes_text(head, style)
    if left:
        shown.append(f"\n✂ … {left:,} more bytes not shown here\n", "bold red")
    return shown


def impact_text(heading: str, lines: list[str]) -> Text:
    """What a change does to the injections of the tasks people rely on, one line each."""
    text = Text(heading, "bold")
    if not lines:
        text.append("none of them changes.", "dim")
    for line in lines:
        text.append("\n  ")
        text.append_text(literal(line, limit=300))
    return text


def keys_named(app, screen: type, binding_id: str) -> list:
    """``y`` or ``n or Esc`` in bold: the keys in force for a binding (a keymap may have moved them), for Text.assemble."""
    parts: list = []
    for index, key in enumerate(shown_keys(app, screen, binding_id)):
        parts += ([" or "] if index else []) + [(key, "bold")]
    return parts
