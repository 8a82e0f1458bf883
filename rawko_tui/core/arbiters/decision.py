"""The arbiters' decision model, and the decision for each memory -- and why.

``Preview`` is one ranking (what is injected, in what order, every memory's
``Candidate`` decision on demand); ``finish_preview`` makes the cut and the
prompt for any profile. The rules where the arbiters differ live in
``arbiters/`` (scoring, formatters, loaders, spec0005); this module follows
SPEC-0007's TypeScript as V8 would run it, quirks included, wherever the
profiles agree.

Per keystroke only task-dependent work is done: everything that depends on
the file alone (lower-cased title, importance, parsed date, compiled
patterns) is computed once per file as ``MemoryFacts``.

Where an arbiter's code would throw (a memory without a title, tags that are
not a list, a ``{pattern: …}`` map in whenToUse, one unparseable file at the
top level), it injects nothing at all. The preview then reports that failure
in ``Preview.arbiter_failure`` and, beside it, ranks the rest as a tolerant
arbiter would, so the user sees both.

A whenToUse regex rawko-tui could not decide for the task (``patterns.Undecided``)
makes its memory *undecided* (``REASON_UNDECIDED``): it is ranked as if it did
not match, and ``Preview.undecided`` lists it with its possible fates;
``Preview.certain`` says whether what is injected could change with it.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
from collections.abc import Callable

from ..records import field, record
from .formatters import PREVIEW_CHARS, PROMPT_HEADER, WHOLE_PROMPT_HEADER, content_preview, format_memories_for_prompt, prompt_header
from .profiles import DEFAULT as DEFAULT_PROFILE
from .profiles import Profile, ProfileError, resolve_profile
from .scoring import (
    AGENT_TAGS,
    COMPONENT_KEYS,
    IMPORTANCE_ORDER,
    IMPORTANCE_POINTS,
    SPEC_AGENTS,
    SPEC_SCORER,
    MemoryFacts,
    _verbatim_score_failure,
    _verbatim_type_error,
    agent_points,
    agent_tag_list,
    common_tags,
    component_explanations,
    components_dict,
    importance_points,
    keyword_hits,
    keyword_points,
    meets_threshold,
    memory_facts,
    pattern_strings,
    recency_points,
    same_agent_points,
    score_components,
    tag_points,
)
from .explain import GATE, INFO, PATTERN, SCORE, Explanation
from ..js.regexp import DEFAULT_REGEX_BUDGET_SECONDS, JsRegexUndecided
from ..js.dates import parse_iso_date
from ..js.values import UNDEFINED, JsDate, js_to_integer_or_infinity, js_to_number, js_to_string  # noqa: F401 - js_to_number: lint's import
from .patterns import PatternResult, Undecided, build_search_text, near_miss
from .places import COMPACT_FROM, FilesByKey
from ..store.reading import MemoryFile, Store

# Reasons a candidate is not injected (stable strings for --json consumers)
REASON_INJECTED = "injected"
REASON_NO_MATCH = "no-pattern-matched"
REASON_THRESHOLD = "below-importance-threshold"
REASON_CUT = "cut-by-top-n"
REASON_SUBFOLDER = "not-loaded-subfolder"
REASON_SYMLINK = "not-loaded-symlink"
REASON_EXTENSION = "not-loaded-extension"
REASON_ERROR = "not-loaded-error"
REASON_CRASH = "would-crash-arbiter"
REASON_INACTIVE = "retired-or-superseded"
REASON_SKIPPED = "skipped-by-loader"  # rawko-sdk: a file its loader passes over with a warning
REASON_STOPS = "stops-loading"  # spec-0005: the file whose error ends the loading
REASON_NOT_READ = "not-read"  # spec-0005: a file after the one that ended the loading
REASON_UNDECIDED = "match-undecided"  # a whenToUse regex rawko-tui could not decide: ranked as unmatched, said as undecided


@record(frozen=True)
class ArbiterOptions:
    """Options as ``findRelevantMemories`` receives them (raw values: config may hold anything)."""

    max_memories: object = None  # None/UNDEFINED -> 5 (the spec's "??")
    min_importance: object = None  # None/UNDEFINED -> "low"
    recursive: bool = False
    sources: dict = field(default_factory=dict)  # option -> where its value came from
    profile: Profile = DEFAULT_PROFILE
    regex_budget: float = DEFAULT_REGEX_BUDGET_SECONDS  # seconds for backtracking regexes in one ranking, in total


@record(eq=False)
class Candidate:
    file: MemoryFile
    loaded: bool
    reason: str
    title: str | None = None
    score: float = 0.0
    components: dict = field(default_factory=dict)
    matched: bool = False
    meets_threshold: bool = False
    rank: int | None = None  # position among matched memories that pass the threshold
    injected: bool = False
    load_index: int = -1
    _facts: MemoryFacts | None = None
    matched_index: int = -1  # which plan matched
    _explanation: Explanation | None = None
    _preview: Preview | None = None
    _facts_of: Callable[[], MemoryFacts] | None = field(default=None, repr=False, compare=False)  # the facts, made when first asked for (a listing of 10,000 needs none)
    _undecided: dict[int, JsRegexUndecided] | None = field(default=None, repr=False)  # pattern index -> why it is undecided (before the first sure match)

    @property
    def undecided(self) -> dict[int, Undecided]:
        """The patterns rawko-tui could not decide for this task, before the first one that surely matches (by index)."""
        if not self._undecided or self.facts is None:
            return {}
        return {index: Undecided.of(self.facts.plans[index][1].pattern, exc) for index, exc in self._undecided.items()}

    @property
    def match_undecided(self) -> bool:
        """Whether the memory's match is undecided: no pattern surely matches and one could not be decided."""
        return not self.matched and bool(self._undecided)

    @property
    def facts(self) -> MemoryFacts | None:
        """The memory's task-independent facts (None for a file that was not scored)."""
        if self._facts is None and self._facts_of is not None:
            self._facts = self._facts_of()
        return self._facts

    @property
    def scored(self) -> bool:
        """Whether the memory was scored (it has facts), without making them."""
        return self._facts is not None or self._facts_of is not None

    @property
    def path(self) -> str:
        return self.file.rel_path

    @property
    def explanation(self) -> Explanation:
        """The decision as a tree (built on first use; near misses are added by ``explain_candidate``)."""
        if self._explanation is None:
            build = self._preview._explain if self._preview is not None and self._preview._explain is not None else _build_explanation
            self._explanation = build(self, self._preview, False)
        return self._explanation

    @property
    def why(self) -> str:
        """The decision in one line: the tree's root, said without building the tree where the default builder would."""
        preview = self._preview
        if self._explanation is None and self.loaded and self.scored and preview is not None:
            if preview._explain is None:
                return _headline(self, preview)
            if preview._headline is not None:  # an unscored profile's own one-line decision
                return preview._headline(self, preview)
        return self.explanation.description

    @property
    def patterns(self) -> list[PatternResult]:
        """The patterns the spec tried, in order, up to the one that matched (an undecided one as the ranking left it)."""
        if self.facts is None or self._preview is None:
            return []
        text = self._preview.search_text
        tried = self.facts.plans if self.matched_index < 0 else self.facts.plans[: self.matched_index + 1]
        undecided = self.undecided
        return [plan.run(text, undecided.get(index)) for index, (_, plan) in enumerate(tried) if plan is not None]

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "title": self.title,
            "loaded": self.loaded,
            "matched": self.matched,
            "meetsThreshold": self.meets_threshold,
            "score": self.score,
            "components": self.components,
            "rank": self.rank,
            "injected": self.injected,
            "reason": self.reason,
            "why": self.why,
            "undecided": [u.to_dict() for u in self.undecided.values()] if self._undecided else None,
        }


