"""Where arbiter profiles disagree: every memory whose fate differs, and the first rule that makes it so.

The rules are tried in the order an arbiter applies them -- loading, a run
that throws, the pattern match, the importance threshold, the score, the
cut -- so the reason given is the earliest one at which the two decisions
part, said in the words of the profile that decides differently.
"""

from __future__ import annotations

from .. import records
from ..records import record
from .decision import Candidate, Preview, resolve_options
from ..js.regexp import DEFAULT_REGEX_BUDGET_SECONDS
from ..store.reading import Store
from .profiles import Profile
from .ranking import run_preview_deciding
from .scoring import COMPONENT_KEYS

COMPONENT_WORDS = {"importance": "importance", "recency": "recency", "keyword": "keywords", "agentTags": "agent tags", "sameAgent": "same agent"}


@record(frozen=True)
class Decision:
    """One profile's decision on one memory."""

    profile: str
    injected: bool
    rank: int | None
    score: float | None  # None: the profile does not score
    reason: str
    why: str

    def to_dict(self) -> dict:
        return {"profile": self.profile, "injected": self.injected, "rank": self.rank, "score": self.score, "reason": self.reason, "why": self.why}

    def short(self) -> str:
        if self.injected:
            return f"injected #{self.rank}" + (f" (score {self.score:g})" if self.score is not None else "")
        return "not injected: " + self.why.removeprefix("not injected: ")


@record(frozen=True)
class Difference:
    path: str
    title: str | None
    decisions: tuple[Decision, ...]
    rule: str  # the first rule at which the decisions part

    def to_dict(self) -> dict:
        return {"path": self.path, "title": self.title, "decisions": [d.to_dict() for d in self.decisions], "rule": self.rule}


@record
class Comparison:
    task: str
    agent: str
    previews: dict[str, Preview]
    differences: list[Difference]

    def to_dict(self) -> dict:
        return {
            "task": self.task,
            "agent": self.agent,
            "profiles": {
                name: {
                    "injected": [c.path for c in preview.injected],
                    "failure": preview.arbiter_failure.to_dict() if preview.arbiter_failure else None,
                    "promptCharacters": len(preview.prompt),
                }
                for name, preview in self.previews.items()
            },
            "differences": [d.to_dict() for d in self.differences],
        }


def compare_profiles(
    store: Store, task: str, agent: str, profiles: list[Profile], now_ms: float, recursive: bool | None = None, regex_budget: float = DEFAULT_REGEX_BUDGET_SECONDS
) -> Comparison:
    """Rank the task under each profile (each with its own settings, ``regex_budget`` for backtracking regexes) and find where they part."""
    previews = {}
    for profile in profiles:
        options = records.replace(resolve_options(store, agent, recursive=recursive, profile=profile), regex_budget=regex_budget)
        previews[profile.name] = run_preview_deciding(store, task, agent, options, now_ms)
    return compare_previews(task, agent, previews)


def compare_previews(task: str, agent: str, previews: dict[str, Preview]) -> Comparison:
    """Rankings already made (one per profile) compared."""
    return Comparison(task, agent, previews, differences(previews))


def _fate(preview: Preview, candidate: Candidate | None) -> tuple:
    if candidate is None or preview.arbiter_failure is not None:
        return (False, None)
    return (candidate.injected, candidate.rank if candidate.injected else None)


def _decision(name: str, preview: Preview, candidate: Candidate | None) -> Decision:
    if candidate is None:
        return Decision(name, False, None, None, "absent", "not in this store view")
    scored = preview.profile.scored
    if preview.arbiter_failure is not None and candidate.loaded:
        why = f"nothing is injected: {preview.arbiter_failure.describe()}"
        return Decision(name, False, None, candidate.score if scored else None, "run-fails", why)
    return Decision(name, candidate.injected, candidate.rank, candidate.score if scored and candidate.loaded else None, candidate.reason, candidate.explanation.description)


def differences(previews: dict[str, Preview]) -> list[Difference]:
    """Every memory whose fate (injected or not, and at which rank) is not the same under every profile."""
    names = list(previews)
    paths: dict[str, None] = {}
    for preview in previews.values():
        paths.update(dict.fromkeys(c.path for c in preview.injected))
    found = []
    for path in paths:
        candidates = {name: previews[name].candidate(path) for name in names}
        fates = {_fate(previews[name], candidates[name]) for name in names}
        if len(fates) <= 1:
            continue
        decisions = tuple(_decision(name, previews[name], candidates[name]) for name in names)
        title = next((c.title for c in candidates.values() if c is not None and c.title), None)
        found.append(Difference(path, title, decisions, first_rule(previews, candidates)))
    return found


