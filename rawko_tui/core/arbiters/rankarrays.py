"""Scoring and ordering the matched memories of one keystroke with array operations.

The rank index uses this from its second ranking on (typing in the app): a
command-line preview ranks once, in plain Python, and never pays numpy's
import.  The order is the plain path's exactly: score, best first, ties in
load order; the points are the same integers (or floats) added the same way.
"""

from __future__ import annotations

from itertools import chain, repeat

import numpy as np

from .scoring import keyword_points


def eligible_positions(first: dict[int, int], orders: np.ndarray, min_order: int | None) -> np.ndarray:
    """The matched memories whose importance meets the threshold, in load order (``orders``: -1 for no known importance)."""
    if min_order is None or not first:
        return np.empty(0, dtype=np.int64)
    matched = np.fromiter(first, dtype=np.int64, count=len(first))
    matched.sort()
    return matched[orders[matched] >= min_order]


class KeywordHits:
    """Which lower-cased titles contain each task word, kept for the words of the last ranking.

    Typing changes only the last word, and mostly the same memories match
    from one keystroke to the next: each title is tested for a word once.
    """

    def __init__(self, titles: list[str]):
        self.titles = titles
        self.known: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # word -> (title contains it, title was tested)

    def counts(self, words: list[str], positions: np.ndarray) -> np.ndarray:
        """How many task words (repeats counted) each title of ``positions`` contains."""
        counts = np.zeros(len(positions), dtype=np.int64)
        kept: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for word in words:
            contains, tested = kept.get(word) or self.known.get(word) or (np.zeros(len(self.titles), dtype=bool), np.zeros(len(self.titles), dtype=bool))
            untested = positions[~tested[positions]]
            if len(untested):
                titles = [self.titles[p] for p in untested.tolist()]
                contains[untested] = np.fromiter(map(str.__contains__, titles, repeat(word)), dtype=bool, count=len(titles))
                tested[untested] = True
            kept[word] = (contains, tested)
            counts += contains[positions]
        self.known = kept
        return counts


def ranked_order(base: np.ndarray, positions: np.ndarray, hits: np.ndarray, words: int) -> np.ndarray:
    """``positions`` best score first, ties in load order: score = min(100, base + keyword points of ``hits`` of ``words``)."""
    points = np.array([keyword_points(count) for count in range(words + 1)])
    scores = np.minimum(base[positions] + points[hits], 100)
    return positions[np.argsort(-scores, kind="stable")]


class SlotArrays:
    """Which (memory position, plan index) each whenToUse test decides, as flat arrays (``PatternIndex.slots``)."""

    def __init__(self, slots: list[list[tuple[int, int]]]):
        self.lengths = np.fromiter(map(len, slots), dtype=np.int64, count=len(slots))
        self.starts = np.zeros(len(slots), dtype=np.int64)
        np.cumsum(self.lengths[:-1], out=self.starts[1:])
        pairs = np.fromiter(chain.from_iterable(chain.from_iterable(slots)), dtype=np.int64, count=2 * int(self.lengths.sum())).reshape(-1, 2)
        self.positions = pairs[:, 0].copy()
        self.plans = pairs[:, 1].copy()

    def first_plans(self, tests: list[int]) -> dict[int, int]:
        """Memory position -> the lowest plan index among the slots of ``tests`` (the tests that matched)."""
        if not tests:
            return {}
        tests_array = np.asarray(tests, dtype=np.int64)
        lengths = self.lengths[tests_array]
        # the slots of each test, one after another: its start, then one step per slot
        slots = np.repeat(self.starts[tests_array] - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
        positions, plans = self.positions[slots], self.plans[slots]
        order = np.lexsort((plans, positions))
        positions, plans = positions[order], plans[order]
        lowest = np.ones(len(positions), dtype=bool)
        lowest[1:] = positions[1:] != positions[:-1]
        return dict(zip(positions[lowest].tolist(), plans[lowest].tolist()))
