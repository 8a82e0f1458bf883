"""How common an English word is: for lint's warning on whenToUse alternatives that match any task.

The list (``data/english_words.txt``, most frequent first) comes from
wordfreq; the cut-off below was chosen on the labelled alternatives in
``bench/data/pattern_alternatives.tsv`` (``bench/lint_words.py`` measures it).
"""

from __future__ import annotations

import functools

# An alternative among this many most frequent English words matches tasks on any subject.
# Chosen on the labelled set: the largest cut-off that flags no specific word (above it,
# "security" and "test", then "session" and "error" are flagged: a warning people learn to ignore).
COMMON_WORD_RANK = 500


@functools.cache
def _ranks() -> dict[str, int]:
    from importlib import resources  # where asked: its import (tempfile, typing, shutil) cost every lint 4 ms

    text = resources.files("rawko_tui.core").joinpath("data", "english_words.txt").read_text(encoding="utf-8")
    words = [line for line in text.splitlines() if line and not line.startswith("#")]
    return {word: rank for rank, word in enumerate(words, start=1)}


def word_rank(word: str) -> int | None:
    """1 for the most frequent English word; None for a word outside the list."""
    return _ranks().get(word.lower())


def is_common_word(word: str, cutoff: int = COMMON_WORD_RANK) -> bool:
    rank = word_rank(word)
    return rank is not None and rank <= cutoff


def words_containing(fragment: str, limit: int = 3) -> list[str]:
    """Frequent English words that hold ``fragment`` inside them (not just as themselves): what else it matches."""
    fragment = fragment.lower()
    found = []
    for word in _ranks():
        if fragment in word and word != fragment and not word.startswith(fragment):
            found.append(word)
            if len(found) == limit:
                break
    return found