class RowShape:
    """What rows of one listing alike in all but their file and title share, by identity: a writer of 10,000 rows
    writes the rest of each once per shape instead of comparing every row's fields."""

    __slots__ = ()


class ListedDecision:
    """A decision as a listing shows it, for the two kinds a store holds by the thousand: a file the loader
    passes over, and a scored memory no pattern matched. It answers what a listing reads of a ``Candidate``
    (``Preview.listing``), and is made in a fraction of the time: a listing of 10,000 memories builds the
    full decision (facts, explanation) only for the memories that need more than one line. Its ``score`` and
    ``components`` are None where the listing shows neither (``listing(scores=False)``)."""

    __slots__ = ("file", "loaded", "reason", "title", "score", "components", "meets_threshold", "why", "shape")
    matched = False
    rank = None
    injected = False
    match_undecided = False
    _undecided = None

    def __init__(self, file: MemoryFile, loaded: bool, reason: str, title: str | None, score: float, components: dict, meets: bool, why: str, shape: RowShape | None = None):
        self.file = file
        self.loaded = loaded
        self.reason = reason
        self.title = title
        self.score = score
        self.components = components
        self.meets_threshold = meets
        self.why = why
        self.shape = shape  # shared by the rows of one listing alike in all but their file and title; None: unknown

    @property
    def path(self) -> str:
        return self.file.rel_path

    to_dict = Candidate.to_dict  # the same dict, read from the same names (``_undecided`` None: no undecided patterns)


@record(frozen=True)
class ArbiterFailure:
    """Where an arbiter running its code verbatim would throw, and what it would say."""

    stage: str  # load | score | match | format
    path: str
    error: str
    profile: str = "spec-0007"  # whose code throws
    unless: str | None = None  # it throws only if an earlier pattern rawko-tui could not decide does not match (that pattern)
    earlier: ArbiterFailure | None = None  # a throw before this one that depends on an undecided pattern (this one is sure)

    def to_dict(self) -> dict:
        out = {"stage": self.stage, "path": self.path, "error": self.error, "profile": self.profile, "undecided": self.unless is not None}
        if self.unless is not None:
            out["unless"] = self.unless
        if self.earlier is not None:
            out["earlier"] = self.earlier.to_dict()
        return out

    @property
    def certain(self) -> bool:
        """Whether the run surely throws (it may be undecided where, not whether)."""
        return self.unless is None

    def describe(self) -> str:
        who = "An arbiter running SPEC-0007's code verbatim" if self.profile == "spec-0007" else f"{self.profile}"
        if self.unless is not None:
            return (
                f"{who} may throw while {self._stage_words()} {self.path}: {self.error}, and inject nothing at all: "
                f"it does unless {self.unless} matches, which rawko-tui could not decide."
            )
        said = f"{who} throws while {self._stage_words()} {self.path}: {self.error}. It injects nothing at all."
        if self.earlier is not None:
            said += f" (If {self.earlier.unless} does not match, it throws earlier, at {self.earlier.path}: {self.earlier.error}.)"
        return said

    def _stage_words(self) -> str:
        return {"load": "loading", "score": "scoring", "match": "matching", "format": "formatting"}[self.stage]


