"""How the scoring arbiters score a memory: ``scoreMemoryRelevance``'s five components, and the facts they need.

Each component is one small function that returns its points; the ranking
adds them up, and ``component_explanations`` calls the same functions to say
why, so the two cannot disagree. Where the profiles differ (which task words
count, whether tags are lower-cased, the agent tag map) the ``Scorer`` of the
profile decides. ``MemoryFacts`` holds what does not depend on the task,
computed once per file; ``_verbatim_*`` say where the code would throw.
"""

from __future__ import annotations

import math

from ..records import record
from .explain import COMPONENT, INFO, Explanation
from ..js.values import UNDEFINED, JsDate, is_prototype_key, js_new_date, js_split_whitespace, js_to_string, js_truthy, utf16_length
from .patterns import plan_pattern
from ..store.reading import MemoryFile
from .profiles import DEFAULT as DEFAULT_PROFILE
from .profiles import SPEC_TAGS, Profile, Scorer

IMPORTANCE_POINTS = {"low": 5, "medium": 15, "high": 25, "critical": 30}
IMPORTANCE_ORDER = {"low": 0, "medium": 1, "high": 2, "critical": 3}
AGENT_TAGS = {agent: list(tags) for agent, tags in SPEC_TAGS.items()}
SPEC_AGENTS = tuple(AGENT_TAGS)


@record(eq=False)
class MemoryFacts:
    """Everything about a memory that does not depend on the task (computed once per file)."""

    title: str
    title_lower: str
    attrs: dict
    importance_key: str
    date_ms: float  # NaN when discoveredAt is not a date
    tags: list | None  # None when falsy; a list otherwise (truthy non-lists never get here)
    plans: list  # (raw item, PatternPlan or None) in whenToUse order
    pattern_notes: list[str]


def importance_points(key: str) -> int:
    return IMPORTANCE_POINTS.get(key, 0)


def recency_points(date_ms: float, now_ms: float) -> int:
    if math.isnan(date_ms):
        return 0
    age_hours = (now_ms - date_ms) / 3600000
    return 10 if age_hours < 24 else 5 if age_hours < 72 else 0


SPEC_SCORER = DEFAULT_PROFILE.scorer


def keyword_hits(words: list[str], title_lower: str, min_length: int = 0) -> list[str]:
    """The task words the title contains; with ``min_length`` only words longer than it (in UTF-16 units) count."""
    if min_length:
        return [w for w in words if utf16_length(w) > min_length and w in title_lower]
    return [w for w in words if w in title_lower]


def keyword_points(hits: int) -> int:
    return min(20, hits * 5)


def agent_tag_list(agent: str, scorer: Scorer = SPEC_SCORER) -> list[str]:
    # {}[agent] for a name like "constructor" finds Object.prototype; treated as no tags
    return [] if is_prototype_key(agent) else list(scorer.tags_for(agent))


def common_tags(tags: list | None, agent: str, scorer: Scorer = SPEC_SCORER) -> list[str]:
    if not tags:
        return []
    return tags_among(tags, agent_tag_list(agent, scorer), scorer.lower_case_tags)


def tags_among(tags: list, agent_tags, lower_case: bool) -> list[str]:
    """The memory's tags (text ones) that are among the agent's, compared in lower case when the scorer says so."""
    if lower_case:
        return [t for t in tags if isinstance(t, str) and t.lower() in agent_tags]
    return [t for t in tags if isinstance(t, str) and t in agent_tags]


def tag_points(common: int) -> int:
    return min(15, common * 5)


def same_agent_points(discovered_by: object, agent: str) -> int:
    return 10 if isinstance(discovered_by, str) and discovered_by == agent else 0


COMPONENT_KEYS = ("importance", "recency", "keyword", "agentTags", "sameAgent")


