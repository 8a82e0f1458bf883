"""The arbiter at scale: one pass over every pattern per keystroke, scores only for what matched.

``arbiter.run_preview`` ranks through this index and gives exactly the
decisions of ``arbiter.run_preview_reference`` (the straightforward loop; a
test compares the two on generated stores).  The index only avoids
repeating work:

* per store, once: which files the spec's loader lists, each memory's
  task-independent facts, and every whenToUse *test* -- a literal needle
  (substring and ``|`` alternatives) or a regex -- gathered into RE2 sets, so
  one pass over the task finds every pattern that matches;
* per keystroke: the sets' matches, the first matching pattern of each
  memory, and scores for the matched memories only.  The decision for every
  other memory is built when someone asks for it (``Preview.candidates``).

Regexes only a backtracking engine can run (backreferences, lookaround) are
tried one by one, and only for memories no earlier pattern already matched,
as the spec's ``for … of`` loop would, within the ranking's time for them
(``ArbiterOptions.regex_budget``): each first gets a slice, then those that
ran out share what is left.  One that is still undecided is carried, per
memory and pattern, to the decision (``Candidate.undecided``), never counted
as no match.
"""

from __future__ import annotations

import bisect
import contextvars
import functools
import itertools
import math
import pickle
import zlib

from .. import records
from ..records import record
from .decision import (
    NO_MATCH_HEADLINE,
    REASON_CRASH,
    REASON_ERROR,
    REASON_NO_MATCH,
    REASON_THRESHOLD,
    REASON_UNDECIDED,
    ArbiterFailure,
    ArbiterOptions,
    Candidate,
    FilesByPath,
    ListedDecision,
    RowShape,
    Preview,
    _effective_limits,
    _loader_error_text,
    _not_loaded,
    _reason,
    _short,
    crashed_candidate,
    finish_preview,
    has_load_error,
    listed_not_loaded,
    load_error_candidate,
    scored_candidate,
    unsure_regexes,
)
from .scoring import (
    IMPORTANCE_ORDER,
    MemoryFacts,
    _verbatim_score_failure,
    _verbatim_type_error,
    agent_points_column,
    components_dict,
    keyword_hits,
    keyword_points,
    memory_facts,
    recency_points,
    when_items,
)
from ..js.regexp import DEFAULT_REGEX_BUDGET_SECONDS, TIMEOUT, JsRegex, JsRegexUndecided, RegexBudget, carrier_text, literal_alternation, needles_may_match, re2_options
from ..js.values import is_prototype_key, js_split_whitespace, js_to_string, utf16_length
from .patterns import ALTERNATIVES, BAD_REGEX, PatternPlan, build_search_text, save_new_plans
from .places import places_by_id
from ..store.reading import MemoryFile, Store, no_cyclic_gc

# Tests are spread over a fixed number of sets by a hash of their text, so a
# changed file recompiles only the sets its patterns fall in.
SET_BUCKETS = 64
SET_MAX_MEM = 64 << 20
_NEVER = 1 << 30  # a plan index larger than any real one
# a task word found more often than this share of the titles is tested title by title (see _title_hit_counts): a
# search pays a step in Python per title it finds, a test of every title one in C each (measured on English titles)
COMMON_WORD_SHARE = 1 / 8
_UNSCORED = (None, None)  # a listed row's components and score, where the listing does not show them


@record(frozen=True)
class _CompiledBucket:
    """One RE2 set over some tests, plus an always-matching sentinel that reveals a failed search."""

    regex_set: object  # re2.Set, or None when the set could not be compiled
    sentinel: int


@functools.lru_cache(maxsize=4 * SET_BUCKETS)
def _compile_bucket(patterns: tuple[str, ...]) -> _CompiledBucket:
    import re2

    regex_set = re2.Set.SearchSet(re2_options(SET_MAX_MEM))
    try:
        for pattern in patterns:
            regex_set.Add(pattern)
        sentinel = regex_set.Add("")
        regex_set.Compile()
    except re2.error:
        return _CompiledBucket(None, -1)
    return _CompiledBucket(regex_set, sentinel)


# Set while a command ranks a handful of tasks (its saved tasks): each query tests the patterns alone, as the
# first does, rather than compile the RE2 sets (and import numpy) for the few queries after it, which costs more.
FEW_QUERIES: contextvars.ContextVar[bool] = contextvars.ContextVar("few_queries", default=False)