# how the ranking beside a failure reads the file at fault when it keeps it
_TOLERANT_READING = {
    "match": "its {pattern: …} items read as their pattern string",
    "format": "its importance written as it is",
    "score": "scored as rawko-tui reads it",
}


@record
class Preview:
    """One ranking: what is injected, in what order, and (on demand) every memory's decision.

    ``injected`` and the prompt are computed with the ranking; ``ranked``
    (every memory that matched and passed the threshold, best first) and
    ``candidates`` (one per memory file) are built on first use, so a
    keystroke pays only for what it shows.
    """

    task: str
    agent: str
    now_ms: float
    max_memories: object
    min_importance: object
    recursive: bool
    injected: list[Candidate]
    prompt: str
    errors: list
    arbiter_failure: ArbiterFailure | None
    notes: list[str]
    option_sources: dict
    search_text: str = ""
    view: str = "spec"
    ranked_count: int = 0
    profile: Profile = DEFAULT_PROFILE
    order_note: str = ""
    _plan_prompt: str | None = field(default=None, repr=False)  # ``plan_prompt``, once made
    _plan_prompt_of: Callable[[], str] | None = field(default=None, repr=False)  # makes it (a profile with a planning prompt)
    _explain: Callable | None = field(default=None, repr=False)  # (candidate, preview, near misses) -> Explanation
    _headline: Callable | None = field(default=None, repr=False)  # (candidate, preview) -> _explain's root, said without the tree
    _ranked: list[Candidate] | None = field(default=None, repr=False)
    _build_ranked: Callable[[], list[Candidate]] | None = field(default=None, repr=False)
    _candidates: list[Candidate] | None = field(default=None, repr=False)
    _build_candidates: Callable[[Preview], list[Candidate]] | None = field(default=None, repr=False)
    _build_listing: Callable[[Preview, bool], list] | None = field(default=None, repr=False)  # ``listing``, where an index makes it apart
    _counts: dict[str, int] | None = field(default=None, repr=False)
    _lookup: Callable[[Preview, str], Candidate | None] | None = field(default=None, repr=False)
    undecided: list[Candidate] = field(default_factory=list)  # memories whose match rawko-tui could not decide, load order
    unsure_regexes: list[JsRegexUndecided] = field(default_factory=list)  # every search the ranking left undecided (one per regex)
    regex_budget: float = DEFAULT_REGEX_BUDGET_SECONDS  # what the ranking gave backtracking regexes
    regex_spent: float = 0.0  # what they took of it
    _order: Callable[[list[Candidate]], list[Candidate]] | None = field(default=None, repr=False)  # the profile's sort of matched memories (load order in)

    @property
    def plan_prompt(self) -> str | None:
        """rawko-sdk: the planning prompt's memory section (every loaded memory), made when first asked for (a
        ranking that only injects never formats every memory); None for a profile without one."""
        if self._plan_prompt is None and self._plan_prompt_of is not None:
            self._plan_prompt = self._plan_prompt_of()
        return self._plan_prompt

    @property
    def certain(self) -> bool:
        """Whether what is injected (and so the prompt) is decided: no undecided match or throw could change it."""
        return not self.uncertain_reasons

    @property
    def uncertain_reasons(self) -> list[str]:
        """Why what is injected may differ from what is shown, one sentence each (empty: it is decided)."""
        reasons = []
        failure = self.arbiter_failure
        if failure is not None and not failure.certain:
            reasons.append(f"whether the arbiter throws (and injects nothing) depends on {failure.unless}")
        for candidate in self.undecided:
            if_matched = fate_if_matched(candidate, self)
            if if_matched.changes:
                reasons.append(f"{candidate.path} is {if_matched.words} if {_undecided_words(candidate)} matches")
        return reasons

    @property
    def reason_counts(self) -> dict[str, int]:
        """How many memory files end with each reason (``REASON_*``), without building every candidate."""
        if self._counts is None:
            counts: dict[str, int] = {}
            for candidate in self.candidates:
                counts[candidate.reason] = counts.get(candidate.reason, 0) + 1
            self._counts = counts
        return self._counts

    @property
    def ranked(self) -> list[Candidate]:
        """The memories that matched and passed the threshold, best first (the injected ones lead)."""
        if self._ranked is None:
            ranked = self._build_ranked() if self._build_ranked is not None else []
            cut = len(self.injected)
            for position, candidate in enumerate(ranked, start=1):
                candidate.rank = position
                candidate.injected = position <= cut
                candidate.reason = _reason(candidate)
                candidate._preview = self
            self._ranked = ranked
        return self._ranked

    @property
    def candidates(self) -> list[Candidate]:
        """Every memory file's decision, in the arbiter's order (not loaded first, then load order)."""
        if self._candidates is None:
            built = self._build_candidates(self) if self._build_candidates is not None else []
            for candidate in built:
                candidate._preview = self
            self._candidates = built
        return self._candidates

    def listing(self, scores: bool = True) -> list:
        """Every memory file's decision as a listing shows it, in ``candidates``' order: a ``ListedDecision`` for a
        file passed over or a memory no pattern matched, where the index makes them apart; ``Candidate``s otherwise
        (the very ones ``candidates`` holds). Same answers, made once per call (a listing is written once).
        ``scores`` False: an unmatched memory's score and components are not worked out (None: a text listing
        shows neither)."""
        if self._candidates is None and self._build_listing is not None:
            return self._build_listing(self, scores)
        return self.candidates

    def keep_outcome_only(self) -> None:
        """Let go of what made this ranking (the index behind ``ranked``, ``candidates`` and ``candidate``, which
        then raise): what it injects, its prompt and its failure stay. A comparison keeps the other profiles'
        rankings so once their differences are found."""
        self._ranked = self._candidates = self._lookup = None
        self._build_ranked = self._build_candidates = self._build_listing = _outcome_only
        for candidate in (*self.injected, *self.undecided):
            if candidate._facts_of is not None:  # it makes the facts from the index (spec-0005's): made now, the index let go
                candidate.facts  # noqa: B018
                candidate._facts_of = None
        if self._plan_prompt is None and self._plan_prompt_of is not None:
            self._plan_prompt_of = _outcome_only  # it would keep the view alive

    def failure_banner(self) -> str:
        """Where a verbatim arbiter throws, and exactly what the ranking shown beside it is."""
        failure = self.arbiter_failure
        if failure is None:
            return ""
        at_fault = self.candidate(failure.path)
        if at_fault is None or not at_fault.loaded or at_fault.reason == REASON_CRASH:
            return failure.describe() + " Below: the ranking without that file."
        reading = _TOLERANT_READING.get(failure.stage, "read as rawko-tui reads it")
        return failure.describe() + f" Below: the ranking with that file included, {reading}."

    def candidate(self, path: str) -> Candidate | None:
        """One memory's decision, by its path in the store, its name, or the end of its path."""
        if self._candidates is None and self._lookup is not None:
            found = self._lookup(self, path)  # one decision, without building them all
            if found is not None:
                found._preview = self
                return found
        for c in self.candidates:
            if path in (c.path, c.file.name, os.fspath(c.file.location)) or c.path.endswith(path):
                return c
        return None


