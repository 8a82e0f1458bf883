"""Consolidation: candidates side by side, and a person's decision, each one commit."""

from __future__ import annotations

import difflib

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import get_current_worker

from ...core.curation.consolidation.queue import KINDS, CandidateGroup, consolidation_candidates
from ...core.curation.entries import (
    DISMISS,
    RESTORE,
    confirm_entry,
    decision_write,
    link_writes,
    merge_draft,
    merge_title,
    merge_writes,
    supersede_writes,
)
from ...core.store.fold import effective_body
from ...core.store.reading import Store
from ...core.record.writer import PlannedWrite, WriteError, person_name
from ..keys import bound_keys, shown_keys
from ..safe import cell, clean, literal
from ..threads import deliver
from ..widgets.rowtable import RowTable
from .confirm_write import ConfirmWrite
from .merge import MergeScreen


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
        from ...core.curation.consolidation.queue import injected_today

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
        from ...core.curation.entries import impact_of_change, merge_changes

        def impact(_name: str, data: bytes) -> list[str]:
            tasks = self.app.impact_tasks()
            return [i.describe() for i in impact_of_change(self.store, merge_changes(self.store, names, data.decode("utf-8")), tasks, self.now_ms, self.app.active_profile())]

        return impact

    def _writes_impact(self, writes: list[PlannedWrite]) -> list[str]:
        """What appending these entries changes in the injections of the saved and recent tasks."""
        from ...core.curation.entries import impact_of_change

        from ...core.record.writer import WriteError, read_current

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
        from ...core.store.loading import load_store

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
        from ...core.record.writer import plan_append

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

        from ...core.curation.claude import ClaudeError
        from ...core.curation.consolidation.opinion import opinion_on
        from ...core.store.settings import person_model
        from ...core.text.tokens import DEFAULT_MODEL

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
