"""Consolidation: candidates side by side, and a person's decision, each one commit."""

from __future__ import annotations

import difflib

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Header, Static, TextArea
from textual.worker import get_current_worker

from ..core.curation.consolidation.queue import KINDS, CandidateGroup, closest_memories, consolidation_candidates
from ..core.curation.entries import (
    DISMISS,
    RESTORE,
    confirm_entry,
    decision_write,
    effective_body,
    entry_problems,
    link_writes,
    merge_draft,
    merge_title,
    merge_writes,
    opener_problem,
    supersede_writes,
)
from ..core.lint.linter import Finding, lint_in_store, lint_text
from ..core.curation.sessions import promoted_to, promotions, title_from
from ..core.store.reading import Store
from ..core.record.writer import PlannedWrite, TornWrite, WriteError, ends_with_newline, person_name, plan_create
from .confirm import ConfirmDiscard, ConfirmWrite, Planner, bytes_text, cut_bytes, impact_text, keys_named, too_many
from .keys import bound_keys, shown_keys
from .safe import cell, clean, literal
from .threads import deliver
from .widgets.rowtable import RowTable


def new_memory_planner(root) -> Planner:
    """A new memory file named after the title in the text."""

    def plan(text: str) -> list[PlannedWrite]:
        from ..core.store.reading import spec_extract

        try:
            title = spec_extract(text).attrs.get("title")
        except (ValueError, AttributeError):
            title = None
        return [plan_create(root, str(title or "memory"), text)]

    return plan


def side_by_side(left: str, right: str) -> tuple[Text, Text]:
    """Both bodies, with the lines only one side has marked."""
    a, b = left.splitlines(), right.splitlines()
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    left_text, right_text = Text(), Text()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for line in a[i1:i2]:
            left_text.append_text(literal(line + "\n", "" if tag == "equal" else "bold red", limit=2000))
        for line in b[j1:j2]:
            right_text.append_text(literal(line + "\n", "" if tag == "equal" else "bold green", limit=2000))
    return left_text, right_text