def _outcome_only(*_) -> list[Candidate]:
    raise RuntimeError("this ranking kept only what it injects (Preview.keep_outcome_only)")


# --------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------


def iso_from_ms(ms: float) -> str:
    """An instant as JavaScript's ``toISOString`` writes it (``2026-01-24T12:00:00.000Z``)."""
    return JsDate(ms).iso()


def configured_profile(store: Store) -> Profile:
    """The store's ``arbiter:`` (rawko-tui.yaml), or the default when it is unset or unusable (lint says why)."""
    try:
        return resolve_profile(store.config)[0]
    except ProfileError:
        return DEFAULT_PROFILE


def resolve_options(store: Store, agent: str, max_memories=None, min_importance=None, recursive=None, profile: Profile | None = None) -> ArbiterOptions:
    """Command-line values over the agent's ``memory:`` config (when the profile reads it) over the profile's defaults.

    ``profile`` defaults to the store's own (``arbiter:`` in rawko-tui.yaml).
    """
    profile = profile or configured_profile(store)
    sources: dict[str, str] = {}
    config = store.agents[agent].memory_config if agent in store.agents and profile.agent_settings else {}

    def pick(option: str, given: object, key: str) -> object:
        if given is not None:
            sources[option] = "option"
            return given
        if key in config:
            sources[option] = f"{store.agents[agent].path} (memory.{key})"
            return config[key]
        sources[option] = "spec default" if profile.name == "spec-0007" else f"{profile.name} default"
        return UNDEFINED

    chosen_max = pick("maxMemories", max_memories, "maxInjected")
    chosen_min = pick("minImportance", min_importance, "minImportance")
    if recursive is None:
        configured = store.config.get("recursive")
        # anything but true or false (``recursive: maybe``) is reported by lint and the default used
        recursive = configured is True
        sources["recursive"] = ".rawko/rawko-tui.yaml" if isinstance(configured, bool) else "spec default"
    else:
        sources["recursive"] = "option"
    return ArbiterOptions(chosen_max, chosen_min, recursive, sources, profile)


def _nullish(value: object) -> bool:
    return value is None or value is UNDEFINED


def slice_end(max_memories: object, length: int) -> int:
    """``Array.prototype.slice(0, max)``'s end index (negative counts from the end)."""
    integer = js_to_integer_or_infinity(max_memories)
    if integer < 0:
        return int(max(length + integer, 0))
    return int(min(integer, length))


# --------------------------------------------------------------------------
# The whole decision
# --------------------------------------------------------------------------


def not_loaded_gate(memory: MemoryFile, recursive: bool) -> tuple[str, str] | None:
    """(reason, why) when the spec's loader does not list the file or the effective view leaves it out."""
    if not memory.spec_loadable:
        if memory.symlink:
            return REASON_SYMLINK, "not loaded: a symlink is not a file to the spec's loader (Deno readDir)"
        if not memory.name.endswith(".md"):
            return REASON_EXTENSION, "not loaded: the spec's loader only reads names ending in '.md'"
        if not recursive:
            return REASON_SUBFOLDER, "not loaded by a SPEC-0007 arbiter (top level only)"
    inactive = memory.inactive
    if inactive is not None and not inactive.active:
        return REASON_INACTIVE, f"not used: {inactive.why} (entry {inactive.entry + 1})"
    return None