class PatternIndex:
    """Every whenToUse test of the scorable memories, and which (memory, plan) each one decides.

    A test is a literal needle or an RE2 pattern, run in the sets.  A plan
    whose regex only the backtracking engine runs, that V8 may refuse, or
    whose translation holds only for texts up to a length, is tried one by
    one (``backtracking``: position, plan index, plan, and the test of its
    top-level alternatives RE2 runs, which is in the sets: a match of those
    is a match of the plan).
    """

    def __init__(self, facts: list[MemoryFacts]):
        keys: dict[tuple[str, str], int] = {}  # ("literal", needle) | ("re2", translation) -> test id
        self.slots: list[list[tuple[int, int]]] = []  # test id -> [(memory position, plan index)]
        self.fallbacks: list[object] = []  # test id -> needle (str) or JsRegex, to test one by one
        self.backtracking: list[tuple[int, int, PatternPlan, int]] = []
        self._compiled = self._queried = False  # queries go through the RE2 sets once compiled, or from the second on
        self._slots_as_arrays = None  # rankarrays.SlotArrays, made for the first query through the sets
        self._sieve: _Sieve | None = None  # the tests sorted by kind, for a handful of queries one by one
        for position, memory in enumerate(facts):
            for plan_index, (_, plan) in enumerate(memory.plans):
                if plan is None or plan.interpretation == BAD_REGEX:  # a skipped pattern never matches
                    continue
                regex = plan.regex
                if plan.interpretation == ALTERNATIVES:
                    tests = [("literal", needle, needle) for needle in dict.fromkeys(plan.alternatives)]
                elif regex is not None and (regex.engine != "re2" or regex.refusal is not None or regex.text_bound is not None):
                    alternatives = -1
                    if regex.alternatives is not None and regex.refusal is None and regex.text_bound is None:
                        fallback = JsRegex(regex.source, "re2", regex.alternatives, regex.ignore_case, regex.alternatives_needles)
                        alternatives = self._add(keys, "re2", regex.alternatives, fallback, position, plan_index)
                    self.backtracking.append((position, plan_index, plan, alternatives))
                    continue
                elif regex is not None:
                    tests = [("re2", regex.translated, regex)]
                else:
                    tests = [("literal", plan.normalized, plan.normalized)]
                for kind, source, fallback in tests:
                    self._add(keys, kind, source, fallback, position, plan_index)
        self.always = [test for (kind, source), test in keys.items() if kind == "literal" and source == ""]
        buckets: list[list[tuple[str, int]]] = [[] for _ in range(SET_BUCKETS)]
        for (kind, source), test in keys.items():
            if kind == "literal" and source == "":
                continue
            pattern = _escape_literal(source) if kind == "literal" else source
            buckets[zlib.crc32(pattern.encode("utf-8", "surrogatepass")) % SET_BUCKETS].append((pattern, test))
        self.buckets: list[tuple[tuple[str, ...], list[int]]] = []
        for bucket in buckets:
            if bucket:
                bucket.sort()
                self.buckets.append((tuple(p for p, _ in bucket), [t for _, t in bucket]))

    def _add(self, keys: dict, kind: str, source: str, fallback: object, position: int, plan_index: int) -> int:
        test = keys.setdefault((kind, source), len(keys))
        if test == len(self.slots):
            self.slots.append([])
            self.fallbacks.append(fallback)
        self.slots[test].append((position, plan_index))
        return test

    _STATE = ("slots", "fallbacks", "backtracking", "always", "buckets", "regexes")

    def state(self) -> tuple:
        """What the index holds (plain values and translations: kept between runs by ``rankcache``).

        Each regex tested one by one is kept as a plain tuple, its needles, its place in ``regexes`` (its pickled
        self) and its words: the first query decides most of them by their words or skips them by their needles,
        and a start then reads and rebuilds only those it runs (``regexes`` apart: at 10,000 memories spec-0005's
        pickled regexes are 5 MB of the tests' 6). A plain tuple, not a named one: unpickling thousands of named
        tuples costs a third of a start's tables. Needles and words that are the same are one tuple, pickled once.
        """
        fallbacks, regexes = [], []
        for fallback in self.fallbacks:
            if isinstance(fallback, JsRegex):
                needles, words = fallback.needles, _words_of(fallback)
                if words is not None and words[1] == needles:
                    words = (words[0], needles)  # the same tuple: pickled once, unpickled once
                regexes.append(pickle.dumps(fallback, protocol=pickle.HIGHEST_PROTOCOL))
                fallback = (needles, len(regexes) - 1, words)
            fallbacks.append(fallback)
        made = {"fallbacks": fallbacks, "regexes": regexes}
        return tuple(made[name] if name in made else getattr(self, name) for name in self._STATE)

    @classmethod
    def from_state(cls, state: tuple) -> PatternIndex:
        index = cls.__new__(cls)
        for name, value in zip(cls._STATE, state, strict=True):
            setattr(index, name, value)
        if len(index.slots) != len(index.fallbacks):
            raise ValueError("a kept pattern index that does not add up")
        index._compiled = index._queried = False
        index._slots_as_arrays = None
        index._sieve = None
        return index

    def prepare(self) -> None:
        """Compile the RE2 sets now (a background worker's job), so no later query waits for them."""
        if self._compiled:
            return
        for patterns, _ in self.buckets:
            _compile_bucket(patterns)
        self._slot_arrays()
        self._compiled = True

    def first_matches(self, text: str, budget: RegexBudget | None = None) -> tuple[dict[int, int], dict[int, dict[int, JsRegexUndecided]]]:
        """Memory position -> index of its first whenToUse pattern that surely matches ``text``; and the undecided ones.

        The second map: memory position -> {pattern index: why it is
        undecided}, for the patterns before the first sure match (a memory
        with no sure match whose map is not empty is undecided; one with both
        matches whichever way they go).

        The first query tests each pattern alone, skipping the regexes whose
        needles the text lacks: compiling the sets would cost more than one
        query (a command-line preview asks once).  From the second query on,
        the sets answer in one pass over the text.
        """
        budget = budget if budget is not None else RegexBudget(DEFAULT_REGEX_BUDGET_SECONDS)
        undecided_tests: dict[int, JsRegexUndecided] = {}
        if self._compiled or (self._queried and not FEW_QUERIES.get()):  # the app: numpy gathers the slots
            matched = self._matched_by_sets(text, budget, undecided_tests)
            first = self._slot_arrays().first_plans(matched)
            slots = self.slots
        else:
            matched = self._matched_one_by_one(text, budget, undecided_tests)
            self._queried = True
            first = {}
            slots = self._sieve.slots(self) if self._sieve is not None else self.slots
            for test in matched:
                for position, plan_index in slots[test]:
                    if first.get(position, _NEVER) > plan_index:
                        first[position] = plan_index
        undecided: dict[int, dict[int, JsRegexUndecided]] = {}
        for test, exc in undecided_tests.items():
            for position, plan_index in slots[test]:
                undecided.setdefault(position, {})[plan_index] = exc
        outcomes: tuple[dict, dict] = ({}, {})  # per round: id(plan) -> True, False or the JsRegexUndecided
        later: list[tuple[int, int, PatternPlan, int]] = []  # ran out of their slice: tried again with what is left
        matched_tests = set(matched)
        for last_round, patterns in ((False, self.backtracking), (True, later)):
            tried = outcomes[last_round]
            for entry in patterns:
                position, plan_index, plan, alternatives = entry
                if last_round and budget.left <= 0:
                    break  # nothing left: what ran out of its slice stays so (said with the time it had)
                if first.get(position, _NEVER) <= plan_index:
                    continue  # an earlier pattern matched (or its alternatives RE2 runs did): the spec's loop has returned
                if id(plan) not in tried:
                    # the sets decided its alternatives RE2 runs (no match): only the rest is searched
                    skip = alternatives >= 0 and alternatives not in matched_tests and alternatives not in undecided_tests
                    try:
                        tried[id(plan)] = plan.matches(text, budget, last_round, skip_alternatives=skip)
                    except JsRegexUndecided as exc:
                        tried[id(plan)] = exc
                outcome = tried[id(plan)]
                if isinstance(outcome, JsRegexUndecided):
                    undecided.setdefault(position, {})[plan_index] = outcome
                    if not last_round and outcome.kind == TIMEOUT:
                        later.append(entry)
                    continue
                undecided.get(position, {}).pop(plan_index, None)
                if outcome:
                    first[position] = plan_index
        # what is said of a memory: the undecided patterns before its first sure match
        kept: dict[int, dict[int, JsRegexUndecided]] = {}
        for position, by_plan in undecided.items():
            before = {i: exc for i, exc in sorted(by_plan.items()) if i < first.get(position, _NEVER)}
            if before:
                kept[position] = before
        return first, kept

    def _slot_arrays(self):
        if self._slots_as_arrays is None:
            from .rankarrays import SlotArrays

            self._slots_as_arrays = SlotArrays(self.slots)
        return self._slots_as_arrays

    def _matched_one_by_one(self, text: str, budget: RegexBudget | None = None, undecided: dict | None = None) -> list[int]:
        budget, undecided = budget or RegexBudget(DEFAULT_REGEX_BUDGET_SECONDS), {} if undecided is None else undecided
        lowered = text.lower() if text.isascii() else None  # needles hold for ASCII text only
        if lowered is not None and (self._sieve is not None or FEW_QUERIES.get()):
            # a handful of tasks (a command's saved tasks): the tests are read and sorted by kind once, each query
            # then goes over the lists of its kinds (check's three tasks read the 4,000 tests of 10,000 memories once)
            if self._sieve is None:
                self._sieve = _Sieve(self.fallbacks)
            return self._sieve.matched(self, text, lowered, budget, undecided)
        matched = []
        add = matched.append
        # a first query goes over every test (spec-0005: 11,000 at 10,000 memories, most of them words): the
        # kept ones' words are read from their tuple here, and tried in a plain loop
        for test, fallback in enumerate(self.fallbacks):
            if isinstance(fallback, str):
                if fallback in text:
                    add(test)
                continue
            if lowered is not None:
                words = fallback[2] if type(fallback) is tuple else _words_of(fallback)
                if words is not None:  # words and "|": no engine needed
                    searched = lowered if words[0] else text
                    for word in words[1]:
                        if word in searched:
                            add(test)
                            break
                    continue
            if (lowered is None or needles_may_match(_needles(fallback), lowered)) and self._test_alone(test, text, budget, undecided, fallback):
                add(test)
        return matched

    def _matched_by_sets(self, text: str, budget: RegexBudget | None = None, undecided: dict | None = None) -> list[int]:
        budget, undecided = budget or RegexBudget(DEFAULT_REGEX_BUDGET_SECONDS), {} if undecided is None else undecided
        carrier = carrier_text(text)
        encoded = carrier.encode("utf-8", "surrogatepass")
        matched = list(self.always)
        for patterns, tests in self.buckets:
            compiled = _compile_bucket(patterns)
            hits = compiled.regex_set.Match(encoded) if compiled.regex_set is not None else None
            if hits is not None and compiled.sentinel in hits:
                matched.extend(tests[hit] for hit in hits if hit != compiled.sentinel)
            else:  # the set could not be built or its search ran out of memory: test one by one
                matched.extend(test for test in tests if self._test_alone(test, text, budget, undecided))
        return matched

    def _test_alone(self, test: int, text: str, budget: RegexBudget, undecided: dict, fallback=None) -> bool:
        """Whether test ``test`` matches ``text`` on its own; ``fallback``: the test as the caller holds it already
        (the kept tests are read in chunks: looking one up again may read its chunk again)."""
        if fallback is None:
            fallback = self.fallbacks[test]
        if isinstance(fallback, str):
            return fallback in text
        if type(fallback) is tuple:  # a kept regex: (needles, its place in regexes, words)
            fallback = self.fallbacks[test] = pickle.loads(self.regexes[fallback[1]])  # a thread that races here makes the same one
        try:  # an RE2 translation RE2 cannot hold runs on the backtracking engine, within the budget
            return budget.search(fallback, text, last_round=True) is not None
        except JsRegexUndecided as exc:
            undecided[test] = exc
            return False


