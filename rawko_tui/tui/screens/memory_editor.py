"""The memory editor: a new memory or an entry to append, linted as it is typed, confirmed before it is written."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea
from textual.worker import get_current_worker

from ...core.curation.consolidation.queue import closest_memories
from ...core.curation.entries import entry_problems, opener_problem
from ...core.lint.linter import Finding, lint_in_store, lint_text
from ...core.store.reading import Store
from ...core.record.writer import PlannedWrite, WriteError, ends_with_newline, person_name, plan_create
from ..safe import clean, literal
from ..threads import deliver
from .confirm_discard import ConfirmDiscard
from .confirm_write import ConfirmWrite, Planner
from .dialog_text import impact_text


def new_memory_planner(root) -> Planner:
    """A new memory file named after the title in the text."""

    def plan(text: str) -> list[PlannedWrite]:
        from ...core.store.reading import spec_extract

        try:
            title = spec_extract(text).attrs.get("title")
        except (ValueError, AttributeError):
            title = None
        return [plan_create(root, str(title or "memory"), text)]

    return plan


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
        from ...core.curation.entries import body_start

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
        from ...core.store.reading import spec_extract

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
        from ...core.curation.entries import now_iso
        from ...core.curation.sessions import session_link
        from ...core.store.reading import spec_extract
        from ...core.record.writer import format_entry, plan_append

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
        from ...core.store.reading import spec_extract
        from ...core.record.writer import committed_names, new_memory_name

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
