"""Injection preview pane: a task, an agent and options in; the ranking out, live."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.widgets import Checkbox, DataTable, Input, Select, Static, TextArea

from ....core.records import record
from ....core.arbiters.decision import COMPONENT_KEYS, IMPORTANCE_ORDER, Preview, iso_from_ms, parse_now
from ....core.arbiters.formatters import prompt_shares
from ....core.store.fold import status_of
from ....core.js.values import js_to_string
from ....core.text.tokens import estimate_tokens
from ...keys import focus_now
from ..rowtable import RowTable
from ...messages import MemoryHighlighted
from ...redraw import update_in_place
from ...safe import cell, literal, one_line
from ...selection import FollowsSelection

MAX_RESULT_ROWS = 60  # rebuilt on every ranking: a longer table would slow the typing
_REASON_TEXT = {
    "injected": ("injected", "bold green"),
    "cut-by-top-n": ("cut by top-N", "yellow"),
    "below-importance-threshold": ("below min importance", "yellow"),
    "no-pattern-matched": ("no pattern matched", "dim"),
    "not-loaded-subfolder": ("not loaded: subfolder", "magenta"),
    "not-loaded-symlink": ("not loaded: symlink", "magenta"),
    "not-loaded-extension": ("not loaded: extension", "magenta"),
    "not-loaded-error": ("not loaded: error", "red"),
    "would-crash-arbiter": ("spec's code throws", "red"),
    "retired-or-superseded": ("retired/superseded", "magenta"),
    "skipped-by-loader": ("skipped by its loader", "magenta"),
    "stops-loading": ("loading stops here", "red"),
    "not-read": ("never read", "magenta"),
    "match-undecided": ("? match undecided", "bold yellow"),
}


@record(frozen=True)
class PreviewQuery:
    """What the user asked: everything ``run_preview`` needs."""

    task: str
    agent: str
    max_memories: int | None
    min_importance: str | None
    now_ms: float | None
    recursive: bool | None
    effective: bool = False
    now_source: str = "the clock"  # typed, pinned in rawko-tui.yaml, or the clock
    arbiter: str | None = None  # the profile chosen in the app (None: the store's own)


class PreviewPane(FollowsSelection, Vertical):
    """Type a task; see what the arbiter injects for it."""

    BORDER_TITLE = "3 Injection preview"

    class QueryChanged(Message, bubble=True):
        """The task, agent or an option changed: the ranking must be recomputed."""

        def __init__(self, control: "PreviewPane", query: PreviewQuery) -> None:
            super().__init__()
            self._control = control
            self.query = query

        @property
        def control(self) -> "PreviewPane":
            return self._control

    class ResultHighlighted(MemoryHighlighted):
        """The user moved to a memory in the ranking."""

    def __init__(self, agents: list[str], task: str = "", agent: str = "developer", now: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.agents = agents
        self.initial_task = task
        self.initial_agent = agent
        self.initial_now = now
        self.show_unmatched = False
        self.preview: Preview | None = None
        self.rows: list[str] = []
        self.exact_tokens: str = ""
        self.hidden_rows = 0
        self.budget: int | None = None
        self.flagged: set[str] = set()  # paths lint flags as possible prompt injection
        self.pinned_now: float | None = None  # ``now:`` of rawko-tui.yaml (epoch ms), used when none is typed
        self.now_source = "the clock"  # where the "now" of the inputs comes from
        self.shown_now_source = "the clock"  # ... and that of the ranking shown
        self.now_problem = ""  # why the typed "now" is not used
        self.arbiter: str | None = None  # the profile switched to with b (None: the store's own)
        self.others = ""  # one line on what the other profiles inject for this task
        self.deciding = False  # the regexes the ranking left undecided are being decided in a worker process

    def compose(self) -> ComposeResult:
        yield TextArea(self.initial_task, id="task", soft_wrap=True, show_line_numbers=False, placeholder="Type a task, as the agent receives it…")
        with Horizontal(id="preview-options", classes="options-row"):
            yield Input(self.initial_agent, id="agent", placeholder="agent", suggester=SuggestFromList(self.agents, case_sensitive=True))
            yield Input(id="max", placeholder="max", type="integer")
            yield Select([(level, level) for level in IMPORTANCE_ORDER], id="min-importance", prompt="min imp.", allow_blank=True)
        with Horizontal(id="preview-toggles", classes="options-row"):
            yield Input(self.initial_now, id="now", placeholder="now (ISO 8601)")
            yield Checkbox("subdirs", id="recursive")
            yield Checkbox("effective", id="effective", tooltip="rank the fold of every entry (retired and superseded left out) instead of SPEC-0007's first-frontmatter view")
        yield Static(id="preview-arbiter")
        yield Static(id="preview-failure")
        results = RowTable(id="results", cursor_type="row", zebra_stripes=True)
        results.add_column("#", key="rank", width=3)
        results.add_column("Score", key="score", width=5)
        results.add_column("Title", key="title", width=34)
        results.add_column("Imp Rec Key Tag Ag", key="components", width=18)
        results.add_column("Why", key="why", width=22)
        results.add_column("Share", key="share", width=12)
        yield results
        yield Static(id="preview-summary")

    def on_mount(self) -> None:
        task = self.query_one("#task", TextArea)
        task.cursor_blink = False
        task.move_cursor(task.document.end)  # a task given on the command line is continued, not prefixed

    def on_descendant_focus(self, event) -> None:
        # stacked panes (a narrow terminal): the pane grows to the whole height while it has focus (see
        # app.tcss); brought to the top, the ranking below the task box stays on screen while typing
        if self.parent is not None and self.parent.parent is not None and self.parent.parent.has_class("-narrow"):
            self.call_after_refresh(self.scroll_visible, top=True, animate=False)

    # -- input ---------------------------------------------------------------
    def current_query(self) -> PreviewQuery | None:
        """The query from the inputs, or None (with the input marked) when one is invalid."""
        now_input = self.query_one("#now", Input)
        now_ms = None
        self.now_problem = ""
        if now_input.value.strip():
            try:
                now_ms = parse_now(now_input.value.strip())
                now_input.remove_class("-invalid")
                self.now_source = "typed"
            except ValueError:
                now_input.add_class("-invalid")
                self.now_problem = f"now {now_input.value.strip()!r} is not an ISO 8601 date (e.g. 2026-01-24T12:00:00Z)"
                self._update_summary()
                return None
        else:
            now_input.remove_class("-invalid")
            now_ms, self.now_source = (self.pinned_now, "pinned in rawko-tui.yaml") if self.pinned_now is not None else (None, "the clock")
        max_text = self.query_one("#max", Input).value.strip()
        select = self.query_one("#min-importance", Select)
        recursive = self.query_one("#recursive", Checkbox).value
        return PreviewQuery(
            task=self.query_one("#task", TextArea).text,
            agent=self.query_one("#agent", Input).value.strip() or "developer",
            max_memories=int(max_text) if max_text.lstrip("-").isdigit() else None,
            min_importance=str(select.value) if isinstance(select.value, str) else None,
            now_ms=now_ms,
            recursive=True if recursive else None,
            effective=self.query_one("#effective", Checkbox).value,
            now_source=self.now_source,
            arbiter=self.arbiter,
        )

    def _changed(self) -> None:
        query = self.current_query()
        if query is not None:
            self.post_message(self.QueryChanged(self, query))

    @on(TextArea.Changed, "#task")
    @on(Input.Changed, "#agent, #max, #now")
    @on(Select.Changed, "#min-importance")
    @on(Checkbox.Changed, "#recursive, #effective")
    def _input_changed(self, event: Message) -> None:
        event.stop()
        self._changed()

    def set_agent(self, agent: str) -> None:
        self.query_one("#agent", Input).value = agent

    def set_task(self, task: str) -> None:
        self.query_one("#task", TextArea).text = task

    def set_arbiter(self, name: str | None) -> None:
        """Rank under another profile (None: the store's own); the line on the others waits for their rankings."""
        self.arbiter = name
        self.others = ""
        self._changed()

    def show_others(self, line: str) -> None:
        self.others = line
        self._update_arbiter()

    def _update_arbiter(self) -> None:
        preview = self.preview
        if preview is None:
            return
        text = Text()
        text.append("Arbiter: ", "dim")
        text.append(preview.profile.name, "bold cyan")
        source = preview.option_sources.get("arbiter", "")
        text.append(f" ({source})" if source else "", "dim")
        text.append("  b: next · v: side by side", "dim")
        if self.others:
            text.append("\nOthers: ", "dim")
            text.append_text(literal(self.others, limit=400))
        update_in_place(self.query_one("#preview-arbiter", Static), text)

    def action_toggle_unmatched(self) -> None:
        self.show_unmatched = not self.show_unmatched
        if self.preview is not None:
            self.show(self.preview)

    def action_focus_task(self) -> None:
        focus_now(self.query_one("#task", TextArea))

    def toggle_recursive(self) -> None:
        box = self.query_one("#recursive", Checkbox)
        box.value = not box.value

    # -- output --------------------------------------------------------------
    def show(self, preview: Preview, now_source: str | None = None) -> None:
        """``now_source``: where the ranking's "now" came from (typed, pinned, the clock)."""
        self.preview = preview
        if now_source is not None:
            self.shown_now_source = now_source
        failure = self.query_one("#preview-failure", Static)
        if preview.view == "effective":
            failure.display = True
            update_in_place(failure, Text("Effective view: the fold of every entry, retired and superseded memories left out. SPEC-0007's arbiter does not do this.", "bold yellow"))
        elif preview.arbiter_failure is not None:
            failure.display = True
            update_in_place(failure, literal("⚠ " + preview.failure_banner(), "bold red", limit=1000))
        elif not preview.certain:
            failure.display = True
            update_in_place(failure, self._uncertain_banner(preview))
        else:
            failure.display = False
        table = self.query_one("#results", DataTable)
        # every other memory's decision is built only when asked for (u); an undecided one is always shown
        others = [c for c in preview.candidates if c.rank is None and not c.match_undecided] if self.show_unmatched else []
        shown = preview.ranked + preview.undecided + others
        # a table of thousands of rows would cost the UI thread on every keystroke
        self.hidden_rows = max(0, len(shown) - MAX_RESULT_ROWS)
        shown = shown[:MAX_RESULT_ROWS]
        self.hide_cursor_for_rebuild()
        table.clear()
        self.rows = [c.path for c in shown]
        shares = {f".rawko/memories/{name}": share for name, _, share in prompt_shares(preview)}
        scored = preview.profile.scored  # spec-0005 scores nothing
        table.add_rows(
            [
                (
                    cell(str(c.rank) if c.rank is not None else "", "bold" if c.injected else ""),
                    cell(f"{c.score:g}" if c.loaded and scored else "—", "bold green" if c.injected else ""),
                    self._title_cell(c),
                    cell(" ".join(f"{c.components[k]:>3g}" for k in COMPONENT_KEYS) if c.loaded and scored else "", "dim"),
                    cell(*self._why(c, preview)),
                    cell(("█" * max(1, round(shares[c.path] * 8)) + f" {shares[c.path]:.0%}") if c.path in shares else "", "cyan"),
                )
                for c in shown
            ]
        )
        self.follow(self.selected_path)
        self._update_arbiter()
        self._update_summary()

    def show_refusal(self, message: str) -> None:
        """Nothing is ranked (the arbiter the store names is no profile): the reason where the ranking would be."""
        self.preview = None
        failure = self.query_one("#preview-failure", Static)
        failure.display = True
        failure.update(literal("⚠ " + message, "bold red", limit=1000))
        self.hide_cursor_for_rebuild()
        self.query_one("#results", DataTable).clear()
        self.rows = []

    def set_deciding(self, deciding: bool) -> None:
        """The app is (or no longer is) deciding this ranking's undecided regexes in a worker process."""
        self.deciding = deciding
        if self.preview is not None and not self.preview.certain:
            update_in_place(self.query_one("#preview-failure", Static), self._uncertain_banner(self.preview))
        self._update_summary()

    def _uncertain_banner(self, preview: Preview) -> Text:
        said = "? Undecided: what is injected may differ: " + "; ".join(preview.uncertain_reasons)
        said += " (deciding in a worker…)" if self.deciding else " (rawko-tui explain … --regex-budget 60s decides it with more time)"
        return literal(said, "bold yellow", limit=1000)

    def _selection_table(self) -> DataTable:
        return self.query_one("#results", DataTable)

    def _listed_paths(self) -> list[str]:
        return self.rows

    def _announce(self, path: str) -> None:
        self.post_message(self.ResultHighlighted(self, path))

    def _title_cell(self, candidate) -> Text:
        title = candidate.title or candidate.file.name
        if candidate.path in self.flagged:  # lint found text that addresses the agent: say so where it is injected
            return cell("⚠ INJECTION? " + title, "bold red")
        return cell(title, "" if candidate.loaded else "dim")

    def set_flagged(self, paths: set[str]) -> None:
        """The memories lint flags as prompt injection (``prompt-injection`` findings)."""
        if paths != self.flagged:
            self.flagged = paths
            if self.preview is not None:
                self.show(self.preview)

    @staticmethod
    def _why(candidate, preview: Preview) -> tuple[str, str]:
        label = _REASON_TEXT.get(candidate.reason, (candidate.reason, ""))
        if candidate.injected and preview.view == "spec" and not status_of(candidate.file).active:
            return ("injected · retired in its entries", "bold yellow")  # the spec's arbiter never reads them
        return label

    def set_exact_tokens(self, text: str) -> None:
        self.exact_tokens = text
        self._update_summary()

    def _update_summary(self) -> None:
        preview = self.preview
        if preview is None:
            return
        counts = preview.reason_counts
        summary = Text()
        summary.append(f"{len(preview.injected)} injected", "bold green")
        flagged = sum(1 for c in preview.injected if c.path in self.flagged)
        if flagged:
            summary.append(f" ({flagged} flagged as possible prompt injection: see lint)", "bold red")
        summary.append(f" · {counts.get('cut-by-top-n', 0)} cut · {counts.get('below-importance-threshold', 0)} below min · ")
        unmatched = counts.get("no-pattern-matched", 0)
        summary.append(f"{unmatched} unmatched{' (u to show)' if not self.show_unmatched and unmatched else ''}")
        undecided = len(preview.undecided)
        if undecided:
            summary.append(f" · {undecided} undecided{' (deciding…)' if self.deciding else ''}", "bold yellow")
        not_loaded = sum(v for k, v in counts.items() if k.startswith("not-loaded") or k in ("would-crash-arbiter", "skipped-by-loader", "stops-loading", "not-read"))
        if not_loaded:
            summary.append(f" · {not_loaded} not loaded", "magenta")
        if self.hidden_rows:
            summary.append(f" · first {MAX_RESULT_ROWS} rows shown", "dim")
        estimate = estimate_tokens(preview.prompt)
        summary.append(f"\nPrompt: {len(preview.prompt):,} chars ≈ {estimate:,} tokens (estimate)")
        if self.budget:
            used = estimate / self.budget
            if used > 1:
                summary.append(f" · OVER BUDGET: {used:.0%} of the {self.budget:,}-token budget", "bold red")
            else:
                summary.append(f" · {used:.0%} of the {self.budget:,}-token budget", "green")
        if self.exact_tokens:
            summary.append(f" · {self.exact_tokens}")
        cap = "no cap" if preview.max_memories is None else f"max {one_line(js_to_string(preview.max_memories), 40)}"
        summary.append(f" · {cap} · min {one_line(js_to_string(preview.min_importance), 40)}", "dim")
        if preview.plan_prompt is not None:
            summary.append(f"\nPlan prompt ({preview.profile.name} gives the planner every loaded memory): {len(preview.plan_prompt):,} chars ≈ {estimate_tokens(preview.plan_prompt):,} tokens", "dim")
        summary.append(f"\nNow: {iso_from_ms(preview.now_ms)} ({self.shown_now_source})", "dim")
        if self.now_problem:
            summary.append("\n")
            summary.append_text(literal(f"⚠ {self.now_problem}: the ranking above still uses the now before it.", "bold red", limit=300))
        update_in_place(self.query_one("#preview-summary", Static), summary)
