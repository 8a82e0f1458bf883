"""SPEC-0007's arbiter, exactly: load, match, score, select, format -- and why.

Everything here follows the TypeScript in SPEC-0007 (``004_…``) as V8 would
run it, quirks included, and records an ``Explanation`` while it computes,
so the explanation and the score cannot disagree (the score *is* the sum of
the explanation's components).

Where the spec's code would throw (a memory without a title, tags that are
not a list, a ``{pattern: …}`` map in whenToUse, one unparseable file at the
top level), a verbatim arbiter injects nothing at all.  The preview then
reports that failure in ``Preview.arbiter_failure`` and, beside it, ranks the
rest as a tolerant arbiter would, so the user sees both.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from .explain import COMPONENT, GATE, INFO, PATTERN, SCORE, Explanation
from .jsvalue import (
    UNDEFINED,
    from_utf16_units,
    is_prototype_key,
    js_new_date,
    js_split_whitespace,
    js_to_string,
    js_truthy,
    parse_js_date_string,
    utf16_units,
)
from .patterns import PatternResult, build_search_text, match_pattern, near_miss
from .store import MemoryFile, Store

IMPORTANCE_POINTS = {"low": 5, "medium": 15, "high": 25, "critical": 30}
IMPORTANCE_ORDER = {"low": 0, "medium": 1, "high": 2, "critical": 3}
AGENT_TAGS = {
    "planner": ["planning", "structure", "analysis"],
    "developer": ["implementation", "code", "patterns"],
    "tester": ["testing", "validation", "quality"],
    "reviewer": ["review", "quality", "standards"],
}
SPEC_AGENTS = tuple(AGENT_TAGS)
DEFAULT_MAX_MEMORIES = 5
DEFAULT_MIN_IMPORTANCE = "low"
PREVIEW_CHARS = 500

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


@dataclass(frozen=True)
class ArbiterOptions:
    """Options as ``findRelevantMemories`` receives them (raw values: config may hold anything)."""

    max_memories: object = None  # None/UNDEFINED -> 5 (the spec's "??")
    min_importance: object = None  # None/UNDEFINED -> "low"
    recursive: bool = False
    sources: dict = field(default_factory=dict)  # option -> where its value came from


@dataclass
class Candidate:
    file: MemoryFile
    loaded: bool
    reason: str
    explanation: Explanation
    title: str | None = None
    score: float = 0.0
    components: dict = field(default_factory=dict)
    matched: bool = False
    patterns: list[PatternResult] = field(default_factory=list)
    meets_threshold: bool = False
    rank: int | None = None  # position among matched memories that pass the threshold
    injected: bool = False
    load_index: int = -1
    component_nodes: list[Explanation] = field(default_factory=list)
    pattern_notes: list[str] = field(default_factory=list)
    untried_patterns: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.file.rel_path

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
            "why": self.explanation.description,
        }


@dataclass(frozen=True)
class ArbiterFailure:
    """Where a verbatim SPEC-0007 arbiter would throw, and what it would say."""

    stage: str  # load | score | match | format
    path: str
    error: str

    def to_dict(self) -> dict:
        return {"stage": self.stage, "path": self.path, "error": self.error}

    def describe(self) -> str:
        return (
            f"An arbiter running SPEC-0007's code verbatim throws while {self._stage_words()} {self.path}: "
            f"{self.error}. It injects nothing at all."
        )

    def _stage_words(self) -> str:
        return {"load": "loading", "score": "scoring", "match": "matching", "format": "formatting"}[self.stage]


@dataclass
class Preview:
    task: str
    agent: str
    now_ms: float
    max_memories: object
    min_importance: object
    recursive: bool
    candidates: list[Candidate]
    injected: list[Candidate]
    prompt: str
    errors: list
    arbiter_failure: ArbiterFailure | None
    notes: list[str]
    option_sources: dict

    def candidate(self, path: str) -> Candidate | None:
        for c in self.candidates:
            if path in (c.path, c.file.name, str(c.file.path)) or c.path.endswith(path):
                return c
        return None


# --------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------


def resolve_options(store: Store, agent: str, max_memories=None, min_importance=None, recursive=None) -> ArbiterOptions:
    """Command-line values over the agent's ``memory:`` config over the spec's defaults."""
    sources: dict[str, str] = {}
    config = store.agents[agent].memory_config if agent in store.agents else {}

    def pick(option: str, given: object, key: str) -> object:
        if given is not None:
            sources[option] = "option"
            return given
        if key in config:
            sources[option] = f"{store.agents[agent].path} (memory.{key})"
            return config[key]
        sources[option] = "spec default"
        return UNDEFINED

    chosen_max = pick("maxMemories", max_memories, "maxInjected")
    chosen_min = pick("minImportance", min_importance, "minImportance")
    if recursive is None:
        recursive = bool(store.config.get("recursive", False))
        sources["recursive"] = ".rawko/rawko-tui.yaml" if "recursive" in store.config else "spec default"
    else:
        sources["recursive"] = "option"
    return ArbiterOptions(chosen_max, chosen_min, recursive, sources)


def _nullish(value: object) -> bool:
    return value is None or value is UNDEFINED


def _js_to_number(value: object) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if value is None:
        return 0.0
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return 0.0
        try:
            return float(int(text, 0)) if text.lower().startswith(("0x", "0o", "0b")) else float(text)
        except ValueError:
            return math.nan
    return math.nan


def slice_end(max_memories: object, length: int) -> int:
    """``Array.prototype.slice(0, max)``'s end index (negative counts from the end)."""
    number = _js_to_number(max_memories)
    if math.isnan(number):
        integer = 0.0
    elif math.isinf(number):
        integer = number
    else:
        integer = float(math.trunc(number))
    if integer < 0:
        return int(max(length + integer, 0))
    return int(min(integer, length))


