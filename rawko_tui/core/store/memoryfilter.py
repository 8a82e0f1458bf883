"""The memory list's filter: which memories a person's words find, and how well.

Each word typed must be found in a memory's searched text (title, tags,
patterns, path): as a whole word, as the start of a word, inside one, or, for
a word of five letters or more, with a small typo (one edit, two from nine
letters; the first letter as typed) at the start of a word.  Letters merely
scattered across words never match: ``pool`` does not find "Google login
uses the OIDC code flow with PKCE".
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")
WHOLE_WORD, WORD_START, INSIDE, TYPO = 3.0, 2.0, 1.0, 0.5  # how well one typed word is found


def typos_allowed(word: str) -> int:
    """Edits a typed word may be away from the start of a word it finds: none for short words, where one would find many."""
    return 0 if len(word) < 5 else 1 if len(word) < 9 else 2


class FilterIndex:
    """The searched texts of a list of memories (lowercase), with their words indexed when a query first needs them."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self._rows_by_word: dict[str, list[int]] | None = None

    @property
    def rows_by_word(self) -> dict[str, list[int]]:
        if self._rows_by_word is None:
            index: dict[str, list[int]] = {}
            for row, text in enumerate(self.texts):
                for word in set(_WORD.findall(text)):
                    index.setdefault(word, []).append(row)
            self._rows_by_word = index
        return self._rows_by_word

    def scores(self, query: str) -> dict[int, float]:
        """Row -> score of the rows that find every word of ``query`` (higher is better); every row for an empty query."""
        words = query.lower().split()
        if not words:
            return dict.fromkeys(range(len(self.texts)), 0.0)
        found: dict[int, float] | None = None
        for word in dict.fromkeys(words):
            scored = self._word_scores(word)
            found = scored if found is None else {row: score + scored[row] for row, score in found.items() if row in scored}
            if not found:
                return {}
        return found

    def _word_scores(self, typed: str) -> dict[int, float]:
        """Row -> how well one typed word is found in it (the best of its places)."""
        scores = {row: INSIDE for row, text in enumerate(self.texts) if typed in text}
        allowed = typos_allowed(typed)
        for word, rows in self.rows_by_word.items():
            if word == typed:
                score = WHOLE_WORD
            elif word.startswith(typed):
                score = WORD_START
            elif allowed and word[0] == typed[0] and _near_start(typed, word, allowed):
                score = TYPO
            else:
                continue
            for row in rows:
                if scores.get(row, 0.0) < score:
                    scores[row] = score
        return scores


def _near_start(typed: str, word: str, allowed: int) -> bool:
    """Whether ``typed`` is at most ``allowed`` edits (a swap of two letters is one) from the start of ``word``."""
    from rapidfuzz.distance import OSA

    length = len(typed)
    if len(word) < length - allowed:
        return False
    return any(OSA.distance(typed, word[:n], score_cutoff=allowed) <= allowed for n in range(max(1, length - allowed), length + allowed + 1))
