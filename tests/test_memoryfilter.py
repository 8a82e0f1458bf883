"""The memory list's filter on real titles: each typed word is found in a word, or a small typo away from one's start."""

from __future__ import annotations

from pathlib import Path

import pytest

from rawko_tui.core.store.memoryfilter import FilterIndex
from rawko_tui.core.store.loading import load_store

REPO = Path(__file__).parent.parent
STORES = [REPO] + sorted(path for path in (REPO / "tests" / "data" / "realworld" / "stores").iterdir() if path.is_dir())
EXTRA = ["Google login uses the OIDC code flow with PKCE", "Postgres pool size", "Connection pooling for workers"]


@pytest.fixture(scope="module")
def titles() -> list[str]:
    """The demo store's titles, the titles people wrote in tests/data/realworld, and three of a team's store."""
    found = [m.attrs["title"] for root in STORES for m in load_store(root).files if isinstance(m.attrs.get("title"), str)]
    assert len(found) > 700
    return sorted(set(found)) + EXTRA


def found(titles: list[str], query: str) -> set[str]:
    return {titles[row] for row in FilterIndex([t.lower() for t in titles]).scores(query)}


def test_letters_scattered_across_words_are_not_a_match(titles):
    assert found(titles, "pool") == {"Postgres pool size", "Connection pooling for workers"}
    # each of these was a match of the fuzzy filter before (its letters, in order, somewhere in the title)
    assert "Google login uses the OIDC code flow with PKCE" not in found(titles, "gloin") | found(titles, "close") | found(titles, "code flaw wiht")


@pytest.mark.parametrize(
    "query, expected",
    [
        ("pasword", {"Password Hashing Approach"}),
        ("passwrod", {"Password Hashing Approach"}),
        ("middlware", {"Express Middleware Pattern"}),
        ("instalation", {"Installation"}),
        ("ci workflow", {"CI Workflow YAML Layout"}),
        ("jwt expiry", {"JWT expiry is 24 hours"}),
    ],
)
def test_small_typos_and_several_words_still_find_a_title(titles, query, expected):
    assert found(titles, query) == expected


def test_a_short_word_is_found_as_typed_and_every_word_must_be_found(titles):
    assert all("test" in title.lower() for title in found(titles, "test"))  # four letters: no typo allowed
    assert found(titles, "oauth") >= {"OAuth2 Integration Too Broad for MVP"}
    assert found(titles, "oauth pool") == set()


def test_whole_words_come_before_word_starts_and_typos():
    index = FilterIndex(["postgres pool size", "connection pooling", "spool files", "poll the queue"])
    scores = index.scores("pool")
    assert sorted(scores, key=lambda row: -scores[row]) == [0, 1, 2]  # "poll" is a different word: four letters, no typo
    typo = index.scores("pooling")
    assert set(typo) == {1} and index.scores("poolign") and set(index.scores("poolign")) == {1}


def test_the_figures_the_app_guide_reports_on_the_labelled_queries():
    """bench/filter_quality.py on the queries labelled blind to the filter (docs/guide/app.md): a change that moves them
    must move the page too."""
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    from filter_quality import measure

    counts = measure()
    assert counts["words (today)"]["all"] == (183, 5, 7)
    assert counts["fuzzy partial_ratio>=70 (before)"]["all"] == (189, 122, 1)
    page = " ".join((REPO / "docs" / "guide" / "app.md").read_text(encoding="utf-8").split())
    assert "precision 97.3%, recall 96.3%" in page and "60.8%" in page
