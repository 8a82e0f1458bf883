"""The consolidation queue judges by meaning: paraphrased duplicates, contradictions in context, related pairs to link."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import FIXED_NOW, REPO_ROOT, memory, write_store
from fakeapi import KEY

from rawko_tui.cli import main
from rawko_tui.core.arbiters.decision import parse_now
from rawko_tui.core.curation.consolidation.queue import closest_memories, consolidation_candidates
from rawko_tui.core.lint.linter import lint_store
from rawko_tui.core.store.loading import load_store

NOW = parse_now(FIXED_NOW)


def git(root, *args):
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "a@example.com",
    }
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout.strip()


def committed_store(tmp_path, monkeypatch, files: dict[str, str]):
    root = write_store(tmp_path / "repo", files)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    for key, value in {
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "a@example.com",
    }.items():
        monkeypatch.setenv(key, value)
    return root


def old_likeness(title_a, body_a, title_b, body_b) -> float:
    """The queue's earlier measure (rapidfuzz token-set ratio, 85 to propose a pair), kept here to show what it missed."""
    from rapidfuzz import fuzz

    title = fuzz.token_set_ratio(title_a.lower(), title_b.lower())
    body = fuzz.token_set_ratio(body_a.lower(), body_b.lower())
    return max(body, 0.5 * title + 0.5 * body)


def kinds(groups, a: str, b: str) -> list[str]:
    pair = {f".rawko/memories/{a}", f".rawko/memories/{b}"}
    return [g.kind for g in groups if set(g.paths) == pair]


JWT_A = (
    "JWT tokens expire after 24 hours",
    "Access tokens are signed in src/auth/token.ts with `expiresIn` set to 24 hours. Tests that need an expired token sign one with a past `iat` instead of waiting.",
)
JWT_B = (
    "JWT token expiry is 24 hours",
    "The JWT access token lifetime is one day (24 hours); the `expiresIn` option lives in src/auth/token.ts. To test expiry, create a token with an `iat` in the past rather than sleeping.",
)
FLAKY_A = (
    "Flaky checkout test needs a fixed clock",
    (
        "tests/e2e/checkout.spec.ts failed now and then because the cart expiry runs on a real 15 minute timer. "
        "Calling `vi.useFakeTimers()` before the page loads and stepping it with `vi.advanceTimersByTime` made it pass every time."
    ),
)
FLAKY_B = (
    "Checkout e2e spec is unstable with real timers",
    (
        "When the 15 minute cart-expiry timer runs for real, tests/e2e/checkout.spec.ts flakes. "
        "Vitest fake timers fix it: `vi.useFakeTimers()` first, then `vi.advanceTimersByTime` to move the cart expiry on cue."
    ),
)
POOL_A = (
    "Database connection pool size",
    "The Postgres pool in src/db/pool.ts is configured with `max: 20`. Going higher exhausted the RDS connection limit when all pods scaled out.",
)
POOL_B = (
    "Raise the pg pool max for the worker",
    "Jobs queued up because the worker starved for connections; src/db/pool.ts now sets `max: 50` for the pg pool, which cleared the backlog.",
)
DISTRACTORS = {
    "git-branches.md": memory(
        title="Git branches follow the ticket id",
        when='"branch"',
        body="Branch names start with the Jira ticket, for example ENG-1234-short-description.",
    ),
    "csp.md": memory(
        title="Content security policy forbids inline scripts",
        when='"csp"',
        body="The CSP header set by helmet has no unsafe-inline; third-party scripts need a nonce.",
    ),
    "two-factor.md": memory(
        title="Time-based one-time passwords",
        when='"2fa"',
        body="TOTP secrets are encrypted with the KMS key; codes are accepted within one 30 second step.",
    ),
}


def pair_store(tmp_path, a, b, when_a='"auth"', when_b='"auth"', name_a="a.md", name_b="b.md"):
    return write_store(
        tmp_path,
        {
            name_a: memory(title=f'"{a[0]}"', when=when_a, body=a[1]),
            name_b: memory(title=f'"{b[0]}"', when=when_b, body=b[1]),
            **DISTRACTORS,
        },
    )


