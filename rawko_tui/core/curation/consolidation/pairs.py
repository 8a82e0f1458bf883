"""Judging one pair of memories: the same knowledge, a conflict, related, or nothing to do.

The thresholds below were chosen on the labelled store in
``bench/data/consolidation.yaml`` (``bench/consolidation.py`` prints the
precision and recall they give; docs/guide/consolidation.md reports them).
"""

from __future__ import annotations

import itertools
import math

from ...records import field, record
from .evidence import Evidence, Sentence, key_label, written_form

# Weighted term similarity (cosine, 0-1) from which two memories say the same thing.
DUPLICATE = 0.50
# From here two memories are about the same subject: a conflicting value between them is a contradiction.
SAME_SUBJECT = 0.25
# From here two memories are in the same area: offered as a link, never as a merge.
RELATED = 0.20
# Two sentences are about the same thing when this share of the shorter one's words is common to both.
ALIGNED_SENTENCES = 0.5
MAX_SWAPPED = 3  # at most this many words differ between two aligned sentences
DISTINCTIVE_RANK = 5000  # a word rarer than this many English words can name a choice (yarn, checkout)
# Aligning sentences (difflib) costs about the product of their lengths in words. Two ordinary memories need
# a few thousand of it; two memories of 3,000 sentences over a handful of words needed 110 s. Past these
# budgets (one pair of memories; one whole queue) the rest is not compared, and the evidence says so.
PAIR_ALIGNMENT_WORK = 2_000_000
QUEUE_ALIGNMENT_WORK = 20_000_000
PAIR_LOOKUPS = 2_000_000  # sentences visited in the index while finding those that could align
QUEUE_LOOKUPS = 20_000_000
NOT_ALL_COMPARED = "not every sentence was compared (rawko-tui's limit for long memories): a conflict may be missed"


class AlignmentBudget:
    """How much sentence alignment is left: for one pair of memories, within what is left for the whole queue."""

    def __init__(self, work: int = QUEUE_ALIGNMENT_WORK, lookups: int = QUEUE_LOOKUPS, within: AlignmentBudget | None = None):
        self.work, self.lookups, self.within = work, lookups, within
        self.short = False  # something was left uncompared

    def for_pair(self) -> AlignmentBudget:
        return AlignmentBudget(min(PAIR_ALIGNMENT_WORK, self.work), min(PAIR_LOOKUPS, self.lookups), self)

    def spend(self, work: int = 0, lookups: int = 0) -> bool:
        """Take ``work`` and ``lookups`` from the budget (and the one it is within); False, and nothing taken, when they are not there."""
        if work > self.work or lookups > self.lookups:
            self.short = True
            return False
        self.work -= work
        self.lookups -= lookups
        if self.within is not None:
            self.within.work -= work
            self.within.lookups -= lookups
        return True


@record(frozen=True)
class Conflict:
    """The same setting or role with different values, in the words of each memory."""

    key: str
    value_a: str
    value_b: str
    phrase_a: str
    phrase_b: str

    def to_dict(self) -> dict:
        return {"key": self.key, "a": self.value_a, "b": self.value_b, "phraseA": self.phrase_a, "phraseB": self.phrase_b}

    def describe(self) -> str:
        return f"{self.value_a} against {self.value_b} ({self.key})"


@record(frozen=True)
class PairEvidence:
    """Why two memories were put side by side: what they share and where they disagree."""

    similarity: float  # weighted term cosine, 0-1
    paths: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()  # shared rare words, rarest first, as written
    values: tuple[str, ...] = ()  # values both state alike ("24 hour")
    conflicts: tuple[Conflict, ...] = field(default=())
    partial: str = ""  # why not everything was compared (a body past EVIDENCE_CHARACTERS, the alignment budget)

    def to_dict(self) -> dict:
        return {
            "similarity": round(self.similarity, 3),
            "sharedPaths": list(self.paths),
            "sharedIdentifiers": list(self.identifiers),
            "sharedTerms": list(self.terms),
            "sharedValues": list(self.values),
            "conflicts": [c.to_dict() for c in self.conflicts],
            **({"partial": self.partial} if self.partial else {}),
        }

    def describe(self) -> str:
        parts = []
        if self.paths:
            parts.append("both name " + ", ".join(self.paths[:3]))
        if self.identifiers:
            parts.append("both use " + ", ".join(self.identifiers[:3]))
        if self.values:
            parts.append("both state " + ", ".join(self.values[:3]))
        if self.terms:
            parts.append("rare words in common: " + ", ".join(self.terms[:5]))
        if self.partial:
            parts.append(self.partial)
        return "; ".join(parts) or "few words in common"


