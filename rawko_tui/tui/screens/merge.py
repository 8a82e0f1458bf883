"""The merge editor: two memories' draft in the memory editor, Claude's draft on Ctrl+D."""

from __future__ import annotations

from textual import work
from textual.binding import Binding
from textual.widgets import TextArea
from textual.worker import get_current_worker

from ...core.store.reading import Store
from ..safe import clean
from ..threads import deliver
from .confirm_write import Planner
from .memory_editor import MemoryEditor


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
        from ...core.curation.entries import merge_changes

        return {**merge_changes(self.context, [n for n, _ in self.originals], text, name), name: self._result(text)}

    def action_claude_draft(self) -> None:
        self.query_one("#merge-text", TextArea).loading = True
        self.notify("Asking Claude for a merge draft… (Esc cancels)", timeout=3)
        self.claude_merge()

    @work(thread=True, exit_on_error=False, exclusive=True, group="claude", description="ask Claude for a merge draft")
    def claude_merge(self) -> None:
        import os

        from ...core.curation.claude import ClaudeError, ask_claude, build_merge_prompt, parse_memory_answer
        from ...core.store.settings import person_model

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
