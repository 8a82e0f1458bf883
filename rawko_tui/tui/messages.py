"""Messages shared by more than one pane."""

from __future__ import annotations

from textual.message import Message
from textual.widget import Widget


class MemoryHighlighted(Message):
    """The user moved to a memory file (in any pane that lists memories)."""

    def __init__(self, control: Widget, path: str) -> None:
        super().__init__()
        self._control = control
        self.path = path

    @property
    def control(self) -> Widget:
        return self._control