def shared_evidence(a: Evidence, b: Evidence, similarity: float, rarity, budget: AlignmentBudget | None = None) -> PairEvidence:
    """What two memories share, strongest first. ``rarity(term)`` is 1 for a term only one memory of the store has.

    ``budget``: what is left for aligning sentences in the whole queue (None: a pair's own budget).
    """
    shared = set(a.terms) & set(b.terms)
    ranked = sorted(shared, key=lambda t: (-rarity(t), t))
    # each shown as the two memories write it most often: a stem ("attemp") or a lower-cased key is never shown
    paths = tuple(written_form(t, a, b) for t in ranked if t.startswith("p:"))
    identifiers = tuple(written_form(t, a, b) for t in ranked if t.startswith("i:"))
    values = tuple(written_form(t, a, b) for t in ranked if t.startswith("n:"))
    terms = tuple(written_form(t, a, b) for t in ranked if t.startswith("w:") and rarity(t) >= 0.5)[:8]
    pair_budget = (budget or AlignmentBudget()).for_pair()
    found = conflicts(a, b, pair_budget)
    partial = NOT_ALL_COMPARED if a.cut or b.cut or pair_budget.short else ""
    return PairEvidence(similarity, paths, identifiers, terms, values, found, partial)


def conflicts(a: Evidence, b: Evidence, budget: AlignmentBudget | None = None) -> tuple[Conflict, ...]:
    """Values the two memories give for the same key that cannot both hold, and names chosen for the same role.

    Sentences are aligned only where they could be (``_alignable``), within ``budget`` (default: one pair's).
    """
    found: dict[str, Conflict] = {}
    by_key_a, by_key_b = _values_by_key(a), _values_by_key(b)
    for key in sorted(by_key_a.keys() & by_key_b.keys()):
        values_a, values_b = by_key_a[key], by_key_b[key]
        if values_a.keys() & values_b.keys():
            continue  # a value in common: the other numbers are about something else
        value_a, value_b = min(values_a), min(values_b)
        found.setdefault(f"{value_a}|{value_b}", Conflict(key_label(key, a, b), value_a, value_b, values_a[value_a], values_b[value_b]))
    for sa, sb in _alignable(a, b, budget if budget is not None else AlignmentBudget().for_pair()):
        conflict = _conflicting_choice(sa, sb)
        if conflict is not None:
            found.setdefault(f"{conflict.value_a}|{conflict.value_b}", conflict)
    return tuple(found.values())


