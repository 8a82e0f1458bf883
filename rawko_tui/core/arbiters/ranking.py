"""The preview's entry point: what a profile's arbiter injects for a task and agent, and why.

``run_preview`` answers through the fastest exact path for the profile (the
rank index for the scoring arbiters); ``run_preview_reference`` is the
straightforward loop over every memory that the fast path is tested against.
"""

from __future__ import annotations

import contextlib
import time

from .. import records
from .decision import (
    ArbiterFailure,
    ArbiterOptions,
    Candidate,
    Preview,
    _effective_limits,
    _loader_error_text,
    _not_loaded,
    _reason,
    _short,
    crashed_candidate,
    finish_preview,
    has_load_error,
    load_error_candidate,
    scored_candidate,
    unsure_regexes,
)
from ..js.regexp import JsRegexUndecided, RegexBudget
from ..js.values import UNDEFINED, js_split_whitespace
from .patterns import build_search_text
from .rankindex import FEW_QUERIES, store_index
from ..store.reading import MemoryFile, Store
from .loaders import LoadedView, load_view
from .profiles import Profile
from .scoring import (
    _verbatim_score_failure,
    _verbatim_type_error,
    meets_threshold,
    memory_facts,
    score_components,
)


def _now(now_ms: float | None) -> float:
    return float(time.time_ns() // 1_000_000) if now_ms is None else now_ms


def run_preview(store: Store, task: str, agent: str, options: ArbiterOptions | None = None, now_ms: float | None = None) -> Preview:
    """What the profile's arbiter injects for this task and agent (``options.profile``; spec-0007 by default), and why."""
    options = options or ArbiterOptions()
    now_ms = _now(now_ms)
    profile = options.profile
    view = load_view(store, profile, options.recursive)
    index = _index(store, view, profile)
    if profile.selector == "all-by-importance":
        preview = index.rank(store, task, agent, options, now_ms)
    else:
        preview = index.rank(task, agent, options, now_ms)
    return _finish(preview, view)


FEW = 32  # tasks: on 10,000 memories compiling the sets costs about 0.1 s, a query 2 to 10 ms either way


@contextlib.contextmanager
def few_queries(count: int):
    """Rank ``count`` tasks (a command's saved tasks); when they are a handful (``FEW`` at most), each testing every
    pattern alone, as a first query does: the RE2 sets that answer a query in one pass cost more to compile than
    the few queries after the first would save."""
    token = FEW_QUERIES.set(count <= FEW)
    try:
        yield
    finally:
        FEW_QUERIES.reset(token)


def _index(store: Store, view: LoadedView, profile: Profile):
    """The profile's kept rank index: spec-0005's own (imported only by a run of that profile), or the scoring arbiters'."""
    if profile.selector == "all-by-importance":
        from . import spec0005

        return spec0005.spec0005_index(store, view, profile)
    return store_index(store, view, profile)


def run_preview_deciding(store: Store, task: str, agent: str, options: ArbiterOptions | None = None, now_ms: float | None = None, decider=None) -> Preview:
    """``run_preview``, then what it left undecided decided in a worker process with the time left of ``options.regex_budget``.

    The budget is the whole time backtracking regexes get: the ranking spends
    what it needs, a worker (``regexdecide``: killed at the deadline, with a
    memory limit) the rest, on the searches the ranking could not finish or
    would not start (a pattern too large to compile here).  If any is decided,
    the ranking is made again with those answers and no further time.
    """
    options = options or ArbiterOptions()
    now_ms = _now(now_ms)
    preview = run_preview(store, task, agent, options, now_ms)
    left = options.regex_budget - preview.regex_spent
    if left >= _WORTH_A_WORKER_SECONDS and decide_unsure(preview, left, decider):
        preview = run_preview(store, task, agent, records.replace(options, regex_budget=0.0), now_ms)
        preview.regex_budget = options.regex_budget
    return preview


_WORTH_A_WORKER_SECONDS = 0.1  # less time than this cannot start a worker and decide anything


def decide_unsure(preview: Preview, seconds: float, decider=None, cancelled=None) -> bool:
    """Decide in a worker process the searches ``preview`` left undecided that time can decide; True when any was tried.

    The answers are kept (``jsregex.ANSWERS``): ranking the same text again uses them.
    Every whenToUse regex is compiled with flag i, as the arbiters compile them.
    """
    cases = [(exc.source, True, preview.search_text) for exc in preview.unsure_regexes if exc.decidable]
    if not cases or seconds <= 0:
        return False
    from ..js.regexdecide import Decider  # a worker's machinery (subprocess), imported only when there is work for it
    own = decider is None
    decider = decider or Decider()
    try:
        answers = decider.decide(cases, seconds, cancelled)
    finally:
        if own:
            decider.close()
    return bool(answers)


def prepare_index(store: Store, options: ArbiterOptions) -> None:
    """Compile the profile's pattern sets now (off the typing path), so the next keystroke's ranking does not wait for them."""
    profile = options.profile
    view = load_view(store, profile, options.recursive)
    _index(store, view, profile).patterns.prepare()


def release_pattern_index(scratch: Store, options: ArbiterOptions, owner: Store) -> None:
    """Let go of the profile's pattern index (its largest table: every test, its slots and sets) once ``scratch``
    (``owner.with_own_indexes()``, dropped after one ranking per profile) has ranked: the decisions asked for later
    need only that ranking's matches and each memory's facts. An index ``owner`` holds too is kept: it ranks again."""
    profile = options.profile
    view = load_view(scratch, profile, options.recursive)
    index = _index(scratch, view, profile)
    if not any(index is kept for kept in owner._indexes.values()):
        index.patterns = None


def _finish(preview: Preview, view: LoadedView) -> Preview:
    preview.order_note = view.order_note
    if preview.profile.plan_prompt:
        preview._plan_prompt_of = view.plan_prompt
    return preview


def run_preview_reference(store: Store, task: str, agent: str, options: ArbiterOptions | None = None, now_ms: float | None = None) -> Preview:
    """The arbiter as a straightforward loop over every memory, in the loader's order.

    The definition the fast path (``run_preview``) is tested against.
    """
    options = options or ArbiterOptions()
    now_ms = _now(now_ms)
    profile = options.profile
    view = load_view(store, profile, options.recursive)
    if profile.selector == "all-by-importance":
        from . import spec0005

        return _finish(spec0005.rank(store, view, task, agent, options, now_ms), view)
    scorer = profile.scorer
    text = build_search_text(task, agent)
    words = js_split_whitespace(task.lower())
    min_importance = _effective_limits(options)[1]
    failure: ArbiterFailure | None = None
    maybe: ArbiterFailure | None = None  # the first throw that depends on a pattern rawko-tui could not decide
    budget = RegexBudget(options.regex_budget)

    candidates: list[Candidate] = [_not_loaded(memory, reason, why) for memory, reason, why in view.gated]
    scored: list[Candidate] = []
    loaded: list[MemoryFile] = view.loaded

    # the loader reads every file before anything is scored: its error comes first
    for memory in loaded:
        if has_load_error(memory):
            failure = failure or ArbiterFailure("load", memory.rel_path, _loader_error_text(memory), profile.name)
    for memory in loaded:
        if has_load_error(memory):
            candidates.append(load_error_candidate(memory))
            continue
        # the .map() scores, then matches, each memory in turn; the first throw ends the run
        score_crash = _verbatim_score_failure(memory.spec.attrs, agent, scorer)
        if score_crash is not None:
            failure = failure or ArbiterFailure("score", memory.rel_path, score_crash[0], profile.name, earlier=maybe)
            if score_crash[1]:
                candidates.append(crashed_candidate(memory, score_crash[0]))
                continue
        facts = memory_facts(memory)
        components = score_components(facts, words, agent, now_ms, scorer)
        # "for … of" with an early return: later patterns are not tried, and a
        # non-string pattern reached before a match makes the code throw
        matched_index = -1
        unsure: dict[int, JsRegexUndecided] = {}  # patterns that could not be decided: the loop goes on past them
        for index, (item, plan) in enumerate(facts.plans):
            if not isinstance(item, str):
                thrown = ArbiterFailure("match", memory.rel_path, _verbatim_type_error(item), profile.name)
                if not unsure:
                    failure = failure or records.replace(thrown, earlier=maybe)
                elif failure is None and maybe is None:
                    maybe = records.replace(thrown, unless=" or ".join(f"whenToUse {_short(facts.plans[i][1].pattern)}" for i in unsure))
            if plan is None:
                continue
            try:
                if plan.matches(text, budget):
                    matched_index = index
                    break
            except JsRegexUndecided as exc:
                unsure[index] = exc
        meets = meets_threshold(facts.attrs.get("importance", UNDEFINED), min_importance)
        candidate = scored_candidate(memory, facts, components, matched_index, meets, len(scored))
        candidate._undecided = unsure or None
        scored.append(candidate)
        candidates.append(candidate)

    failure = failure or maybe
    for candidate in scored:
        candidate.reason = _reason(candidate)
    ranked = sorted((c for c in scored if c.matched and c.meets_threshold), key=lambda c: -c.score)
    undecided = [c for c in scored if c.match_undecided]
    preview = finish_preview(store, task, agent, options, now_ms, len(ranked), lambda n: ranked[:n], lambda: ranked, failure, lambda _preview: candidates, undecided=undecided)
    preview.unsure_regexes = unsure_regexes(c._undecided for c in scored)
    preview.regex_spent = budget.spent
    preview.ranked  # noqa: B018 - rank every candidate now
    preview.candidates  # noqa: B018 - attach every candidate to this preview now
    return _finish(preview, view)



