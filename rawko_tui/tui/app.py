"""The rawko-tui app: four panes over the core, keyboard first, never blocked.

Data flows down as attributes (the app owns the store, the lint findings, the
current preview and the selected memory, and hands them to the panes); the
panes send messages up.  Loading, linting, ranking, filtering and token counts
run in thread workers; their failures arrive in one ``Worker.StateChanged``
handler.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Input, Markdown, TextArea
from textual.worker import Worker, WorkerState, get_current_worker

from ..core import records
from ..core.arbiters.decision import SPEC_AGENTS, Preview, iso_from_ms, parse_now, resolve_options
from ..core.arbiters.ranking import decide_unsure, prepare_index, release_pattern_index, run_preview
from ..core.curation.checks import default_task_name, load_checks, saved_task_write
from ..core.store.fold import effective_store
from ..core.record.writer import PlannedWrite, WriteError
from ..core.lint.findingcolumns import FindingColumns
from ..core.lint.linter import SETTINGS_CODES, Finding, lint_store
from ..core.disk.gitrepo import GitError
from ..core.record.history import FileHistory, commit_diff, file_history, locate_repository, repository_state_in, uncommitted_rewrites
from ..core.store.reading import Store, budget_for, load_store_at, pinned_now
from ..core.store.loading import load_store
from ..core.store.watch import store_signature
from .commands import RawkoCommands
from .freed import give_back_freed_memory
from .keys import focus_now
from .messages import MemoryHighlighted
from .safe import clean, one_line
from .threads import deliver
from .screens.checks import ChecksScreen
from .screens.confirm_write import ConfirmWrite
from .screens.consolidation import ConsolidationScreen
from .screens.diff import DiffScreen
from .screens.help import HelpScreen
from .screens.memory_editor import MemoryEditor
from .screens.no_store import NoStoreScreen
from .screens.sessions import SessionsScreen
from .widgets.breakdown.breakdown import Breakdown
from .widgets.memories.memory_list import MemoryList, build_rows
from .widgets.memory_view.memory_view import MemoryView
from .widgets.preview.preview_pane import PreviewPane, PreviewQuery
from .write_actions import WriteActions

POLL_SECONDS = 1.0
TOKEN_DEBOUNCE_SECONDS = 1.0


PREVIEW_REFRESH_SECONDS = 0.25  # while typing, the panes show a new ranking at most this often
TYPING_PAUSE_SECONDS = 0.15  # ... and once input has paused this long: a redraw under a key delays its painting
MAX_UNSHOWN_SECONDS = 1.0  # ... or when the ranking shown is this old (fast typing still sees the preview follow)
ROWS_WAIT_SECONDS = 10.0  # the list's rows wait for the first ranking at most this long
SETTLE_LIMIT_SECONDS = 120.0  # ``settled`` gives up (and says what is still busy) after this long
OTHERS_AFTER_SECONDS = 0.3  # the other arbiters rank the task once typing has paused this long
QUERY_REGEX_SECONDS = 0.03  # what one ranking gives backtracking regexes in total: the rest is decided afterwards
DECIDE_REGEX_SECONDS = 20.0  # ... in a worker process, killed by the next key or after this long
LINT_WAITS_FOR_RANKER_SECONDS = 60.0  # lint waits for the ranking thread's first query of a store at most this long


class RawkoApp(WriteActions, App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "rawko-tui"
    COMMANDS = App.COMMANDS | {RawkoCommands}
    BINDINGS = [
        Binding("1", "focus_pane('memories')", "Memories", id="focus-memories", priority=True),
        Binding("2", "focus_pane('memory')", "Memory", id="focus-memory", priority=True),
        Binding("3", "focus_pane('preview')", "Preview", id="focus-preview", priority=True),
        Binding("4", "focus_pane('breakdown')", "Why", id="focus-breakdown", priority=True),
        Binding("ctrl+l", "focus_task", "Task", id="focus-task", priority=True),
        Binding("u", "toggle_unmatched", "Unmatched", id="toggle-unmatched", show=False, priority=True),
        Binding("p", "show_tab('tab-prompt')", "Prompt", id="show-prompt", priority=True),
        Binding("w", "show_tab('tab-why')", "Why tab", id="show-why", show=False, priority=True),
        Binding("r", "toggle_recursive", "Subfolders", id="toggle-recursive", show=False, priority=True),
        Binding("c", "consolidate", "Consolidate", id="consolidate", priority=True),
        Binding("o", "sessions", "Sessions", id="sessions", priority=True),
        Binding("n", "new_memory", "New", id="new-memory", priority=True),
        Binding("k", "checks", "Checks", id="checks", priority=True),
        Binding("t", "save_task", "Save task", id="save-task", priority=True),
        Binding("b", "next_arbiter", "Arbiter", id="next-arbiter", priority=True),
        Binding("v", "compare_arbiters", "Side by side", id="compare-arbiters", show=False, priority=True),
        Binding("a", "append('update')", "Append", id="append-update", priority=True),
        Binding("ctrl+r", "reload", "Reload", id="reload"),
        Binding("h", "focus_commits", "Commits", id="focus-commits", show=False, priority=True),
        Binding("question_mark", "help", "Keys", id="help", priority=True),
        Binding("escape", "leave_input", "Leave the text box", id="leave-input", show=False),
        Binding("q", "quit", "Quit", id="quit", priority=True),
    ]

    def __init__(
        self,
        root: Path | None,
        *,
        task: str | None = None,
        agent: str | None = None,
        now: str | None = None,
        problem: str | None = None,
        at: str | None = None,
        poll_seconds: float | None = POLL_SECONDS,
        api_key: str | None = None,
        api_base_url: str | None = None,
        arbiter: str | None = None,
    ) -> None:
        super().__init__()
        self._main_screen: Screen | None = None
        self.root = root
        self.problem = problem
        self.at = at
        self.initial_task = task or ""
        self.initial_agent = agent or "developer"
        self.initial_now = now or ""
        self.poll_seconds = poll_seconds
        self.api_key = api_key
        self.api_base_url = api_base_url
        self.store: Store | None = None
        self.findings = FindingColumns()  # the store's lint findings, kept as columns (at 100,000 memories, 177,000)
        self._lint_after_ranking: Store | None = None  # a loaded store whose lint waits for its first ranking
        self._unshown_ranking: tuple[Preview, float, str] | None = None  # a ranking waiting to be shown
        self._ranking_shown_at = 0.0
        self._input_at = 0.0  # the last change to the query (a key in the task box, another agent …)
        self._show_ranking_timer = None
        self._panes_for_ranker: tuple[PreviewPane, MemoryList] | None = None
        self.preview: Preview | None = None
        self._freeze_after_ranking = False
        self.selected: str | None = None
        self.query_state: PreviewQuery | None = None
        self.signature: tuple | None = None
        self.agent_names: list[str] = list(SPEC_AGENTS)
        self._token_timer = None
        self.last_preview_seconds = 0.0
        self._pending: tuple[Store, PreviewQuery] | None = None
        self._rank_lock = threading.Lock()
        self._one_store_pass = threading.Lock()  # lint, or the comparison with the other profiles: one at a time
        self._rank_wanted = threading.Event()
        self._rank_busy = False
        self._rows_of: Store | None = None  # the store whose rows the list shows
        self._ranked = threading.Event()  # set once a ranking of the store just read is done (or nothing is to be ranked)
        self._ranker_done = threading.Event()  # ... and once the ranking thread is done with that query (its comparison included)
        self._decider = None  # the worker process that decides backtracking regexes (regexdecide.Decider), made when first needed
        self.recent_tasks: list[tuple[str, str]] = []
        self._effective_cache: tuple[Store, Store] | None = None
        self._settings_said: list[Finding] = []  # the settings findings last notified
        self._repository: tuple[Path, bool] | None = None  # locate_repository(root), refreshed by each load
        self._rewritten: set[str] = set()  # memory files whose working copy rewrites committed bytes
        self.comparison = None  # the other profiles' rankings of the shown task (arbiters.compare.Comparison)
        self.initial_arbiter = arbiter  # --arbiter (None: the store's own)
        self._arbiter_label = "--arbiter"  # how the profile in force was chosen, when it was
        if root is not None:
            self.sub_title = one_line(root.name, 80) + (f" at {one_line(at, 80)} (read-only)" if at else "")

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None, markup: bool = True) -> None:
        """Every notification of the app, whichever screen or widget raises it, is literal text.

        A notification quotes what a store holds (a file name, a theme, a link, a session id):
        Textual would read ``[@click=app.quit]`` in it as markup, or fail on ``[/oops]``. No
        notification here uses markup, so ``markup`` is ignored; control and invisible
        characters are shown as stand-ins.
        """
        super().notify(clean(str(message), 2000), title=one_line(str(title), 200), severity=severity, timeout=timeout, markup=False)

    # -- layout ------------------------------------------------------------------
    MAIN_SCREEN_ACTIONS = frozenset(
        {
            "focus_pane",
            "focus_task",
            "focus_commits",
            "show_tab",
            "toggle_recursive",
            "toggle_unmatched",
            "consolidate",
            "sessions",
            "new_memory",
            "append",
            "checks",
            "save_task",
            "next_arbiter",
            "compare_arbiters",
            "leave_input",
            "help",
        }
    )
    # the single-letter keys above are priority bindings: the app acts on one before it routes the next key,
    # so letters typed right after a key that moves the focus (1, 3, /) or opens an editor (a, n) go where it
    # moved it; as ordinary bindings the focused widget handled them in its turn, after the letters were
    # already routed to it. In a text box, and on other screens, they are refused (check_action): typed there.
    TYPED_KEY_ACTIONS = frozenset(
        {"focus_pane", "focus_commits", "toggle_unmatched", "show_tab", "toggle_recursive", "consolidate", "sessions", "new_memory"}
        | {"checks", "save_task", "next_arbiter", "compare_arbiters", "append", "help", "quit"}
    )
    # actions that write: hidden (and explained when reached another way) in a store at a revision
    WRITE_ACTIONS = frozenset({"consolidate", "sessions", "new_memory", "append", "save_task"})

    @property
    def main(self):
        """The screen holding the four panes (others -- consolidation, sessions, help -- sit above it)."""
        if self._main_screen is None:
            self._main_screen = self.screen_stack[0] if self.screen_stack else self.screen
        return self._main_screen  # kept: while the app shuts down its stack is empty, and late results check it

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        # the panes' actions do nothing useful (and are hidden) while another screen is on top
        if action in self.MAIN_SCREEN_ACTIONS and self.screen is not self.main:
            return False
        if action in self.TYPED_KEY_ACTIONS and (self.screen is not self.main or isinstance(self.focused, (Input, TextArea)) or self._pane_has_key_of(action)):
            return False  # a letter in a text box is typed; on another screen its own keys (q: back) apply
        if action in self.WRITE_ACTIONS and self.at:
            return False  # not offered in the footer; the palette's way in says why
        return True

    def _pane_has_key_of(self, action: str) -> bool:
        """Whether the focused pane binds the keys of this app action itself (a keymap may give a pane's action
        an app key): as with ordinary bindings, the nearest wins."""
        if self.focused is None:
            return False
        chain = self.screen._binding_chain  # (node, its bindings with the keymap applied), focused first
        keys = [key for node, bindings in chain if node is self for key, binding in bindings if binding.action.split("(")[0] == action]
        panes = [bindings for node, bindings in chain if node is not self]
        return bool(keys) and all(any(bindings.key_to_bindings.get(key) for bindings in panes) for key in keys)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield MemoryList(id="memories")
                yield MemoryView(id="memory")
            with Vertical(id="right"):
                pane = PreviewPane(self.agent_names, task=self.initial_task, agent=self.initial_agent, now=self.initial_now, id="preview")
                pane.arbiter = self.initial_arbiter
                yield pane
                yield Breakdown(id="breakdown")
        yield Footer()

    def on_mount(self) -> None:
        self._apply_person_settings()  # the person's own keys and theme: never a store's
        if self.root is None:
            self.push_screen(NoStoreScreen(self.problem or "No store was found."))
            return
        for widget in self.main.query(Input):
            widget.cursor_blink = False
        # when the focused widget goes away (e.g. under a closed dialog) the list gets the focus, never the
        # filter box (the first focusable widget, Textual's default), where the next letters would be typed
        self.main.AUTO_FOCUS = "#memory-table"
        self.ranker()
        self.load()
        if self.poll_seconds and not self.at:
            self.main.set_interval(self.poll_seconds, self.check_for_changes)  # timers stop with their screen
        # single-key actions work from the start; 3 or Ctrl+L goes to the task box
        self.main.query_one("#memory-table", DataTable).focus()

    def on_resize(self, event) -> None:
        # narrow terminals stack the two columns
        self.main.query_one("#main").set_class(event.size.width < 110, "-narrow")

    # -- loading -----------------------------------------------------------------
    @work(thread=True, exit_on_error=False, exclusive=True, group="load", description="load the store")
    def load(self) -> None:
        """Read the store off the UI thread: unchanged files come from the last load or the parse cache.

        Ranking starts as soon as the store is read; the list's rows are made once
        the first ranking is done (at 100,000 memories they took half a second of
        the interpreter the ranking needs); lint follows in its own worker.
        """
        gc.unfreeze()  # the last store's objects may be collected again once this one replaces it (see _keep_from_collector)
        store = load_store_at(self.root, self.at) if self.at else load_store(self.root, previous=self.store)
        self._keep_from_collector()
        worker = get_current_worker()
        self._ranked.clear()
        self._ranker_done.clear()
        first = self.store is None
        if worker.is_cancelled:
            return
        deliver(self.main, self._store_read, store)
        waited = 0.0
        while not self._ranked.wait(0.05) and not worker.is_cancelled and waited < ROWS_WAIT_SECONDS:
            waited += 0.05
        signature = store_signature(self.root, store.file_stats)  # the load's own scan: one walk of the folder
        self._repository = locate_repository(self.root)  # once per load: the polls below read files only
        repository_note = repository_state_in(self._repository).describe()
        # which files the working copy rewrites is asked of git by the lint worker, after the first ranking
        # ages against this store's pinned now: at the first load self.store is not set yet
        rows = build_rows(store, self.findings, self._now_ms(store=store), self._rewritten)
        if not worker.is_cancelled:
            deliver(self.main, self._loaded, store, signature, rows, repository_note, first)

    @work(thread=True, exit_on_error=False, exclusive=True, group="lint", description="lint the store")
    def lint(self, store: Store) -> None:
        """Lint every file (a file read as the last lint read it keeps its findings: the command line's kept ones).

        It waits for the ranking thread's first query of the store (when typing has paused, that includes the
        comparison with the other profiles): the comparison after lint grew on top of lint's findings and what
        its pass left scattered, 150 MB more at 100,000 memories than the other way round.
        """
        worker = get_current_worker()
        waited = 0.0
        while not self._ranker_done.wait(0.05) and not worker.is_cancelled and waited < LINT_WAITS_FOR_RANKER_SECONDS:
            waited += 0.05
        if worker.is_cancelled:
            return  # a newer load lints its own store
        with self._one_store_pass:
            findings = FindingColumns(lint_store(store))
            give_back_freed_memory()  # the profiles' views lint built: the comparison grows from here
        self._rewritten = uncommitted_rewrites(self.root) if self._repository and not self.at else set()
        rows = build_rows(store, findings, self._now_ms(store=store), self._rewritten)
        if not worker.is_cancelled:
            deliver(self.main, self._linted, store, findings, rows)

    def _linted(self, store: Store, findings: FindingColumns, rows: list) -> None:
        if store is not self.store:
            return  # a newer load is on its way
        self.findings = findings
        self.main.query_one(MemoryList).set_rows(rows, len(store.skipped))
        self.main.query_one(PreviewPane).set_flagged(findings.paths_with_code("prompt-injection"))
        self._show_selected()
        # agent definitions and rawko-tui.yaml have no pane: their findings are said once
        # a person's setting in the store's file is said first: it tells where the setting belongs
        settings = sorted(findings.with_codes(SETTINGS_CODES), key=lambda f: f.code != "person-setting")
        if settings and settings != self._settings_said:
            self._settings_said = settings
            first = settings[0]
            more = f" (and {len(settings) - 1} more; rawko-tui lint lists them)" if len(settings) > 1 else ""
            self.notify(one_line(f"{first.path}: {first.message}{more}", 400), severity="warning", timeout=10)

    def _store_read(self, store: Store) -> None:
        """A store was read: it replaces the last one, and its ranking starts (its list's rows follow in ``_loaded``)."""
        first = self.store is None
        if self.store is not None and self.store is not store:
            self.store._indexes.clear()  # no cycle (store <-> its indexes) keeps the replaced store alive
        self._freeze_after_ranking = True  # the next ranking builds this store's rank index
        self.store = store
        self._lint_after_ranking = store  # lint would compete with the first ranking for the interpreter
        self._panes_for_ranker = (self.main.query_one(PreviewPane), self.main.query_one(MemoryList))
        self.agent_names = sorted(set(SPEC_AGENTS) | set(store.agents))
        if not store.files and first:
            self.push_screen(NoStoreScreen(f"{store.root}/.rawko/memories holds no memory files yet.", can_create=not self.at))
        pane = self.main.query_one(PreviewPane)
        pane.agents[:] = self.agent_names
        pane.pinned_now = pinned_now(store.config)
        query = pane.current_query()
        self.request_preview(query)
        if query is None:  # nothing to rank: the rows now, and lint once they are shown
            self._ranked.set()
            self._ranker_done.set()

    def _loaded(self, store: Store, signature: tuple, rows: list, repository_note: str | None = None, first: bool = False) -> None:
        if store is not self.store:
            return  # a newer load is on its way
        if not self.at:
            self.sub_title = self._subtitle(repository_note)
        self.signature = signature
        self.main.query_one(MemoryList).set_rows(rows, len(store.skipped))
        self._rows_of = store
        self._start_lint()  # its rows replace these: it starts once they are set and the first ranking is done
        waiting_for_ranking = first and self.initial_task and self.preview is None  # the ranking selects what it injects first
        if self.selected is None and rows and not waiting_for_ranking:
            self.select_memory(self.main.query_one(MemoryList).first_path())  # what the list highlights is what the pane shows
        elif self.selected is not None and store.file(self.selected) is None:
            self.select_memory(None)  # the file is gone
        else:
            self._show_selected()

    def _keep_from_collector(self) -> None:
        """Keep what lives as long as the store out of the cyclic collector's passes.

        A full pass walks every object: at 100,000 memories it takes most of a
        second, and one fell on the first ranking (and on keys being typed).
        Frozen objects are still freed when nothing refers to them; the next
        load unfreezes them, so a replaced store's cycles are collected then.
        """
        gc.freeze()

    def _apply_person_settings(self) -> None:
        """Keymap and theme from the person's own settings file (a store's are ignored: lint says so).

        A value the app cannot use is said, naming the file, and the default kept; so is a remap that
        would make a confirmation unsafe (``keys.checked_keymap``).
        """
        from ..core.store.settings import load_person_settings
        from .keys import checked_keymap

        settings = load_person_settings()
        problems = list(settings.problems)
        keymap = settings.get("keymap")
        if keymap:
            defaults = {binding_id: binding.key for _, binding, binding_id in self._binding_sources()}
            unknown = [k for k in keymap if k not in defaults]
            if unknown:
                problems.append(f"keymap: no key binding has the id {', '.join(repr(u) for u in unknown)} (? lists the ids)")
            keymap, refused = checked_keymap({k: v for k, v in keymap.items() if k in defaults}, defaults)
            problems += [f"keymap: {reason}" for reason in refused]
            self.set_keymap(keymap)
        theme = settings.get("theme")
        if theme is not None:
            if theme in self.available_themes:
                self.theme = theme
            else:
                problems.append(f"theme {theme!r} is not a theme here; the default is used (e.g. {', '.join(sorted(self.available_themes)[:4])})")
        if problems:
            self.notify(one_line(f"{settings.path}: " + "; ".join(problems), 800), severity="warning", timeout=12)

    def check_for_changes(self) -> None:
        if self.root is not None and self.store is not None:
            self.watch_store()

    @work(thread=True, exit_on_error=False, exclusive=True, group="watch", description="look for changed files")
    def watch_store(self) -> None:
        signature = store_signature(self.root)
        if signature != self.signature and not get_current_worker().is_cancelled:
            deliver(self.main, self.load)
        elif not self.at:
            subtitle = self._subtitle(repository_state_in(self._repository).describe())
            if subtitle != self.sub_title and not get_current_worker().is_cancelled:
                deliver(self.main, setattr, self, "sub_title", subtitle)

    def _subtitle(self, repository_note: str | None) -> str:
        return one_line(self.root.name, 80) + (f" · {one_line(repository_note, 300)}" if repository_note else "")

    # -- preview -----------------------------------------------------------------
    @on(PreviewPane.QueryChanged)
    def _query_changed(self, event: PreviewPane.QueryChanged) -> None:
        self.request_preview(event.query)

    def request_preview(self, query: PreviewQuery | None) -> None:
        """Hand the latest query to the ranking thread; queries typed meanwhile are skipped."""
        if query is None or self.store is None:
            return
        self._input_at = time.monotonic()
        self.query_state = query
        with self._rank_lock:
            self._pending = (self.store, query)
        self._rank_wanted.set()

    @work(thread=True, exit_on_error=False, group="ranker", description="rank the memories")
    def ranker(self) -> None:
        """One long-lived thread ranks the newest query only.

        A thread per keystroke cannot be stopped once started; several would
        compete for the interpreter with the UI thread and slow the typing.
        """
        worker = get_current_worker()
        while not worker.is_cancelled:
            if not self._rank_wanted.wait(0.2):
                continue
            self._rank_wanted.clear()
            with self._rank_lock:
                pending, self._pending = self._pending, None
            if pending is None:
                continue
            store, query = pending
            self._rank_busy = True
            try:
                started = time.perf_counter()
                if query.effective:
                    store = self._effective(store)
                try:
                    profile, source = _chosen_profile(store, query.arbiter, self._arbiter_label)
                except ArbiterRefused as refused:
                    deliver(self.main, self._arbiter_refused, str(refused))
                    continue
                options = resolve_options(store, query.agent, query.max_memories, query.min_importance, query.recursive, profile)
                options = records.replace(options, regex_budget=QUERY_REGEX_SECONDS)  # typing never waits on a regex
                options.sources["arbiter"] = source
                preview = self._rank(store, query, options)
                if not worker.is_cancelled and self._pending is None:
                    deliver(self.main, self._preview_ready, preview, time.perf_counter() - started, query.now_source)
                self._ranked.set()  # the load goes on to the list's rows
                # what the ranking left undecided, decided in a worker process; the next key kills it
                if self._decide(preview, worker):
                    preview = self._rank(store, query, options)
                    if not worker.is_cancelled and self._pending is None:
                        deliver(self.main, self._preview_ready, preview, time.perf_counter() - started, query.now_source)
                # then, once typing pauses, what the other profiles inject for the same task: ranking
                # them after every key would take the interpreter from the UI thread while keys arrive
                if not worker.is_cancelled and self._pending is None and not self._rank_wanted.wait(OTHERS_AFTER_SECONDS):
                    prepare_index(store, options)  # the first ranking tested each pattern alone; the next keys use the sets
                    comparison = None
                    cancelled = lambda: worker.is_cancelled or self._rank_wanted.is_set()  # noqa: E731 - a newer query comes first
                    if self._store_pass_free(cancelled):
                        try:
                            comparison = _compare_with_others(store, preview, query, cancelled)
                        except Exception as exc:  # noqa: BLE001 - the line on the others must never stop the ranking
                            comparison = exc
                        finally:
                            give_back_freed_memory()  # the other profiles' views just dropped: lint grows from here
                            self._one_store_pass.release()
                    if comparison is not None and not worker.is_cancelled and self._pending is None:
                        deliver(self.main, self._comparison_ready, comparison, preview)
            finally:
                self._rank_busy = False
                self._ranked.set()  # a refused or failed ranking lets the rows come all the same
                self._ranker_done.set()

    def _store_pass_free(self, cancelled) -> bool:
        """Wait until no pass over the whole store (lint) runs, unless ``cancelled()`` first: True when the pass is ours.

        Lint and the comparison with the other profiles each build views of every file; run together they
        held both at once (at 100,000 memories, most of the app's peak). Typing meanwhile is ranked: a new
        query ends the wait.
        """
        while not self._one_store_pass.acquire(timeout=0.05):
            if cancelled():
                return False
        if cancelled():
            self._one_store_pass.release()
            return False
        return True

    def _rank(self, store: Store, query: PreviewQuery, options) -> Preview:
        preview = run_preview(store, query.task, query.agent, options, query.now_ms)
        # what the panes show is built here, not on the UI thread
        preview.ranked  # noqa: B018
        preview.plan_prompt  # noqa: B018 - rawko-sdk's: every loaded memory formatted
        if self._wants_every_candidate():
            preview.candidates  # noqa: B018
        return preview

    def _decide(self, preview: Preview, worker) -> bool:
        """Decide the regexes ``preview`` left undecided in the worker process, until a new query comes; True when some were tried."""
        if not any(exc.decidable for exc in preview.unsure_regexes) or worker.is_cancelled or self._pending is not None:
            return False
        from ..core.js.regexdecide import Decider

        if self._decider is None:
            self._decider = Decider()
        deliver(self.main, self._show_deciding, True)
        try:
            return decide_unsure(preview, DECIDE_REGEX_SECONDS, self._decider, cancelled=lambda: worker.is_cancelled or self._rank_wanted.is_set())
        finally:
            if not worker.is_cancelled:
                deliver(self.main, self._show_deciding, False)

    def _show_deciding(self, deciding: bool) -> None:
        self.main.query_one(PreviewPane).set_deciding(deciding)

    def on_unmount(self) -> None:
        if self._decider is not None:
            self._decider.close()  # the worker process ends with the app

    def _comparison_ready(self, comparison, ranked: Preview) -> None:
        """The other profiles' rankings of ``ranked``'s task (or why they could not be made)."""
        from ..core.arbiters.compare import summary_line

        preview = self.preview if self._unshown_ranking is None else self._unshown_ranking[0]
        if preview is not ranked:
            return  # a newer ranking arrived: its own comparison follows
        if isinstance(comparison, Exception):
            self.comparison = None
            self.main.query_one(PreviewPane).show_others(f"the other arbiters could not rank this task ({type(comparison).__name__}: {comparison})")
            return
        self.comparison = comparison
        self.main.query_one(PreviewPane).show_others(summary_line(comparison, preview.profile.name))

    def _wants_every_candidate(self) -> bool:
        """Whether a pane shows every memory's decision (unmatched rows, or the list sorted by score).

        Called from the ranking thread: it reads two attributes of panes found
        on the UI thread, never the DOM.
        """
        panes = self._panes_for_ranker
        return panes is not None and (panes[0].show_unmatched or panes[1].sort == "score")

    def _effective(self, store: Store) -> Store:
        """The fold-of-entries view of a store, computed once per load."""
        cached = self._effective_cache
        if cached is None or cached[0] is not store:
            cached = (store, effective_store(store))
            self._effective_cache = cached
        return cached[1]

    async def settled(self) -> None:
        """Wait until loading, ranking and the other background work are done (for tests and scripts).

        Idle twice, a moment apart: a message still in a queue can start new work.
        """
        quiet, started = 0, time.monotonic()
        while quiet < 2:
            await asyncio.sleep(0.005)
            quiet = 0 if self._busy_with() else quiet + 1
            if time.monotonic() - started > SETTLE_LIMIT_SECONDS:
                raise TimeoutError(f"not settled after {SETTLE_LIMIT_SECONDS:g} s: {', '.join(self._busy_with())}")

    def _busy_with(self) -> list[str]:
        """What keeps the app from being idle, in words (empty: idle; a wait that never ends says what it waits for)."""
        busy = [f"{w.group} ({w.state.name.lower()})" for w in self.workers if w.group != "ranker" and w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        if self._pending is not None or self._rank_wanted.is_set():
            busy.append("a query waiting for the ranking thread")
        if self._rank_busy:
            busy.append("the ranking thread")
        if self._unshown_ranking is not None:
            busy.append(f"a ranking not yet shown (timer {'set' if self._show_ranking_timer is not None else 'not set'}, main screen {'attached' if self._main_screen is not None and self._main_screen.is_attached else 'not attached'})")
        return busy

    def _start_lint(self) -> None:
        store = self._lint_after_ranking
        if store is not None and self._rows_of is store:
            self._lint_after_ranking = None
            self.lint(store)

    def _preview_ready(self, preview: Preview, seconds: float, now_source: str = "the clock") -> None:
        """A ranking is done: show it, or, when one was shown a moment ago, as soon as the moment has passed.

        Rankings can arrive with every keystroke; redrawing the panes each time
        would delay the painting of the keys themselves.
        """
        self._start_lint()
        if self._freeze_after_ranking:
            self._freeze_after_ranking = False
            self._keep_from_collector()  # the rank index this ranking built lives as long as the store
        self._unshown_ranking = (preview, seconds, now_source)
        if self._show_ranking_timer is None:  # else the timer set looks again when it fires
            self._show_ranking_when_due()

    def _arbiter_refused(self, message: str) -> None:
        """The store names an arbiter that is no profile: said where the ranking would be, and nothing ranked."""
        self._unshown_ranking = None
        self.preview = None
        self.main.query_one(PreviewPane).show_refusal(message)

    def _show_ranking_when_due(self) -> None:
        """Show the newest ranking once input pauses (or the one shown grows old); else check again then."""
        self._show_ranking_timer = None
        if self._unshown_ranking is None or not self.main.is_attached:
            return  # nothing new, or the app is closing: its screens are gone
        now = time.monotonic()
        due = max(self._ranking_shown_at + PREVIEW_REFRESH_SECONDS, self._input_at + TYPING_PAUSE_SECONDS)
        due = min(due, self._ranking_shown_at + MAX_UNSHOWN_SECONDS)
        if due <= now:
            self._show_ranking()
        else:
            # the event loop's own timer, not Textual's set_timer: a one-shot Textual timer that starts later than its
            # delay (another thread holding the GIL between its two clock reads is enough) skips its only tick and
            # never fires, and this ranking, and every one after it, would never be shown
            self._show_ranking_timer = asyncio.get_running_loop().call_later(due - now, self.main.call_next, self._show_ranking_when_due)

    def _show_ranking(self) -> None:
        if self._unshown_ranking is None:
            return
        (preview, seconds, now_source), self._unshown_ranking = self._unshown_ranking, None
        self._ranking_shown_at = time.monotonic()
        self.preview = preview
        if self.store is not None:
            self.main.query_one(PreviewPane).budget = budget_for(self.store, preview.agent)
        if preview.task.strip():
            recent = (preview.task, preview.agent)
            self.recent_tasks = [recent] + [t for t in self.recent_tasks if t != recent and not recent[0].startswith(t[0])][:7]
        self.last_preview_seconds = seconds
        self.title = f"rawko-tui · {one_line(preview.profile.name, 80)}"  # the arbiter whose decisions are shown, always named
        self.main.query_one(PreviewPane).show(preview, now_source)
        self.main.query_one(MemoryList).set_scores(preview)
        self.main.query_one(Breakdown).show_prompt(preview.prompt)
        if self.selected is None:  # start-up with a task: the top memory it injects, else the list's first
            self.select_memory(preview.injected[0].path if preview.injected else self.main.query_one(MemoryList).first_path())
        else:
            self._show_selected()
        self._schedule_token_count(preview.prompt)

    # -- selection ---------------------------------------------------------------
    @on(MemoryHighlighted)
    def _highlighted(self, event: MemoryHighlighted) -> None:
        if event.path != self.selected:
            self.select_memory(event.path, moved=event.control)

    @on(MemoryView.RelatedChosen)
    def _related_chosen(self, event: MemoryView.RelatedChosen) -> None:
        """Go to a related memory, named as seed 001 names them (the file name, ``.md`` optional)."""
        from ..core.curation.entries import memory_id

        if self.store is None:
            return
        wanted = memory_id(event.name)
        found = next((m for m in self.store.files if memory_id(m.name) == wanted), None)
        found = found or next((m for m in self.store.files if memory_id(m.name.rsplit("/", 1)[-1]) == wanted), None)
        if found is None:
            self.notify(clean(f"No memory named {event.name!r} in this store (lint reports it: related-missing)."), severity="warning", timeout=5)
            return
        self.select_memory(found.rel_path)

    def select_memory(self, path: str | None, moved=None) -> None:
        """The one memory every memory action acts on: the Memory pane shows it, both lists' cursors follow it.

        ``moved``: the list whose cursor the user just moved; it is not moved back
        (a second key press may already have moved it on).
        """
        self.selected = path
        for pane in (self.main.query_one(MemoryList), self.main.query_one(PreviewPane)):
            pane.follow(path, move=pane is not moved)
        self._show_selected()

    def _show_selected(self) -> None:
        if self.store is None:
            return
        memory = self.store.file(self.selected) if self.selected else None
        view = self.main.query_one(MemoryView)
        if memory is view.memory and view.findings is not self.findings:
            view.show(memory, self.findings)  # lint finished after the memory was shown
        elif memory is not view.memory:
            view.show(memory, self.findings)
            view.show_history(None)
            if memory is not None:  # at a revision: the commits up to it, the file as it was in it
                self.load_history(memory.rel_path, memory.entry_offsets())
        candidate = self.preview.candidate(self.selected) if self.preview and self.selected else None
        self.main.query_one(Breakdown).show(self.preview, candidate)

    @work(thread=True, exit_on_error=False, exclusive=True, group="history", description="read the file's git history")
    def load_history(self, rel_path: str, offsets: list[int]) -> None:
        try:
            history = file_history(self.root, rel_path, offsets, at=self.at)
        except GitError as exc:  # e.g. the revision's store has no such file: said in the badge
            history = FileHistory(rel_path, [], [None] * len(offsets), "not-a-repo", f"history is not available: {exc}")
        if not get_current_worker().is_cancelled:
            deliver(self.main, self._history_ready, rel_path, history)

    def _history_ready(self, rel_path: str, history: FileHistory) -> None:
        if self.selected == rel_path:
            self.main.query_one(MemoryView).show_history(history)

    @on(DataTable.RowSelected, "#memory-commits")
    def _commit_selected(self, event: DataTable.RowSelected) -> None:
        sha = event.row_key.value
        if sha and self.selected:
            self.show_diff(sha, self.selected)

    @work(thread=True, exit_on_error=False, exclusive=True, group="diff", description="read a commit's patch")
    def show_diff(self, sha: str, rel_path: str) -> None:
        patch = commit_diff(self.root, sha, rel_path)
        deliver(self.main, self.push_screen, DiffScreen(f"{sha[:10]} · {rel_path}", patch))

    # -- exact token counts ------------------------------------------------------
    def _schedule_token_count(self, prompt: str) -> None:
        key = self.api_key if self.api_key is not None else os.environ.get("ANTHROPIC_API_KEY")
        if not key or not prompt:
            self.main.query_one(PreviewPane).set_exact_tokens("")
            return
        if self._token_timer is not None:
            self._token_timer.stop()
        self._token_timer = self.main.set_timer(TOKEN_DEBOUNCE_SECONDS, lambda: self.count_tokens(prompt, key))

    @work(thread=True, exit_on_error=False, exclusive=True, group="tokens", description="count prompt tokens")
    def count_tokens(self, prompt: str, key: str) -> None:
        from ..core.store.settings import person_model
        from ..core.text.tokens import DEFAULT_MODEL, TokenCountError, count_tokens

        model = person_model(DEFAULT_MODEL)  # the person's own setting: their key pays for it
        try:
            text = f"exact: {count_tokens(prompt, key, str(model), self.api_base_url):,} tokens ({model})"
        except TokenCountError as exc:
            text = f"exact count unavailable: {exc}"
        if not get_current_worker().is_cancelled:
            deliver(self.main, lambda: self.main.query_one(PreviewPane).set_exact_tokens(text))

    # -- workers -----------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            # a refused write says itself what was (not) written and why
            message = str(error) if isinstance(error, WriteError) else f"{event.worker.group or event.worker.name} failed: {error}"
            self.notify(one_line(message, 300), severity="error", timeout=8)

    @on(Markdown.LinkClicked)
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        # links in memory bodies are untrusted: never opened, only shown
        self.notify(one_line(f"Link not opened: {event.href}", 300), timeout=4)

    # -- actions -----------------------------------------------------------------
    def action_focus_pane(self, pane: str) -> None:
        target = {
            "memories": "#memory-table",
            "memory": "#memory",
            "preview": "#task",
            "breakdown": "#why-tree",
        }[pane]
        focus_now(self.main.query_one(target))

    def action_focus_task(self) -> None:
        focus_now(self.main.query_one("#task"))  # Ctrl+L: from anywhere on the main screen, text boxes included

    def action_focus_commits(self) -> None:
        """The selected memory's commits, one key away (Enter on one shows its diff)."""
        commits = self.main.query_one("#memory-commits", DataTable)
        if not commits.row_count:
            self.notify("This memory has no commits to show (its history is under the Memory pane).", timeout=3)
            return
        focus_now(commits)

    def action_filter(self) -> None:
        self.main.query_one(MemoryList).action_focus_filter()

    def action_cycle_sort(self) -> None:
        self.main.query_one(MemoryList).action_cycle_sort()

    def action_toggle_unmatched(self) -> None:
        self.main.query_one(PreviewPane).action_toggle_unmatched()

    def action_toggle_recursive(self) -> None:
        self.main.query_one(PreviewPane).toggle_recursive()

    def action_show_tab(self, tab: str) -> None:
        self.main.query_one(Breakdown).show_tab(tab)

    def action_reload(self) -> None:
        if self.root is not None:
            self.load()
            self.notify("Reloading the store", timeout=2)

    def action_consolidate(self) -> None:
        if self._refuse_at_revision():
            return
        if self.store is None:
            self.notify("The store is still loading.", timeout=3)
            return
        now_ms = self._now_ms()
        self.push_screen(ConsolidationScreen(self.store, now_ms))

    def action_sessions(self) -> None:
        if self.root is not None and not self._refuse_at_revision():
            self.push_screen(SessionsScreen(self.root, self.store))

    def _now_ms(self, query: PreviewQuery | None = None, store: Store | None = None) -> float:
        """The preview's "now" (as typed), else the one pinned in rawko-tui.yaml (of ``store``, else the one shown), else the clock."""
        query = query or self.query_state
        store = store or self.store
        if query is not None and query.now_ms is not None:
            return query.now_ms
        if query is None and self.initial_now:  # before the first query: the --now given
            try:
                return parse_now(self.initial_now)
            except ValueError:
                pass
        pinned = pinned_now(store.config) if store is not None else None
        return pinned if pinned is not None else time.time() * 1000

    def action_checks(self) -> None:
        if self.store is None:
            return
        now_ms = self._now_ms()
        self.push_screen(ChecksScreen(self.store, now_ms, self.recent_tasks[:8]))

    def active_profile(self):
        """The arbiter profile of the ranking shown (None before the first: the store's own)."""
        return self.preview.profile if self.preview is not None else None

    def action_next_arbiter(self) -> None:
        """Rank under the next arbiter profile, in the order `rawko-tui arbiters` lists them, round."""
        if self.store is None:
            return
        from ..core.arbiters.profiles import defined_profiles

        profiles = defined_profiles(self.store.config)[0]
        names = list(profiles)
        pane = self.main.query_one(PreviewPane)
        current = self.preview.profile.name if self.preview is not None else None  # None: no ranking (e.g. refused)
        following = names[(names.index(current) + 1) % len(names)] if current in names else names[0]
        self._arbiter_label = "chosen with b"
        pane.set_arbiter(following)
        self.notify(one_line(f"Arbiter: {following} — {profiles[following].summary}", 300), timeout=4)

    def action_compare_arbiters(self) -> None:
        """The profiles side by side for the task shown: each memory whose fate differs, and why."""
        from .screens.compare_arbiters import CompareScreen

        preview = self.preview
        comparison = self.comparison
        if preview is None or not preview.task.strip():
            self.notify("Type a task first: the side-by-side view compares what each arbiter injects for it.", timeout=3)
            return
        if comparison is None or comparison.previews.get(preview.profile.name) is not preview:
            self.notify("The other arbiters are still ranking this task; try again in a moment.", timeout=3)
            return
        self.push_screen(CompareScreen(comparison, preview.profile.name))

    def action_save_task(self) -> None:
        if self._refuse_at_revision():
            return
        if self.preview is None or self.root is None or not self.preview.task.strip():
            self.notify("Type a task first (3 or Ctrl+L goes to the task box).", timeout=3)
            return
        preview = self.preview
        view = "effective" if preview.view == "effective" else "spec"
        saved, _ = load_checks(self.root)
        arbiter = preview.profile.name
        try:
            store_arbiter = _chosen_profile(self.store, None, "")[0].name
        except ArbiterRefused:
            store_arbiter = None  # the store's own is no profile: a saved task names the one it was ranked under
        same = next((t for t in saved if t.task == preview.task and t.agent == preview.agent and t.view == view and (t.arbiter or store_arbiter) == arbiter), None)
        if same is not None:
            self.notify(one_line(f"Already saved as {same.label} in {same.source}: nothing written.", 300), severity="warning", timeout=6)
            return
        # the "now" in force is saved with the task, so recency scores the same when the check runs later
        now = iso_from_ms(preview.now_ms)
        injected = [c.file.name for c in preview.injected]
        root = self.root

        def plan(name: str) -> list[PlannedWrite]:
            return [saved_task_write(root, preview.task, preview.agent, now, injected, name.strip() or default_task_name(preview.task), view, arbiter)]

        def confirmed(writes: list[PlannedWrite] | None) -> None:
            if writes is not None:
                self.apply_plan(writes, "save-task", f"Saved task for {preview.agent}: {preview.task[:60]}")

        name = default_task_name(preview.task)
        heading = f"Save this task with what it injects now ({len(injected)} memories) as its expectation, measured at {now}?"
        try:
            writes = plan(name)
        except WriteError as exc:  # checks.yaml is a link, a device, a bomb, not YAML, or holds changes nobody committed: said, nothing written
            self.notify(one_line(str(exc), 400), severity="error", timeout=8)
            return
        self.push_screen(ConfirmWrite(heading, writes, name_field=("the saved task's name", name), planner=plan), confirmed)

    def action_leave_input(self) -> None:
        """Esc in a text box: from the task or the preview's options on to the ranking, from elsewhere to the memory list."""
        if isinstance(self.focused, (Input, TextArea)):
            in_preview = self.main.query_one(PreviewPane) in self.focused.ancestors
            focus_now(self.main.query_one("#results" if in_preview else "#memory-table", DataTable))

    def _binding_sources(self) -> list[tuple[str, Binding, str]]:
        """(where, binding, id) of every key of every screen, in the order help lists them."""
        from .screens.confirm_discard import ConfirmDiscard
        from .screens.merge import MergeScreen
        from .screens.torn_write import TornWriteScreen

        sources = [("main screen", self), (MemoryList.BORDER_TITLE, MemoryList), (PreviewPane.BORDER_TITLE, PreviewPane)]
        sources += [
            ("consolidation (c)", ConsolidationScreen),
            ("sessions (o)", SessionsScreen),
            ("checks (k)", ChecksScreen),
            ("editor (n, a)", MemoryEditor),
            ("merge editor (c, m)", MergeScreen),
            ("confirmation", ConfirmWrite),
            ("interrupted write (a)", TornWriteScreen),
            ("discard question", ConfirmDiscard),
            ("commit diff", DiffScreen),
            ("keys (?)", HelpScreen),
        ]
        found, seen = [], set()
        for where, node in sources:
            for binding in node.BINDINGS:
                if isinstance(binding, Binding) and binding.id and binding.id not in seen:
                    seen.add(binding.id)
                    # a letter typed in a text box is text: single-key actions wait until Esc leaves it
                    single_key = len(binding.key) == 1 or binding.key == "question_mark"
                    found.append((f"{where}, outside text boxes" if node is self and single_key else where, binding, binding.id))
        return found

    def action_help(self) -> None:
        rows = [(self._key_for(binding), binding.description or binding.action, where, binding_id) for where, binding, binding_id in self._binding_sources()]
        rows.append(("enter", "Show a commit's diff (the Commits key, or Tab from the Memory pane, reaches its commits)", "2 Memory", "memory-commit-diff"))
        rows.append(("ctrl+p", "Command palette", "everywhere", "command-palette"))
        self.push_screen(HelpScreen(rows))

    def _key_for(self, binding: Binding) -> str:
        remapped = self._keymap.get(binding.id, binding.key) if binding.id else binding.key
        return " ".join(self.get_key_display(Binding(key.strip(), binding.action)) for key in remapped.split(","))

    def set_agent(self, agent: str) -> None:
        self.main.query_one(PreviewPane).set_agent(agent)


def create_app(root: Path | None, task: str | None = None, agent: str | None = None, now: str | None = None, problem: str | None = None, **kwargs) -> RawkoApp:
    """The one app factory, used by the command line and the tests."""
    return RawkoApp(root, task=task, agent=agent, now=now, problem=problem, **kwargs)


def run_app(
    root: Path | None,
    task: str | None = None,
    agent: str | None = None,
    now: str | None = None,
    problem: str | None = None,
    at: str | None = None,
    arbiter: str | None = None,
) -> int:
    if now:
        parse_now(now)  # validated by the CLI already; fail early all the same
    from ..core.store.loading import bound_decoded

    bound_decoded()  # a session that lasts: what it holds decoded of the store stays bounded
    app = create_app(root, task=task, agent=agent, now=now, problem=problem, at=at, arbiter=arbiter)
    result = app.run()
    return result or 0


def _chosen_profile(store: Store, name: str | None, chosen: str):
    """The profile chosen (``chosen`` says how: ``--arbiter``, with b), else the store's (``arbiter:``), else the default;
    and where it came from, in words."""
    from ..core.arbiters.profiles import ProfileError, resolve_profile

    try:
        profile, source = resolve_profile(store.config, name)
    except ProfileError as exc:
        # the rule of every command: never another arbiter in the place of the one the store names
        from ..core.arbiters.settingscheck import arbiter_problem

        problem = arbiter_problem(store.config) if name is None else None
        raise ArbiterRefused(f"{problem.message if problem else exc}. Press b to choose an arbiter for this session.") from None
    return profile, {"option": chosen, "rawko-tui.yaml": "from rawko-tui.yaml", "default": "the default"}[source]


class ArbiterRefused(Exception):
    """The arbiter named (by the store or the person) is no profile: nothing is ranked in its place."""


def _compare_with_others(store: Store, preview: Preview, query, cancelled=lambda: False):
    """The shown ranking beside every other profile's for the same task (each with its own settings); None when
    ``cancelled()`` says a newer query came first.

    The other profiles' views and indexes are built for this comparison and dropped with it (each is hundreds
    of megabytes at 100,000 memories): their rankings keep only what they inject once the differences are found.
    """
    from ..core.arbiters.compare import compare_previews
    from ..core.arbiters.profiles import defined_profiles
    from ..core.js.regexp import forget_compiled_re2

    profiles = defined_profiles(store.config)[0]
    ranked = {preview.profile.name: preview}
    scratch = store.with_own_indexes()
    try:
        # each ranking's pattern index is let go once it has ranked, and spec-0005's kind (every pattern a test of
        # its own: the largest index) ranks first, so that index is gone before another profile's view is built
        for name, profile in sorted(profiles.items(), key=lambda item: item[1].selector != "all-by-importance"):
            if name in ranked:
                continue
            if cancelled():
                return None
            options = resolve_options(store, query.agent, recursive=query.recursive, profile=profile)
            ranked[name] = run_preview(scratch, query.task, query.agent, options, preview.now_ms)
            release_pattern_index(scratch, options, store)
            forget_compiled_re2()  # that ranking's one-by-one tests (spec-0005's: thousands of regexes, 60 MB)
        previews = {name: ranked[name] for name in profiles if name in ranked}  # in the profiles' order, as every listing
        comparison = compare_previews(preview.task, preview.agent, previews)
    finally:
        scratch._indexes.clear()  # an index refers to its store: no cycle keeps them
    for other in previews.values():
        if other is not preview:
            other.keep_outcome_only()
    return comparison