# --------------------------------------------------------------------------
# Scoring (scoreMemoryRelevance), one component at a time
# --------------------------------------------------------------------------


def _importance_component(attrs: dict) -> Explanation:
    raw = attrs.get("importance", UNDEFINED)
    key = js_to_string(raw)
    points = IMPORTANCE_POINTS.get(key, 0)
    if raw is UNDEFINED:
        why = "importance: missing (+0)"
    elif key in IMPORTANCE_POINTS:
        why = f"importance: {key} (+{points})"
    else:
        why = f"importance: {key!r} is not low/medium/high/critical (+0)"
    return Explanation(points, why, kind=COMPONENT, data={"importance": key})


def _recency_component(attrs: dict, now_ms: float) -> Explanation:
    raw = attrs.get("discoveredAt", UNDEFINED)
    date = js_new_date(raw)
    if not date.valid:
        shown = "missing" if raw is UNDEFINED else repr(js_to_string(raw))
        return Explanation(0, f"recency: discoveredAt {shown} is not a date (+0)", kind=COMPONENT, data={"ageHours": None})
    age_hours = (now_ms - date.ms) / 3600000
    if age_hours < 24:
        points = 10
        why = "less than 24 h old" if age_hours >= 0 else "in the future, which counts as recent"
    elif age_hours < 72:
        points, why = 5, "less than 72 h old"
    else:
        points, why = 0, "72 h or older"
    return Explanation(
        points,
        f"recency: discovered {date.iso()}, {age_hours:.1f} h before now: {why} (+{points})",
        kind=COMPONENT,
        data={"ageHours": age_hours, "discoveredAt": date.iso()},
    )


def _keyword_component(task: str, title: str) -> Explanation:
    words = js_split_whitespace(task.lower())
    lowered = title.lower()
    hits = [w for w in words if w in lowered]
    points = min(20, len(hits) * 5)
    shown = ", ".join("'' (empty word from leading/trailing white space)" if w == "" else repr(w) for w in hits)
    why = f"keywords: {len(hits)} task word(s) inside the title: {shown} (+{points})" if hits else "keywords: no task word is inside the title (+0)"
    if len(hits) * 5 > 20:
        why += f", capped at 20 from {len(hits) * 5}"
    return Explanation(points, why, kind=COMPONENT, data={"words": hits})


def _agent_tags_component(attrs: dict, agent: str) -> Explanation:
    tags = attrs.get("tags", UNDEFINED)
    if not js_truthy(tags) or not isinstance(tags, list):
        return Explanation(0, "agent tags: the memory has no tags (+0)", kind=COMPONENT, data={"common": []})
    agent_tags = [] if is_prototype_key(agent) else AGENT_TAGS.get(agent, [])
    common = [t for t in tags if isinstance(t, str) and t in agent_tags]
    points = min(15, len(common) * 5)
    if not agent_tags:
        why = f"agent tags: the spec's tag map has no tags for {agent!r} (+0)"
    elif common:
        why = f"agent tags: {', '.join(repr(t) for t in common)} shared with {agent}'s {agent_tags} (+{points})"
    else:
        why = f"agent tags: none of {tags!r} is in {agent}'s {agent_tags} (+0)"
    return Explanation(points, why, kind=COMPONENT, data={"common": common, "agentTags": agent_tags})


