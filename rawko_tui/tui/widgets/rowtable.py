"""A table of rows whose cursor Home and End move (DataTable's own Home/End only scroll sideways)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable


class RowTable(DataTable):
    BINDINGS = [
        Binding("home", "first_row", "First row", show=False, id="table-first-row"),
        Binding("end", "last_row", "Last row", show=False, id="table-last-row"),
    ]

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)
