"""Judging one pair of memories: the same knowledge, a conflict, related, or nothing to do.

The thresholds below were chosen on the labelled store in
``bench/data/consolidation.yaml`` (``bench/consolidation.py`` prints the
precision and recall they give; the README reports them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .evidence import Evidence, Sentence

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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class PairEvidence:
    """Why two memories were put side by side: what they share and where they disagree."""

    similarity: float  # weighted term cosine, 0-1
    paths: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()  # shared rare words, rarest first, as written
    values: tuple[str, ...] = ()  # values both state alike ("24 hour")
    conflicts: tuple[Conflict, ...] = field(default=())

    def to_dict(self) -> dict:
        return {
            "similarity": round(self.similarity, 3),
            "sharedPaths": list(self.paths),
            "sharedIdentifiers": list(self.identifiers),
            "sharedTerms": list(self.terms),
            "sharedValues": list(self.values),
            "conflicts": [c.to_dict() for c in self.conflicts],
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
        return "; ".join(parts) or "few words in common"


def shared_evidence(a: Evidence, b: Evidence, similarity: float, rarity) -> PairEvidence:
    """What two memories share, strongest first. ``rarity(term)`` is 1 for a term only one memory of the store has."""
    shared = set(a.terms) & set(b.terms)
    ranked = sorted(shared, key=lambda t: (-rarity(t), t))
    paths = tuple(a.surface[t] for t in ranked if t.startswith("p:"))
    identifiers = tuple(a.surface[t] for t in ranked if t.startswith("i:"))
    values = tuple(t[2:] for t in ranked if t.startswith("n:"))
    terms = tuple(a.surface[t] for t in ranked if t.startswith("w:") and rarity(t) >= 0.5)[:8]
    return PairEvidence(similarity, paths, identifiers, terms, values, conflicts(a, b))


def conflicts(a: Evidence, b: Evidence) -> tuple[Conflict, ...]:
    """Values the two memories give for the same key that cannot both hold, and names chosen for the same role."""
    found: dict[str, Conflict] = {}
    by_key_a, by_key_b = _values_by_key(a), _values_by_key(b)
    for key in sorted(by_key_a.keys() & by_key_b.keys()):
        values_a, values_b = by_key_a[key], by_key_b[key]
        if values_a.keys() & values_b.keys():
            continue  # a value in common: the other numbers are about something else
        value_a, value_b = min(values_a), min(values_b)
        found.setdefault(f"{value_a}|{value_b}", Conflict(key, value_a, value_b, values_a[value_a], values_b[value_b]))
    for sa in a.sentences:
        if sa.code:
            continue
        for sb in b.sentences:
            if sb.code:
                continue
            conflict = _conflicting_choice(sa, sb)
            if conflict is not None:
                found.setdefault(f"{conflict.value_a}|{conflict.value_b}", conflict)
    return tuple(found.values())


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
    from ..commonwords import word_rank

    rank = word_rank(word)
    return word in names or rank is None or rank > DISTINCTIVE_RANK