def _same_agent_component(attrs: dict, agent: str) -> Explanation:
    by = attrs.get("discoveredBy", UNDEFINED)
    if isinstance(by, str) and by == agent:
        return Explanation(10, f"same agent: discovered by {agent} (+10)", kind=COMPONENT)
    shown = "nobody recorded" if by is UNDEFINED else repr(js_to_string(by))
    return Explanation(0, f"same agent: discovered by {shown}, not {agent!r} (+0)", kind=COMPONENT)


def score_memory(attrs: dict, title: str, task: str, agent: str, now_ms: float) -> tuple[float, list[Explanation]]:
    """``scoreMemoryRelevance``: the score and the components it is the capped sum of."""
    components = [
        _importance_component(attrs),
        _recency_component(attrs, now_ms),
        _keyword_component(task, title),
        _agent_tags_component(attrs, agent),
        _same_agent_component(attrs, agent),
    ]
    total = sum(c.value for c in components)
    return min(100, total), components


COMPONENT_KEYS = ("importance", "recency", "keyword", "agentTags", "sameAgent")


def meets_threshold(importance: object, min_importance: object) -> bool:
    """``order[importance] >= order[minImportance]``; an unknown level compares as undefined: false."""
    a, b = js_to_string(importance), js_to_string(min_importance)
    return a in IMPORTANCE_ORDER and b in IMPORTANCE_ORDER and IMPORTANCE_ORDER[a] >= IMPORTANCE_ORDER[b]


# --------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------


def pattern_strings(when_to_use: object) -> tuple[list[str], list[str]]:
    """The patterns as strings, plus notes on forms the spec's code cannot take.

    ``{pattern: …}`` maps (SPEC-0005's own example) are read as their pattern,
    as the design of this tool decides; the verbatim code would throw on them.
    """
    raw = when_to_use if isinstance(when_to_use, list) else [when_to_use]
    patterns: list[str] = []
    notes: list[str] = []
    for item in raw:
        if isinstance(item, str):
            patterns.append(item)
        elif isinstance(item, dict) and isinstance(item.get("pattern"), str):
            patterns.append(item["pattern"])
            notes.append(f"{{pattern: {item['pattern']!r}}} read as its pattern (the spec's code would throw on a map)")
        elif item is UNDEFINED:
            notes.append("no whenToUse: the memory can never match")
        else:
            notes.append(f"{js_to_string(item)!r} ({type(item).__name__}) is not a pattern; skipped")
    return patterns, notes


def _verbatim_match_failure(when_to_use: object, text: str) -> str | None:
    """The TypeError ``matchWhenToUse`` throws, if it reaches a non-string pattern before a match."""
    raw = when_to_use if isinstance(when_to_use, list) else [when_to_use]
    for item in raw:
        if not isinstance(item, str):
            if item is UNDEFINED or item is None:
                return f"TypeError: Cannot read properties of {js_to_string(item)} (reading 'toLowerCase')"
            return "TypeError: pattern.toLowerCase is not a function"
        if match_pattern(item, text).matched:
            return None
    return None


def _verbatim_score_failure(attrs: object, agent: str) -> tuple[str, bool] | None:
    """The TypeError ``scoreMemoryRelevance`` throws, and whether the memory itself is at fault."""
    if attrs is UNDEFINED or attrs is None:
        return f"TypeError: Cannot read properties of {js_to_string(attrs)} (reading 'importance')", True
    if not isinstance(attrs, dict):
        attrs = {}
    title = attrs.get("title", UNDEFINED)
    if not isinstance(title, str):
        if title is UNDEFINED or title is None:
            return f"TypeError: Cannot read properties of {js_to_string(title)} (reading 'toLowerCase')", True
        return "TypeError: memory.frontmatter.title.toLowerCase is not a function", True
    tags = attrs.get("tags", UNDEFINED)
    if js_truthy(tags):
        if not isinstance(tags, list):
            return "TypeError: memory.frontmatter.tags.filter is not a function", True
        if is_prototype_key(agent) and tags:
            # {}[agent] finds an Object.prototype member, which has no .includes
            return "TypeError: agentTags.includes is not a function", False
    return None


# --------------------------------------------------------------------------
# The whole decision
# --------------------------------------------------------------------------