class FilesByPath:
    """Each file by its path in the store or by its name, later files over earlier ones on an equal key
    (``files_by_path``). The first lookup looks through the files from the last (``explain`` asks for one); from
    the second on they are mapped, once (a large store's compactly: ``places``)."""

    __slots__ = ("files", "asked", "mapped")

    def __init__(self, files: list[MemoryFile]):
        self.files, self.asked, self.mapped = files, False, None

    def get(self, key: str) -> MemoryFile | None:
        if self.mapped is None:
            if not self.asked:
                self.asked = True
                return next((memory for memory in reversed(self.files) if memory.rel_path == key or memory.name == key), None)
            self.mapped = files_by_path(self.files) if len(self.files) < COMPACT_FROM else FilesByKey(self.files)
        return self.mapped.get(key)


def files_by_path(files: list[MemoryFile]) -> dict[str, MemoryFile]:
    """Each file by its path in the store and by its name, later files over earlier ones on an equal key (a
    name inside a folder named ``.rawko/memories`` spells another file's path): a lookup of one decision.
    The keys are laid out in C, two slices of one list, not a loop of two per file."""
    keys: list = [None] * (2 * len(files))
    keys[0::2] = [memory.rel_path for memory in files]
    keys[1::2] = [memory.name for memory in files]
    return dict(zip(keys, [memory for memory in files for _ in (0, 1)]))


def has_load_error(memory: MemoryFile) -> bool:
    """A file the loader cannot read or parse (a frontmatter that is not a mapping loads, and throws later)."""
    return memory.error is not None and memory.error.stage != "shape"


def load_error_candidate(memory: MemoryFile) -> Candidate:
    return _not_loaded(memory, REASON_ERROR, f"not loaded: {memory.error.reason}")


def crashed_candidate(memory: MemoryFile, crash: str) -> Candidate:
    """A memory the spec's scoring throws on (a tolerant arbiter skips it)."""
    reason = REASON_ERROR if memory.error is not None else REASON_CRASH
    why = memory.error.reason if memory.error is not None else "the spec's scoring throws on it"
    return _not_loaded(memory, reason, f"skipped: {why} ({crash})")


def scored_candidate(
    memory: MemoryFile, facts: MemoryFacts | None, components: dict, matched_index: int, meets: bool, load_index: int, title: str | None = None
) -> Candidate:
    """A loaded memory's decision before ranking: its score is its components' sum, capped at 100.

    ``facts`` None: they are made when first asked for (the title is the frontmatter's, as in the facts,
    or ``title``: the rank index keeps it, and a listing then reads no memory's frontmatter).
    """
    return Candidate(
        memory,
        True,
        REASON_NO_MATCH,
        title=facts.title if facts is not None else title if title is not None else memory.attrs["title"],
        score=min(100, sum(components.values())),
        components=components,
        matched=matched_index >= 0,
        meets_threshold=meets,
        load_index=load_index,
        _facts=facts,
        matched_index=matched_index,
        _facts_of=None if facts is not None else functools.partial(memory_facts, memory),
    )


def _not_loaded(memory: MemoryFile, reason: str, why: str) -> Candidate:
    title = _listed_title(memory)
    gate = Explanation(0, why, match=False, kind=GATE)
    candidate = Candidate(memory, False, reason, title=title)
    candidate._explanation = Explanation(0, f"not injected: {why}", (gate,), match=False, kind=SCORE)
    return candidate


def _listed_title(memory: MemoryFile) -> str | None:
    """A file's title as a decision it was not scored for shows it: the frontmatter's, where it is text."""
    title = memory.attrs.get("title")
    return title if isinstance(title, str) else None


def listed_not_loaded(memory: MemoryFile, reason: str, why: str) -> ListedDecision:
    """``_not_loaded``'s decision as a listing shows it (its headline is the explanation's root)."""
    return ListedDecision(memory, False, reason, _listed_title(memory), 0.0, {}, False, f"not injected: {why}")


NO_MATCH_HEADLINE = "not injected: no whenToUse pattern matched"