class _Sieve:
    """A pattern index's tests sorted by kind, in their order: literal needles, words (a regex that is words and
    their alternation), and the regexes an engine runs (with their needles). A query on ASCII text goes over each
    list as ``_matched_one_by_one``'s loop goes over the tests, the regexes one by one in their order (their
    budget is spent as it is there), and the matched tests come back in that loop's order."""

    __slots__ = ("substrings", "words", "engine", "_slots")

    def __init__(self, fallbacks):
        self.substrings: list[tuple[int, str]] = []
        self.words: list[tuple[int, tuple[bool, tuple[str, ...]]]] = []
        self.engine: list[list] = []  # [test, the test as held (a kept tuple until first run, then the regex), needles]
        self._slots: list | None = None
        for test, fallback in enumerate(fallbacks):
            if isinstance(fallback, str):
                self.substrings.append((test, fallback))
                continue
            words = fallback[2] if type(fallback) is tuple else _words_of(fallback)
            if words is not None:
                self.words.append((test, words))
            else:
                self.engine.append([test, fallback, _needles(fallback)])

    def matched(self, index: PatternIndex, text: str, lowered: str, budget: RegexBudget, undecided: dict) -> list[int]:
        matched = [test for test, needle in self.substrings if needle in text]
        for test, (ignore_case, words) in self.words:
            searched = lowered if ignore_case else text
            for word in words:
                if word in searched:
                    matched.append(test)
                    break
        for entry in self.engine:
            test, fallback, needles = entry
            if needles_may_match(needles, lowered):
                if index._test_alone(test, text, budget, undecided, fallback):
                    matched.append(test)
                if type(fallback) is tuple:  # rebuilt by its first run and held by the index: the next query runs that
                    entry[1] = index.fallbacks[test]
        matched.sort()
        return matched

    def slots(self, index: PatternIndex) -> list:
        """The index's slots, read whole once: each query's matched tests would read their kept chunks again."""
        if self._slots is None:
            self._slots = list(index.slots)
        return self._slots


