"""Untrusted text (every memory's content) made safe to put on screen.

Memory files are written by agents and may be hostile: Rich/Textual markup is
never interpreted (everything here builds ``rich.text.Text`` objects, which
are literal), and control characters -- terminal escape sequences, carriage
returns, bidirectional overrides -- are replaced by visible stand-ins so that
nothing written by a memory reaches the terminal as a command.
"""

from __future__ import annotations

from rich.text import Text

from ..core.text.safetext import clean, one_line

__all__ = ["clean", "one_line", "literal", "cell"]


def literal(text: str, style: str = "", limit: int | None = None) -> Text:
    """A Text that shows ``text`` exactly as written: no markup, no escapes."""
    return Text(clean(text, limit), style=style, no_wrap=False)


def cell(text: str, style: str = "", limit: int = 200) -> Text:
    """A table cell: one line, literal, cut with an ellipsis."""
    return Text(one_line(text, limit), style=style, no_wrap=True, overflow="ellipsis")