def finish_preview(
    store: Store,
    task: str,
    agent: str,
    options: ArbiterOptions,
    now_ms: float,
    ranked_count: int,
    best: Callable[[int], list[Candidate]],
    build_ranked: Callable[[], list[Candidate]],
    failure: ArbiterFailure | None,
    build_candidates: Callable[[Preview], list[Candidate]],
    counts: dict[str, int] | None = None,
    lookup: Callable[[Preview, str], Candidate | None] | None = None,
    undecided: list[Candidate] | None = None,
) -> Preview:
    """The top-N cut, the prompt and the last possible throw (formatting).

    ``best(n)`` gives the first n ranked memories; ``build_ranked()`` all of
    them, the same objects first, when someone asks for ``Preview.ranked``.
    """
    profile = options.profile
    max_memories, min_importance = _effective_limits(options)
    cut = ranked_count if max_memories is None else slice_end(max_memories, ranked_count)
    injected = best(cut)
    for position, candidate in enumerate(injected, start=1):
        candidate.rank = position
        candidate.injected = True
        candidate.reason = REASON_INJECTED
    for candidate in injected:
        importance = candidate.file.attrs.get("importance")
        if profile.formatter == "spec-0007" and not isinstance(importance, str) and failure is None:
            failure = ArbiterFailure("format", candidate.path, "TypeError: memory.frontmatter.importance.toUpperCase is not a function", profile.name)
    preview = Preview(
        task=task,
        agent=agent,
        now_ms=now_ms,
        max_memories=max_memories,
        min_importance=min_importance,
        recursive=options.recursive,
        injected=injected,
        prompt=format_memories_for_prompt(injected, profile.formatter),
        errors=store.errors,
        arbiter_failure=failure,
        notes=_option_notes(options, max_memories, min_importance, agent, store),
        option_sources=dict(options.sources),
        search_text=build_search_text(task, agent),
        view=store.view,
        ranked_count=ranked_count,
        profile=profile,
        _build_ranked=build_ranked,
        _build_candidates=build_candidates,
        _lookup=lookup,
        undecided=list(undecided or ()),
        regex_budget=options.regex_budget,
    )
    if counts is not None:  # the reasons not decided by the cut are known; the cut splits the ranked ones
        counts = {**counts, REASON_INJECTED: cut, REASON_CUT: ranked_count - cut}
        preview._counts = {reason: n for reason, n in counts.items() if n}
    for candidate in [*injected, *preview.undecided]:
        candidate._preview = preview
    for candidate in preview.undecided:
        candidate.reason = _reason(candidate)
    return preview


def unsure_regexes(per_memory) -> list[JsRegexUndecided]:
    """One undecided search per regex, from the undecided patterns of each memory (``{pattern index: JsRegexUndecided}`` maps)."""
    found: dict[str, JsRegexUndecided] = {}
    for by_pattern in per_memory:
        for exc in (by_pattern or {}).values():
            found.setdefault(exc.source, exc)
    return list(found.values())


def _effective_limits(options: ArbiterOptions) -> tuple[object, object]:
    """maxMemories and minImportance after the ``??`` defaults (the profile's: None is no cap)."""
    profile = options.profile
    max_memories = profile.max_memories if _nullish(options.max_memories) else options.max_memories
    min_importance = profile.min_importance if _nullish(options.min_importance) else options.min_importance
    return max_memories, min_importance


def _reason(candidate: Candidate) -> str:
    if candidate.injected:
        return REASON_INJECTED
    if candidate.match_undecided:
        return REASON_UNDECIDED
    if not candidate.matched:
        return REASON_NO_MATCH
    if not candidate.meets_threshold:
        return REASON_THRESHOLD
    return REASON_CUT


def _loader_error_text(memory: MemoryFile) -> str:
    error = memory.error
    if error.stage == "frontmatter":
        return "TypeError: Unexpected end of input (no frontmatter)"
    if error.stage == "read":
        return f"the file cannot be read ({error.reason})"
    return f"YAMLError: {error.reason}"


def _pattern_gate(candidate: Candidate, preview: Preview, with_near_miss: bool) -> Explanation:
    facts = candidate.facts
    text = preview.search_text
    details: list[Explanation] = []
    results = candidate.patterns
    for result in results:
        desc = f"{result.pattern!r}: {result.describe()}"
        if result.matched:
            if result.interpretation == "alternatives":
                desc += f" -- matched {result.matched_alternative!r}"
            elif result.span:
                desc += f" -- matched at {result.span[0]}-{result.span[1]}"
        elif result.undecided is not None:
            desc += f" -- undecided on {_short(text)}: {result.undecided.reason}"
        else:
            desc += " -- no match"
        sub = [Explanation(0, reason, match=False, kind=INFO) for reason in result.fell_through]
        sub += [Explanation(0, note, match=not result.matched, kind=INFO) for note in result.notes]
        if result.undecided is not None:
            sub.append(Explanation(0, what_decides(result.undecided), match=False, kind=INFO, undecided=True, data={"text": text}))
        elif not result.matched and with_near_miss:
            miss = near_miss(result, text)
            if miss:
                sub.append(
                    Explanation(
                        0,
                        f"closest: {miss[0]!r} ~ {miss[1]!r} in the task ({miss[2]:g}% similar)",
                        match=False,
                        kind=INFO,
                        data={"needle": miss[0], "fragment": miss[1], "similarity": miss[2]},
                    )
                )
        data = {"pattern": result.pattern, "interpretation": result.interpretation, "span": list(result.span) if result.span else None, "engine": result.engine}
        if result.undecided is not None:
            data["undecided"] = result.undecided.to_dict()
        details.append(Explanation(0, desc, tuple(sub), match=result.matched, kind=PATTERN, data=data, undecided=result.undecided is not None))
    if candidate.matched_index >= 0:
        for _, plan in facts.plans[candidate.matched_index + 1 :]:
            if plan is not None:
                details.append(Explanation(0, f"{plan.pattern!r}: not tried (an earlier pattern matched)", match=False, kind=PATTERN, tried=False))
    for note in facts.pattern_notes:
        details.append(Explanation(0, note, match=False, kind=INFO))
    if candidate.matched:
        if candidate.undecided:
            details.append(Explanation(0, "an earlier pattern is undecided, but this one matches: the memory matches either way", kind=INFO))
        return Explanation(0, "whenToUse: a pattern matches", tuple(details), match=True, kind=GATE)
    if candidate.match_undecided:
        return Explanation(0, f"whenToUse: undecided: rawko-tui could not decide whether {_undecided_words(candidate)} matches", tuple(details), match=False, kind=GATE, undecided=True)
    if not results:
        return Explanation(0, "whenToUse: no usable pattern, so it never matches", tuple(details), match=False, kind=GATE)
    return Explanation(0, "whenToUse: no pattern matches the task and agent", tuple(details), match=False, kind=GATE)


