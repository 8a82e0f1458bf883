"""SPEC-0005's own arbiter (seed 000, "Arbiter Integration"): every match, by importance.

``findRelevantMemories`` scores nothing: each memory whose whenToUse matches
is injected, whole, sorted by importance only (a stable sort whose
comparator gives NaN for an unknown importance, which V8 treats as "equal").
There is no cap and no threshold.  A pattern with '|' or '*' is compiled as a
real regular expression (an invalid one is skipped); a pattern that is not a
string makes the whole selection throw.
"""

from __future__ import annotations

import functools
import math
import pickle
from array import array
from collections.abc import Iterable

from .decision import (
    GATE,
    NO_MATCH_HEADLINE,
    REASON_CRASH,
    REASON_NO_MATCH,
    REASON_UNDECIDED,
    SCORE,
    ArbiterFailure,
    ArbiterOptions,
    Candidate,
    FilesByPath,
    ListedDecision,
    RowShape,
    Preview,
    _not_loaded,
    _pattern_gate,
    _short,
    finish_preview,
    listed_not_loaded,
    undecided_headline,
    unsure_regexes,
)
from .explain import Explanation
from ..js.regexp import JsRegexUndecided, RegexBudget
from ..js.values import UNDEFINED, js_to_string
from .patterns import build_search_text, plan_spec0005_pattern
from .places import places_by_id
from .rankindex import PatternIndex
from ..store.reading import MemoryFile, Store, no_cyclic_gc
from .loaders import LoadedView
from .scoring import IMPORTANCE_ORDER, MemoryFacts


def _crash_for(item: object) -> str | None:
    """The TypeError ``pattern.includes(…)`` / ``pattern.toLowerCase()`` throws for a pattern that is not text."""
    if isinstance(item, str):
        return None
    if item is UNDEFINED or item is None:
        return f"TypeError: Cannot read properties of {js_to_string(item)} (reading 'includes')"
    if isinstance(item, list):  # arrays have includes(); then toLowerCase() is missing, unless '|' or '*' is an item
        return None if ("|" in item or "*" in item) else "TypeError: pattern.toLowerCase is not a function"
    return "TypeError: pattern.includes is not a function"


def _facts(memory: MemoryFile, kept_plans: Iterable | None = None) -> tuple[MemoryFacts | None, str | None]:
    """The memory's patterns as SPEC-0005 reads them, or the TypeError reading its whenToUse throws.

    ``kept_plans``: the plans this very reading of the file gave before (``rankcache``), not made again
    (``itertools.repeat(None)``: no pattern's reading is needed).
    """
    attrs = memory.spec.attrs if memory.spec is not None else UNDEFINED
    if attrs is None or attrs is UNDEFINED:
        # const { whenToUse } = memory.frontmatter;
        return None, f"TypeError: Cannot destructure property 'whenToUse' of 'memory.frontmatter' as it is {js_to_string(attrs)}."
    fields = attrs if isinstance(attrs, dict) else {}
    when = fields.get("whenToUse", UNDEFINED)
    items = when if isinstance(when, list) else [when]
    plans = list(zip(items, kept_plans)) if kept_plans is not None else [(item, _plan(item)) for item in items]
    title = js_to_string(fields.get("title", UNDEFINED))
    importance = js_to_string(fields.get("importance", UNDEFINED))
    return MemoryFacts(title, title.lower(), fields, importance, math.nan, None, plans, []), None


def _plan(item: object):
    """How one whenToUse item reads (None: not text, and not an array that reads as text)."""
    pattern = item if isinstance(item, str) else js_to_string(item) if isinstance(item, list) and _crash_for(item) is None else None
    return plan_spec0005_pattern(pattern) if pattern is not None else None


def _importance_rank(candidate: Candidate) -> int | None:
    return IMPORTANCE_ORDER.get(candidate.facts.importance_key)


