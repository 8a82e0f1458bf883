"""The one confirmation every write goes through: the target, the exact bytes, the impact; asked once."""

from __future__ import annotations

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

from ...core import records
from ...core.record.writer import PlannedWrite, WriteError, read_current, shown_text
from ..keys import focus_now, shown_keys
from ..safe import clean, literal
from ..threads import deliver
from .dialog_text import SHOWN_BYTES, SHOWN_LINES, cut_bytes, impact_text, keys_named, too_many


Planner = Callable[[str], list[PlannedWrite]]


def shown_bytes(write: PlannedWrite, before: bytes, keep: int | None = None) -> Text:
    """What a person reads as the bytes of a write: all of them (or, with ``keep``, a beginning marked as cut),
    or for a rewritten file the lines that change."""
    if write.kind != "replace":
        # the newlines that separate an appended entry from the file's end are bytes too: make them visible
        body = write.data.lstrip(b"\n")
        shown = Text("⏎\n" * (len(write.data) - len(body)))
        return shown.append_text(cut_bytes(body, "", keep))
    diff = difflib.unified_diff(shown_text(before).splitlines(keepends=True), shown_text(write.data).splitlines(keepends=True), write.rel_path, write.rel_path + " (after)")
    return literal("".join(diff) or "(no change)")


