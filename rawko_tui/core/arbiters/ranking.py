"""The preview's entry point: what a profile's arbiter injects for a task and agent, and why.

``run_preview`` answers through the fastest exact path for the profile (the
rank index for the scoring arbiters); ``run_preview_reference`` is the
straightforward loop over every memory that the fast path is tested against.
"""

from __future__ import annotations

import time

from ..arbiter import (
    ArbiterFailure,
    ArbiterOptions,
    Candidate,
    Preview,
    _effective_limits,
    _loader_error_text,
    _not_loaded,
    _reason,
    crashed_candidate,
    finish_preview,
    has_load_error,
    load_error_candidate,
    scored_candidate,
)
from ..jsvalue import UNDEFINED, js_split_whitespace
from ..patterns import build_search_text
from ..rankindex import store_index
from ..store import MemoryFile, Store
from . import spec0005
from .loaders import LoadedView, load_view
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
    if profile.selector == "all-by-importance":
        preview = spec0005.spec0005_index(store, view).rank(store, task, agent, options, now_ms)
    else:
        preview = store_index(store, view, profile).rank(task, agent, options, now_ms)
    return _finish(preview, view)


def prepare_index(store: Store, options: ArbiterOptions) -> None:
    """Compile the profile's pattern sets now (off the typing path), so the next keystroke's ranking does not wait for them."""
    profile = options.profile
    view = load_view(store, profile, options.recursive)
    index = spec0005.spec0005_index(store, view) if profile.selector == "all-by-importance" else store_index(store, view, profile)
    index.patterns.prepare()


def _finish(preview: Preview, view: LoadedView) -> Preview:
    preview.order_note = view.order_note
    if preview.profile.plan_prompt:
        preview.plan_prompt = view.plan_prompt()
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
        return _finish(spec0005.rank(store, view, task, agent, options, now_ms), view)
    scorer = profile.scorer
    text = build_search_text(task, agent)
    words = js_split_whitespace(task.lower())
    min_importance = _effective_limits(options)[1]
    failure: ArbiterFailure | None = None

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
            failure = failure or ArbiterFailure("score", memory.rel_path, score_crash[0], profile.name)
            if score_crash[1]:
                candidates.append(crashed_candidate(memory, score_crash[0]))
                continue
        facts = memory_facts(memory)
        components = score_components(facts, words, agent, now_ms, scorer)
        # "for … of" with an early return: later patterns are not tried, and a
        # non-string pattern reached before a match makes the code throw
        matched_index = -1
        for index, (item, plan) in enumerate(facts.plans):
            if not isinstance(item, str):
                failure = failure or ArbiterFailure("match", memory.rel_path, _verbatim_type_error(item), profile.name)
            if plan is not None and plan.matches(text):
                matched_index = index
                break
        meets = meets_threshold(facts.attrs.get("importance", UNDEFINED), min_importance)
        candidate = scored_candidate(memory, facts, components, matched_index, meets, len(scored))
        scored.append(candidate)
        candidates.append(candidate)

    for candidate in scored:
        candidate.reason = _reason(candidate)
    ranked = sorted((c for c in scored if c.matched and c.meets_threshold), key=lambda c: -c.score)
    preview = finish_preview(store, task, agent, options, now_ms, len(ranked), lambda n: ranked[:n], lambda: ranked, failure, lambda _preview: candidates)
    preview.ranked  # noqa: B018 - rank every candidate now
    preview.candidates  # noqa: B018 - attach every candidate to this preview now
    return _finish(preview, view)



