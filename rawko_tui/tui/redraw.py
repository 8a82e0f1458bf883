"""Updating a pane's text without laying the whole screen out again where its size does not change.

``Static.update`` asks for a layout by default, and a layout redraws every pane: while keys
arrive, the panes that follow the ranking (its summary, the arbiter's line, the task as
the breakdown highlights it) would each cost the typing a full redraw per ranking shown.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widgets import Static

_ANY = Size(0, 0)  # a Static's content height depends on its width alone


def update_in_place(static: Static, content) -> None:
    """``static.update(content)``, with a layout only where the new content has another height at the widget's
    width (or the widget's width follows its content)."""
    width = static.content_size.width
    size_rule = static.styles.width  # None: as wide as its container
    if not width or not static.is_mounted or (size_rule is not None and size_rule.is_auto):
        static.update(content)
        return
    before = static.get_content_height(_ANY, _ANY, width)
    static.update(content, layout=False)  # its cached dimensions are cleared with the repaint
    if static.get_content_height(_ANY, _ANY, width) != before:
        static.refresh(layout=True)
