"""The consolidation queue: pairs worth a person's decision, and memories not confirmed for a long time.

Kinds, in the order a reviewer sees them:

- ``near-duplicate``: two memories that say the same thing (in any words);
- ``contradiction``: the same subject with a conflicting value (``max: 20`` / ``max: 50``);
- ``related``: the same area, different knowledge: offered as a link (``relatedMemories``), never a merge;
- ``stale``: past ``expiresAt``, or no dated entry for ``staleDays`` days, counted from the last entry;
- ``unused``: injected by none of the tasks given (the saved tasks; in the app, the recently previewed ones too).

``KINDS`` is the one list of kinds: ``rawko-tui candidates --kind`` and the app's filter both offer exactly these.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ...records import field, record
from ..entries import dismissed, entry_stamp, memory_id, related_of
from ...store.fold import effective_body, status_of
from ...js.values import js_new_date, js_to_string
from ...store.reading import MemoryFile, Store
from . import KINDS
from .evidence import Evidence, extract
from .pairs import DUPLICATE, RELATED, SAME_SUBJECT, AlignmentBudget, PairEvidence, shared_evidence

if TYPE_CHECKING:
    from ...arbiters.decision import ArbiterFailure

KIND_ORDER = {kind: order for order, kind in enumerate(KINDS)}
STALE_DAYS = 180


@record(frozen=True)
class CandidateGroup:
    kind: str  # one of KINDS
    paths: tuple[str, ...]
    score: float
    reason: str
    evidence: PairEvidence | None = field(default=None, compare=False)

    def to_dict(self) -> dict:
        found = {"kind": self.kind, "paths": list(self.paths), "score": self.score, "reason": self.reason}
        if self.evidence is not None:
            found["evidence"] = self.evidence.to_dict()
        return found


def configured_stale_days(config: dict) -> int:
    """``staleDays:`` of rawko-tui.yaml (days since a memory's last dated entry), else 180."""
    value = config.get("staleDays")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else STALE_DAYS


def active_memories(store: Store) -> list[MemoryFile]:
    return [
        m for m in store.files if m.error is None and m.spec is not None and isinstance(m.attrs.get("title"), str) and status_of(m).active
    ]


_EVIDENCE: dict[str, Evidence] = {}
_EVIDENCE_KEPT = 50_000  # texts whose evidence is kept in memory (the app sees files change; old texts go)


def evidence_of(memory: MemoryFile) -> Evidence:
    """The memory's evidence (title, every entry's body, whenToUse words, tags), kept while its text is the same."""
    key = memory.text or ""
    found = _EVIDENCE.get(key)
    if found is None:
        if len(_EVIDENCE) >= _EVIDENCE_KEPT:
            _EVIDENCE.clear()
        fields = memory.effective()[0]
        tags = fields.get("tags")
        tags = tuple(js_to_string(t) for t in tags) if isinstance(tags, list) else ()
        found = _EVIDENCE[key] = extract(
            js_to_string(fields.get("title", "")), effective_body(memory), when_words(fields.get("whenToUse")), tags
        )
    return found


def when_words(when_to_use: object) -> str:
    from ...arbiters.scoring import pattern_strings

    return " ".join(re.sub(r"[^\w]+", " ", p) for p in pattern_strings(when_to_use)[0])


def linked(a: MemoryFile, b: MemoryFile) -> bool:
    """Whether either memory's ``relatedMemories`` names the other already."""
    return memory_id(b.name) in {memory_id(r) for r in related_of(a)} or memory_id(a.name) in {memory_id(r) for r in related_of(b)}


def judge(evidence: PairEvidence) -> str | None:
    """The kind of a pair from its evidence, or None when it is not worth a person's time."""
    if evidence.conflicts and evidence.similarity >= SAME_SUBJECT:
        return "contradiction"
    if evidence.similarity >= DUPLICATE:
        return "near-duplicate"
    if evidence.similarity >= RELATED and (evidence.paths or evidence.identifiers or len(evidence.terms) >= 2):
        return "related"
    return None


def pair_groups(memories: list[MemoryFile], root: Path) -> list[CandidateGroup]:
    """Near-duplicates, contradictions and related pairs among these memories."""
    from .similarity import StoreTerms
    from .termcache import term_counts

    if not memories:
        return []
    counts = term_counts(root, [m.text or "" for m in memories], lambda i: evidence_of(memories[i]).terms)
    terms = StoreTerms(counts)
    groups = []
    budget = AlignmentBudget()  # sentence alignment for the whole queue (each pair has its own share too)
    for i, j, cosine in terms.candidate_pairs():
        if cosine < RELATED:
            continue
        a, b = memories[i], memories[j]
        evidence = shared_evidence(evidence_of(a), evidence_of(b), cosine, terms.rarity, budget)
        kind = judge(evidence)
        if kind is None:
            continue
        if kind == "related" and linked(a, b):
            continue
        groups.append(CandidateGroup(kind, (a.rel_path, b.rel_path), round(cosine * 100, 1), pair_reason(kind, evidence), evidence))
    return groups


def pair_reason(kind: str, evidence: PairEvidence) -> str:
    if kind == "contradiction":
        conflicts = "; ".join(c.describe() for c in evidence.conflicts[:3])
        return f"same subject, conflicting values: {conflicts}"
    if kind == "near-duplicate":
        return f"the same knowledge: {evidence.describe()}"
    return f"same area, different knowledge (link them?): {evidence.describe()}"


def last_dated_entry(memory: MemoryFile) -> tuple[float, int] | None:
    """(ms, 0-based index) of the memory's latest entry that carries a readable date; None when none does."""
    dated = []
    for entry in memory.entries:
        when = entry_stamp(entry.frontmatter)[0]
        if when is not None:
            date = js_new_date(when)
            if date.valid:
                dated.append((date.ms, entry.index))
    return max(dated) if dated else None


def stale_reason(memory: MemoryFile, last: tuple[float, int], now_ms: float, stale_days: int) -> tuple[float, str] | None:
    """(score, reason) when the memory's last dated entry (``last``) is older than ``stale_days``, counted from that entry."""
    last_ms, last_index = last
    days = int((now_ms - last_ms) / 86_400_000)
    if days <= stale_days:
        return None
    total = len(memory.entries)
    if total == 1:
        reason = f"discovered {days} days ago and never updated since"
    elif last_index == 0:
        reason = f"discovered {days} days ago; its {total - 1} later entr{'y carries' if total == 2 else 'ies carry'} no date"
    else:
        reason = f"last updated {days} days ago (entry {last_index + 1} of {total})"
    return _stale_score(days), reason


def _stale_score(days: int) -> float:
    return float(min(100, days / 10))


NO_READABLE_DATE = "none of its entries carries a readable date (discoveredAt, updatedAt or retiredAt)"


def stale_groups(memories: list[MemoryFile], now_ms: float, stale_days: int, root: Path) -> list[CandidateGroup]:
    """Memories past ``expiresAt``, or whose last dated entry is older than ``stale_days``.

    A memory none of whose entries carries a readable date is as old as the last commit that changed it
    (git is the record of when it was written); one no commit holds yet is listed with its age unknown.
    """
    groups, undated = [], []
    for memory in memories:
        expires = memory.effective()[0].get("expiresAt")
        if expires is not None:
            when = js_new_date(expires)
            if when.valid and when.ms < now_ms:
                groups.append(CandidateGroup("stale", (memory.rel_path,), 100.0, f"expired on {when.iso()}"))
                continue
        last = last_dated_entry(memory)
        if last is None:
            undated.append(memory)
            continue
        stale = stale_reason(memory, last, now_ms, stale_days)
        if stale is not None:
            groups.append(CandidateGroup("stale", (memory.rel_path,), *stale))
    if undated:
        from ...disk.gitrepo import last_commit_ms

        committed = last_commit_ms(root, [m.rel_path for m in undated])
        for memory in undated:
            when = committed.get(memory.rel_path)
            if when is None:
                groups.append(CandidateGroup("stale", (memory.rel_path,), 0.0, f"age unknown: {NO_READABLE_DATE}, and no commit holds it yet"))
                continue
            days = int((now_ms - when) / 86_400_000)
            if days > stale_days:
                groups.append(CandidateGroup("stale", (memory.rel_path,), _stale_score(days), f"{NO_READABLE_DATE}; last committed {days} days ago"))
    return groups


def consolidation_candidates(
    store: Store,
    now_ms: float,
    stale_days: int | None = None,
    kinds: set[str] | None = None,
    tasks: list[tuple[str, str]] | None = None,
    profile=None,
    tasks_named: str = "saved tasks",
) -> list[CandidateGroup]:
    """Every kind of candidate, by kind then strength (dismissed ones left out).

    ``kinds``: only these kinds (default: all). Stale: past ``expiresAt``, or no dated entry in
    ``stale_days`` (default: ``staleDays:`` of rawko-tui.yaml, else 180). Unused: injected by none of
    ``tasks`` (``tasks_named`` says which they are) under ``profile``; none without tasks.
    """
    stale_days = configured_stale_days(store.config) if stale_days is None else stale_days
    wanted = set(KINDS) if kinds is None else kinds
    active = active_memories(store)
    groups: list[CandidateGroup] = []
    if wanted & {"near-duplicate", "contradiction", "related"}:
        groups += [g for g in pair_groups(active, store.root) if g.kind in wanted]
    if "stale" in wanted:
        groups += stale_groups(active, now_ms, stale_days, store.root)
    if "unused" in wanted and tasks:
        groups += unused_memories(store, tasks, now_ms, profile, tasks_named)
    gone = dismissed(store.root)
    groups = [g for g in groups if tuple(sorted(g.paths)) not in gone]
    groups.sort(key=lambda g: (KIND_ORDER[g.kind], -g.score, g.paths))
    return groups


@record(frozen=True)
class Closest:
    """An existing memory close to one being written, with the evidence: the place to append instead."""

    name: str
    score: float  # 0-100
    evidence: PairEvidence

    @property
    def same_knowledge(self) -> bool:
        return self.score >= DUPLICATE * 100 and not self.evidence.conflicts

    def describe(self) -> str:
        if self.evidence.conflicts:
            verdict = "conflicts with it: " + "; ".join(c.describe() for c in self.evidence.conflicts[:2])
        elif self.same_knowledge:
            verdict = "may already hold this lesson (append to it instead?)"
        else:
            verdict = "related"
        return f"{self.name} ({self.score:g}% alike; {self.evidence.describe()}): {verdict}"


def closest_memories(
    store: Store, title: str, body: str, when: object = None, limit: int = 3, exclude: frozenset[str] = frozenset()
) -> list[Closest]:
    """The existing memories most like a new one, judged as the queue judges pairs, closest first.

    ``exclude``: names left out (a merge's own originals). The store's term
    counts come from the term cache, so only the draft is read anew.
    """
    from .similarity import StoreTerms, TermCounts
    from .termcache import term_counts

    every = active_memories(store)
    kept = [i for i, m in enumerate(every) if m.name not in exclude]
    if not kept:
        return []
    draft = extract(title, body, when_words(when))
    # the whole store's counts (what the cache holds), then the rows asked about
    counts = term_counts(store.root, [m.text or "" for m in every], lambda i: evidence_of(every[i]).terms)
    active = [every[i] for i in kept]
    terms = StoreTerms(TermCounts(counts.matrix[kept], counts.vocabulary).with_row(draft.terms))
    scores = terms.similarities_to(len(active))[: len(active)]
    order = sorted(range(len(active)), key=lambda i: -scores[i])[:limit]
    return [
        Closest(active[i].name, round(scores[i] * 100, 1), shared_evidence(draft, evidence_of(active[i]), scores[i], terms.rarity))
        for i in order
        if scores[i] >= RELATED
    ]


MIN_TASKS_FOR_UNUSED = 3


def unused_memories(store: Store, tasks: list[tuple[str, str]], now_ms: float, profile=None, tasks_named: str = "tasks") -> list[CandidateGroup]:
    """Active memories that none of the given tasks injects (in the effective view), under ``profile`` (default: the store's).

    None with fewer than ``MIN_TASKS_FOR_UNUSED`` tasks. ``tasks_named``: what the tasks are, as the reason names them.
    """
    from ...arbiters.decision import resolve_options
    from ...arbiters.ranking import run_preview
    from ...store.fold import effective_store

    if len(tasks) < MIN_TASKS_FOR_UNUSED:  # one or two tasks say little about what is never needed
        return []
    view = effective_store(store)
    injected: set[str] = set()
    for task, agent in tasks:
        injected |= {c.path for c in run_preview(view, task, agent, resolve_options(store, agent, profile=profile), now_ms).injected}
    groups = []
    for memory in store.files:
        if (
            memory.error is None
            and memory.spec is not None
            and memory.top_level
            and status_of(memory).active
            and memory.rel_path not in injected
        ):
            groups.append(CandidateGroup("unused", (memory.rel_path,), 0.0, f"none of the {len(tasks)} {tasks_named} injects it"))
    return groups


@record(frozen=True)
class Injection:
    """For one task both memories of a contradiction match: which of them the arbiter injects today, or that it fails."""

    task: str
    agent: str
    injected: tuple[str, ...]  # of the pair's paths (none when the arbiter surely throws)
    failure: ArbiterFailure | None = None  # where the arbiter throws on this task, as the preview says it

    def describe(self, paths: tuple[str, ...]) -> str:
        said = f"{self.task!r} ({self.agent}): "
        if self.failure is not None and self.failure.certain:
            return said + self.failure.describe()
        names = [p.rsplit("/", 1)[-1] for p in self.injected]
        if len(self.injected) == len(paths):
            verdict = "injects both, side by side in one prompt"
        elif self.injected:
            verdict = f"injects only {names[0]}"
        else:
            verdict = "injects neither"
        said += f"the arbiter {verdict}"
        return said + (f"; but {self.failure.describe()}" if self.failure is not None else "")

    def to_dict(self) -> dict:
        found = {"task": self.task, "agent": self.agent, "injected": list(self.injected)}
        if self.failure is not None:
            found["arbiterFailure"] = self.failure.to_dict()
        return found


def injected_today(store: Store, paths: tuple[str, ...], tasks: list[tuple[str, str]], now_ms: float, profile=None) -> list[Injection]:
    """For the tasks (and each memory's own title as a task) where every memory of the group matches: what is injected."""
    from ...arbiters.decision import resolve_options
    from ...arbiters.ranking import run_preview

    memories = [store.file(p) for p in paths]
    if any(m is None for m in memories):
        return []
    own = [(js_to_string(m.effective()[0].get("title", "")), js_to_string(m.attrs.get("discoveredBy") or "developer")) for m in memories]
    found, seen = [], set()
    for task, agent in list(tasks) + own:
        if (task, agent) in seen or not task:
            continue
        seen.add((task, agent))
        preview = run_preview(store, task, agent, resolve_options(store, agent, profile=profile), now_ms)
        decisions = [preview.candidate(p) for p in paths]  # these memories' decisions only, not all of them
        if all(d is not None and d.matched for d in decisions):
            failure = preview.arbiter_failure  # a run that surely throws injects nothing, whatever the ranking beside it says
            injected = () if failure is not None and failure.certain else tuple(d.path for d in decisions if d.injected)
            found.append(Injection(task, agent, injected, failure))
    return found