class MemoryEditor(ModalScreen[list[PlannedWrite] | None]):
    """A memory file (or an entry to append) to edit before it is written; lint runs as you type.

    Ctrl+S plans the writes (``planner``) and shows them in ``ConfirmWrite``:
    the editor closes with the writes the person confirmed.  With ``prefix``
    the text is appended to that file: lint judges the file as it would be.
    With ``impact`` the effect on recently previewed tasks is shown. With
    ``store``, lint judges the text in it, as ``rawko-tui lint`` will once
    it is written (a title another memory in force has too, a link to a
    memory that does not exist).
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Review and write", id="editor-save", priority=True),
        Binding("ctrl+o", "append_instead", "Append to the closest instead", id="editor-append-instead", priority=True),
        Binding("escape", "cancel", "Cancel", id="editor-cancel"),
    ]

    def __init__(self, root, draft: str, intro: str, planner: Planner, prefix: bytes = b"", name: str = "draft.md", impact=None, store: Store | None = None) -> None:
        """``store``: the store the text is linted in; for a new memory, the existing memories closest to it are shown
        as it is typed (dedup at birth)."""
        super().__init__()
        self.context = store
        self.store = store if not prefix else None
        self._taken: set[str] | None = None  # the names a new file may not take (asked of git once)
        self.exclude: frozenset[str] = frozenset()
        self.closest: list = []
        self._closest_timer = None
        self.root = root
        self.draft = draft
        self.intro = intro
        self.planner = planner
        self.prefix = prefix
        self.file_name = name
        self.impact = impact
        self.errors: list = []
        self.refusals: list[str] = []  # what keeps the text from being written at all (a retirement without a reason)
        self._impact_timer = None

    def compose(self) -> ComposeResult:
        with Vertical(id="merge-box"):
            yield Static(id="editor-target")
            yield Static(Text(self.intro, "dim"), id="editor-intro")
            yield TextArea(self.draft, id="merge-text", language="markdown", show_line_numbers=True)
            yield Static(id="merge-lint")
            yield Static(id="editor-closest")
            yield Static(id="merge-impact")
        yield Footer()

    def on_mount(self) -> None:
        from ..core.curation.entries import body_start

        self._lint(self.draft)
        # typing starts in the body, never before the opening '---': an entry at its end (after the
        # signed frontmatter), a new or merged memory where its body begins
        area = self.query_one("#merge-text", TextArea)
        area.move_cursor(area.document.end if self.prefix else body_start(self.draft))
        area.focus()

    def on_resize(self, event) -> None:
        self.set_class(event.size.height < 34, "-short")

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "append_instead":
            return self.store is not None  # only a new memory can go to an existing one instead
        return True

    def _find_closest_soon(self, text: str) -> None:
        if self.store is None:
            return
        if self._closest_timer is not None:
            self._closest_timer.stop()
        self._closest_timer = self.set_timer(0.5, lambda: self.find_closest(text))

    @work(thread=True, exit_on_error=False, exclusive=True, group="editor-closest", description="the existing memories closest to the draft")
    def find_closest(self, text: str) -> None:
        from ..core.store.reading import spec_extract

        try:
            view = spec_extract(text)
            fields = view.attrs if isinstance(view.attrs, dict) else {}
            title, body, when = str(fields.get("title") or ""), view.body, fields.get("whenToUse")
        except (ValueError, AttributeError):
            title, body, when = "", text, None
        closest = closest_memories(self.store, title, body, when, exclude=self.exclude)
        if not get_current_worker().is_cancelled:
            deliver(self, self._show_closest, closest)

    def _show_closest(self, closest: list) -> None:
        self.closest = closest
        shown = closest_text(closest)
        if closest:
            shown.append(f"Ctrl+O appends this to {closest[0].name} instead of creating a new memory.", "dim")
        self.query_one("#editor-closest", Static).update(shown)

    def action_append_instead(self) -> None:
        """Dedup at birth: the draft's body goes to the closest memory as an update entry (shown and confirmed first)."""
        from ..core.curation.entries import now_iso
        from ..core.curation.sessions import session_link
        from ..core.store.reading import spec_extract
        from ..core.record.writer import format_entry, plan_append

        if not self.closest:
            self.notify("No existing memory is close to this draft.", timeout=3)
            return
        target = self.closest[0].name
        text = self.query_one("#merge-text", TextArea).text
        try:
            view = spec_extract(text)
            body, fields = view.body.strip(), view.attrs if isinstance(view.attrs, dict) else {}
        except (ValueError, AttributeError):
            body, fields = text.strip(), {}
        # a promotion appended instead keeps its link to the session item (discoveredIn, source), as a new memory would
        signed = {"updatedAt": now_iso(), "updatedBy": person_name(self.root), **session_link(fields)}
        try:
            entry = format_entry(signed, f"## Update ({now_iso()[:10]})\n\n{body}")
            writes = [plan_append(self.root, target, entry)]
        except WriteError as exc:
            self.notify(clean(str(exc)), severity="error", timeout=8)
            return

        def confirmed(writes: list[PlannedWrite] | None) -> None:
            if writes is not None:
                self.dismiss(writes)

        self.app.push_screen(ConfirmWrite(f"Append to {target} instead of creating a new memory?", writes), confirmed)

    @on(TextArea.Changed, "#merge-text")
    def _changed(self, event: TextArea.Changed) -> None:
        self._lint(event.text_area.text)

    def _name_for(self, text: str) -> str:
        """A new file is named after its title, as the writer will name it (the first free name); an append goes to its file."""
        if self.prefix:
            return self.file_name
        from ..core.store.reading import spec_extract
        from ..core.record.writer import committed_names, new_memory_name

        try:
            title = spec_extract(text).attrs.get("title")
        except (ValueError, AttributeError):
            return self.file_name
        if not isinstance(title, str) or not title.strip():
            return self.file_name
        if self._taken is None:
            self._taken = committed_names(self.root) | ({m.name for m in self.context.files} if self.context is not None else set())
        try:
            return new_memory_name(self.root, title, self._taken)
        except WriteError:
            return self.file_name

    def _result(self, text: str) -> bytes:
        """The file as it would be: every entry rawko-tui writes ends with a newline."""
        return self.prefix + (b"\n\n" if self.prefix else b"") + ends_with_newline(text).encode("utf-8")

    def _changes(self, name: str, text: str) -> dict[str, bytes]:
        """Every file the write changes, with its bytes after it (``name``: the file this text goes to)."""
        return {name: self._result(text)}

    def _lint(self, text: str) -> None:
        self._find_closest_soon(text)
        name = self._name_for(text)
        target = Text("Appends to " if self.prefix else "Creates ", "bold")
        target.append_text(literal(f".rawko/memories/{name}", "bold cyan"))
        if not self.prefix:
            target.append(" (named after its title)", "dim")
        self.query_one("#editor-target", Static).update(target)
        # what `rawko-tui lint` will say once it is written: under the name it gets, among the other memories
        if self.context is not None:
            findings = lint_in_store(self.context, self._changes(name, text), name)
        else:
            findings = lint_text(self.root, name, self._result(text))
        shown = Text()
        if self.prefix:
            shown.append(f"Appends {len(self._result(text)) - len(self.prefix):,} bytes after the {len(self.prefix):,} bytes of {self.file_name}.\n", "dim")
        self.refusals = entry_problems(text)
        for refusal in self.refusals:
            shown.append("not written: ", "bold red")
            shown.append_text(literal(refusal + "\n", limit=500))
        opener = opener_problem(text)
        if opener is not None:  # the file's lint cannot see it for an entry: it reads as more body of the entry before
            findings = [Finding(f".rawko/memories/{name}", "error", "no-opener", ("This entry: " if self.prefix else "") + opener + "."), *findings]
        for finding in findings:
            shown.append(f"{finding.severity}: ", {"error": "bold red", "warning": "yellow"}.get(finding.severity, "cyan"))
            shown.append_text(literal(finding.message + "\n", limit=500))
        if not findings:
            shown.append("Lint: clean.", "green")
        self.query_one("#merge-lint", Static).update(shown)
        self.errors = [f for f in findings if f.severity == "error"]
        if self.impact is not None:
            if self._impact_timer is not None:
                self._impact_timer.stop()
            self._impact_timer = self.set_timer(0.5, lambda: self.compute_impact(name, self._result(text)))

    @work(thread=True, exit_on_error=False, exclusive=True, group="editor-impact", description="impact on recent tasks")
    def compute_impact(self, name: str, data: bytes) -> None:
        lines = self.impact(name, data)
        deliver(self, self._show_impact, lines)

    def _show_impact(self, lines: list[str]) -> None:
        self.query_one("#merge-impact", Static).update(impact_text("Impact on recently previewed tasks: ", lines))

    def action_save(self) -> None:
        if self.refusals:
            self.notify(f"Not written: {self.refusals[0]}.", severity="error", timeout=8)
            return
        if self.errors:
            self.notify("Fix the lint errors first.", severity="error")
            return
        text = self.query_one("#merge-text", TextArea).text
        try:
            writes = self.planner(text)
        except WriteError as exc:
            self.notify(clean(str(exc)), severity="error", timeout=8)
            return
        impact = None
        if self.impact is not None:
            name, data = self._name_for(text), self._result(text)
            impact = lambda _writes: self.impact(name, data)  # noqa: E731

        def confirmed(writes: list[PlannedWrite] | None) -> None:
            if writes is not None:
                self.dismiss(writes)

        self.app.push_screen(ConfirmWrite("Write this?", writes, impact=impact), confirmed)

    def action_cancel(self) -> None:
        """Esc: leave, asking first when that would throw away typed text."""
        if self.query_one("#merge-text", TextArea).text == self.draft:
            self.dismiss(None)
            return

        def decided(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmDiscard(), decided)