def _by_importance(a: Candidate, b: Candidate, rank=_importance_rank) -> int:
    """``importanceOrder[b] - importanceOrder[a]``; NaN (an unknown level) compares as equal."""
    x, y = rank(b), rank(a)
    return 0 if x is None or y is None else x - y


def _crashed(memory: MemoryFile, profile: str, crash: str) -> Candidate:
    """A memory the matching throws on (a tolerant arbiter skips it)."""
    return _not_loaded(memory, REASON_CRASH, f"skipped: {profile}'s matching throws on it ({crash})")


def _scanned(
    memory: MemoryFile, facts: MemoryFacts | None, load_index: int, matched_index: int, undecided: dict | None = None, title: str | None = None, facts_of=None
) -> Candidate:
    """A memory whose patterns were tried: spec-0005 has no threshold and no score (``undecided``: patterns it could not decide).

    ``facts`` None: ``title`` is the one the index keeps, and ``facts_of`` makes them when first asked for (a listing
    of every memory then decodes no file's fields)."""
    candidate = Candidate(
        memory, True, REASON_NO_MATCH, title=facts.title if facts is not None else title, matched=matched_index >= 0, meets_threshold=True,
        load_index=load_index, _facts=facts, matched_index=matched_index, _facts_of=facts_of,
    )  # fmt: skip
    candidate._undecided = undecided or None
    if candidate.match_undecided:
        candidate.reason = REASON_UNDECIDED
    return candidate


def _unless(facts: MemoryFacts, indexes) -> str:
    return " or ".join(f"whenToUse {_short(facts.plans[i][1].pattern)}" for i in indexes)


def _by_importance_only(matched: list[Candidate]) -> list[Candidate]:
    return sorted(matched, key=functools.cmp_to_key(_by_importance))  # Python's sort is the same TimSort as V8's


def rank(store: Store, view: LoadedView, task: str, agent: str, options: ArbiterOptions, now_ms: float) -> Preview:
    profile = options.profile
    text = build_search_text(task, agent)
    budget = RegexBudget(options.regex_budget)
    failure: ArbiterFailure | None = None
    maybe: ArbiterFailure | None = None  # the first throw that depends on a pattern rawko-tui could not decide
    candidates: list[Candidate] = [_not_loaded(memory, reason, why) for memory, reason, why in view.gated]
    matched: list[Candidate] = []
    undecided: list[Candidate] = []
    for load_index, memory in enumerate(view.loaded):
        facts, crash = _facts(memory)
        matched_index = -1
        unsure: dict[int, JsRegexUndecided] = {}  # patterns that could not be decided: the loop goes on past them
        if facts is not None:
            for index, (item, plan) in enumerate(facts.plans):
                crash = _crash_for(item)
                if crash is not None:
                    break
                try:
                    if plan.matches(text, budget):
                        matched_index = index
                        break
                except JsRegexUndecided as exc:
                    unsure[index] = exc
        if crash is not None and not unsure:
            failure = failure or ArbiterFailure("match", memory.rel_path, crash, profile.name, earlier=maybe)
            candidates.append(_crashed(memory, profile.name, crash))
            continue
        if crash is not None and failure is None and maybe is None:  # it throws unless an undecided pattern matches
            maybe = ArbiterFailure("match", memory.rel_path, crash, profile.name, unless=_unless(facts, unsure))
        candidate = _scanned(memory, facts, load_index, matched_index, unsure)
        candidates.append(candidate)
        if candidate.matched:
            matched.append(candidate)
        elif candidate.match_undecided:
            undecided.append(candidate)
    ranked = _by_importance_only(matched)
    preview = finish_preview(
        store, task, agent, options, now_ms, len(ranked), lambda n: ranked[:n], lambda: ranked, failure or maybe, lambda _preview: candidates, undecided=undecided
    )
    preview._explain, preview._headline, preview._order = explain, headline, _by_importance_only
    preview.unsure_regexes = unsure_regexes(c._undecided for c in candidates)
    preview.regex_spent = budget.spent
    preview.ranked  # noqa: B018 - rank every candidate now
    preview.candidates  # noqa: B018
    return preview