def test_a_paraphrased_duplicate_naming_the_same_file_is_found_with_its_evidence(tmp_path):
    assert old_likeness(*JWT_A, *JWT_B) < 85  # the earlier queue missed it
    groups = consolidation_candidates(load_store(pair_store(tmp_path, JWT_A, JWT_B)), NOW)
    found = [g for g in groups if g.kind == "near-duplicate"]
    assert [set(g.paths) for g in found] == [{".rawko/memories/a.md", ".rawko/memories/b.md"}]
    evidence = found[0].evidence
    assert "src/auth/token.ts" in evidence.paths and "expiresIn" in evidence.identifiers and "24 hours" in evidence.values
    assert "both name src/auth/token.ts" in found[0].reason


def test_the_new_users_flaky_test_paraphrase_is_a_duplicate(tmp_path):
    assert old_likeness(*FLAKY_A, *FLAKY_B) < 85
    groups = consolidation_candidates(load_store(pair_store(tmp_path, FLAKY_A, FLAKY_B, '"checkout"', '"flaky|e2e"')), NOW)
    assert kinds(groups, "a.md", "b.md") == ["near-duplicate"]


def test_the_new_users_pool_size_contradiction_shows_both_phrases_and_what_is_injected_today(tmp_path, capsys):
    from rapidfuzz import fuzz

    assert fuzz.token_set_ratio(POOL_A[0].lower(), POOL_B[0].lower()) < 70  # the titles are not alike: the earlier rule needed 70
    root = pair_store(tmp_path, POOL_A, POOL_B, '"pool|connection"', '"pool|worker"')
    groups = consolidation_candidates(load_store(root), NOW)
    assert kinds(groups, "a.md", "b.md") == ["contradiction"]
    conflict = next(g for g in groups if g.kind == "contradiction").evidence.conflicts[0]
    assert (conflict.key, conflict.value_a, conflict.value_b) == ("max", "20", "50")
    assert "`max: 20`" in conflict.phrase_a and "`max: 50`" in conflict.phrase_b
    (root / ".rawko" / "checks.yaml").write_text("tasks:\n  - task: tune the db pool\n    agent: developer\n")
    assert main(["candidates", str(root), "--now", FIXED_NOW]) == 0
    out = capsys.readouterr().out
    assert "same subject, conflicting values: 20 against 50 (max)" in out
    assert "a.md: 'The Postgres pool in src/db/pool.ts is configured with `max: 20`.'" in out
    assert "today: 'tune the db pool' (developer): the arbiter injects both, side by side in one prompt" in out
    assert main(["candidates", str(root), "--now", FIXED_NOW, "--json"]) == 0
    item = next(c for c in json.loads(capsys.readouterr().out)["candidates"] if c["kind"] == "contradiction")
    assert {"kind", "paths", "score", "reason", "evidence"} <= set(item)
    assert item["evidence"]["conflicts"][0]["a"] == "20" and item["evidence"]["sharedPaths"] == ["src/db/pool.ts"]
    assert {"task": "tune the db pool", "agent": "developer", "injected": [".rawko/memories/a.md", ".rawko/memories/b.md"]} in item[
        "evidence"
    ]["injectedToday"]


def test_what_a_contradiction_says_about_injection_comes_from_the_arbiter_even_when_it_throws(tmp_path, capsys):
    root = write_store(
        tmp_path,
        {
            "a.md": memory(title=f'"{POOL_A[0]}"', when='"pool"', body=POOL_A[1]),
            "b.md": memory(title=f'"{POOL_B[0]}"', when='"pool"', body=POOL_B[1]),
            "broken.md": memory(title="42", when='"pool"'),  # SPEC-0007's scoring calls title.toLowerCase() on it and throws
            **DISTRACTORS,
        },
    )
    (root / ".rawko" / "checks.yaml").write_text("tasks:\n  - task: tune the db pool\n    agent: developer\n")
    assert main(["candidates", str(root), "--now", FIXED_NOW, "--kind", "contradiction"]) == 0
    out = capsys.readouterr().out
    assert "injects both" not in out
    assert (
        "today: 'tune the db pool' (developer): An arbiter running SPEC-0007's code verbatim throws while scoring "
        ".rawko/memories/broken.md: TypeError: memory.frontmatter.title.toLowerCase is not a function. It injects nothing at all."
    ) in out
    assert main(["candidates", str(root), "--now", FIXED_NOW, "--kind", "contradiction", "--json"]) == 0
    today = json.loads(capsys.readouterr().out)["candidates"][0]["evidence"]["injectedToday"][0]
    assert today["injected"] == [] and today["arbiterFailure"]["path"] == ".rawko/memories/broken.md"
    assert today["arbiterFailure"]["stage"] == "score"