class ConfirmWrite(ModalScreen[list[PlannedWrite] | None]):
    """Shows what will be written and where, and asks once: y writes (and commits), n or Esc goes back.

    Bytes another writer appended to a target since its last commit are shown
    apart, as not written by rawko-tui: they are committed only with ``i``
    (the commit message names them), never by ``y`` alone.  Every byte that
    would be committed is shown (the pane scrolls; a byte that is not UTF-8 as
    an escape); past ``SHOWN_BYTES`` or ``SHOWN_LINES`` neither key is offered
    and the dialog says what prints every byte instead.

    ``name_field`` adds one input (e.g. a saved task's name) from which
    ``planner`` re-plans the writes as the person types.  ``impact`` is
    computed in a worker: what the writes change in the injections people rely on.
    """

    BINDINGS = [
        Binding("y", "confirm", "Yes, write and commit", id="confirm-yes"),
        Binding("i", "include", "Yes, and commit the bytes rawko-tui did not write", id="confirm-include"),
        Binding("n,escape", "cancel", "No, go back", id="confirm-no"),
        Binding("e", "edit_name", "Edit the name", id="confirm-edit-name"),
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
        self._measured: list[PlannedWrite] | None = None
        self._too_large = True

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
        # focus starts on what will be written, never in the name box: there the dialog's own keys
        # (y, n) would be typed into the name instead of answering it
        self.query_one("#confirm-writes").focus()

    @property
    def foreign(self) -> list[PlannedWrite]:
        """The writes whose file holds bytes another writer appended since its last commit."""
        return [w for w in self.writes if w.foreign]

    @property
    def too_large(self) -> bool:
        """More bytes than the dialog shows: then nothing is written from it (rawko-tui commits nothing unseen).

        What is shown of a rewritten settings file is its diff, so that is what counts for it.
        """
        if self._measured is not self.writes:  # measured once per plan: bindings are checked on every refresh
            shown = []
            for write in self.writes:
                shown.append(write.foreign)
                shown.append(str(shown_bytes(write, self._before(write))).encode("utf-8", "surrogateescape") if write.kind == "replace" else write.data)
            self._too_large, self._measured = too_many(*shown), self.writes
        return self._too_large

    def _before(self, write: PlannedWrite) -> bytes:
        """A rewritten file as it is now (what its diff is against)."""
        if write.kind != "replace":
            return b""
        try:
            return read_current(self.app.root, write.rel_path) or b""
        except WriteError:
            return b""

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("confirm", "include") and self.too_large:
            return False  # what would be committed cannot all be shown here: yes is not offered
        if action == "include":
            return bool(self.foreign)  # offered only when there are such bytes
        if action == "edit_name":
            return self.name_field is not None
        return True

    def _show(self) -> None:
        text = Text()
        keep = 2_000 if self.too_large else None
        if keep is not None:
            text.append_text(literal(self._too_large_note() + "\n\n", "bold red"))
        for write in self.writes:
            if write.foreign:
                text.append_text(literal(f"⚠ {write.foreign_note()}:\n", "bold yellow", limit=500))
                text.append_text(cut_bytes(write.foreign, "yellow", keep))
                text.append("\n")
            text.append(clean(write.describe()) + "\n", "bold cyan")
            text.append_text(shown_bytes(write, self._before(write), keep))  # a rewritten file: the diff against it as it is now
            text.append("\n")
        self.query_one("#confirm-bytes", Static).update(text)
        # the keys in force (a person's keymap may have moved them), never fixed text
        yes, no = keys_named(self.app, ConfirmWrite, "confirm-yes"), keys_named(self.app, ConfirmWrite, "confirm-no")
        if self.too_large:
            keys = Text.assemble("Too much to show here, so nothing is written from this dialog (", *yes, " is not offered; see above) · ", *no, " goes back, nothing written")
        elif self.foreign:
            keys = Text.assemble(
                *keys_named(self.app, ConfirmWrite, "confirm-include"),
                " writes this and commits it together with the bytes marked ⚠ (the commit message names them as above: "
                "another writer's as not written by rawko-tui) · ",
                *yes,
                " alone writes nothing here · ",
                *no,
                " goes back, nothing written",
            )
        else:
            keys = Text.assemble(*yes, " writes exactly this and commits it · ", *no, " goes back, nothing written")
        if self.name_field is not None and not self.too_large:
            keys = Text.assemble(*keys_named(self.app, ConfirmWrite, "confirm-edit-name"), f" edits {self.name_field[0]} (Enter or Esc leaves the box) · ", keys)
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
        deliver(self, self._show_impact, lines)

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
        focus_now(self.query_one("#confirm-writes"))

    def action_edit_name(self) -> None:
        if self.name_field is not None:
            focus_now(self.query_one("#confirm-name", Input))

    def _too_large_note(self) -> str:
        """Why nothing is written from here, and what shows every byte instead."""
        total = sum(len(w.foreign) + len(w.data) for w in self.writes)
        lines = sum(w.foreign.count(b"\n") + w.data.count(b"\n") for w in self.writes)
        said = (
            f"These writes hold {total:,} bytes on {lines:,} lines, more than this dialog shows ({SHOWN_BYTES:,} bytes, {SHOWN_LINES:,} lines); "
            "rawko-tui commits nothing you have not seen, so it writes nothing from here. Only the beginning of each is shown below."
        )
        foreign = [w for w in self.writes if w.foreign]
        if foreign:
            paths = " ".join(w.rel_path for w in foreign)
            said += (
                f" Another writer's uncommitted bytes are part of it: read them with `git diff -- {paths}` and commit them yourself if you "
                "trust them, or let the command line print every byte before it writes (`--include-uncommitted --dry-run`)."
            )
        target = self.writes[0] if self.writes else None
        if target is not None and target.kind == "commit":
            said += f" `rawko-tui torn {target.memory_name} --commit --dry-run` prints every byte of this commit; without --dry-run it makes it."
        elif target is not None and target.kind == "append" and target.memory_name:
            said += f" The command line prints every byte before it writes: save your text to a file and run `rawko-tui append {target.memory_name} --body-file FILE` (--set for its fields)."
        else:
            said += " The command line prints every byte before it writes (`rawko-tui new … --body-file FILE`, `--dry-run` to read it first)."
        return said

    def action_confirm(self) -> None:
        if self.too_large:
            return
        if self.foreign:
            names = ", ".join(w.rel_path for w in self.foreign)
            self.notify(
                clean(f"{names} holds uncommitted bytes that are not this write's (marked ⚠): i commits them with yours, named as the dialog names them; n goes back."),
                severity="warning",
                timeout=8,
            )
            return
        self.dismiss(self.writes)

    def action_include(self) -> None:
        """The person's explicit choice: the bytes shown as another writer's go into this commit too."""
        if self.foreign and not self.too_large:
            self.dismiss([records.replace(w, include_foreign=True) if w.foreign else w for w in self.writes])

    def action_cancel(self) -> None:
        if isinstance(self.focused, Input):  # Esc in the name box leaves the box; a second Esc goes back
            focus_now(self.query_one("#confirm-writes"))
            return
        self.dismiss(None)