def component_explanations(facts: MemoryFacts, task: str, agent: str, now_ms: float, profile: Profile = DEFAULT_PROFILE) -> list[Explanation]:
    """The five components with their inputs, using the very functions the ranking adds up."""
    scorer = profile.scorer
    attrs = facts.attrs
    raw = attrs.get("importance", UNDEFINED)
    points = importance_points(facts.importance_key)
    if raw is UNDEFINED:
        why = "importance: missing (+0)"
    elif facts.importance_key in IMPORTANCE_POINTS:
        why = f"importance: {facts.importance_key} (+{points})"
    else:
        why = f"importance: {facts.importance_key!r} is not low/medium/high/critical (+0)"
    nodes = [Explanation(points, why, kind=COMPONENT, data={"importance": facts.importance_key})]

    points = recency_points(facts.date_ms, now_ms)
    if math.isnan(facts.date_ms):
        given = attrs.get("discoveredAt", UNDEFINED)
        shown = "missing" if given is UNDEFINED else repr(js_to_string(given))
        nodes.append(Explanation(0, f"recency: discoveredAt {shown} is not a date (+0)", kind=COMPONENT, data={"ageHours": None}))
    else:
        age = (now_ms - facts.date_ms) / 3600000
        if age < 0:
            why = "in the future, which counts as recent"
        else:
            why = "less than 24 h old" if age < 24 else "less than 72 h old" if age < 72 else "72 h or older"
        iso = JsDate(facts.date_ms).iso()
        nodes.append(
            Explanation(points, f"recency: discovered {iso}, {age:.1f} h before now: {why} (+{points})", kind=COMPONENT, data={"ageHours": age, "discoveredAt": iso})
        )

    words = js_split_whitespace(task.lower())
    hits = keyword_hits(words, facts.title_lower, scorer.keyword_min_length)
    points = keyword_points(len(hits))
    shown = ", ".join("'' (empty word from leading/trailing white space)" if w == "" else repr(w) for w in hits)
    why = f"keywords: {len(hits)} task word(s) inside the title: {shown} (+{points})" if hits else "keywords: no task word is inside the title (+0)"
    if len(hits) * 5 > 20:
        why += f", capped at 20 from {len(hits) * 5}"
    short = [w for w in words if w and utf16_length(w) <= scorer.keyword_min_length and w in facts.title_lower] if scorer.keyword_min_length else []
    short = list(dict.fromkeys(short))
    verb = "earns" if len(short) == 1 else "earn"
    rule = f"{', '.join(repr(w) for w in short)} {verb} nothing under {profile.name}: it counts only words longer than {scorer.keyword_min_length} characters"
    sub = (Explanation(0, rule, match=False, kind=INFO, data={"words": short}),) if short else ()
    nodes.append(Explanation(points, why, sub, kind=COMPONENT, data={"words": hits}))

    common = common_tags(facts.tags, agent, scorer)
    points = tag_points(len(common))
    agent_tags = agent_tag_list(agent, scorer)
    if not facts.tags:
        why = "agent tags: the memory has no tags (+0)"
    elif not agent_tags:
        why = f"agent tags: {profile.name}'s tag map has no tags for {agent!r} (+0)"
    elif common:
        folded = " (compared lower-cased)" if scorer.lower_case_tags and any(t != t.lower() for t in common) else ""
        why = f"agent tags: {', '.join(repr(t) for t in common)} shared with {agent}'s {agent_tags}{folded} (+{points})"
    else:
        why = f"agent tags: none of {facts.tags!r} is in {agent}'s {agent_tags} (+0)"
    nodes.append(Explanation(points, why, kind=COMPONENT, data={"common": common, "agentTags": agent_tags}))

    by = attrs.get("discoveredBy", UNDEFINED)
    points = same_agent_points(by, agent)
    if points:
        why = f"same agent: discovered by {agent} (+10)"
    else:
        shown = "nobody recorded" if by is UNDEFINED else repr(js_to_string(by))
        why = f"same agent: discovered by {shown}, not {agent!r} (+0)"
    nodes.append(Explanation(points, why, kind=COMPONENT))
    return nodes


def meets_threshold(importance: object, min_importance: object) -> bool:
    """``order[importance] >= order[minImportance]``; an unknown level compares as undefined: false."""
    a, b = js_to_string(importance), js_to_string(min_importance)
    return a in IMPORTANCE_ORDER and b in IMPORTANCE_ORDER and IMPORTANCE_ORDER[a] >= IMPORTANCE_ORDER[b]


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


def _verbatim_type_error(item: object) -> str:
    """What ``pattern.toLowerCase()`` throws for a pattern that is not a string."""
    if item is UNDEFINED or item is None:
        return f"TypeError: Cannot read properties of {js_to_string(item)} (reading 'toLowerCase')"
    return "TypeError: pattern.toLowerCase is not a function"