@pytest.mark.parametrize(
    ("a", "b", "conflict"),
    [
        (
            ("Transactional email", "Password resets and receipts are sent with Postmark via src/email/send.ts."),
            ("Sending email", "Password resets and receipts are sent with Amazon SES via src/email/send.ts, using the configuration set."),
            ("postmark", "amazon ses"),
        ),
        (
            ("CI runs on Node 20", "The CI matrix and the Dockerfile both use Node 20; .nvmrc says 20 as well."),
            ("Node version", "The project runs on Node 22 in CI and in the Docker image; .nvmrc pins 22."),
            ("20", "22"),
        ),
        (
            ("Public API limit", "The public API allows 100 requests per minute per key, set in config/limits.ts."),
            ("Partner quota", "Partners get 60 requests per minute per key (config/limits.ts)."),
            ("100", "60"),
        ),
        (
            ("Token lifetime", 'Access tokens are signed in src/auth/token.ts with `expiresIn: "24h"`.'),
            ("Short tokens", 'Access tokens are signed in src/auth/token.ts with `expiresIn: "1h"`.'),
            ("24h", "1h"),
        ),
    ],
)
def test_named_choices_versions_and_rates_conflict_in_context(tmp_path, a, b, conflict):
    groups = consolidation_candidates(load_store(pair_store(tmp_path, a, b)), NOW)
    found = [g for g in groups if g.kind == "contradiction"]
    assert found and (found[0].evidence.conflicts[0].value_a, found[0].evidence.conflicts[0].value_b) == conflict


def test_labels_use_the_words_as_the_memories_write_them_never_a_stem(tmp_path):
    a = ("Login retries", "The login job makes 5 attempts before it gives up; attempts are counted per user, over 24 hours, in src/auth/login.ts.")
    b = ("Login retry limit", "The login job makes 10 attempts before it locks the account; the lock lasts 24 hours (src/auth/login.ts).")
    groups = consolidation_candidates(load_store(pair_store(tmp_path, a, b)), NOW)
    contradiction = next(g for g in groups if g.kind == "contradiction")
    assert contradiction.evidence.conflicts[0].describe() == "5 against 10 (attempts)"  # not the stem "attemp"
    assert "24 hours" in contradiction.evidence.values and "24 hour" not in contradiction.evidence.values
    assert "(attemp)" not in contradiction.reason and "(attempts)" in contradiction.reason
    settings = ("Token lifetime", 'Access tokens are signed in src/auth/token.ts with `expiresIn: "24h"`.')
    other = ("Short tokens", 'Access tokens are signed in src/auth/token.ts with `expiresIn: "1h"`.')
    found = next(g for g in consolidation_candidates(load_store(pair_store(tmp_path / "two", settings, other)), NOW) if g.kind == "contradiction")
    assert found.evidence.conflicts[0].describe() == "24h against 1h (expiresIn)"  # an identifier keeps its case


def test_numbers_in_unrelated_code_samples_are_not_a_contradiction_on_the_demo_store(tmp_path):
    shutil.copytree(REPO_ROOT / ".rawko", tmp_path / ".rawko")
    groups = consolidation_candidates(load_store(tmp_path), NOW)
    pair = {".rawko/memories/error-handling-pattern-in-express-handlers.md", ".rawko/memories/express-middleware-pattern.md"}
    assert [g.kind for g in groups if set(g.paths) == pair] == ["related"]  # 400 and 401 in two code samples: same area, no conflict
    assert not [g for g in groups if g.kind == "contradiction"]