def what_decides(undecided: Undecided) -> str:
    """What would decide an undecided pattern, in words."""
    if not undecided.decidable:
        return f"no time decides it here: {undecided.reason}; only V8 itself (the real arbiter) can say"
    more = f"{max(10.0, 10 * (undecided.seconds or 0)):g}s"
    if undecided.kind == "too-large":
        return (
            f"what decides it: a worker process with a memory limit, given time with --regex-budget (e.g. --regex-budget {more}) on preview, "
            "explain or check; V8 compiles and runs it, which may itself take long"
        )
    if undecided.kind == "memory":
        return f"a worker process ran out of the memory it is allowed ({undecided.reason}); V8 may too"
    return (
        f"what decides it: more time, e.g. --regex-budget {more} on preview, explain or check; V8 runs it to the end on its own "
        "backtracking engine, which may take as long and hold up the real arbiter"
    )


def _undecided_words(candidate: Candidate) -> str:
    """The undecided pattern(s) of a memory, as a sentence names them."""
    patterns = [_short(u.pattern) for u in candidate.undecided.values()]
    if not patterns:
        return "its whenToUse"
    return f"whenToUse {patterns[0]}" if len(patterns) == 1 else "one of its whenToUse patterns " + ", ".join(patterns)


def _short(pattern: str, limit: int = 80) -> str:
    """A pattern quoted for a sentence: a long one cut, with its length said."""
    return repr(pattern) if len(pattern) <= limit else f"{pattern[: limit - 20]!r}… ({len(pattern):,} characters)"


@record(frozen=True)
class Fate:
    """What becomes of an undecided memory if its pattern matches, and whether that changes what is injected."""

    words: str
    changes: bool


def fate_if_matched(candidate: Candidate, preview: Preview) -> Fate:
    """The memory's fate if its undecided pattern matches (every other memory as decided).

    Each other undecided memory that matches can only push it further down,
    so one that is not injected this way is not injected at all.
    """
    failure = preview.arbiter_failure
    if failure is not None and failure.certain and failure.stage != "format":
        return Fate("not injected either way (the arbiter throws and injects nothing)", False)
    if not preview.profile.scored:
        if preview.max_memories is None:
            return Fate(f"injected ({preview.profile.name} injects every match, by importance)", True)
        return Fate("injected or cut by the --max option, by its importance", True)
    if not candidate.meets_threshold:
        return Fate(f"not injected either way: {_threshold_description(candidate, preview)}", False)
    ranked = preview.ranked
    key = (-candidate.score, candidate.load_index)
    rank = 1 + sum(1 for c in ranked if (-c.score, c.load_index) < key)
    cut = len(preview.injected)
    cut_with = len(ranked) + 1 if preview.max_memories is None else slice_end(preview.max_memories, len(ranked) + 1)
    if rank <= cut_with:
        pushed = f", pushing {ranked[cut - 1].path} out" if cut_with == cut and 0 < cut <= len(ranked) else ""
        return Fate(f"injected at rank {rank} with a score of {candidate.score:g}{pushed}", True)
    if cut_with != cut:
        return Fate(f"ranked {rank}: the top-N limit then keeps {cut_with} memories instead of {cut}", True)
    return Fate(f"not injected either way: it would rank {rank}, past the top-{cut} limit (score {candidate.score:g})", False)


@record(frozen=True)
class Outcome:
    """One injection the undecided matches allow: the memories injected (by file name), or a throw that injects nothing."""

    names: tuple[str, ...]
    throws: bool = False


def possible_outcomes(preview: Preview, limit: int = 6) -> list[Outcome] | None:
    """Every injection the undecided matches allow, the one shown (nothing undecided matches) first.

    Each memory whose match is undecided and could change what is injected
    either matches or not: with ``limit`` such memories or fewer, every
    combination is ranked; more, or a throw that depends on an undecided
    pattern, and None is returned (the outcomes are not listed).
    """
    failure = preview.arbiter_failure
    if failure is not None and not failure.certain:
        return None
    if failure is not None and failure.stage != "format":
        return [Outcome((), True)]
    changers = [c for c in preview.undecided if fate_if_matched(c, preview).changes]
    if len(changers) > limit:
        return None
    outcomes = [_outcome(preview, ())]
    for size in range(1, len(changers) + 1):
        for extra in itertools.combinations(changers, size):
            outcome = _outcome(preview, extra)
            if outcome not in outcomes:
                outcomes.append(outcome)
    return outcomes


def _outcome(preview: Preview, extra: tuple[Candidate, ...]) -> Outcome:
    """What is injected if the undecided memories ``extra`` match (and no other does)."""
    pool = sorted([*preview.ranked, *(c for c in extra if c.meets_threshold)], key=lambda c: c.load_index)
    ranked = preview._order(pool) if preview._order is not None else sorted(pool, key=lambda c: -c.score)  # stable: ties keep load order
    cut = len(ranked) if preview.max_memories is None else slice_end(preview.max_memories, len(ranked))
    injected = ranked[:cut]
    if preview.profile.formatter == "spec-0007" and any(not isinstance(c.file.attrs.get("importance"), str) for c in injected):
        return Outcome((), True)  # formatting its importance throws
    return Outcome(tuple(c.file.name for c in injected))