class MergeScreen(MemoryEditor):
    BINDINGS = [Binding("ctrl+d", "claude_draft", "Draft with Claude", id="merge-claude", priority=True)]

    def __init__(self, root, draft: str, planner: Planner, originals: list[tuple[str, str]] | None = None, impact=None, store: Store | None = None) -> None:
        super().__init__(
            root,
            draft,
            "The merged memory. Edit it, then Ctrl+S shows what is written: the new file and a supersede entry in each original, "
            "committed all at once. Ctrl+D asks Claude for a draft (needs ANTHROPIC_API_KEY).",
            planner,
            impact=impact,
            store=store,
        )
        self.originals = originals or []
        self.exclude = frozenset(name for name, _ in self.originals)  # the merge's own memories are not "closest"

    def _changes(self, name: str, text: str) -> dict[str, bytes]:
        """The new memory, and each original with the entry that retires it (so its title no longer counts as a clash)."""
        from ..core.curation.entries import merge_changes

        return {**merge_changes(self.context, [n for n, _ in self.originals], text, name), name: self._result(text)}

    def action_claude_draft(self) -> None:
        self.query_one("#merge-text", TextArea).loading = True
        self.notify("Asking Claude for a merge draft… (Esc cancels)", timeout=3)
        self.claude_merge()

    @work(thread=True, exit_on_error=False, exclusive=True, group="claude", description="ask Claude for a merge draft")
    def claude_merge(self) -> None:
        import os

        from ..core.curation.claude import ClaudeError, ask_claude, build_merge_prompt, parse_memory_answer
        from ..core.store.settings import person_model

        worker = get_current_worker()
        model = person_model("") or None  # the person's own setting: a store cannot choose what their key pays for
        try:
            answer = ask_claude(build_merge_prompt(self.originals), os.environ.get("ANTHROPIC_API_KEY"), **({"model": model} if model else {}))
            draft, error = parse_memory_answer(answer), None
        except ClaudeError as exc:
            draft, error = None, str(exc)
        if not worker.is_cancelled:
            deliver(self, self._claude_done, draft, error)

    def _claude_done(self, draft: str | None, error: str | None) -> None:
        area = self.query_one("#merge-text", TextArea)
        area.loading = False
        if error:
            self.notify(clean(f"No draft: {error}. The draft above is yours to edit."), severity="warning", timeout=6)
        elif draft is not None:
            area.text = draft

    def action_cancel(self) -> None:  # Esc: cancel a pending draft first
        if self.query_one("#merge-text", TextArea).loading:
            self.workers.cancel_group(self, "claude")
            self.query_one("#merge-text", TextArea).loading = False
            self.notify("Draft cancelled.", timeout=2)
            return
        super().action_cancel()


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
        from ..core.curation.sessions import load_sessions

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
        from ..core.curation.sessions import promotion_draft

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

        from ..core.curation.claude import ClaudeError, ask_claude, build_extraction_prompt, extraction_file, parse_extraction
        from ..core.store.settings import person_model
        from ..core.text.tokens import DEFAULT_MODEL
        from ..core.curation.entries import now_iso
        from ..core.curation.sessions import session_bytes
        from ..core.store.reading import load_store

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
        from ..core.store.reading import load_store

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


def creation_commit(writes: list[PlannedWrite], action: str, summary: str) -> tuple[str, str]:
    """The commit's action and message for a creation, or for the append that was chosen instead of it."""
    if writes and writes[0].kind == "append":
        return "append", f"Appended to {writes[0].name}, the closest existing memory, instead of creating a new one. ({summary})"
    return action, summary


def closest_text(closest) -> Text:
    """The existing memories close to one being created, with the evidence (dedup at birth)."""
    shown = Text()
    if not closest:
        shown.append("No existing memory is close to this one (none shares enough of its evidence).\n", "dim")
    for item in closest:
        style = "bold yellow" if item.same_knowledge or item.evidence.conflicts else "dim"
        shown.append_text(literal(f"Closest existing memory: {item.describe()}\n", style, limit=600))
    return shown


STALE_SUMMARY = "stale-summary"  # the row standing for every stale memory while they are collapsed
FILTERS = (None, *KINDS)


