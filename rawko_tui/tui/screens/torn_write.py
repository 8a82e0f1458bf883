"""An interrupted write in a memory: what reached the file, and the person's decision."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ...core.record.writer import PlannedWrite, TornWrite, WriteError, person_name
from ..keys import shown_keys
from ..safe import clean, literal
from ..threads import deliver
from .confirm_write import ConfirmWrite
from .dialog_text import bytes_text, cut_bytes, keys_named, too_many


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
        from ...core.record.writer import plan_commit

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
        from ...core.record.writer import acknowledge, take_back

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
