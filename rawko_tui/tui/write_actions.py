"""The app's writes: the editors it opens (a new memory, an entry appended) and the one way every write goes, confirmed, applied, committed."""

from __future__ import annotations

from pathlib import Path

from textual import work

from ..core.curation.checks import load_checks
from ..core.curation.entries import append_template, impact_of_change, new_memory_template, pattern_matches
from ..core.record.history import repository_state_in
from ..core.record.writer import (
    ChangedSinceShown,
    PlannedWrite,
    WriteError,
    apply_writes,
    person_name,
    plan_append,
    read_current,
    replan,
    torn_writes,
)
from .safe import one_line
from .screens.confirm_write import ConfirmWrite
from .screens.memory_editor import MemoryEditor, creation_commit, new_memory_planner
from .threads import deliver


class WriteActions:
    """Mixed into the app: every write goes editor -> ``ConfirmWrite`` -> ``apply_plan`` (a worker), the screens' too.

    Reads the app's state (``root``, ``store``, ``at``, ``selected``, ``query_state``, ``recent_tasks``, the repository
    found by the last load) and asks it for ``_now_ms``, ``active_profile`` and ``load``.
    """

    def _refuse_at_revision(self) -> bool:
        """Say why nothing can be written in a store shown at a revision; True when that is the case."""
        if self.at:
            self.notify(one_line(f"Read-only: this is the store as it was at {self.at}. Writing needs the working tree (open it without --at).", 300), severity="warning", timeout=6)
        return bool(self.at)

    def _impact(self, name: str, data: bytes) -> list[str]:
        now_ms = self._now_ms()
        tasks = self.impact_tasks()
        lines = pattern_matches(_effective_when(name, data), tasks)
        return lines + [i.describe() for i in impact_of_change(self.store, {name: data}, tasks, now_ms, self.active_profile())]

    def impact_tasks(self) -> list[tuple[str, str]]:
        """The saved tasks, then the recently previewed ones: what an edit's impact is measured on."""
        saved, _ = load_checks(self.root)
        return list(dict.fromkeys([(t.task, t.agent) for t in saved] + self.recent_tasks[:5]))

    def _read_only_now(self) -> bool:
        """Say so and return True when the repository is in a state where writing is refused."""
        blocker = repository_state_in(self._repository).write_blocker
        if blocker:
            self.notify(one_line(f"Read-only: {blocker}.", 300), severity="warning", timeout=8)
        return blocker is not None

    def action_new_memory(self) -> None:
        if self.store is None or self._refuse_at_revision() or self._read_only_now():
            return
        agent = self.query_state.agent if self.query_state else "developer"
        intro = "Edit the draft; Ctrl+S shows the exact file and its impact before anything is written."

        def written(writes: list[PlannedWrite] | None) -> None:
            if writes is not None:
                self.apply_plan(writes, *creation_commit(writes, "create", f"New memory: {writes[0].title}"))

        self.push_screen(MemoryEditor(self.root, new_memory_template(agent), intro, new_memory_planner(self.root), impact=self._impact, store=self.store), written)

    def action_append(self, kind: str) -> None:
        memory = self.store.file(self.selected) if self.store and self.selected else None
        if memory is None:
            self.notify("No memory is selected: choose one in the Memories pane (1) or the preview (3).", timeout=4)
            return
        self.open_append_editor(memory, kind)

    def open_append_editor(self, memory, kind: str, note: str = "", then=None) -> None:
        """The editor for an entry of ``kind`` appended to ``memory`` (the one every append goes through, the queue's too).

        ``note``: shown above the text (never written unless the person writes it); ``then`` runs after the write.
        """
        if self._refuse_at_revision():
            return
        if memory.symlink or memory.text is None:
            self.notify(one_line(f"{memory.rel_path} cannot be appended to: " + ("it is a symlink." if memory.symlink else "it could not be read."), 300), timeout=5)
            return
        if self._read_only_now():
            return
        root, name = self.root, memory.name
        torn = [t for t in torn_writes(root) if t.rel_path == memory.rel_path]
        if torn:
            # a file holding an interrupted write is not appended to until the person has decided about it
            from .screens.torn_write import TornWriteScreen

            self.push_screen(TornWriteScreen(root, torn[0]), lambda _done: self.load())
            return
        try:
            # refused before a word is typed: a working copy or index that rewrites committed lines, a link, a filter
            plan_append(root, name, "-\n")
            prefix = read_current(root, memory.rel_path) or b""
        except WriteError as exc:
            self.notify(one_line(str(exc), 400), severity="error", timeout=10)
            return
        what = {"update": "an update", "correct": "a correction", "importance": "a new importance", "retire": "a retirement"}.get(kind, kind)
        intro = f"{what.capitalize()}, appended after everything in the file; nothing above it changes. Ctrl+S shows the exact bytes before writing."
        if kind == "retire":
            intro += " Write why it no longer holds in reason: (it is not written until you do)."
        if note:
            intro += f"\n{note}"

        def written(writes: list[PlannedWrite] | None) -> None:
            if writes is not None:
                self.apply_plan(writes, kind if kind != "update" else "append", "", then=then)

        # planned when Ctrl+S is pressed, on the file as it is then (an agent may have appended while the person typed)
        planner = lambda text: [plan_append(root, name, text)]  # noqa: E731
        draft = append_template(kind, memory, person_name(self.root))
        self.push_screen(MemoryEditor(self.root, draft, intro, planner, prefix=prefix, name=memory.name, impact=self._impact, store=self.store), written)

    @work(thread=True, exit_on_error=False, exclusive=True, group="curation-write", description="write and commit")
    def apply_plan(self, writes: list[PlannedWrite], action: str, summary: str, plan_again=None, then=None) -> None:
        """Write what the person confirmed and commit it; a refusal arrives in the one StateChanged handler.

        A target that changed after the confirmation was shown is planned again
        (``plan_again``, else the writer's ``replan``) and the confirmation is
        shown again, saying what changed; nothing is written meanwhile.
        ``then`` gets the result on the UI thread.
        """
        try:
            written = apply_writes(self.root, writes, action, summary)
        except ChangedSinceShown as changed:
            try:
                fresh = plan_again() if plan_again is not None else replan(self.root, writes)
            except WriteError as exc:
                raise WriteError(f"{changed} {exc}") from None
            deliver(self.main, self.confirm_again, changed, fresh, action, summary, plan_again, then)
            return
        deliver(self.main, self.notify, one_line(written.describe(self.root), 300), timeout=6)
        deliver(self.main, self.load)
        if then is not None:
            deliver(self.main, then, written)

    def confirm_again(self, changed: ChangedSinceShown, writes: list[PlannedWrite], action: str, summary: str, plan_again=None, then=None) -> None:
        """The confirmation once more, for a write whose file changed after it was shown: what changed, and the write as it is now."""
        heading = f"{changed.rel_path} changed after you confirmed ({changed.what}); nothing was written. The write as it would be now:"

        def confirmed(confirmed_writes: list[PlannedWrite] | None) -> None:
            if confirmed_writes is not None:
                self.apply_plan(confirmed_writes, action, summary, plan_again, then)

        self.push_screen(ConfirmWrite(heading, writes), confirmed)


def _effective_when(name: str, data: bytes) -> object:
    """The whenToUse a memory file's bytes put in force (the fold of its entries)."""
    from ..core.store.reading import MemoryFile, parse_memory_bytes

    memory = MemoryFile(location=Path(name), rel_path=name, name=name, top_level=True)
    parse_memory_bytes(memory, data)
    return memory.effective()[0].get("whenToUse")