def _needles(fallback) -> tuple[str, ...] | None:
    """A regex's needles, kept (needles, its place in the pickled regexes, rebuilt when first tested; words) or made."""
    return fallback[0] if type(fallback) is tuple else fallback.needles


def _words_of(fallback) -> tuple[bool, tuple[str, ...]] | None:
    """(whether it ignores case, its words) for a regex that is words and their alternation (``literal_alternation``):
    on ASCII text one occurring decides it, without compiling it. Kept with the regex, or found from a made one."""
    if type(fallback) is tuple:
        return fallback[2]
    words = literal_alternation(fallback)
    return None if words is None else (fallback.ignore_case, words)


def _escape_literal(needle: str) -> str:
    """A literal needle as an RE2 pattern over the carrier text."""
    import re2

    return re2.escape(carrier_text(needle))


class StoreIndex:
    """A store as one scoring arbiter sees it, prepared once for any task, agent and options.

    ``view`` is the profile loader's reading of the store (``arbiters.loaders``:
    which files are never reached, and each loaded file as that loader reads
    it); ``profile`` gives the scoring rules.
    """

    def __init__(self, store: Store, view, profile):
        from . import rankcache

        self.store = store
        self.profile = profile
        self._view = view
        self.scorer = profile.scorer
        self.gated: list[tuple[MemoryFile, str, str]] = list(view.gated)
        self.loaded: list[MemoryFile] = list(view.loaded)
        first_error = next((m for m in self.loaded if has_load_error(m)), None)
        self.load_failure = ArbiterFailure("load", first_error.rel_path, _loader_error_text(first_error), profile.name) if first_error else None
        if rankcache.used(rankcache.load(store, view, profile), self._use):
            return
        tables = self._tables()
        save_new_plans()  # the next start reads these patterns without translating them again
        rankcache.save(store, view, profile, tables)
        self._use(tables)

    def _tables(self) -> dict:
        """Everything the ranking needs that depends on the files alone, as plain values (see ``rankcache``)."""
        # Which memories the spec's scoring throws on does not depend on the agent
        # (only the tag lookup does, and that one still scores the memory).
        at_fault: dict[int, str] = {}
        scorable: list[int] = []
        for position, memory in enumerate(self.loaded):
            if has_load_error(memory):
                continue
            crash = _verbatim_score_failure(memory.spec.attrs, "", self.scorer)
            if crash is not None and crash[1]:
                at_fault[position] = crash[0]
            else:
                scorable.append(position)
        facts = [memory_facts(self.loaded[position]) for position in scorable]
        return {
            "at_fault": at_fault,
            "scorable": scorable,
            "importance_key": [f.importance_key for f in facts],
            "title": [f.title for f in facts],
            "title_lower": [f.title_lower for f in facts],
            # each memory's tags, pickled: read only to make an agent's points when they are not kept (which memories
            # have any is a column of its own)
            "tags": pickle.dumps([f.tags for f in facts], protocol=pickle.HIGHEST_PROTOCOL),
            "tagged": [bool(f.tags) for f in facts],
            "discovered_by": [f.attrs.get("discoveredBy") for f in facts],
            "date_ms": [f.date_ms for f in facts],
            # where a verbatim arbiter's matchPattern meets a whenToUse item that is not a string
            "non_string": [next((i for i, (item, _) in enumerate(f.plans) if not isinstance(item, str)), None) for f in facts],
            "patterns": PatternIndex(facts).state(),
        }

    def _use(self, tables: dict) -> None:
        loaded = self.loaded
        self.at_fault: dict[int, str] = {id(loaded[position]): crash for position, crash in tables["at_fault"].items()}
        self.scorable: list[MemoryFile] = [loaded[position] for position in tables["scorable"]]
        self.importance_keys: list[str] = tables["importance_key"]
        self._kept_tags: bytes = tables["tags"]
        tagged: list[bool] = tables["tagged"]
        self.discovered_by: list = tables["discovered_by"]
        self.dates: list[float] = tables["date_ms"]
        self.orders = [IMPORTANCE_ORDER.get(key) for key in self.importance_keys]
        self.titles: list[str] = tables["title_lower"]
        self.display_titles: list[str] = tables["title"]
        self.patterns = PatternIndex.from_state(tables["patterns"])
        # Where a verbatim arbiter may throw, in its order (each memory: scoring, then matching).
        # A tag lookup throws only for an agent named like an Object.prototype member.
        # (its place in the load order, the event): the scorable memories' events, then those that throw on scoring
        events: list[tuple[int, bool, tuple[str, MemoryFile, object]]] = []  # (place, only for prototype agents, event)
        non_strings = tables["non_string"]
        for position, place in enumerate(tables["scorable"]):
            if tagged[position]:
                events.append((place, True, ("tags", loaded[place], None)))
            if non_strings[position] is not None:
                events.append((place, False, ("match", loaded[place], (position, non_strings[position]))))
        events += [(place, False, ("score", loaded[place], crash)) for place, crash in tables["at_fault"].items()]
        events.sort(key=lambda placed: placed[0])  # stable: a memory's tag lookup comes before its matching
        self._throws: list[tuple[str, MemoryFile, object]] = [event for _, prototype_only, event in events if not prototype_only]
        self._throws_for_prototype_agents: list[tuple[str, MemoryFile, object]] = [event for _, _, event in events]
        self._gate_of = {id(memory): (reason, why) for memory, reason, why in self.gated}
        # the reasons of files that never reach the matching, whatever the task: the loaded files not scorable
        # (a file the loader cannot read, or one its scoring throws on) are found from the scorable ones' places
        self._static_counts: dict[str, int] = {}
        for _, reason, _ in self.gated:
            self._static_counts[reason] = self._static_counts.get(reason, 0) + 1
        scorable_places = set(tables["scorable"]) if len(tables["scorable"]) < len(loaded) else None
        for place in range(len(loaded)) if scorable_places is not None else ():
            if place not in scorable_places:
                reason = REASON_ERROR if loaded[place].error is not None else REASON_CRASH
                self._static_counts[reason] = self._static_counts.get(reason, 0) + 1
        self._agent_cache: dict[str, list[tuple[int, int, int]]] = {}
        self._ranked_once = False  # the first ranking (a command-line preview's only one) runs without numpy
        self._order_array = None  # importance orders as an array, made on the second ranking
        self._title_hits = None  # rankarrays.KeywordHits, from the second ranking on
        self._base_array: tuple = (None, None)  # (the base points list, it as an array)
        self._base_cache: dict[str, tuple[float, tuple[float, float] | None, list[int]]] = {}

    @functools.cached_property
    def _positions(self) -> dict[int, int]:
        """id(memory) -> its place among the scorable memories (a ranking needs none: a decision does)."""
        return places_by_id(self.scorable)

    @functools.cached_property
    def _recency_lines(self) -> tuple[list[float], bool]:
        """Where a memory's recency points change (24 h and 72 h after its discoveredAt), sorted, and whether every
        date is whole milliseconds: made when a second ranking asks whether the first one's points still hold."""
        dates = [date for date in self.dates if not math.isnan(date)]
        return sorted(date + hours * 3_600_000 for date in dates for hours in (24, 72)), all(date.is_integer() for date in dates)

    @functools.cached_property
    def tags(self) -> list:
        """Each scorable memory's tags (the kept tables hold them pickled: an agent's kept points need none)."""
        return pickle.loads(self._kept_tags)

    @functools.cached_property
    def _by_path(self) -> FilesByPath:
        """The files as this view holds them (a loader may read a file into an object of its own), by path and
        by name; made on the first lookup of one file (a ranking looks up none)."""
        return FilesByPath([m for m, _, _ in self.gated] + self.loaded)

    def rank(self, task: str, agent: str, options: ArbiterOptions, now_ms: float) -> Preview:
        text = build_search_text(task, agent)
        words = js_split_whitespace(task.lower())
        if self.scorer.keyword_min_length:  # words too short to count never count, whatever the title
            words = [w for w in words if utf16_length(w) > self.scorer.keyword_min_length]
        min_importance = _effective_limits(options)[1]
        min_order = IMPORTANCE_ORDER.get(js_to_string(min_importance))
        budget = RegexBudget(options.regex_budget)
        first, undecided = self.patterns.first_matches(text, budget)
        static = self._agent_points(agent)
        if self._ranked_once and not FEW_QUERIES.get():  # a handful of tasks never imports numpy
            eligible, ranking, hits = self._rank_as_arrays(first, words, min_order, agent, now_ms)
        else:
            eligible, ranking, hits = self._rank_in_python(first, words, min_order, agent, now_ms)
            self._ranked_once = True
        made: dict[int, Candidate] = {}

        def candidate_at(position: int) -> Candidate:
            if position not in made:
                made[position] = self._candidate(position, first[position], True, now_ms, static[position], hits.get(position, 0))
                made[position]._undecided = undecided.get(position)
            return made[position]

        def best(n: int) -> list[Candidate]:
            return [candidate_at(position) for position in ranking[:n]]

        def build_ranked() -> list[Candidate]:
            return [candidate_at(position) for position in ranking]

        others: dict[int, Candidate] = {}  # decisions of the memories not ranked, once made (id(memory) -> candidate)
        ranked_at: dict[int, Candidate] | None = None  # the ranked candidates by position, made once (not per decision)

        def decide(preview: Preview, memory: MemoryFile) -> Candidate:
            nonlocal ranked_at
            if id(memory) not in others:
                if ranked_at is None:
                    ranked_at = {c.load_index: c for c in preview.ranked}
                others[id(memory)] = self._decision(memory, ranked_at, first, words, now_ms, min_order, static, undecided)
            return others[id(memory)]

        def build_candidates(preview: Preview) -> list[Candidate]:
            gated = [_not_loaded(memory, reason, why) for memory, reason, why in self.gated]
            return gated + [decide(preview, memory) for memory in self.loaded]

        def build_listing(preview: Preview, scores: bool) -> list:
            """``build_candidates`` with a ``ListedDecision`` for each file passed over and each memory that surely
            matched no pattern: the same answers, for a listing of the store."""
            listing: list = [listed_not_loaded(memory, reason, why) for memory, reason, why in self.gated]
            positions, shown_titles, orders = self._positions, self.display_titles, self.orders
            if scores:  # a memory's points but the keywords' are the ranking's own (kept per agent and now)
                base, hits_of = self._base_points(agent, now_ms), self._title_hit_counts(words)
            # rows alike but for their file and title share one components dict, score and shape (a listing only
            # reads them; the shape tells a writer of rows that they are alike without comparing them)
            made: dict[tuple, tuple[dict, int, RowShape]] = {}
            unscored = {meets: (*_UNSCORED, RowShape()) for meets in (False, True)}
            for memory in self.loaded:
                position = positions.get(id(memory))  # None: not scorable (it cannot be read, or its scoring throws)
                if position is None or position in first or position in undecided:
                    candidate = decide(preview, memory)
                    candidate._preview = preview
                    listing.append(candidate)
                    continue
                order = orders[position]
                meets = order is not None and min_order is not None and order >= min_order
                if scores:
                    key = (static[position], base[position], hits_of[position], meets)
                    alike = made.get(key)
                    if alike is None:
                        points, total, hits, _ = key
                        components = components_dict(points, total - sum(points), hits)
                        alike = made[key] = (components, min(100, total + components["keyword"]), RowShape())
                else:
                    alike = unscored[meets]
                shown = shown_titles[position]
                listing.append(
                    ListedDecision(
                        memory, True, REASON_NO_MATCH, shown if shown is not None else memory.attrs["title"], alike[1], alike[0], meets,
                        NO_MATCH_HEADLINE, alike[2],
                    )
                )  # fmt: skip
            return listing

        def lookup(preview: Preview, path: str) -> Candidate | None:
            memory = self._by_path.get(path)
            if memory is None:
                return None
            gate = self._gate_of.get(id(memory))
            return _not_loaded(memory, *gate) if gate is not None else decide(preview, memory)

        failure = self._failure(agent, first, undecided)
        unsure = [position for position in undecided if position not in first]
        counts = dict(self._static_counts)
        counts[REASON_NO_MATCH] = len(self.scorable) - len(first) - len(unsure)
        counts[REASON_UNDECIDED] = len(unsure)
        counts[REASON_THRESHOLD] = len(first) - len(eligible)
        preview = finish_preview(self.store, task, agent, options, now_ms, len(ranking), best, build_ranked, failure, build_candidates, counts, lookup)
        preview._build_listing = build_listing
        preview.undecided = [decide(preview, self.scorable[position]) for position in sorted(unsure)]
        preview.unsure_regexes = unsure_regexes(undecided.values())
        preview.regex_spent = budget.spent
        for candidate in preview.undecided:
            candidate._preview = preview
        return preview

    def _rank_in_python(self, first: dict[int, int], words: list[str], min_order: int | None, agent: str, now_ms: float) -> tuple[list[int], list[int], dict[int, int]]:
        """(the matched memories that meet the threshold, their positions best first, keyword hits): a first ranking."""
        ranking: list[tuple[float, int]] = []  # (-score, position): best first, ties in load order
        orders = self.orders
        eligible = [p for p in first if orders[p] is not None and orders[p] >= min_order] if min_order is not None else []
        hits = self._keyword_hits(words, eligible)
        if eligible:
            base = self._base_points(agent, now_ms)
            ranking = [(-min(100, base[p] + keyword_points(hits[p])), p) for p in eligible]
        ranking.sort()
        return eligible, [p for _, p in ranking], hits

    def _rank_as_arrays(self, first: dict[int, int], words: list[str], min_order: int | None, agent: str, now_ms: float) -> tuple[list[int], list[int], dict[int, int]]:
        """``_rank_in_python`` with array operations: typing ranks again and again, over thousands of matched memories."""
        from . import rankarrays

        if self._order_array is None:
            self._order_array = rankarrays.np.array([-1 if order is None else order for order in self.orders], dtype=rankarrays.np.int64)
            self._title_hits = rankarrays.KeywordHits(self.titles)
        eligible = rankarrays.eligible_positions(first, self._order_array, min_order)
        if not len(eligible):
            return [], [], {}
        hits = self._title_hits.counts(words, eligible)
        base = self._base_points(agent, now_ms)
        if self._base_array[0] is not base:
            self._base_array = (base, rankarrays.np.array(base))
        ranking = rankarrays.ranked_order(self._base_array[1], eligible, hits, len(words))
        positions = eligible.tolist()
        return positions, ranking.tolist(), dict(zip(positions, hits.tolist()))

    @functools.cached_property
    def _joined_titles(self) -> tuple[str, list[int]]:
        """The lower-cased titles joined by newlines, and where each starts (the last: one past the end)."""
        return "\n".join(self.titles), list(itertools.accumulate(map((1).__add__, map(len, self.titles)), initial=0))

    def _title_hit_counts(self, words: list[str]) -> list[int]:
        """``_keyword_hits`` of every scorable memory, by position. Common words ("the", "a", the empty word) are
        tested title by title, as the ranking tests them; a word few titles hold is found by searching the joined
        titles, a step per title that holds it: a task of rare words is counted in a fifth of the time."""
        titles = self.titles
        if not titles:
            return []
        joined, starts = self._joined_titles
        sample = min(len(joined), 1 << 15)  # how common a word is, judged from the titles' first 32 K characters
        share = len(titles) * COMMON_WORD_SHARE * sample
        common = [word for word in words if joined.count(word, 0, sample) * len(joined) > share]
        counts = [len([word for word in common if word in title]) for title in titles] if common else [0] * len(titles)
        for word in words:
            if word in common:
                continue
            at = joined.find(word)
            while at != -1:
                position = bisect.bisect_right(starts, at) - 1
                following = starts[position + 1]  # one past the newline that ends this title
                if at + len(word) < following:  # within the title, not across its end
                    counts[position] += 1
                    at = joined.find(word, following)  # a title counts each word once
                else:
                    at = joined.find(word, at + 1)
        return counts

    def _keyword_hits(self, words: list[str], positions) -> dict[int, int]:
        """How many task words (repeats counted, as the spec's filter does) each memory's title contains."""
        counts = dict.fromkeys(positions, 0)
        titles = self.titles
        for word in words:
            for position in [p for p in counts if word in titles[p]]:
                counts[position] += 1
        return counts

    def _agent_points(self, agent: str) -> list[tuple[int, int, int]]:
        """Per memory, the points that do not depend on the task: (importance, agent tags, same agent)."""
        points = self._agent_cache.get(agent)
        if points is None:
            from . import rankcache

            def make() -> list[tuple[int, int, int]]:
                return agent_points_column(self.importance_keys, self.tags, self.discovered_by, agent, self.scorer)

            points = rankcache.agent_points(self.store, self._view, self.profile, agent, make, len(self.importance_keys))
            if len(self._agent_cache) >= 32:
                self._agent_cache.clear()
            self._agent_cache[agent] = points
        return points

    def _base_points(self, agent: str, now_ms: float) -> list[int]:
        """Per memory, everything but the keywords; reused while ``now`` crosses no 24 h / 72 h line."""
        cached = self._base_cache.get(agent)
        if cached is not None:
            made_at, window, base = cached
            if now_ms == made_at:  # the same now (a listing after its ranking): no window to work out
                return base
            if window is None:  # where the points made at ``made_at`` hold: asked for once a second ranking comes
                window = self._recency_window(made_at)
                self._base_cache[agent] = (made_at, window, base)
            if window[0] <= now_ms < window[1]:
                return base
        base = [i + t + s + recency_points(date, now_ms) for (i, t, s), date in zip(self._agent_points(agent), self.dates)]
        if len(self._base_cache) >= 32:
            self._base_cache.clear()
        self._base_cache[agent] = (now_ms, None, base)
        return base

    def _recency_window(self, now_ms: float) -> tuple[float, float]:
        """From the last recency line at or before ``now_ms`` up to the next one: where the points made at that
        now hold. Dates are whole milliseconds, so (now - date) / 3600000 < 24 exactly when now < date + 24 h;
        anything fractional (never from a clock or a date) holds nowhere but at that very now, and is not reused."""
        lines, whole_dates = self._recency_lines
        if not (whole_dates and float(now_ms).is_integer()):
            return math.inf, -math.inf
        at = bisect.bisect_right(lines, now_ms)
        return (lines[at - 1] if at > 0 else -math.inf), (lines[at] if at < len(lines) else math.inf)

    def _candidate(self, position: int, plan_index: int, meets: bool, now_ms: float, static: tuple[int, int, int], hits: int) -> Candidate:
        components = components_dict(static, recency_points(self.dates[position], now_ms), hits)
        return scored_candidate(self.scorable[position], None, components, plan_index, meets, position, self.display_titles[position])

    def _failure(self, agent: str, first: dict[int, int], undecided: dict[int, dict]) -> ArbiterFailure | None:
        """The first throw of a verbatim arbiter, in its order: loading, then each memory's score and match.

        A throw at a whenToUse item that is not text happens only if no earlier
        pattern matches: after an undecided one, it may or may not happen.
        """
        if self.load_failure is not None:
            return self.load_failure
        name = self.profile.name
        maybe: ArbiterFailure | None = None  # the first throw that depends on an undecided pattern
        for stage, memory, detail in self._throws_for_prototype_agents if is_prototype_key(agent) else self._throws:
            if stage == "score":
                return records.replace(ArbiterFailure("score", memory.rel_path, detail, name), earlier=maybe)
            if stage == "tags":
                return records.replace(ArbiterFailure("score", memory.rel_path, _verbatim_score_failure(memory.spec.attrs, agent, self.scorer)[0], name), earlier=maybe)
            position, non_string = detail
            if first.get(position, _NEVER) >= non_string:  # reached before (or at) the pattern that matches
                item = when_items(memory.attrs)[non_string]
                failure = ArbiterFailure("match", memory.rel_path, _verbatim_type_error(item), name)
                before = [i for i in undecided.get(position, {}) if i < non_string]
                if not before:
                    return records.replace(failure, earlier=maybe)
                if maybe is None:
                    plans = memory_facts(memory).plans
                    maybe = records.replace(failure, unless=" or ".join(f"whenToUse {_short(plans[i][1].pattern)}" for i in before))
        return maybe

    def _decision(self, memory, ranked_at, first, words, now_ms, min_order, static, undecided) -> Candidate:
        """The decision for one loaded file: not loadable, throws, or scored (ranked ones are reused)."""
        if has_load_error(memory):
            return load_error_candidate(memory)
        crash = self.at_fault.get(id(memory))
        if crash is not None:
            return crashed_candidate(memory, crash)
        position = self._positions[id(memory)]
        candidate = ranked_at.get(position)
        if candidate is None:
            order = self.orders[position]
            meets = order is not None and min_order is not None and order >= min_order
            title = self.titles[position]
            candidate = self._candidate(position, first.get(position, -1), meets, now_ms, static[position], len(keyword_hits(words, title)))
            candidate._undecided = undecided.get(position)
            candidate.reason = _reason(candidate)
        return candidate


def store_index(store: Store, view, profile) -> StoreIndex:
    """The store's index for this loader view and scorer, built on first use (a store is never changed in place)."""
    key = ("index", id(view), profile.scorer, profile.name)  # views live as long as the store: their ids stay theirs
    index = store._indexes.get(key)
    if index is None:
        with no_cyclic_gc():
            index = store._indexes[key] = StoreIndex(store, view, profile)
    return index
