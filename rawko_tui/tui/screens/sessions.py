"""Agents' sessions: what they discovered, attempted and decided, promoted into memories."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import get_current_worker

from ...core.curation.consolidation.queue import closest_memories
from ...core.curation.sessions import promoted_to, promotions, title_from
from ...core.store.reading import Store
from ...core.record.writer import PlannedWrite, WriteError
from ..safe import cell, clean, literal
from ..threads import deliver
from ..widgets.rowtable import RowTable
from .memory_editor import MemoryEditor, closest_text, creation_commit, new_memory_planner


class SessionsScreen(Screen[None]):
    """What agents discovered, attempted (failures first) and decided in their sessions."""

    BINDINGS = [
        Binding("p", "promote", "Promote to a memory", id="sessions-promote"),
        Binding("x", "extract", "Extract with Claude", id="sessions-extract"),
        Binding("escape,q", "app.pop_screen", "Back", id="sessions-back"),
    ]

    def __init__(self, root, store: Store | None = None) -> None:
        super().__init__()
        self.root = root
        self.store = store  # to mark items already promoted and name the closest existing memory
        self.promoted: dict[str, list[str]] = {}  # promotions(store)
        self.rows: list = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="sessions"):
            table = RowTable(id="session-items", cursor_type="row", zebra_stripes=True)
            table.add_column("Session", key="session", width=30)
            table.add_column("Kind", key="kind", width=10)
            table.add_column("Id", key="id", width=16)
            table.add_column("Importance", key="importance", width=10)
            table.add_column("Result", key="result", width=8)
            table.add_column("Summary", key="summary", width=50)
            table.add_column("Promoted to", key="promoted", width=24)
            yield table
            with VerticalScroll(id="session-detail-box"):
                yield Static(id="session-detail")
        yield Footer()

    def on_mount(self) -> None:
        from ...core.curation.sessions import load_sessions

        table = self.query_one("#session-items", DataTable)
        self.promoted = promotions(self.store) if self.store is not None else {}
        problems = Text()
        for session in load_sessions(self.root):
            if session.error:
                problems.append_text(literal(f"{session.error}\n", "red", limit=500))
                continue
            for item in session.items:
                style = "bold red" if item.result == "failure" else ""
                promoted = self._promoted_cell(session, item)
                table.add_row(cell(session.id), cell(item.kind), cell(item.id), cell(item.importance), cell(item.result, style), cell(item.summary), promoted, key=str(len(self.rows)))
                self.rows.append((session, item))
        if not self.rows:
            problems.append("No sessions in .rawko/sessions/.", "dim")
        self.query_one("#session-detail", Static).update(problems)
        if self.rows and not problems:
            self._show_item(0)
        table.focus()

    @on(DataTable.RowHighlighted, "#session-items")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_item(event.cursor_row)

    def _show_item(self, row: int) -> None:
        if 0 <= row < len(self.rows):
            session, item = self.rows[row]
            detail = literal(f"{item.kind} {item.id} · {item.timestamp}\n\n{item.text}\n\n", limit=20000)
            self.query_one("#session-detail", Static).update(detail)
            if self.store is not None:
                self.find_closest(item, detail)

    @work(thread=True, exit_on_error=False, exclusive=True, group="session-closest", description="find the closest existing memories")
    def find_closest(self, item, detail: Text) -> None:
        """Compared with every memory's body: off the UI thread, so moving through the items stays instant."""
        closest = closest_memories(self.store, title_from(item.summary), item.text)
        if get_current_worker().is_cancelled:
            return
        detail = detail.copy()
        detail.append_text(closest_text(closest))
        deliver(self, self._show_closest, item, detail)

    def _show_closest(self, item, detail: Text) -> None:
        row = self.query_one("#session-items", DataTable).cursor_row
        if 0 <= row < len(self.rows) and self.rows[row][1] is item:  # still the item shown
            self.query_one("#session-detail", Static).update(detail)

    def _promoted_cell(self, session, item) -> Text:
        return cell(", ".join(promoted_to(self.promoted, session, item)), "green")

    def action_promote(self) -> None:
        from ...core.curation.sessions import promotion_draft

        row = self.query_one("#session-items", DataTable).cursor_row
        if not 0 <= row < len(self.rows):
            return
        session, item = self.rows[row]
        before = promoted_to(self.promoted, session, item)
        intro = f"A long-term memory from session {session.id} ({item.kind} {item.id}). Edit it, then Ctrl+S shows what is written."
        if before:
            intro += f" It was promoted before, to {', '.join(before)}: this makes another."

        def promoted(writes: list[PlannedWrite] | None) -> None:
            if writes is not None:
                self.write_promotion(writes, *creation_commit(writes, "promote", f"Promoted from session {session.id}, {item.kind} {item.id}."), row=row)

        try:
            draft = promotion_draft(session, item)
        except WriteError as exc:  # a session's text with no UTF-8 form (a "\ud800" escape) cannot become a memory
            self.notify(clean(str(exc)), severity="error", timeout=10)
            return
        self.app.push_screen(MemoryEditor(self.root, draft, intro, new_memory_planner(self.root), store=self.store), promoted)

    def action_extract(self) -> None:
        row = self.query_one("#session-items", DataTable).cursor_row
        if not 0 <= row < len(self.rows):
            return
        session, _ = self.rows[row]
        self.query_one("#session-items", DataTable).loading = True
        self.notify(f"Asking Claude what session {session.id} taught (SPEC-0005's extraction)…", timeout=3)
        self.claude_extract(session)

    @work(thread=True, exit_on_error=False, exclusive=True, group="claude", description="ask Claude for a memory from a session")
    def claude_extract(self, session) -> None:
        import os

        from ...core.curation.claude import ClaudeError, ask_claude, build_extraction_prompt, extraction_file, parse_extraction
        from ...core.store.settings import person_model
        from ...core.text.tokens import DEFAULT_MODEL
        from ...core.curation.entries import now_iso
        from ...core.curation.sessions import session_bytes
        from ...core.store.loading import load_store

        worker = get_current_worker()
        store = load_store(self.root)
        existing = [(m.name, m.attrs["title"]) for m in store.files if isinstance(m.attrs.get("title"), str)]
        output = session_bytes(self.root, session).decode("utf-8", errors="replace")  # never through a link, never past its limit
        task = f"session {session.id}"
        try:
            model = person_model(DEFAULT_MODEL)  # the person's own setting, never the store's
            extraction = parse_extraction(ask_claude(build_extraction_prompt(session.agent, task, output, "partial", existing), os.environ.get("ANTHROPIC_API_KEY"), model))
            text = extraction_file(extraction, session.agent, task, now_iso()) if extraction.should_create else None
            error = None if extraction.should_create else f"Claude proposes no memory: {extraction.reasoning}"
        except (ClaudeError, WriteError) as exc:  # no answer, or one with text that has no UTF-8 form
            text, error = None, f"No draft: {exc}"
        if not worker.is_cancelled:
            deliver(self, self._extracted, session, text, error)

    def _extracted(self, session, text: str | None, error: str | None) -> None:
        table = self.query_one("#session-items", DataTable)
        table.loading = False
        if error:
            self.notify(clean(error), severity="warning", timeout=6)
            return
        row = table.cursor_row

        def written(writes: list[PlannedWrite] | None) -> None:
            if writes is not None:
                self.write_promotion(writes, *creation_commit(writes, "promote", f"Extracted by Claude from session {session.id}."), row=row)

        intro = f"Claude's proposal from session {session.id}. Edit it, then Ctrl+S shows what is written; Esc rejects it."
        self.app.push_screen(MemoryEditor(self.root, text, intro, new_memory_planner(self.root), store=self.store), written)

    def write_promotion(self, writes: list[PlannedWrite], action: str, summary: str, row: int) -> None:
        """Through the app's one write flow (a file that changed since it was shown is confirmed again); then back
        here, the item marked with where it went and the next one selected (the queue stays open)."""
        self.app.apply_plan(writes, action, summary, then=lambda _written: self._written(row))

    def _written(self, row: int) -> None:
        if self.is_attached:
            self.reload_promotions(row + 1)

    @work(thread=True, exit_on_error=False, exclusive=True, group="session-promotions", description="read which items are promoted")
    def reload_promotions(self, next_row: int) -> None:
        from ...core.store.loading import load_store

        store = load_store(self.root, previous=self.store)
        promoted = promotions(store)
        if not get_current_worker().is_cancelled:
            deliver(self, self._show_promotions, store, promoted, next_row)

    def _show_promotions(self, store: Store, promoted: dict[str, list[str]], next_row: int) -> None:
        self.store, self.promoted = store, promoted
        table = self.query_one("#session-items", DataTable)
        for index, (session, item) in enumerate(self.rows):
            table.update_cell(str(index), "promoted", self._promoted_cell(session, item))
        if self.rows:
            table.move_cursor(row=min(next_row, len(self.rows) - 1))
            self._show_item(table.cursor_row)