def undecided_headline(candidate: Candidate, preview: Preview) -> str:
    """The decision of a memory whose match rawko-tui could not decide."""
    first = next(iter(candidate.undecided.values()), None)
    why = f" ({first.reason})" if first is not None else ""
    return f"undecided: rawko-tui could not decide whether {_undecided_words(candidate)} matches{why}; if it does: {fate_if_matched(candidate, preview).words}; if not: not injected"


def _threshold_description(candidate: Candidate, preview: Preview) -> str:
    importance = candidate.facts.importance_key
    minimum = js_to_string(preview.min_importance)
    if importance in IMPORTANCE_ORDER and minimum in IMPORTANCE_ORDER:
        return f"importance {importance} {'≥' if candidate.meets_threshold else '<'} minimum {minimum}"
    if minimum not in IMPORTANCE_ORDER:
        return f"minimum importance {minimum!r} is not a level: the spec compares with undefined, which is always false"
    return f"importance {importance!r} is not a level: the spec compares undefined, which is always false"


def _headline(candidate: Candidate, preview: Preview) -> str:
    """The root of the decision's tree, said without building the tree (a listing of 10,000 needs only this)."""
    if candidate.injected:
        return f"injected at rank {candidate.rank} of {len(preview.injected)}, score {candidate.score:g}"
    if candidate.match_undecided:
        return undecided_headline(candidate, preview)
    if not candidate.matched:
        return NO_MATCH_HEADLINE
    if not candidate.meets_threshold:
        headline = f"not injected: {_threshold_description(candidate, preview)}"
        if candidate.facts.importance_key in IMPORTANCE_ORDER and js_to_string(preview.min_importance) in IMPORTANCE_ORDER:
            headline += f" (would be considered if importance were {js_to_string(preview.min_importance)} or higher)"
        return headline
    return "not injected: " + _cut_description(candidate, preview)


def _build_explanation(candidate: Candidate, preview: Preview, with_near_miss: bool) -> Explanation:
    components = component_explanations(candidate.facts, preview.task, preview.agent, preview.now_ms, preview.profile)
    assert min(100, sum(c.value for c in components)) == candidate.score, "explanation and ranking disagree"
    gates = [_pattern_gate(candidate, preview, with_near_miss)]
    gates.append(Explanation(0, _threshold_description(candidate, preview), match=candidate.meets_threshold, kind=GATE))
    cut = len(preview.injected)
    if candidate.rank is not None:
        if candidate.injected:
            gates.append(Explanation(0, f"rank {candidate.rank} within the top {cut} (max {js_to_string(preview.max_memories)})", kind=GATE))
        else:
            gates.append(Explanation(0, _cut_description(candidate, preview), match=False, kind=GATE))
    return Explanation(
        candidate.score, _headline(candidate, preview), tuple(components) + tuple(gates), match=candidate.injected, kind=SCORE, undecided=candidate.match_undecided
    )


def _cut_description(candidate: Candidate, preview: Preview) -> str:
    cut = len(preview.injected)
    if cut == 0:
        return f"cut: the top-N limit (max {js_to_string(preview.max_memories)}) keeps none"
    last = preview.injected[-1]
    # ties keep load order: an earlier file needs only an equal score
    needed = last.score if candidate.load_index < last.load_index else last.score + 1
    return f"cut by the top-{cut} limit at rank {candidate.rank}; needs a score of {needed:g} to be injected (has {candidate.score:g})"


def explain_candidate(preview: Preview, candidate: Candidate) -> Explanation:
    """The full tree for one memory, including near misses for unmatched patterns."""
    if not candidate.loaded:
        return candidate.explanation
    build = preview._explain or _build_explanation  # an unscored profile explains itself (spec-0005)
    candidate._explanation = build(candidate, preview, True)
    return candidate._explanation


def _option_notes(options: ArbiterOptions, max_memories, min_importance, agent: str, store: Store) -> list[str]:
    notes = []
    profile = options.profile
    if not profile.agent_settings and agent in store.agents and store.agents[agent].memory_config:
        notes.append(f"{agent}'s memory: settings are not applied: {profile.name} never reads them.")
    if any("memory." in str(v) for v in options.sources.values()) and profile.name == "spec-0007":
        notes.append(
            "Options from the agent's memory config were applied. SPEC-0007's buildAgentPrompt, as written, "
            "calls findRelevantMemories without options (defaults: 5, low)."
        )
    if profile.agent_settings and agent in store.agents and "scoreBonus" in store.agents[agent].memory_config:
        notes.append("memory.scoreBonus appears in SPEC-0007's configuration example but not in its code; it is not applied.")
    if js_to_string(min_importance) not in IMPORTANCE_ORDER:
        notes.append(f"minImportance {js_to_string(min_importance)!r} is not a level, so no memory passes the threshold.")
    return notes


def parse_now(text: str) -> float:
    """A ``--now`` value: an ISO 8601 date or date-time (offset optional, local time without one)."""
    ms = parse_iso_date(text)
    if math.isnan(ms):
        raise ValueError(f"{text!r} is not an ISO 8601 date or date-time (e.g. 2026-01-24T12:00:00Z)")
    return ms