def _not_loaded(memory: MemoryFile, reason: str, why: str) -> Candidate:
    title = memory.attrs.get("title") if isinstance(memory.attrs.get("title"), str) else None
    gate = Explanation(0, why, match=False, kind=GATE)
    return Candidate(memory, False, reason, Explanation(0, f"not injected: {why}", (gate,), match=False, kind=SCORE), title=title)


def run_preview(store: Store, task: str, agent: str, options: ArbiterOptions | None = None, now_ms: float | None = None) -> Preview:
    """What SPEC-0007's ``buildAgentPrompt`` injects for this task and agent, and why."""
    options = options or ArbiterOptions()
    now_ms = float(time.time_ns() // 1_000_000) if now_ms is None else now_ms
    text = build_search_text(task, agent)
    max_memories = DEFAULT_MAX_MEMORIES if _nullish(options.max_memories) else options.max_memories
    min_importance = DEFAULT_MIN_IMPORTANCE if _nullish(options.min_importance) else options.min_importance
    notes: list[str] = []
    failure: ArbiterFailure | None = None

    candidates: list[Candidate] = []
    scored: list[Candidate] = []
    loaded: list[MemoryFile] = []
    for memory in store.files:
        if not memory.spec_loadable:
            if memory.symlink:
                candidates.append(_not_loaded(memory, REASON_SYMLINK, "not loaded: a symlink is not a file to the spec's loader (Deno readDir)"))
                continue
            if not memory.name.endswith(".md"):
                candidates.append(_not_loaded(memory, REASON_EXTENSION, "not loaded: the spec's loader only reads names ending in '.md'"))
                continue
            if not options.recursive:
                candidates.append(_not_loaded(memory, REASON_SUBFOLDER, "not loaded by a SPEC-0007 arbiter (top level only)"))
                continue
        loaded.append(memory)

    # loadMemoryFrontmatter reads every file before anything is scored: its error comes first.
    # A frontmatter that parses but is not a mapping loads fine and throws later, in scoring.
    for memory in loaded:
        if memory.error is not None and memory.error.stage != "shape":
            failure = failure or ArbiterFailure("load", memory.rel_path, _loader_error_text(memory))
    for memory in loaded:
        if memory.error is not None and memory.error.stage != "shape":
            candidates.append(_not_loaded(memory, REASON_ERROR, f"not loaded: {memory.error.reason}"))
            continue
        attrs = memory.attrs
        # the .map() scores, then matches, each memory in turn; the first throw ends the run
        score_crash = _verbatim_score_failure(memory.spec.attrs, agent)
        if score_crash is not None:
            failure = failure or ArbiterFailure("score", memory.rel_path, score_crash[0])
            if score_crash[1]:
                reason = REASON_ERROR if memory.error is not None else REASON_CRASH
                why = memory.error.reason if memory.error is not None else "the spec's scoring throws on it"
                candidates.append(_not_loaded(memory, reason, f"skipped: {why} ({score_crash[0]})"))
                continue
        crash = _verbatim_match_failure(attrs.get("whenToUse", UNDEFINED), text)
        if crash is not None:
            failure = failure or ArbiterFailure("match", memory.rel_path, crash)
        candidate = _evaluate(memory, attrs, attrs["title"], task, agent, text, now_ms, min_importance)
        candidate.load_index = len(scored)
        scored.append(candidate)
        candidates.append(candidate)

    ranked = sorted((c for c in scored if c.matched and c.meets_threshold), key=lambda c: -c.score)
    cut = slice_end(max_memories, len(ranked))
    for position, candidate in enumerate(ranked, start=1):
        candidate.rank = position
        candidate.injected = position <= cut
    injected = ranked[:cut]
    for candidate in scored:
        _finish_explanation(candidate, ranked, cut, max_memories, min_importance)

    for candidate in injected:
        importance = candidate.file.attrs.get("importance")
        if not isinstance(importance, str) and failure is None:
            failure = ArbiterFailure("format", candidate.path, "TypeError: memory.frontmatter.importance.toUpperCase is not a function")
    prompt = format_memories_for_prompt(injected)

    notes.extend(_option_notes(options, max_memories, min_importance, agent, store))
    return Preview(
        task=task,
        agent=agent,
        now_ms=now_ms,
        max_memories=max_memories,
        min_importance=min_importance,
        recursive=options.recursive,
        candidates=candidates,
        injected=injected,
        prompt=prompt,
        errors=store.errors,
        arbiter_failure=failure,
        notes=notes,
        option_sources=dict(options.sources),
    )


def _loader_error_text(memory: MemoryFile) -> str:
    error = memory.error
    if error.stage == "frontmatter":
        return "TypeError: Unexpected end of input (no frontmatter)"
    if error.stage == "read":
        return f"the file cannot be read ({error.reason})"
    return f"YAMLError: {error.reason}"


def _evaluate(memory, attrs, title, task, agent, text, now_ms, min_importance) -> Candidate:
    score, components = score_memory(attrs, title, task, agent, now_ms)
    patterns, pattern_notes = pattern_strings(attrs.get("whenToUse", UNDEFINED))
    results: list[PatternResult] = []
    matched = False
    for pattern in patterns:  # "for … of" with an early return: later patterns are not tried
        result = match_pattern(pattern, text)
        results.append(result)
        if result.matched:
            matched = True
            break
    candidate = Candidate(
        memory,
        True,
        REASON_NO_MATCH,
        Explanation(score, "", kind=SCORE),
        title=title,
        score=score,
        components={key: c.value for key, c in zip(COMPONENT_KEYS, components)},
        matched=matched,
        patterns=results,
        meets_threshold=meets_threshold(attrs.get("importance", UNDEFINED), min_importance),
    )
    candidate.component_nodes = components
    candidate.pattern_notes = pattern_notes
    candidate.untried_patterns = patterns[len(results) :]
    return candidate


def _pattern_gate(candidate: Candidate, text: str | None = None) -> Explanation:
    details: list[Explanation] = []
    for result in candidate.patterns:
        desc = f"{result.pattern!r}: {result.describe()}"
        if result.matched:
            if result.interpretation == "alternatives":
                desc += f" -- matched {result.matched_alternative!r}"
            elif result.span:
                desc += f" -- matched at {result.span[0]}-{result.span[1]}"
        else:
            desc += " -- no match"
        sub = [Explanation(0, reason, match=False, kind=INFO) for reason in result.fell_through]
        sub += [Explanation(0, note, match=not result.matched, kind=INFO) for note in result.notes]
        if not result.matched and text is not None:
            miss = near_miss(result, text)
            if miss:
                sub.append(Explanation(0, f"closest: {miss[0]!r} ~ {miss[1]!r} in the task ({miss[2]:g}% similar)", match=False, kind=INFO, data={"needle": miss[0], "fragment": miss[1], "similarity": miss[2]}))
        details.append(
            Explanation(
                0,
                desc,
                tuple(sub),
                match=result.matched,
                kind=PATTERN,
                data={"pattern": result.pattern, "interpretation": result.interpretation, "span": list(result.span) if result.span else None, "engine": result.engine},
            )
        )
    for skipped in candidate.untried_patterns:
        details.append(Explanation(0, f"{skipped!r}: not tried (an earlier pattern matched)", match=True, kind=PATTERN))
    for note in candidate.pattern_notes:
        details.append(Explanation(0, note, match=False, kind=INFO))
    if candidate.matched:
        return Explanation(0, "whenToUse: a pattern matches", tuple(details), match=True, kind=GATE)
    if not candidate.patterns:
        return Explanation(0, "whenToUse: no usable pattern, so it never matches", tuple(details), match=False, kind=GATE)
    return Explanation(0, "whenToUse: no pattern matches the task and agent", tuple(details), match=False, kind=GATE)


def _finish_explanation(candidate: Candidate, ranked: list[Candidate], cut: int, max_memories: object, min_importance: object, text: str | None = None) -> None:
    components = candidate.component_nodes
    importance = js_to_string(candidate.file.attrs.get("importance", UNDEFINED))
    minimum = js_to_string(min_importance)
    gates = [_pattern_gate(candidate, text)]
    if importance in IMPORTANCE_ORDER and minimum in IMPORTANCE_ORDER:
        threshold_desc = f"importance {importance} {'≥' if candidate.meets_threshold else '<'} minimum {minimum}"
    elif minimum not in IMPORTANCE_ORDER:
        threshold_desc = f"minimum importance {minimum!r} is not a level: the spec compares with undefined, which is always false"
    else:
        threshold_desc = f"importance {importance!r} is not a level: the spec compares undefined, which is always false"
    gates.append(Explanation(0, threshold_desc, match=candidate.meets_threshold, kind=GATE))
    if candidate.rank is not None:
        if candidate.injected:
            gates.append(Explanation(0, f"rank {candidate.rank} within the top {cut} (max {js_to_string(max_memories)})", kind=GATE))
        else:
            gates.append(Explanation(0, _cut_description(candidate, ranked, cut, max_memories), match=False, kind=GATE))

    if candidate.injected:
        candidate.reason, headline = REASON_INJECTED, f"injected at rank {candidate.rank} of {cut}, score {candidate.score:g}"
    elif not candidate.matched:
        candidate.reason = REASON_NO_MATCH
        headline = "not injected: no whenToUse pattern matched"
    elif not candidate.meets_threshold:
        candidate.reason = REASON_THRESHOLD
        headline = f"not injected: {threshold_desc}"
        if importance in IMPORTANCE_ORDER and minimum in IMPORTANCE_ORDER:
            headline += f" (would be considered if importance were {minimum} or higher)"
    else:
        candidate.reason = REASON_CUT
        headline = "not injected: " + _cut_description(candidate, ranked, cut, max_memories)
    score_node = Explanation(candidate.score, f"score {candidate.score:g} = capped sum of components", tuple(components), kind=SCORE)
    candidate.explanation = Explanation(
        candidate.score,
        headline,
        tuple(components) + tuple(gates),
        match=candidate.injected,
        kind=SCORE,
        data={"score": score_node.value},
    )


def _cut_description(candidate: Candidate, ranked: list[Candidate], cut: int, max_memories: object) -> str:
    if cut == 0:
        return f"cut: the top-N limit (max {js_to_string(max_memories)}) keeps none"
    last = ranked[cut - 1]
    # ties keep load order: an earlier file needs only an equal score
    needed = last.score if candidate.load_index < last.load_index else last.score + 1
    return f"cut by the top-{cut} limit at rank {candidate.rank}; needs a score of {needed:g} to be injected (has {candidate.score:g})"


def explain_candidate(preview: Preview, candidate: Candidate) -> Explanation:
    """The full tree for one memory, including near misses for unmatched patterns (computed on demand)."""
    if not candidate.loaded:
        return candidate.explanation
    ranked = [c for c in preview.candidates if c.rank is not None]
    ranked.sort(key=lambda c: c.rank)
    cut = len(preview.injected)
    _finish_explanation(candidate, ranked, cut, preview.max_memories, preview.min_importance, build_search_text(preview.task, preview.agent))
    return candidate.explanation


def _option_notes(options: ArbiterOptions, max_memories, min_importance, agent: str, store: Store) -> list[str]:
    notes = []
    if any("memory." in str(v) for v in options.sources.values()):
        notes.append(
            "Options from the agent's memory config were applied. SPEC-0007's buildAgentPrompt, as written, "
            "calls findRelevantMemories without options (defaults: 5, low)."
        )
    if agent in store.agents and "scoreBonus" in store.agents[agent].memory_config:
        notes.append("memory.scoreBonus appears in SPEC-0007's configuration example but not in its code; it is not applied.")
    if js_to_string(min_importance) not in IMPORTANCE_ORDER:
        notes.append(f"minImportance {js_to_string(min_importance)!r} is not a level, so no memory passes the threshold.")
    return notes


# --------------------------------------------------------------------------
# formatMemoriesForPrompt
# --------------------------------------------------------------------------


def content_preview(body: str) -> str:
    """The content cut: up to the first ``\\n# `` if it is before 500, else 500 UTF-16 units + "..."."""
    units = utf16_units(body)
    heading = units.find("\n# ")
    if 0 < heading < PREVIEW_CHARS:
        return from_utf16_units(units[:heading])
    if len(units) > PREVIEW_CHARS:
        return from_utf16_units(units[:PREVIEW_CHARS]) + "..."
    return body


def format_memories_for_prompt(memories: list[Candidate]) -> str:
    if not memories:
        return ""
    out = ["## Background Knowledge from Previous Runs\n\n", "The following information was learned from prior runs and may be relevant:\n\n"]
    for candidate in memories:
        attrs = candidate.file.attrs
        out.append(f"### {js_to_string(attrs.get('title', UNDEFINED))}\n")
        out.append(f"*Importance: {js_to_string(attrs.get('importance', UNDEFINED)).upper()}*\n")
        out.append(f"*Discovered by: {js_to_string(attrs.get('discoveredBy', UNDEFINED))}*\n\n")
        out.append(content_preview(candidate.file.spec.body) + "\n\n")
    return "".join(out)


def parse_now(text: str) -> float:
    """A ``--now`` value: an ISO 8601 date or date-time (offset optional, local time without one)."""
    ms = parse_js_date_string(text)
    if math.isnan(ms):
        raise ValueError(f"{text!r} is not an ISO 8601 date or date-time (e.g. 2026-01-24T12:00:00Z)")
    return ms