def test_related_pairs_are_offered_as_links_and_a_link_is_two_appends_in_one_commit(tmp_path, monkeypatch, capsys):
    a = (
        "JWT refresh tokens rotate on every use",
        "Refreshing in src/auth/token.ts issues a new refresh token and revokes the old one; reusing a revoked one logs the family out.",
    )
    root = committed_store(
        tmp_path,
        monkeypatch,
        {"expiry.md": memory(title=f'"{JWT_A[0]}"', body=JWT_A[1]), "rotation.md": memory(title=f'"{a[0]}"', body=a[1]), **DISTRACTORS},
    )
    groups = consolidation_candidates(load_store(root), NOW)
    assert kinds(groups, "expiry.md", "rotation.md") == ["related"]
    assert main(["link", "expiry", "rotation", str(root)]) == 0
    out = capsys.readouterr().out
    assert "--- appended to .rawko/memories/expiry.md" in out and "relatedMemories:\n- rotation\n" in out
    assert git(root, "show", "--name-only", "--format=%s", "HEAD").splitlines() == [
        "rawko-tui: link expiry.md, rotation.md",
        "",
        ".rawko/memories/expiry.md",
        ".rawko/memories/rotation.md",
    ] or set(git(root, "show", "--name-only", "--format=", "HEAD").split()) == {".rawko/memories/expiry.md", ".rawko/memories/rotation.md"}
    store = load_store(root)
    assert store.file("expiry.md").effective()[0]["relatedMemories"] == ["rotation"]
    assert store.file("rotation.md").effective()[0]["relatedMemories"] == ["expiry"]
    head, before = git(root, "rev-parse", "HEAD"), (root / ".rawko" / "memories" / "expiry.md").read_bytes()
    assert main(["link", "rotation", "expiry", str(root)]) == 0  # linked already, in either order: said, nothing written
    assert capsys.readouterr().out == "rotation.md and expiry.md are linked already: each lists the other in relatedMemories. Nothing was written.\n"
    assert git(root, "rev-parse", "HEAD") == head and (root / ".rawko" / "memories" / "expiry.md").read_bytes() == before
    assert kinds(consolidation_candidates(store, NOW), "expiry.md", "rotation.md") == []  # linked: not offered again
    assert not [f for f in lint_store(store) if f.code == "related-missing"]
    git(root, "rm", "-q", ".rawko/memories/rotation.md")
    missing = [f for f in lint_store(load_store(root)) if f.code == "related-missing"]
    assert [(f.path, f.message) for f in missing] == [
        (".rawko/memories/expiry.md", "relatedMemories names 'rotation', which no memory file is")
    ]


