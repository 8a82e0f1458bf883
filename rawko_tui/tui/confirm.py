"""The one confirmation every write goes through: the target, the exact bytes, the impact; asked once."""

from __future__ import annotations

import dataclasses
import difflib
from typing import Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from ..core.writer import PlannedWrite, WriteError, read_current
from .keys import shown_keys
from .safe import clean, literal

Planner = Callable[[str], list[PlannedWrite]]


def shown_bytes(write: PlannedWrite, before: bytes) -> str:
    """What a person reads as the bytes of a write: all of them, or for a rewritten file the lines that change."""
    text = write.data.decode("utf-8", "replace")
    if write.kind != "replace":
        # the newlines that separate an appended entry from the file's end are bytes too: make them visible
        body = text.lstrip("\n")
        return "⏎\n" * (len(text) - len(body)) + body
    diff = difflib.unified_diff(
        before.decode("utf-8", "replace").splitlines(keepends=True), text.splitlines(keepends=True), write.rel_path, write.rel_path + " (after)"
    )
    return "".join(diff) or "(no change)"


def impact_text(heading: str, lines: list[str]) -> Text:
    """What a change does to the injections of the tasks people rely on, one line each."""
    text = Text(heading, "bold")
    if not lines:
        text.append("none of them changes.", "dim")
    for line in lines:
        text.append("\n  ")
        text.append_text(literal(line, limit=300))
    return text


def keys_named(app, screen: type, binding_id: str) -> list:
    """``y`` or ``n or Esc`` in bold: the keys in force for a binding (a keymap may have moved them), for Text.assemble."""
    parts: list = []
    for index, key in enumerate(shown_keys(app, screen, binding_id)):
        parts += ([" or "] if index else []) + [(key, "bold")]
    return parts