_NEVER = 1 << 30
_NO_FACTS = MemoryFacts("", "", {}, "undefined", math.nan, None, [], [])


def _kept_plans(plans: list[list | None]) -> tuple[array, bytes]:
    """Each file's plans pickled apart in one blob, found by offset (``at``; an empty span: reading its whenToUse
    throws): a run unpickles the plans of the few memories it shows, not those of all 10,000."""
    at, chunks, offset = array("q", [0]), [], 0
    for memory_plans in plans:
        chunk = b"" if memory_plans is None else pickle.dumps(memory_plans, protocol=pickle.HIGHEST_PROTOCOL)
        chunks.append(chunk)
        offset += len(chunk)
        at.append(offset)
    return at, b"".join(chunks)


class Spec0005Index:
    """A store as spec-0005 sees it, prepared once: per keystroke only the pattern sets run (``rankindex``).

    The same decisions as ``rank`` (the loop), which the tests compare it with.
    """

    def __init__(self, view: LoadedView, store: Store | None = None, profile=None):
        from . import rankcache

        self.view = view
        # what depends on the files alone (each file's plans, which throw, the pattern index) is kept between
        # runs as the scoring arbiters' tables are, for the very same readings of the files
        keep = store is not None and profile is not None
        kept = rankcache.load(store, view, profile) if keep else None
        if rankcache.used(kept if kept is not None and kept.get("kind") == "spec-0005" else None, self._use):
            return
        tables = self._tables()
        from .patterns import save_new_plans

        save_new_plans()  # with the regex translations: the next run does not translate them again
        if keep:
            rankcache.save(store, view, profile, tables, apart="plans_blob")
        self._use(tables)

    def _tables(self) -> dict:
        """Each loaded file's plans (None: reading its whenToUse throws), which throw, and the pattern index, as plain values."""
        plans: list[list | None] = []
        whole_crash: dict[int, str] = {}  # position -> what reading its whenToUse throws
        item_crash: dict[int, tuple[int, str]] = {}  # position -> (first pattern that is not text, what it throws)
        facts_of: list[MemoryFacts] = []
        for position, memory in enumerate(self.view.loaded):
            facts, crash = _facts(memory)
            facts_of.append(facts if facts is not None else _NO_FACTS)
            plans.append(None if facts is None else [plan for _, plan in facts.plans])
            if crash is not None:
                whole_crash[position] = crash
                continue
            for index, (item, _) in enumerate(facts.plans):
                crash = _crash_for(item)
                if crash is not None:
                    item_crash[position] = (index, crash)
                    break
        titles = [facts.title for facts in facts_of]
        at, blob = _kept_plans(plans)
        importance = [facts.importance_key for facts in facts_of]  # what the sort compares: no facts made to rank
        return {
            "kind": "spec-0005", "plans_at": at, "plans_blob": blob, "title": titles, "importance": importance, "whole_crash": whole_crash,
            "item_crash": item_crash, "patterns": PatternIndex(facts_of).state(),
        }  # fmt: skip

    def _use(self, tables: dict) -> None:
        view = self.view
        self.whole_crash: dict[int, str] = tables["whole_crash"]
        self.item_crash: dict[int, tuple[int, str]] = tables["item_crash"]
        self._plans_at, self._plans_blob = tables["plans_at"], tables["plans_blob"]  # the blob: bytes, or kept apart (read where sliced)
        self._titles: list[str] = tables["title"]  # each loaded memory's title, as its facts say it
        self._importance: list = tables["importance"]  # and its importance key
        if len(self._plans_at) != len(view.loaded) + 1 or self._plans_at[-1] != len(self._plans_blob) or len({len(self._titles), len(self._importance), len(view.loaded)}) != 1:
            raise ValueError("the kept plans are not this view's")
        self._facts_made: dict[int, MemoryFacts | None] = {}  # made when a ranking shows the memory: a pass over all would decode every file's fields
        self.patterns = PatternIndex.from_state(tables["patterns"])
        self._gate_of = {id(m): (reason, why) for m, reason, why in view.gated}
        self._static_counts: dict[str, int] = {}
        for _, reason, _ in view.gated:
            self._static_counts[reason] = self._static_counts.get(reason, 0) + 1

    @functools.cached_property
    def _position(self) -> dict[int, int]:
        """id(file) -> its place among the loaded files (a ranking needs none: a lookup of one decision does)."""
        return places_by_id(self.view.loaded)

    @functools.cached_property
    def _by_path(self) -> FilesByPath:
        """The files as this view holds them, by path and by name; made on the first lookup of one (a ranking looks up none)."""
        return FilesByPath([m for m, _, _ in self.view.gated] + self.view.loaded)

    def _importance_rank(self, candidate: Candidate) -> int | None:
        """``_importance_rank`` from the index's kept importance keys (a candidate's ``load_index`` is its position)."""
        return IMPORTANCE_ORDER.get(self._importance[candidate.load_index])

    def facts(self, position: int) -> MemoryFacts | None:
        """The loaded file's facts at ``position`` (None: reading its whenToUse throws), from its kept plans."""
        if position not in self._facts_made:
            start, end = self._plans_at[position], self._plans_at[position + 1]
            plans = pickle.loads(self._plans_blob[start:end]) if end > start else None
            self._facts_made[position] = None if plans is None else _facts(self.view.loaded[position], plans)[0]
        return self._facts_made[position]

    def rank(self, store: Store, task: str, agent: str, options: ArbiterOptions, now_ms: float) -> Preview:
        profile = options.profile
        text = build_search_text(task, agent)
        budget = RegexBudget(options.regex_budget)
        first, undecided = self.patterns.first_matches(text, budget)
        failure: ArbiterFailure | None = None
        maybe: ArbiterFailure | None = None  # the first throw that depends on a pattern rawko-tui could not decide
        crashed: dict[int, str] = {}
        for position in sorted({*self.whole_crash, *self.item_crash}):  # the loop's order: the first throw is reported
            memory = self.view.loaded[position]
            if position in self.whole_crash:
                crashed[position] = self.whole_crash[position]
            else:
                index, crash = self.item_crash[position]
                if first.get(position, _NEVER) < index:
                    continue  # an earlier pattern matched: the loop returned before reaching it
                before = [i for i in undecided.get(position, {}) if i < index]
                undecided[position] = {i: undecided[position][i] for i in before} if before else {}
                if before:  # it throws unless an undecided pattern matches
                    if failure is None and maybe is None:
                        maybe = ArbiterFailure("match", memory.rel_path, crash, profile.name, unless=_unless(self.facts(position), before))
                    continue
                crashed[position] = crash
            if failure is None:
                failure = ArbiterFailure("match", memory.rel_path, crashed[position], profile.name, earlier=maybe)
        made: dict[int, Candidate] = {}

        def decision(position: int) -> Candidate:
            if position not in made:
                memory = self.view.loaded[position]
                if position in crashed:
                    made[position] = _crashed(memory, profile.name, crashed[position])
                else:
                    made[position] = _scanned(
                        memory, None, position, first.get(position, -1), undecided.get(position), self._titles[position], functools.partial(self.facts, position)
                    )
            return made[position]

        matched = [decision(p) for p in sorted(first) if p not in crashed]
        unsure = [decision(p) for p in sorted(undecided) if undecided[p] and p not in first and p not in crashed]
        ranked = sorted(matched, key=functools.cmp_to_key(functools.partial(_by_importance, rank=self._importance_rank)))  # no facts made to compare

        def build_candidates(preview: Preview) -> list[Candidate]:
            gated = [_not_loaded(memory, reason, why) for memory, reason, why in self.view.gated]
            return gated + [decision(p) for p in range(len(self.view.loaded))]

        def build_listing(preview: Preview, scores: bool) -> list:  # spec-0005 scores nothing: rows are the same either way
            """``build_candidates`` with a ``ListedDecision`` for each file passed over and each memory that surely
            matched no pattern: the same answers, for a listing of the store."""
            listing: list = [listed_not_loaded(memory, reason, why) for memory, reason, why in self.view.gated]
            titles, no_components, shape = self._titles, {}, RowShape()  # one empty dict and one shape: a listing only reads them
            for position, memory in enumerate(self.view.loaded):
                if position in first or position in crashed or undecided.get(position):
                    candidate = decision(position)
                    candidate._preview = preview
                    listing.append(candidate)
                else:
                    listing.append(ListedDecision(memory, True, REASON_NO_MATCH, titles[position], 0.0, no_components, True, NO_MATCH_HEADLINE, shape))
            return listing

        def lookup(preview: Preview, path: str) -> Candidate | None:
            memory = self._by_path.get(path)
            if memory is None:
                return None
            gate = self._gate_of.get(id(memory))
            return _not_loaded(memory, *gate) if gate is not None else decision(self._position[id(memory)])

        counts = dict(self._static_counts)
        counts[REASON_CRASH] = counts.get(REASON_CRASH, 0) + len(crashed)
        counts[REASON_NO_MATCH] = len(self.view.loaded) - len(crashed) - len(matched) - len(unsure)
        counts[REASON_UNDECIDED] = len(unsure)
        preview = finish_preview(
            store, task, agent, options, now_ms, len(ranked), lambda n: ranked[:n], lambda: ranked, failure or maybe, build_candidates, counts, lookup, unsure
        )
        preview._explain, preview._headline, preview._order = explain, headline, _by_importance_only
        preview._build_listing = build_listing
        preview.unsure_regexes = unsure_regexes(undecided.values())
        preview.regex_spent = budget.spent
        return preview