class ConsolidationScreen(Screen[None]):
    """Memories worth consolidating; a person decides what happens to each pair, one confirmed commit each."""

    BINDINGS = [
        Binding("m", "merge", "Merge", id="consolidation-merge"),
        Binding("k", "keep_left", "Keep left", id="consolidation-keep-left"),
        Binding("s", "supersede", "Keep right", id="consolidation-supersede"),
        Binding("l", "link", "Link", id="consolidation-link"),
        Binding("c", "confirm_memory", "Confirm", id="consolidation-confirm"),
        Binding("r", "retire", "Retire", id="consolidation-retire"),
        Binding("d", "dismiss_group", "Dismiss", id="consolidation-dismiss"),
        Binding("u", "undo_dismiss", "Undo dismiss", id="consolidation-undo"),
        Binding("f", "filter_kind", "Filter kind", id="consolidation-filter"),
        Binding("o", "opinion", "Ask Claude", id="consolidation-opinion"),
        Binding("escape,q", "app.pop_screen", "Back", id="consolidation-back"),
    ]

    def __init__(self, store: Store, now_ms: float) -> None:
        super().__init__()
        self.store = store
        self.now_ms = now_ms
        self.all_groups: list[CandidateGroup] = []
        self.groups: list[CandidateGroup | str] = []  # the rows shown: a group, or STALE_SUMMARY
        self.kind_filter: str | None = None
        self.stale_open = False
        self.dismissed_here: list[CandidateGroup] = []
        self.opinions: dict[tuple[str, ...], str] = {}  # Claude's word on a pair, once asked
        self.injections: dict[tuple[str, ...], list] = {}  # what the arbiter injects today, per contradiction

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="consolidation"):
            table = RowTable(id="candidates", cursor_type="row", zebra_stripes=True)
            table.add_column("Kind", key="kind", width=15)
            table.add_column("Score", key="score", width=6)
            table.add_column("Memories", key="paths", width=80)
            yield table
            yield Static(id="candidate-reason")
            with Horizontal(id="side-by-side"):
                with VerticalScroll(id="left-side"):
                    yield Static(id="left-memory")
                with VerticalScroll(id="right-side"):
                    yield Static(id="right-memory")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#candidate-reason", Static).update(Text("Looking for duplicates, contradictions, related and stale memories…", "dim"))
        self.find_candidates()

    def _find(self, store: Store) -> list[CandidateGroup]:
        # unused: by the saved tasks, as `rawko-tui candidates` judges it, and the tasks previewed here
        return consolidation_candidates(
            store, self.now_ms, tasks=self.app.impact_tasks(), profile=self.app.active_profile(), tasks_named="saved and recent tasks"
        )

    @work(thread=True, exit_on_error=False, exclusive=True, group="candidates", description="find consolidation candidates")
    def find_candidates(self) -> None:
        groups = self._find(self.store)
        if not get_current_worker().is_cancelled:
            deliver(self, self._show_groups, groups)

    def _rows(self) -> list[CandidateGroup | str]:
        """The groups the filter lets through; stale ones folded into one row unless opened or filtered for."""
        shown = [g for g in self.all_groups if self.kind_filter in (None, g.kind)]
        if self.kind_filter == "stale" or self.stale_open:
            return shown
        stale = [g for g in shown if g.kind == "stale"]
        rows: list[CandidateGroup | str] = [g for g in shown if g.kind != "stale"]
        return rows + ([STALE_SUMMARY] if stale else [])

    def _show_groups(self, groups: list[CandidateGroup], row: int = 0) -> None:
        self.all_groups = groups
        self.groups = self._rows()
        table = self.query_one("#candidates", DataTable)
        table.clear()
        stale_count = sum(1 for g in groups if g.kind == "stale")
        for group in self.groups:
            if group == STALE_SUMMARY:
                table.add_row(cell("stale", "dim"), cell(""), cell(f"{stale_count:,} memories not confirmed recently: Enter lists them", "dim"))
            else:
                table.add_row(cell(group.kind), cell(f"{group.score:g}"), cell("  +  ".join(p.rsplit("/", 1)[-1] for p in group.paths)))
        self.sub_title = f"showing {self.kind_filter or 'every kind'} (f changes it)"
        if not self.groups:
            self.query_one("#candidate-reason", Static).update(Text("No consolidation candidates" + (f" of kind {self.kind_filter}." if self.kind_filter else "."), "dim"))
            self._clear_sides()
        table.focus()
        row = min(row, len(self.groups) - 1)
        if row > 0:
            table.move_cursor(row=row)
        self._show(max(row, 0))

    @on(DataTable.RowHighlighted, "#candidates")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(event.cursor_row)

    @on(DataTable.RowSelected, "#candidates")
    def _selected(self, event: DataTable.RowSelected) -> None:
        if 0 <= event.cursor_row < len(self.groups) and self.groups[event.cursor_row] == STALE_SUMMARY:
            self.stale_open = True
            self._show_groups(self.all_groups, event.cursor_row)

    PAIR_ACTIONS = frozenset({"merge", "keep_left", "supersede", "link", "opinion"})
    SINGLE_ACTIONS = frozenset({"confirm_memory", "retire"})
    # keeping one side (the other retired) or merging the two: only where both say the same thing, or cannot both hold
    ONE_OF_TWO_ACTIONS = {"merge": "consolidation-merge", "keep_left": "consolidation-keep-left", "supersede": "consolidation-supersede"}
    ONE_OF_TWO_KINDS = frozenset({"near-duplicate", "contradiction"})

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """The footer offers what applies to the row shown: pair actions for a pair (keep and merge only for a
        duplicate or a contradiction), confirm and retire for one memory."""
        if action in self.PAIR_ACTIONS or action in self.SINGLE_ACTIONS:
            group = self._current() if self.is_mounted else None
            if group is None:
                return False
            if action in self.ONE_OF_TWO_ACTIONS and group.kind not in self.ONE_OF_TWO_KINDS:
                return False
            return (len(group.paths) >= 2) == (action in self.PAIR_ACTIONS)
        return True

    def on_key(self, event: events.Key) -> None:
        """A keep or merge key on a pair it does not apply to: its binding is off there (not in the footer), so say why here."""
        group = self._current()
        if group is None or len(group.paths) < 2 or group.kind in self.ONE_OF_TWO_KINDS:
            return
        if any(event.key in bound_keys(self.app, ConsolidationScreen, binding) for binding in self.ONE_OF_TWO_ACTIONS.values()):
            event.stop()
            event.prevent_default()
            self._one_of_two_does_not_apply(group)

    def _one_of_two_does_not_apply(self, group: CandidateGroup) -> None:
        link, dismiss = (shown_keys(self.app, ConsolidationScreen, b)[0] for b in ("consolidation-link", "consolidation-dismiss"))
        self.notify(
            f"Keeping one memory or merging the two is for a duplicate or a contradiction. This pair is {group.kind}: "
            f"different knowledge, both worth keeping. {link} links them (relatedMemories), {dismiss} dismisses the pair.",
            timeout=6,
        )

    def action_filter_kind(self) -> None:
        self.kind_filter = FILTERS[(FILTERS.index(self.kind_filter) + 1) % len(FILTERS)]
        self._show_groups(self.all_groups)

    def _current(self) -> CandidateGroup | None:
        row = self.query_one("#candidates", DataTable).cursor_row
        found = self.groups[row] if 0 <= row < len(self.groups) else None
        return found if isinstance(found, CandidateGroup) else None

    def _show(self, row: int) -> None:
        self.refresh_bindings()
        if not 0 <= row < len(self.groups):
            return
        group = self.groups[row]
        if group == STALE_SUMMARY:
            stale = [g for g in self.all_groups if g.kind == "stale"]
            self.query_one("#candidate-reason", Static).update(
                literal(f"{len(stale):,} stale memories, folded so they do not drown the pairs. Enter lists them; f filters by kind.", limit=500)
            )
            self._clear_sides()
            return
        self.query_one("#candidate-reason", Static).update(self._reason(group))
        memories = [self.store.file(p) for p in group.paths]
        left = effective_body(memories[0]) if memories[0] else ""
        right = effective_body(memories[1]) if len(memories) > 1 and memories[1] else ""
        left_text, right_text = side_by_side(left, right)
        header = lambda m: literal((m.rel_path if m else "?") + "\n\n", "bold")  # noqa: E731
        self.query_one("#left-memory", Static).update(header(memories[0]) + left_text)
        self.query_one("#right-memory", Static).update((header(memories[1]) + right_text) if len(memories) > 1 else Text(""))
        if group.kind == "contradiction" and group.paths not in self.injections:
            self.find_injections(group)

    def _clear_sides(self) -> None:
        for side in ("#left-memory", "#right-memory"):
            self.query_one(side, Static).update(Text(""))

    def _reason(self, group: CandidateGroup) -> Text:
        """The reason, the evidence, the conflicting phrases side by side, what is injected today, Claude's opinion."""
        shown = literal(f"{group.kind}: {group.reason}\n", limit=600)
        keys = {"near-duplicate": "k/s keep one · m merge · l link · d dismiss", "contradiction": "k/s keep one · m merge · d dismiss · o ask Claude"}
        for conflict in group.evidence.conflicts if group.evidence is not None and group.kind == "contradiction" else ():
            shown.append_text(literal(f"  left:  {conflict.phrase_a}\n", "red", limit=300))
            shown.append_text(literal(f"  right: {conflict.phrase_b}\n", "green", limit=300))
        for injection in self.injections.get(group.paths, ()):
            shown.append_text(literal(f"  today: {injection.describe(group.paths)}\n", "yellow", limit=300))
        if group.paths in self.opinions:
            shown.append_text(literal(f"  Claude: {self.opinions[group.paths]}\n", "cyan", limit=1200))
        hint = keys.get(group.kind, "l link · d dismiss" if group.kind == "related" else "c confirm · r retire · d dismiss")
        shown.append(f"  {hint}", "dim")
        return shown

    @work(thread=True, exit_on_error=False, exclusive=True, group="injections", description="which memory of a contradiction is injected today")
    def find_injections(self, group: CandidateGroup) -> None:
        from ..core.curation.consolidation.queue import injected_today

        injections = injected_today(self.store, group.paths, self.app.impact_tasks(), self.now_ms, self.app.active_profile())
        if not get_current_worker().is_cancelled:
            deliver(self, self._show_injections, group, injections)

    def _show_injections(self, group: CandidateGroup, injections: list) -> None:
        self.injections[group.paths] = injections
        if self._current() is group:
            self.query_one("#candidate-reason", Static).update(self._reason(group))

    def action_merge(self) -> None:
        group = self._current()
        if group is None or len(group.paths) < 2:
            return
        if group.kind not in self.ONE_OF_TWO_KINDS:
            self._one_of_two_does_not_apply(group)
            return
        memories = [self.store.file(p) for p in group.paths]
        names = [m.name for m in memories]
        draft = merge_draft(memories, merge_title(self.store, memories))
        root, store, by = self.store.root, self.store, person_name(self.store.root)

        def merged(writes: list[PlannedWrite] | None) -> None:
            if writes is not None:
                text = writes[0].data.decode("utf-8")
                plan_again = lambda: merge_writes(root, store, names, text, by)  # noqa: E731 - the supersede entries name the new file
                self.run_writes(writes, "merge", f"Merged {', '.join(names)} into {writes[0].name}.", plan_again)

        originals = [(m.name, m.text or "") for m in memories]
        planner = lambda text: merge_writes(root, store, names, text, by)  # noqa: E731
        self.app.push_screen(MergeScreen(root, draft, planner, originals, impact=self._merge_impact(names), store=store), merged)

    def _merge_impact(self, names: list[str]):
        """The effect of the whole merge (new memory, supersede entries) on the saved and recent tasks."""
        from ..core.curation.entries import impact_of_change, merge_changes

        def impact(_name: str, data: bytes) -> list[str]:
            tasks = self.app.impact_tasks()
            return [i.describe() for i in impact_of_change(self.store, merge_changes(self.store, names, data.decode("utf-8")), tasks, self.now_ms, self.app.active_profile())]

        return impact

    def _writes_impact(self, writes: list[PlannedWrite]) -> list[str]:
        """What appending these entries changes in the injections of the saved and recent tasks."""
        from ..core.curation.entries import impact_of_change

        from ..core.record.writer import WriteError, read_current

        root = self.store.root
        try:  # read as the writer reads: never through a link
            changes = {w.name: (read_current(root, w.rel_path) or b"") + w.data for w in writes if w.rel_path.startswith(".rawko/memories/")}
        except WriteError as exc:
            return [f"impact unknown: {exc}"]
        return [i.describe() for i in impact_of_change(self.store, changes, self.app.impact_tasks(), self.now_ms, self.app.active_profile())]

    def run_writes(self, writes: list[PlannedWrite], action: str, summary: str, plan_again=None) -> None:
        """Write and commit through the app's one write flow, then find the candidates again on the store as it now is (the queue stays open)."""
        self.app.apply_plan(writes, action, summary, plan_again, then=lambda _written: self.find_again())

    @work(thread=True, exit_on_error=False, exclusive=True, group="candidates", description="find consolidation candidates again")
    def find_again(self) -> None:
        from ..core.store.reading import load_store

        store = load_store(self.store.root)
        groups = self._find(store)
        if not get_current_worker().is_cancelled:
            deliver(self, self._acted, store, groups)

    def _acted(self, store: Store, groups: list[CandidateGroup]) -> None:
        """After a decision: stay on the same row, which now holds the next item."""
        row = self.query_one("#candidates", DataTable).cursor_row
        self.store = store
        self.injections.clear()  # they were found on the store before the write
        self._show_groups(groups, row)

    def _confirm_writes(self, heading: str, writes: list[PlannedWrite], action: str, summary: str) -> None:
        def confirmed(writes: list[PlannedWrite] | None) -> None:
            if writes is not None:
                self.run_writes(writes, action, summary)  # appends only: the writer plans them again if a file changes

        self.app.push_screen(ConfirmWrite(heading, writes, impact=self._writes_impact), confirmed)

    def _keep(self, kept: int) -> None:
        """Keep one memory of the pair: the other is retired, superseded by it (both sides recorded)."""
        group = self._current()
        if group is None or len(group.paths) < 2:
            return
        if group.kind not in self.ONE_OF_TWO_KINDS:
            self._one_of_two_does_not_apply(group)
            return
        names = [self.store.file(p).name for p in group.paths[:2]]
        new, old = names[kept], names[1 - kept]
        try:
            writes = supersede_writes(self.store.root, old, new, None, person_name(self.store.root))
        except WriteError as exc:
            self.notify(clean(str(exc)), severity="error", timeout=8)
            return
        self._confirm_writes(f"Keep {new}: {old} superseded by it?", writes, "supersede", f"{old} superseded by {new}.")

    def action_keep_left(self) -> None:
        self._keep(0)

    def action_supersede(self) -> None:
        self._keep(1)

    def action_link(self) -> None:
        group = self._current()
        if group is None or len(group.paths) < 2:
            self.notify("Link joins two memories: choose a pair.", timeout=3)
            return
        a, b = (self.store.file(p).name for p in group.paths[:2])
        try:
            writes = link_writes(self.store.root, self.store, a, b, person_name(self.store.root))
        except WriteError as exc:
            self.notify(clean(str(exc)), severity="error", timeout=8)
            return
        if not writes:
            self.notify(clean(f"{a} and {b} are linked already: each lists the other in relatedMemories. Nothing was written."), timeout=5)
            return
        self._confirm_writes(f"Link {a} and {b}? Each lists the other in relatedMemories.", writes, "link", f"Linked {a} and {b} (relatedMemories).")

    def _single(self) -> str | None:
        group = self._current()
        if group is None or len(group.paths) != 1:
            self.notify("Confirm and retire act on one memory: choose a stale or unused one.", timeout=3)
            return None
        return self.store.file(group.paths[0]).name

    def action_confirm_memory(self) -> None:
        from ..core.record.writer import plan_append

        name = self._single()
        if name is None:
            return
        try:
            writes = [plan_append(self.store.root, name, confirm_entry(person_name(self.store.root)))]
        except WriteError as exc:
            self.notify(clean(str(exc)), severity="error", timeout=8)
            return
        self._confirm_writes(f"Confirm that {name} still holds? A dated entry restarts its stale clock.", writes, "confirm", f"Confirmed {name}: it still holds.")

    def action_retire(self) -> None:
        """The retire editor, as everywhere: the person writes the reason; the queue's note is shown, never written for them."""
        group, name = self._current(), self._single()
        if name is None:
            return
        note = f"Why the queue lists it (a note, not a reason): {group.kind}: {group.reason}."
        self.app.open_append_editor(self.store.file(name), "retire", note, then=lambda _written: self.find_again())

    def action_opinion(self) -> None:
        group = self._current()
        if group is None or len(group.paths) < 2:
            self.notify("Claude compares two memories: choose a pair.", timeout=3)
            return
        self.notify(f"Asking Claude about {' + '.join(p.rsplit('/', 1)[-1] for p in group.paths)}…", timeout=3)
        self.ask_opinion(group)

    @work(thread=True, exit_on_error=False, exclusive=True, group="claude", description="ask Claude for a second opinion on a pair")
    def ask_opinion(self, group: CandidateGroup) -> None:
        import os

        from ..core.curation.claude import ClaudeError
        from ..core.curation.consolidation.opinion import opinion_on
        from ..core.store.settings import person_model
        from ..core.text.tokens import DEFAULT_MODEL

        a, b = (self.store.file(p) for p in group.paths[:2])
        model = person_model(DEFAULT_MODEL)  # the person's own setting, never the store's
        try:
            opinion = opinion_on(a, b, os.environ.get("ANTHROPIC_API_KEY"), model, self.app.api_base_url)
            said = f"{opinion.verdict}{' (cached)' if opinion.cached else ''}: {opinion.why}  left: {opinion.quote_a!r}  right: {opinion.quote_b!r}"
        except ClaudeError as exc:
            said = f"no opinion: {exc}"
        if not get_current_worker().is_cancelled:
            deliver(self, self._show_opinion, group, said)

    def _show_opinion(self, group: CandidateGroup, said: str) -> None:
        self.opinions[group.paths] = said
        if self._current() is group:
            self.query_one("#candidate-reason", Static).update(self._reason(group))

    def action_dismiss_group(self) -> None:
        group = self._current()
        if group is None:
            return
        self._decide(DISMISS, group)

    def action_undo_dismiss(self) -> None:
        """Take back the last dismissal of this visit (another record in the log; nothing is removed)."""
        if not self.dismissed_here:
            self.notify("Nothing dismissed here to take back.", timeout=3)
            return
        self._decide(RESTORE, self.dismissed_here[-1])

    def _decide(self, decision: str, group: CandidateGroup) -> None:
        root = self.store.root
        by = person_name(root)
        try:
            writes = [decision_write(root, decision, group.paths, group.kind, by)]
        except WriteError as exc:
            self.notify(clean(str(exc)), severity="error", timeout=8)
            return
        verb = "Dismiss" if decision == DISMISS else "Restore"
        heading = f"{verb} {' + '.join(group.paths)}? " + (
            "It leaves the queue; no memory changes (u takes it back)." if decision == DISMISS else "It comes back to the queue."
        )

        def confirmed(writes: list[PlannedWrite] | None) -> None:
            if writes is not None:
                self.write_decision(writes, decision, group, lambda: [decision_write(root, decision, group.paths, group.kind, by)])

        self.app.push_screen(ConfirmWrite(heading, writes), confirmed)

    def write_decision(self, writes: list[PlannedWrite], decision: str, group: CandidateGroup, plan_again=None) -> None:
        summary = f"{decision}: {' + '.join(group.paths)}"
        self.app.apply_plan(writes, decision, summary, plan_again, then=lambda _written: self._decided(decision, group))

    def _decided(self, decision: str, group: CandidateGroup) -> None:
        row = self.query_one("#candidates", DataTable).cursor_row
        if decision == DISMISS:
            self.dismissed_here.append(group)
            self.all_groups.remove(group)
            self.notify("u takes the dismissal back.", timeout=5)
        else:
            self.dismissed_here.remove(group)
            self.all_groups.append(group)
        self._show_groups(self.all_groups, row)