def test_stale_items_are_folded_listed_on_demand_and_confirming_restarts_the_clock(tmp_path, monkeypatch, capsys):
    old = "2025-01-01T00:00:00Z"
    areas = ["queues", "billing", "search", "uploads", "logging"]
    root = committed_store(
        tmp_path,
        monkeypatch,
        {
            f"old-{i}.md": memory(title=f"How {area} work", at=old, body=f"Notes on {area}: see src/{area}/index.ts.")
            for i, area in enumerate(areas)
        },
    )
    assert main(["candidates", str(root), "--now", FIXED_NOW]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["stale                  5 memories not confirmed recently or past expiresAt (--kind stale lists them)"]
    assert main(["candidates", str(root), "--now", FIXED_NOW, "--kind", "stale"]) == 0
    assert capsys.readouterr().out.count("discovered 388 days ago and never updated since") == 5
    assert main(["confirm", "old-0", str(root), "--note", "Still true after the March refactor."]) == 0
    out = capsys.readouterr().out
    assert "updatedAt:" in out and "confirmed: true" in out and "Still true after the March refactor." in out
    names = {g.paths[0] for g in consolidation_candidates(load_store(root), parse_now("2026-12-01T00:00:00Z")) if g.kind == "stale"}
    assert ".rawko/memories/old-0.md" not in names and len(names) == 4
    assert main(["candidates", str(root), "--kind", "nonsense"]) == 2


def test_a_new_memory_is_shown_the_existing_one_that_holds_its_lesson(tmp_path, monkeypatch, capsys):
    root = committed_store(
        tmp_path, monkeypatch, {"jwt-expiry.md": memory(title=f'"{JWT_A[0]}"', when='"jwt"', body=JWT_A[1]), **DISTRACTORS}
    )
    closest = closest_memories(load_store(root), *JWT_B)
    assert closest[0].name == "jwt-expiry.md" and closest[0].same_knowledge and "src/auth/token.ts" in closest[0].evidence.paths
    assert closest_memories(load_store(root), *JWT_B, exclude=frozenset({"jwt-expiry.md"})) == []  # a merge's own originals are left out
    assert (
        main(
            [
                "new",
                str(root),
                "--title",
                JWT_B[0],
                "--when",
                "jwt",
                "--importance",
                "high",
                "--by",
                "developer",
                "--body",
                JWT_B[1] * 2,
                "--dry-run",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("Closest existing memory: jwt-expiry.md (")
    assert "may already hold this lesson (append to it instead?)\n  rawko-tui append jwt-expiry.md --body ...  adds to it" in out


def test_term_counts_cached_between_runs_give_the_same_queue_and_follow_a_changed_file(tmp_path, monkeypatch):
    from rawko_tui.core.curation.consolidation import termcache

    monkeypatch.setenv("RAWKO_TUI_CACHE_DIR", str(tmp_path / "cache"))
    root = pair_store(tmp_path / "store", POOL_A, POOL_B)
    first = consolidation_candidates(load_store(root), NOW)
    assert termcache._path(root).is_file()
    calls = []
    original = termcache.TermCounts.of
    monkeypatch.setattr(termcache.TermCounts, "of", classmethod(lambda cls, rows: calls.append(rows) or original(rows)))
    assert consolidation_candidates(load_store(root), NOW) == first and not calls  # every row from the cache
    (root / ".rawko" / "memories" / "b.md").write_text(memory(title=f'"{POOL_B[0]}"', body=POOL_B[1].replace("max: 50", "max: 20")))
    cached = consolidation_candidates(load_store(root), NOW)
    monkeypatch.setenv("RAWKO_TUI_CACHE", "off")
    assert cached == consolidation_candidates(load_store(root), NOW)
    assert "contradiction" not in [g.kind for g in cached]


def test_claudes_second_opinion_is_asked_once_per_pair_and_quotes_the_sentences(tmp_path, monkeypatch, fake, capsys):
    monkeypatch.setenv("RAWKO_TUI_CACHE_DIR", str(tmp_path / "cache"))
    root = pair_store(tmp_path / "store", POOL_A, POOL_B)
    answer = {
        "verdict": "contradiction",
        "quoteA": "configured with `max: 20`",
        "quoteB": "now sets `max: 50`",
        "why": "Two pool sizes for one pool.",
    }
    fake.answers.append((200, "Here it is:\n" + json.dumps(answer)))
    assert main(["opinion", "a", "b", str(root)]) == 0
    out = capsys.readouterr().out
    assert out == "contradiction: Two pool sizes for one pool.\n  a.md: 'configured with `max: 20`'\n  b.md: 'now sets `max: 50`'\n"
    prompt = fake.seen[0]["payload"]["messages"][0]["content"]
    assert "`max: 20`" in prompt and "`max: 50`" in prompt and KEY in str(fake.seen[0]["headers"])
    assert main(["opinion", "b", "a", str(root), "--json"]) == 0  # the same pair, either order: from the cache
    assert json.loads(capsys.readouterr().out)["cached"] is True and len(fake.seen) == 1
    fake.answers.append((200, '{"verdict": "maybe"}'))
    (root / ".rawko" / "memories" / "b.md").write_text(memory(title="Changed", body="Other text now."))
    assert main(["opinion", "a", "b", str(root)]) == 1
    assert "the answer's verdict 'maybe' is not one of duplicate, contradiction, related, unrelated" in capsys.readouterr().err


@pytest.mark.parametrize("first", [("a", "b"), ("b", "a")])
def test_a_cached_opinion_keeps_each_quote_under_the_memory_it_came_from_in_either_order(tmp_path, monkeypatch, fake, capsys, first):
    """``opinion A B`` after ``opinion B A`` (and the other way round): the cached quotes follow the memories, not the positions."""
    monkeypatch.setenv("RAWKO_TUI_CACHE_DIR", str(tmp_path / "cache"))
    root = pair_store(tmp_path / "store", POOL_A, POOL_B)
    quotes = {"a": "configured with `max: 20`", "b": "now sets `max: 50`"}
    asked, reverse = first, first[::-1]
    # the fake answers as Claude would: quoteA from the memory shown first in the prompt
    fake.answers.append((200, json.dumps({"verdict": "contradiction", "quoteA": quotes[asked[0]], "quoteB": quotes[asked[1]], "why": "Two sizes."})))
    for names in (asked, reverse, asked):
        assert main(["opinion", *names, str(root), "--json"]) == 0
        said = json.loads(capsys.readouterr().out)
        assert said["paths"] == [f".rawko/memories/{n}.md" for n in names]
        assert (said["quoteA"], said["quoteB"]) == (quotes[names[0]], quotes[names[1]]), names
        assert main(["opinion", *names, str(root)]) == 0
        out = capsys.readouterr().out
        assert f"  {names[0]}.md: {quotes[names[0]]!r}\n  {names[1]}.md: {quotes[names[1]]!r}\n" in out
    assert len([s for s in fake.seen if s["path"].startswith("/v1/messages") and "count_tokens" not in s["path"]]) == 1  # asked once
    prompt = fake.seen[0]["payload"]["messages"][0]["content"]
    assert prompt.index(quotes[asked[0]].split("`")[1]) < prompt.index(quotes[asked[1]].split("`")[1])  # the fake's A is the prompt's A


def test_without_a_key_the_opinion_says_how_and_nothing_else_needs_one(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("RAWKO_TUI_CACHE_DIR", str(tmp_path / "cache"))
    root = pair_store(tmp_path / "store", POOL_A, POOL_B)
    assert main(["opinion", "a", "b", str(root)]) == 1
    assert "set ANTHROPIC_API_KEY to ask Claude" in capsys.readouterr().err
    assert main(["candidates", str(root), "--now", FIXED_NOW]) == 0


def test_the_labelled_benchmark_meets_its_targets():
    """The quality figures docs/guide/consolidation.md reports, from bench/consolidation.py on the labelled store (no timing here)."""
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "consolidation.py"), "--memories", "0", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    quality = json.loads(done.stdout)["quality"]
    assert (
        quality["kinds"]["near-duplicate"]["labelled"] >= 20
        and quality["kinds"]["contradiction"]["labelled"] >= 10
        and quality["kinds"]["related"]["labelled"] >= 20
    )
    assert quality["kinds"]["near-duplicate"]["recall"] >= 0.9
    assert quality["kinds"]["contradiction"]["recall"] >= 0.8
    assert quality["mergePrecision"] >= 0.9
    assert quality["relatedProposedAsDuplicate"] == 0


def test_term_counts_drop_the_terms_of_files_that_are_gone_and_stay_the_same(tmp_path, monkeypatch):
    """When most cached terms belong to files no longer in the store, the vocabulary is compacted, not read again."""
    import random

    from rawko_tui.core.disk import cache
    from rawko_tui.core.curation.consolidation import termcache
    from rawko_tui.core.curation.consolidation.evidence import extract

    monkeypatch.setenv("RAWKO_TUI_CACHE_DIR", str(tmp_path / "cache"))
    rng = random.Random(3)

    def text(i: int) -> str:
        return f"memory {i}: " + " ".join("".join(rng.choice("bcdfghklmnprstvz") for _ in range(8)) for _ in range(40))

    root = tmp_path / "store"
    first = [text(i) for i in range(60)]
    termcache.term_counts(root, first, lambda i: extract(f"t{i}", first[i]).terms)
    later = first[:5] + [text(i) for i in range(60, 70)]
    read = []
    cached = termcache.term_counts(root, later, lambda i: read.append(i) or extract(f"t{i}", later[i]).terms)
    assert read == list(range(5, 15))  # only the new files are read
    assert len(cache._read(termcache._path(root))["vocabulary"]) == len(cached.vocabulary) < 60 * 40 // 2
    monkeypatch.setenv("RAWKO_TUI_CACHE", "off")
    fresh = termcache.term_counts(root, later, lambda i: extract(f"t{i}", later[i]).terms)

    def rows(counts):
        matrix = counts.matrix.tocsr()
        return [{counts.vocabulary[j]: v for j, v in zip(matrix[r].indices.tolist(), matrix[r].data.tolist(), strict=True)} for r in range(matrix.shape[0])]

    assert rows(cached) == rows(fresh)


def test_a_link_one_side_holds_already_writes_only_the_other_side(tmp_path, monkeypatch, capsys):
    root = committed_store(
        tmp_path,
        monkeypatch,
        {"a.md": memory(title="A", extra="relatedMemories: [b]", body=JWT_A[1]), "b.md": memory(title="B", body=JWT_B[1])},
    )
    assert main(["link", "a", "b", str(root)]) == 0
    assert "--- appended to .rawko/memories/b.md" in capsys.readouterr().out
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == [".rawko/memories/b.md"]
    assert main(["link", "b", "a", str(root)]) == 0 and "linked already" in capsys.readouterr().out


def test_the_app_and_the_command_line_offer_one_list_of_kinds_and_unused_is_judged_by_the_saved_tasks(tmp_path, capsys):
    from rawko_tui.core.curation.consolidation import KINDS
    from rawko_tui.tui.screens.consolidation import FILTERS

    assert FILTERS == (None, *KINDS) and "unused" in KINDS
    root = write_store(
        tmp_path,
        {
            "pool.md": memory(title="Database connection pool size", when='"pool"', body=POOL_A[1]),
            "branches.md": memory(title="Git branches follow the ticket id", when='"branch"', body="Branch names start with the ticket."),
        },
    )
    for kind in KINDS:  # every kind the app's filter offers, the command line accepts
        assert main(["candidates", str(root), "--now", FIXED_NOW, "--kind", kind]) == 0
    assert "unused: needs at least 3 saved tasks to judge by (.rawko/checks.yaml has 0)" in capsys.readouterr().out
    tasks = "".join(f"  - task: {task}\n    agent: developer\n" for task in ("tune the pool", "pool sizes", "raise the pool max"))
    (root / ".rawko" / "checks.yaml").write_text("tasks:\n" + tasks)
    assert main(["candidates", str(root), "--now", FIXED_NOW]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "unused                 1 memory that none of the 3 saved tasks injects (--kind unused lists them)"
    assert main(["candidates", str(root), "--now", FIXED_NOW, "--kind", "unused"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "unused              0  .rawko/memories/branches.md",
        "                      none of the 3 saved tasks injects it",
    ]
    assert main(["candidates", str(root), "--kind", "unusd"]) == 2
    assert "--kind: unusd is not one of near-duplicate, contradiction, related, stale, unused" in capsys.readouterr().err


def test_a_memory_without_a_readable_date_is_as_old_as_its_last_commit_and_without_one_its_age_is_unknown(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-06-01T00:00:00Z")  # 602 days before FIXED_NOW
    root = committed_store(
        tmp_path,
        monkeypatch,
        {
            "no-date.md": memory(title="How queues work", at=None, body="Notes on queues: see src/queues/index.ts."),
            "bad-date.md": memory(title="How billing works", at='"sometime last spring"', body="Notes on billing: see src/billing/index.ts."),
        },
    )
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-20T00:00:00Z")
    (root / ".rawko" / "memories" / "recent.md").write_text(memory(title="How search works", at=None, body="Notes on search."))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "recent")
    (root / ".rawko" / "memories" / "new.md").write_text(memory(title="How uploads work", at="'not a date'", body="Notes on uploads."))
    stale = {g.paths[0].rsplit("/", 1)[-1]: g.reason for g in consolidation_candidates(load_store(root), NOW) if g.kind == "stale"}
    no_date = "none of its entries carries a readable date (discoveredAt, updatedAt or retiredAt)"
    assert stale == {
        "no-date.md": f"{no_date}; last committed 602 days ago",
        "bad-date.md": f"{no_date}; last committed 602 days ago",
        "new.md": f"age unknown: {no_date}, and no commit holds it yet",
    }  # recent.md: committed four days ago, not stale
    assert main(["candidates", str(root), "--now", FIXED_NOW, "--kind", "stale"]) == 0
    assert "age unknown" in capsys.readouterr().out
    assert [g.reason for g in consolidation_candidates(load_store(write_store(tmp_path / "no-git", {"a.md": memory(at=None)})), NOW) if g.kind == "stale"] == [
        f"age unknown: {no_date}, and no commit holds it yet"
    ]  # outside git: no commit holds it
