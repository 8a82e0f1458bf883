"""A pane that lists memories in a table whose cursor is only ever on the app's one selection.

The memory list and the preview's ranking both show memories in a
``DataTable``; both must show their cursor on the selected memory or not at
all (a highlighted row that is not the selection would say that actions act on
it), and both report the user's moves the same way.
"""

from __future__ import annotations

from textual.widgets import DataTable


class FollowsSelection:
    """Mixed into a pane (before its Textual base class); the pane supplies the three methods below."""

    selected_path: str | None = None  # the app's selection, handed down

    def _selection_table(self) -> DataTable:
        raise NotImplementedError

    def _listed_paths(self) -> list[str]:
        """The memory of each row, in the table's order."""
        raise NotImplementedError

    def _announce(self, path: str) -> None:
        """Tell the app the user moved to this memory (the pane's ``MemoryHighlighted`` message)."""
        raise NotImplementedError

    def follow(self, path: str | None, move: bool = True) -> bool:
        """Put the cursor on the selected memory, or show none when the table does not list it; True when listed.

        ``move=False`` (the user just moved this cursor, and may have moved it on
        since): the cursor is shown only where it already is on the selection.
        """
        self.selected_path = path
        table = self._selection_table()
        paths = self._listed_paths()
        index = paths.index(path) if path in paths else None
        if index is not None and move and table.cursor_row != index:
            table.move_cursor(row=index, animate=False)
        table.show_cursor = index is not None and table.cursor_row == index
        return index is not None

    def hide_cursor_for_rebuild(self) -> None:
        """Before the rows are replaced: a first row that appears under a visible cursor is reported as
        highlighted, exactly as a user's move would be. ``follow`` shows the cursor again."""
        self._selection_table().show_cursor = False

    def _announce_row(self, row: int) -> None:
        paths = self._listed_paths()
        if 0 <= row < len(paths):
            self._announce(paths[row])

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is not self._selection_table():
            return
        event.stop()
        # the user's moves select (a cursor that follows the selection re-reports it: a no-op)
        if event.data_table.has_focus:
            self._announce_row(event.cursor_row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter selects the row under the cursor (also the only row a filter left)."""
        if event.data_table is not self._selection_table():
            return
        event.stop()
        self._announce_row(event.cursor_row)

    def on_descendant_focus(self, event) -> None:
        """Entering a table whose cursor is hidden (the selection is elsewhere) selects the row the cursor appears on.

        Before the first selection (start-up) the app chooses it, not the focus.
        """
        table = self._selection_table()
        if event.widget is table and not table.show_cursor and self.selected_path is not None:
            self._announce_row(min(max(table.cursor_row, 0), len(self._listed_paths()) - 1))