class ConfirmWrite(ModalScreen[list[PlannedWrite] | None]):
    """Shows what will be written and where, and asks once: y writes (and commits), n or Esc goes back.

    Bytes another writer appended to a target since its last commit are shown
    apart, as not written by rawko-tui: they are committed only with ``i``
    (the commit message names them), never by ``y`` alone.

    ``name_field`` adds one input (e.g. a saved task's name) from which
    ``planner`` re-plans the writes as the person types.  ``impact`` is
    computed in a worker: what the writes change in the injections people rely on.
    """

    BINDINGS = [
        Binding("y", "confirm", "Yes, write and commit", id="confirm-yes"),
        Binding("i", "include", "Yes, and commit the bytes rawko-tui did not write", id="confirm-include"),
        Binding("n,escape", "cancel", "No, go back", id="confirm-no"),
    ]

    def __init__(
        self,
        heading: str,
        writes: list[PlannedWrite],
        impact: Callable[[list[PlannedWrite]], list[str]] | None = None,
        name_field: tuple[str, str] | None = None,
        planner: Planner | None = None,
    ) -> None:
        super().__init__()
        self.heading = heading
        self.writes = writes
        self.impact = impact
        self.name_field = name_field
        self.planner = planner

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(literal(self.heading, "bold", limit=300), id="confirm-heading")
            if self.name_field is not None:
                label, value = self.name_field
                yield Input(value, placeholder=label, id="confirm-name")
            with VerticalScroll(id="confirm-writes"):
                yield Static(id="confirm-bytes")
            yield Static(id="confirm-impact")
            yield Static(id="confirm-keys")
        yield Footer()

    def on_mount(self) -> None:
        yes = shown_keys(self.app, ConfirmWrite, "confirm-yes")[0]
        self.query_one("#confirm-box").border_title = Content(f"Nothing is written until you say {yes}")  # a title string is markup
        self._show()
        if self.name_field is not None:
            self.query_one("#confirm-name", Input).focus()

    @property
    def foreign(self) -> list[PlannedWrite]:
        """The writes whose file holds bytes another writer appended since its last commit."""
        return [w for w in self.writes if w.foreign]

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "include":
            return bool(self.foreign)  # offered only when there are such bytes
        return True

    def _show(self) -> None:
        text = Text()
        for write in self.writes:
            if write.foreign:
                text.append_text(literal(f"⚠ {write.foreign_note()}:\n", "bold yellow", limit=500))
                text.append_text(literal(write.foreign.decode("utf-8", "replace"), "yellow", limit=20_000))
                text.append("\n")
            text.append(clean(write.describe()) + "\n", "bold cyan")
            before = b""
            if write.kind == "replace":  # the diff is against the file as it is now
                try:
                    before = read_current(self.app.root, write.rel_path) or b""
                except WriteError:
                    pass
            text.append_text(literal(shown_bytes(write, before), limit=20_000))
            text.append("\n")
        self.query_one("#confirm-bytes", Static).update(text)
        # the keys in force (a person's keymap may have moved them), never fixed text
        yes, no = keys_named(self.app, ConfirmWrite, "confirm-yes"), keys_named(self.app, ConfirmWrite, "confirm-no")
        if self.foreign:
            keys = Text.assemble(
                *keys_named(self.app, ConfirmWrite, "confirm-include"),
                " writes this and commits it together with the bytes marked ⚠ (the commit message says rawko-tui did not write them) · ",
                *yes,
                " alone writes nothing here · ",
                *no,
                " goes back, nothing written",
            )
        else:
            keys = Text.assemble(*yes, " writes exactly this and commits it · ", *no, " goes back, nothing written")
        self.query_one("#confirm-keys", Static).update(keys)
        self.refresh_bindings()
        impact = self.query_one("#confirm-impact", Static)
        if self.impact is None:
            impact.display = False
        else:
            impact.update(Text("Impact on saved and recent tasks: computing…", "dim"))
            self.compute_impact(list(self.writes))

    @work(thread=True, exit_on_error=False, exclusive=True, group="confirm-impact", description="impact of the write")
    def compute_impact(self, writes: list[PlannedWrite]) -> None:
        lines = self.impact(writes)
        self.app.call_from_thread(self._show_impact, lines)

    def _show_impact(self, lines: list[str]) -> None:
        self.query_one("#confirm-impact", Static).update(impact_text("Impact on saved and recent tasks: ", lines))

    @on(Input.Changed, "#confirm-name")
    def _name_changed(self, event: Input.Changed) -> None:
        if self.planner is not None:
            try:
                self.writes = self.planner(event.value)
            except WriteError as exc:  # the file changed under the confirmation: said, and the last plan stays
                self.notify(clean(str(exc)), severity="error", timeout=8)
                return
            self._show()

    @on(Input.Submitted, "#confirm-name")
    def _name_submitted(self) -> None:
        self.query_one("#confirm-writes").focus()

    def action_confirm(self) -> None:
        if self.foreign:
            names = ", ".join(w.rel_path for w in self.foreign)
            self.notify(
                clean(f"{names} holds bytes another writer appended since the last commit: i commits them with yours, named as not written by rawko-tui; n goes back."),
                severity="warning",
                timeout=8,
            )
            return
        self.dismiss(self.writes)

    def action_include(self) -> None:
        """The person's explicit choice: the bytes shown as another writer's go into this commit too."""
        if self.foreign:
            self.dismiss([dataclasses.replace(w, include_foreign=True) if w.foreign else w for w in self.writes])

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDiscard(ModalScreen[bool]):
    """Asked when Esc would throw away text the person typed."""

    BINDINGS = [
        Binding("y", "discard", "Yes, discard", id="discard-yes"),
        Binding("n,escape", "keep", "No, keep editing", id="discard-no"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="discard-box"):
            yield Static(Text.assemble(("Discard what you typed?", "bold"), "\n\n", *keys_named(self.app, ConfirmDiscard, "discard-yes"), " discards it · ", *keys_named(self.app, ConfirmDiscard, "discard-no"), " keeps editing"))
        yield Footer()

    def action_discard(self) -> None:
        self.dismiss(True)

    def action_keep(self) -> None:
        self.dismiss(False)