def first_rule(previews: dict[str, Preview], candidates: dict[str, Candidate | None]) -> str:
    """The earliest rule, in the arbiters' own order, at which the decisions part."""
    names = list(previews)
    # 1. loading: one loader never reaches the file
    for name in names:
        c = candidates[name]
        if c is None or not c.loaded:
            why = c.explanation.description.removeprefix("not injected: ") if c is not None else "the file is not in this view"
            return f"loading: under {name}, {why}"
    # 2. a run that throws injects nothing at all
    for name in names:
        failure = previews[name].arbiter_failure
        if failure is not None:
            return f"the run fails under {name}: {failure.describe()}"
    # 3. matching
    matched = {name: candidates[name].matched for name in names}
    if len(set(matched.values())) > 1:
        yes = [n for n in names if matched[n]]
        no = [n for n in names if not matched[n]]
        return f"matching: a whenToUse pattern matches under {', '.join(yes)} but not under {', '.join(no)} ({_pattern_words(previews, candidates, yes[0])})"
    # 4. the threshold
    meets = {name: candidates[name].meets_threshold for name in names}
    if len(set(meets.values())) > 1:
        below = [n for n in names if not meets[n]]
        return f"threshold: under {', '.join(below)} {candidates[below[0]].explanation.description.removeprefix('not injected: ')}"
    # 5. the score, among the profiles that score
    scored = [n for n in names if previews[n].profile.scored]
    unscored = [n for n in names if not previews[n].profile.scored]
    if len(scored) >= 2:
        first = candidates[scored[0]]
        for other in scored[1:]:
            c = candidates[other]
            for key in COMPONENT_KEYS:
                if first.components.get(key) != c.components.get(key):
                    return f"score: {COMPONENT_WORDS[key]} {first.components.get(key):g} under {scored[0]}, {c.components.get(key):g} under {other} ({_component_words(c, key)})"
        # 6. the cut: the same score, other memories around it
        if len({_fate(previews[n], candidates[n]) for n in scored}) > 1:
            return (
                f"the cut: the same score ({first.score:g}) under {', '.join(scored)}, "
                "but other memories score differently under each of them and change its rank"
            )
    if unscored and scored:
        verb = "keeps" if len(scored) == 1 else "keep"
        return f"selection: {', '.join(unscored)} scores nothing and injects every match, sorted by importance only; {', '.join(scored)} {verb} the best by score"
    return "the cut: other memories are ranked differently around it"


def _pattern_words(previews: dict[str, Preview], candidates: dict[str, Candidate | None], name: str) -> str:
    c = candidates[name]
    matched = [p for p in c.patterns if p.matched]
    if not matched:
        return "see explain"
    return f"under {name} {matched[0].pattern!r} is read as: {matched[0].describe()}"


def _component_words(candidate: Candidate, key: str) -> str:
    tree = candidate.explanation
    index = COMPONENT_KEYS.index(key)
    node = tree.details[index] if index < len(tree.details) else None
    if node is None:
        return ""
    extra = [d.description for d in node.details]
    return node.description + (": " + "; ".join(extra) if extra else "")


def summary_line(comparison: Comparison, active: str, limit: int = 3) -> str:
    """One line per other profile, relative to the active one: "rawko-sdk: +jwt-expiry −oauth2 · spec-0005: 34 injected"."""
    base = comparison.previews[active]
    mine = [c.path for c in base.injected] if base.arbiter_failure is None else []
    parts = []
    for name, preview in comparison.previews.items():
        if name == active:
            continue
        theirs = [c.path for c in preview.injected] if preview.arbiter_failure is None else []
        if preview.arbiter_failure is not None:
            parts.append(f"{name}: fails ({preview.arbiter_failure.stage})")
            continue
        added = [p for p in theirs if p not in mine]
        removed = [p for p in mine if p not in theirs]
        if not added and not removed:
            same = theirs == mine
            parts.append(f"{name}: {'the same' if same else 'the same set, another order'}")
        elif len(added) + len(removed) > limit:
            parts.append(f"{name}: {len(theirs)} injected (+{len(added)} −{len(removed)})")
        else:
            names = [f"+{_stem(p)}" for p in added] + [f"−{_stem(p)}" for p in removed]
            parts.append(f"{name}: {' '.join(names)}")
    return " · ".join(parts)


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name