def _alignable(a: Evidence, b: Evidence, budget: AlignmentBudget):
    """The pairs of prose sentences (one of each memory) ``_conflicting_choice`` could find a conflict in, in the
    order of a loop over every pair (a's sentences, then b's), each paid for with ``budget``; where the budget
    ends, so do the pairs (``budget.short``).

    A pair can only align if its sentences share ``_needed`` words (counted with repeats) and each has a word
    that can name a choice, and one of them a name. Of two such sentences, the shorter's rarest ``len - needed
    + 1`` words (rarest in these two memories) must meet the other's (else fewer than ``needed`` are shared):
    an index of those words gives the pairs that could align, not every pair (prefix filtering, as set
    similarity joins do).
    """
    left = [item for item in a.prose_words if _can_name_a_choice(item[1])]
    right = [item for item in b.prose_words if _can_name_a_choice(item[1])]
    if not left or not right:
        return
    frequency: dict[tuple[str, int], int] = {}
    for _, _, words in left + right:
        for word in words:
            frequency[word] = frequency.get(word, 0) + 1

    def prefix(words: frozenset) -> list:
        ranked = sorted(words, key=lambda w: (frequency[w], w))  # rarest first, in a fixed order
        return ranked[: len(words) - _needed(len(words), len(words)) + 1]

    right_all: dict[tuple[str, int], list[int]] = {}
    right_prefix: dict[tuple[str, int], list[int]] = {}
    for k, (_, _, words) in enumerate(right):
        for word in words:
            right_all.setdefault(word, []).append(k)
        for word in prefix(words):
            right_prefix.setdefault(word, []).append(k)
    for _, sa, words_a in left:
        size_a = len(words_a)
        # b's sentences at least as long: meet a's prefix; shorter ones: their prefix meets a's words
        postings = [right_all.get(w, ()) for w in prefix(words_a)] + [right_prefix.get(w, ()) for w in words_a]
        if not budget.spend(lookups=sum(map(len, postings))):
            return
        candidates = {k for k in itertools.chain.from_iterable(postings[: len(postings) - size_a]) if len(right[k][2]) >= size_a}
        candidates.update(k for k in itertools.chain.from_iterable(postings[len(postings) - size_a :]) if len(right[k][2]) < size_a)
        for k in sorted(candidates):
            _, sb, words_b = right[k]
            if not (sa.names or sb.names) or len(words_a & words_b) < _needed(size_a, len(words_b)):
                continue
            if not budget.spend(work=size_a * len(words_b)):
                return
            yield sa, sb


def _needed(size_a: int, size_b: int) -> int:
    """Words two sentences must share (with repeats) for ``_conflicting_choice`` to align them."""
    return max(3, math.ceil(ALIGNED_SENTENCES * min(size_a, size_b)))


def _can_name_a_choice(sentence: Sentence) -> bool:
    """Whether any word of the sentence could be the distinctive side of a swapped choice."""
    return any(_distinctive(w, sentence.names) for w in sentence.tokens)


def _values_by_key(evidence: Evidence) -> dict[str, dict[str, str]]:
    keyed: dict[str, dict[str, str]] = {}
    for value in evidence.values:
        keyed.setdefault(value.key, {}).setdefault(value.value, value.phrase)
    return keyed


def _conflicting_choice(sa: Sentence, sb: Sentence) -> Conflict | None:
    """Two sentences saying the same about different names: "sent with Postmark" / "sent with Amazon SES".

    The sentences align word by word except for one swapped span (at most
    ``MAX_SWAPPED`` words a side) that holds a name on at least one side; the
    other side may name its choice with an ordinary word (yarn). Words added
    or left out elsewhere are allowed; a second swap is not (that is a paraphrase).
    """
    from difflib import SequenceMatcher

    from .evidence import STOP_WORDS, stem

    ta, tb = sa.tokens, sb.tokens
    operations = SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes()
    swaps = [op for op in operations if op[0] == "replace"]
    same = sum(i2 - i1 for tag, i1, i2, _, _ in operations if tag == "equal")
    if len(swaps) != 1 or same < max(3, ALIGNED_SENTENCES * min(len(ta), len(tb))):
        return None
    _, i1, i2, j1, j2 = swaps[0]
    span_a, span_b = ta[i1:i2], tb[j1:j2]
    if len(span_a) > MAX_SWAPPED or len(span_b) > MAX_SWAPPED:
        return None
    if not (set(span_a) & sa.names or set(span_b) & sb.names):
        return None
    if not any(_distinctive(w, sa.names) for w in span_a) or not any(_distinctive(w, sb.names) for w in span_b):
        return None  # "with prisma migrate" / "outside the": one side names nothing

    content_a = {stem(w) for w in span_a if w not in STOP_WORDS}
    content_b = {stem(w) for w in span_b if w not in STOP_WORDS}
    if not content_a or not content_b or content_a & content_b:
        return None
    slot = " ".join(ta[max(0, i1 - 3) : i1]) or " ".join(tb[j2 : j2 + 3])
    return Conflict(slot, " ".join(span_a), " ".join(span_b), sa.text[:160], sb.text[:160])


def _distinctive(word: str, names: frozenset[str]) -> bool:
    from ...text.commonwords import word_rank

    rank = word_rank(word)
    return word in names or rank is None or rank > DISTINCTIVE_RANK