def spec0005_index(store: Store, view: LoadedView, profile=None) -> Spec0005Index:
    """The store's spec-0005 index for this view, built on first use (with ``profile``: kept between runs, as ``rankcache`` keeps tables)."""
    key = ("spec-0005 index", id(view))
    index = store._indexes.get(key)
    if index is None:
        with no_cyclic_gc():
            index = store._indexes[key] = Spec0005Index(view, store, profile)
    return index


def headline(candidate: Candidate, preview: Preview) -> str:
    """The root of ``explain``'s tree, said without building it."""
    if candidate.injected:
        return f"injected at position {candidate.rank} of {len(preview.injected)}: {preview.profile.name} injects every match, whole, sorted by importance only"
    if candidate.match_undecided:
        return undecided_headline(candidate, preview)
    if candidate.matched:
        return "not injected: cut by the --max option (spec-0005 itself has no cap)"
    return NO_MATCH_HEADLINE


def explain(candidate: Candidate, preview: Preview, with_near_miss: bool) -> Explanation:
    gates = [_pattern_gate(candidate, preview, with_near_miss)]
    importance = candidate.facts.importance_key
    known = importance in IMPORTANCE_ORDER
    order_words = f"importance {importance}" if known else f"importance {importance!r} is not a level: it compares as equal to every other"
    said = headline(candidate, preview)
    if candidate.injected:
        gates.append(Explanation(0, f"position {candidate.rank} of {len(preview.injected)}: {order_words}", kind=GATE))
    elif candidate.matched:
        gates.append(Explanation(0, said, match=False, kind=GATE))
    return Explanation(0, said, tuple(gates), match=candidate.injected, kind=SCORE, data={"scored": False}, undecided=candidate.match_undecided)