class TornWriteScreen(ModalScreen[bool]):
    """A memory holding an interrupted write: what reached the file, and the person's decision.

    A torn write (part of an entry): ``t`` takes back rawko-tui's own torn bytes
    (every one shown here first) when they end the file and were never
    committed; ``k`` keeps them and records that the person has seen them.
    rawko-tui's own complete entry whose commit was never made: ``c`` commits
    it as rawko-tui's own (through the confirmation), ``t`` takes it back.
    Until one of them, the file is not appended to.  Bytes too many to show
    here are never taken back from here: the screen names the command that
    prints every one.
    """

    BINDINGS = [
        Binding("t", "take_back", "Take the torn bytes back", id="torn-take-back"),
        Binding("c", "commit", "Commit rawko-tui's entry", id="torn-commit"),
        Binding("k", "acknowledge", "Keep them, acknowledged", id="torn-acknowledge"),
        Binding("escape", "back", "Back", id="torn-back"),
    ]

    def __init__(self, root, torn: TornWrite) -> None:
        super().__init__()
        self.root = root
        self.torn = torn
        self._too_large: bool | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(id="torn-what")
            with VerticalScroll(id="confirm-writes"):
                yield Static(id="torn-bytes")
            yield Static(id="torn-keys")
        yield Footer()

    @property
    def shown(self) -> bytes | None:
        """The bytes this screen is about: rawko-tui's whole entry, or the torn part a take-back removes."""
        return self.torn.entry if self.torn.uncommitted else self.torn.removable

    @property
    def too_large(self) -> bool:
        """More bytes than this screen shows: nothing is taken back or committed from it."""
        if self._too_large is None:  # measured once: bindings are checked on every refresh
            self._too_large = self.shown is not None and too_many(self.shown)
        return self._too_large

    def on_mount(self) -> None:
        torn = self.torn
        name = torn.name
        self.query_one("#confirm-box").border_title = "An interrupted write"
        what = literal(f"{torn.rel_path} holds {torn.describe()}. It is not appended to until you decide.\n", "bold", limit=600)
        keys = Text()
        take_back_key = shown_keys(self.app, TornWriteScreen, "torn-take-back")[0]
        if self.shown is not None:
            bytes_shown = self.query_one("#torn-bytes", Static)
            if self.too_large:
                bytes_shown.update(cut_bytes(self.shown, "red", 2_000))
                what.append_text(
                    literal(
                        f"Its {len(self.shown):,} bytes are more than this screen shows, so nothing is taken back or committed from here: "
                        f"`rawko-tui torn {name} --take-back --dry-run` prints every byte a take-back removes"
                        + (f", `rawko-tui torn {name} --commit --dry-run` every byte a commit holds" if torn.uncommitted else "")
                        + "; without --dry-run they do it.\n",
                        "bold red",
                    )
                )
            else:
                bytes_shown.update(bytes_text(self.shown, "red"))
        else:
            self.query_one("#torn-bytes", Static).display = False
        if torn.uncommitted and not self.too_large:
            commit_key = shown_keys(self.app, TornWriteScreen, "torn-commit")[0]
            what.append_text(literal(f"{commit_key} commits these {torn.length:,} bytes as rawko-tui's own (the confirmation shows the commit first). ", limit=600))
            keys.append_text(Text.assemble(*keys_named(self.app, TornWriteScreen, "torn-commit"), " commits them · "))
        if torn.removable is not None and not self.too_large:
            what.append_text(literal(f"{take_back_key} removes these {len(torn.removable):,} bytes from its end (rawko-tui's own, never committed): the file is then as it was.", limit=600))
            keys.append_text(Text.assemble(*keys_named(self.app, TornWriteScreen, "torn-take-back"), " takes them back · "))
        elif torn.removable is None:
            what.append_text(literal(f"They cannot be taken back: {torn.why_kept}.", limit=600))
        if not torn.uncommitted:
            keys.append_text(Text.assemble(*keys_named(self.app, TornWriteScreen, "torn-acknowledge"), " keeps them and records that you have seen them · "))
        keys.append_text(Text.assemble(*keys_named(self.app, TornWriteScreen, "torn-back"), " goes back, nothing changed"))
        self.query_one("#torn-what", Static).update(what)
        self.query_one("#torn-keys", Static).update(keys)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "take_back":
            return self.torn.removable is not None and not self.too_large
        if action == "commit":
            return self.torn.uncommitted and not self.too_large
        if action == "acknowledge":
            return not self.torn.uncommitted  # rawko-tui's own entry kept unresolved would later pass for another writer's
        return True

    def action_take_back(self) -> None:
        if self.torn.removable is not None and not self.too_large:
            self.resolve("take-back")

    def action_acknowledge(self) -> None:
        if not self.torn.uncommitted:
            self.resolve("acknowledge")

    def action_commit(self) -> None:
        """rawko-tui's own entry, committed through the one confirmation every write goes through."""
        from ..core.record.writer import plan_commit

        if not self.torn.uncommitted or self.too_large:
            return
        try:
            writes = [plan_commit(self.root, self.torn)]
        except WriteError as exc:
            self.notify(clean(str(exc)), severity="error", timeout=10)
            return
        summary = f"Committed rawko-tui's own entry in {self.torn.rel_path} (line {self.torn.line}), written by a write that was stopped before its commit."

        def confirmed(confirmed_writes: list[PlannedWrite] | None) -> None:
            if confirmed_writes is not None:
                self.app.apply_plan(confirmed_writes, "commit-interrupted", summary)
                self.dismiss(True)

        self.app.push_screen(ConfirmWrite(f"Commit rawko-tui's own entry in {self.torn.rel_path}?", writes), confirmed)

    def action_back(self) -> None:
        self.dismiss(False)

    @work(thread=True, exit_on_error=False, exclusive=True, group="curation-write", description="resolve an interrupted write")
    def resolve(self, how: str) -> None:
        from ..core.record.writer import acknowledge, take_back

        if how == "take-back":
            removed = take_back(self.root, self.torn)
            note = f"Took back {len(removed):,} bytes from {self.torn.rel_path}: it is as it was before the interrupted write."
        else:
            where = acknowledge(self.root, self.torn, person_name(self.root))
            note = (
                f"Acknowledged the interrupted write in {self.torn.rel_path} (recorded in {where}); its bytes stay in the file, "
                "shown as rawko-tui's torn bytes and committed only with i."
            )
        deliver(self, self._resolved, note)

    def _resolved(self, note: str) -> None:
        self.app.notify(clean(note), timeout=8)
        self.dismiss(True)