def _verbatim_score_failure(attrs: object, agent: str, scorer: Scorer = SPEC_SCORER) -> tuple[str, bool] | None:
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
        if scorer.lower_case_tags:  # t.toLowerCase() runs for every tag, before the agent's list is used
            odd = next((t for t in tags if not isinstance(t, str)), UNDEFINED)
            if odd is None:
                return "TypeError: Cannot read properties of null (reading 'toLowerCase')", True
            if odd is not UNDEFINED:
                return "TypeError: t.toLowerCase is not a function", True
        if is_prototype_key(agent) and tags:
            # {}[agent] finds an Object.prototype member, which has no .includes
            return "TypeError: agentTags.includes is not a function", False
    return None


def memory_facts(memory: MemoryFile) -> MemoryFacts:
    """The task-independent facts of a loadable memory, cached on the file."""
    if memory._facts is not None:
        return memory._facts
    attrs = memory.attrs
    title = attrs["title"]
    tags = attrs.get("tags", UNDEFINED)
    when = attrs.get("whenToUse", UNDEFINED)
    plans = []
    for item in when_items(attrs):
        pattern = item if isinstance(item, str) else item.get("pattern") if isinstance(item, dict) else None
        plans.append((item, plan_pattern(pattern) if isinstance(pattern, str) else None))
    facts = MemoryFacts(
        title=title,
        title_lower=title.lower(),
        attrs=attrs,
        importance_key=js_to_string(attrs.get("importance", UNDEFINED)),
        date_ms=js_new_date(attrs.get("discoveredAt", UNDEFINED)).ms,
        tags=tags if isinstance(tags, list) and tags else None,
        plans=plans,
        pattern_notes=pattern_strings(when)[1],
    )
    memory._facts = facts
    return facts


def when_items(attrs: dict) -> list:
    """The whenToUse items as the spec's ``for … of`` meets them (one value that is not a list is one item)."""
    when = attrs.get("whenToUse", UNDEFINED)
    return when if isinstance(when, list) else [when]


def agent_points(facts: MemoryFacts, agent: str, scorer: Scorer = SPEC_SCORER) -> tuple[int, int, int]:
    """The parts of the score that do not depend on the task: (importance, agent tags, same agent)."""
    return agent_points_of(facts.importance_key, facts.tags, facts.attrs.get("discoveredBy"), agent, scorer)


def agent_points_of(importance_key: str, tags: list | None, discovered_by: object, agent: str, scorer: Scorer = SPEC_SCORER) -> tuple[int, int, int]:
    """``agent_points`` from the three facts it reads (the rank index keeps them in columns)."""
    return importance_points(importance_key), tag_points(len(common_tags(tags, agent, scorer))), same_agent_points(discovered_by, agent)


def agent_points_column(importance_keys: list[str], tags: list, discovered_by: list, agent: str, scorer: Scorer = SPEC_SCORER) -> list[tuple[int, int, int]]:
    """``agent_points_of`` for every memory of the rank index's columns, the agent's tags looked up once."""
    agent_tags = frozenset(agent_tag_list(agent, scorer))  # only text is looked up: a set finds what the list finds
    lower_case = scorer.lower_case_tags
    importance = {key: importance_points(key) for key in set(importance_keys)}  # a handful of keys for 10,000 memories
    return [
        (importance[key], tag_points(len(tags_among(memory_tags, agent_tags, lower_case))) if memory_tags else 0, same_agent_points(by, agent))
        for key, memory_tags, by in zip(importance_keys, tags, discovered_by)
    ]


def score_components(facts: MemoryFacts, words: list[str], agent: str, now_ms: float, scorer: Scorer = SPEC_SCORER) -> dict:
    """scoreMemoryRelevance's five parts (the explanation's words come from ``component_explanations``)."""
    hits = keyword_hits(words, facts.title_lower, scorer.keyword_min_length)
    return components_dict(agent_points(facts, agent, scorer), recency_points(facts.date_ms, now_ms), len(hits))


def components_dict(static: tuple[int, int, int], recency: int, hits: int) -> dict:
    """The five components, in the spec's order, from the task-independent points, recency and keyword hits."""
    importance, tags, same = static
    return {"importance": importance, "recency": recency, "keyword": keyword_points(hits), "agentTags": tags, "sameAgent": same}
