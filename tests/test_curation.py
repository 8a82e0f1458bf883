"""Curation by appending: the effective view, new/append/retire, consolidation candidates."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import FIXED_NOW, memory, write_store
from rawko_tui.cli import main
from rawko_tui.core.arbiters.decision import parse_now
from rawko_tui.core.curation.consolidation.queue import consolidation_candidates
from rawko_tui.core.store.fold import effective_store, status_of
from rawko_tui.core.record.history import verify
from rawko_tui.core.store.loading import load_store

NOW = parse_now(FIXED_NOW)
BODY = "Sessions are stored in Postgres with a 30 minute idle timeout. " * 8


def git(root, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "a@example.com"}
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout.strip()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = write_store(
        tmp_path / "repo",
        {
            "session-storage.md": memory(title="Session storage", when='"session"', importance="high", body=BODY),
            "where-sessions-live.md": memory(title="Where sessions live", when='"session|login"', importance="medium", body=BODY.replace("30 minute", "45 minute")),
            "jwt-tokens.md": memory(title="JWT tokens", when='"token"', body="Tokens expire after 24 hours. " * 10),
        },
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    for key, value in {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "a@example.com"}.items():
        monkeypatch.setenv(key, value)
    return root


def preview_json(capsys, root, *extra):
    assert main(["preview", str(root), "--task", "fix the session store", "--agent", "developer", "--now", FIXED_NOW, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_same_text_with_another_value_is_a_contradiction_not_a_duplicate(repo, capsys):
    groups = consolidation_candidates(load_store(repo), NOW)
    pair = {".rawko/memories/session-storage.md", ".rawko/memories/where-sessions-live.md"}
    found = [g for g in groups if set(g.paths) == pair]
    assert [g.kind for g in found] == ["contradiction"] and "30 against 45" in found[0].reason
    assert main(["candidates", str(repo), "--json", "--now", FIXED_NOW]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["candidates"][0]["kind"] == "contradiction"


def test_contradiction_and_stale(tmp_path):
    root = write_store(
        tmp_path,
        {
            "hashing-rounds.md": memory(title="Password hashing rounds", body="bcrypt uses 10 salt rounds in src/auth. " * 2),
            "hashing-rounds-again.md": memory(title="Password hashing salt rounds", body="Checked again: 12 rounds, configured in the environment, not the code."),
            "old.md": memory(title="Old news", extra="expiresAt: 2025-01-01T00:00:00Z"),
        },
    )
    groups = consolidation_candidates(load_store(root), NOW)
    contradictions = [g for g in groups if g.kind == "contradiction"]
    assert contradictions and "10" in contradictions[0].reason and "12" in contradictions[0].reason
    assert ("stale", (".rawko/memories/old.md",)) in {(g.kind, g.paths) for g in groups}


def test_new_creates_a_clean_committed_memory_and_dry_run_writes_nothing(repo, capsys):
    args = ["new", str(repo), "--title", "Redis session cache", "--when", "redis|session cache", "--importance", "medium", "--tags", "implementation,cache", "--by", "developer", "--body", BODY]
    assert main([*args, "--dry-run"]) == 0
    assert not (repo / ".rawko" / "memories" / "redis-session-cache.md").exists()
    assert "--- new file .rawko/memories/redis-session-cache.md ---" in capsys.readouterr().out
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "committed" in out
    created = load_store(repo).file("redis-session-cache.md")
    assert created.attrs["title"] == "Redis session cache" and created.attrs["tags"] == ["implementation", "cache"]
    assert main(["lint", str(repo)]) in (0, 1)
    assert not [line for line in capsys.readouterr().out.splitlines() if "redis-session-cache.md" in line and "error" in line]
    assert "rawko-tui: create redis-session-cache.md" in git(repo, "log", "-1", "--format=%s")
    assert verify(repo).ok


def test_new_refuses_a_memory_that_lint_finds_broken(repo, capsys):
    assert main(["new", str(repo), "--title", "Everything", "--when", "auth|", "--importance", "low", "--by", "developer", "--body", BODY]) == 1
    assert "pattern-matches-everything" in capsys.readouterr().out
    assert not (repo / ".rawko" / "memories" / "everything.md").exists()


def test_append_changes_the_effective_view_but_not_the_specs(repo, capsys):
    before = (repo / ".rawko" / "memories" / "jwt-tokens.md").read_bytes()
    assert main(["append", "jwt-tokens.md", str(repo), "--set", "importance=critical", "--body", "Checked: tokens now expire after 12 hours."]) == 0
    after = (repo / ".rawko" / "memories" / "jwt-tokens.md").read_bytes()
    assert after.startswith(before)
    memory_file = load_store(repo).file("jwt-tokens.md")
    assert memory_file.attrs["importance"] == "high"  # the spec's arbiter reads the first entry only
    assert memory_file.effective()[0]["importance"] == "critical"
    assert verify(repo).ok


def test_a_whole_consolidation_by_the_command_line(repo, capsys):
    originals = {name: (repo / ".rawko" / "memories" / name).read_bytes() for name in ("session-storage.md", "where-sessions-live.md")}
    spec_before = preview_json(capsys, repo)
    assert {i["path"] for i in spec_before["injected"]} >= {".rawko/memories/session-storage.md", ".rawko/memories/where-sessions-live.md"}

    assert main(["new", str(repo), "--title", "Session storage and timeouts", "--when", "session|login", "--importance", "high", "--by", "reviewer", "--body", BODY + " Timeout: 45 minutes (checked)."]) == 0
    for name in originals:
        assert main(["retire", name, str(repo), "--reason", "merged", "--superseded-by", "session-storage-and-timeouts.md"]) == 0
    capsys.readouterr()

    effective = preview_json(capsys, repo, "--view", "effective")
    injected = [i["path"] for i in effective["injected"]]
    assert ".rawko/memories/session-storage-and-timeouts.md" in injected
    assert not set(injected) & {".rawko/memories/session-storage.md", ".rawko/memories/where-sessions-live.md"}
    reasons = {c["path"]: c["reason"] for c in effective["candidates"]}
    assert reasons[".rawko/memories/session-storage.md"] == "retired-or-superseded"

    # the spec's arbiter never reads the appended retire entries: it still injects the originals, and says so
    spec = preview_json(capsys, repo)
    assert ".rawko/memories/session-storage.md" in [i["path"] for i in spec["injected"]]
    statuses = {c["path"]: c["status"] for c in spec["candidates"]}
    assert statuses[".rawko/memories/session-storage.md"].startswith("retired: merged")
    assert main(["preview", str(repo), "--task", "fix the session store", "--agent", "developer", "--now", FIXED_NOW]) == 0
    assert "which SPEC-0007's arbiter never reads; --view effective leaves it out" in capsys.readouterr().out

    for name, data in originals.items():  # every byte of both originals is still there
        assert (repo / ".rawko" / "memories" / name).read_bytes().startswith(data)
    assert verify(repo).ok
    assert status_of(load_store(repo).file("session-storage.md")).why == "retired: merged"
    assert effective_store(load_store(repo)).file("where-sessions-live.md").inactive.why == "retired: merged"


def test_writing_outside_git_still_works_and_says_it_did_not_commit(tmp_path, capsys):
    root = write_store(tmp_path, {"jwt-tokens.md": memory(title="JWT tokens", body="Tokens expire after 24 hours. " * 10)})
    assert main(["retire", "jwt-tokens.md", str(root), "--reason", "obsolete"]) == 0
    assert "not committed: not a git repository" in capsys.readouterr().out
    assert not status_of(load_store(root).file("jwt-tokens.md")).active


def test_sessions_list_failures_first_and_report_a_broken_file(tmp_path, capsys):
    import shutil

    from conftest import REPO_ROOT

    root = write_store(tmp_path / "store", {"jwt-tokens.md": memory(title="JWT tokens")})
    shutil.copytree(REPO_ROOT / ".rawko" / "sessions", root / ".rawko" / "sessions")
    broken = root / ".rawko" / "sessions" / "20260101-broken" / "agent-memory.yaml"
    broken.parent.mkdir()
    broken.write_text("discoveries: [unclosed\n")
    assert main(["sessions", str(root), "--json"]) == 0
    sessions = {s["id"]: s for s in json.loads(capsys.readouterr().out)["sessions"]}
    good = sessions["20260123-103000-abc1def2-auth-feature"]
    attempts = [i for i in good["items"] if i["kind"] == "attempt"]
    assert [a["result"] for a in attempts] == ["failure", "success"]
    assert sessions["20260101-broken"]["error"]["reason"].startswith("not valid YAML")
    assert main(["promote", "20260123-103000-abc1def2-auth-feature", "decision-001", str(root), "--write"]) == 0
    promoted = load_store(root).file("choose-jwt-over-session-based-auth.md")
    assert promoted.attrs["tags"] == ["decisions", "architectural"] and promoted.attrs["discoveredBy"] == "developer"
    assert main(["promote", "20260123-103000-abc1def2-auth-feature", "nope", str(root)]) == 2
    capsys.readouterr()
    # a promoted item is marked as such, in the list and when promoted again
    assert main(["sessions", str(root)]) == 0
    assert "Choose JWT over session-based auth  (promoted: choose-jwt-over-session-based-auth.md)" in capsys.readouterr().out
    assert main(["promote", "20260123-103000-abc1def2-auth-feature", "decision-001", str(root)]) == 0
    out = capsys.readouterr().out
    assert "Note: this decision was promoted before, to choose-jwt-over-session-based-auth.md." in out
    assert "Closest existing memory: choose-jwt-over-session-based-auth.md (9" in out
    assert "may already hold this lesson (append to it instead?)" in out
    assert "rawko-tui append choose-jwt-over-session-based-auth.md --body" in out


def test_promotion_drafts_have_whole_titles_and_distinctive_patterns(tmp_path, capsys):
    import shutil

    from conftest import REPO_ROOT
    from rawko_tui.core.lint.linter import lint_pattern
    from rawko_tui.core.curation.sessions import distinctive_words, title_from

    # a title ends where a clause ends, never on a word that leaves it hanging
    assert title_from("Middleware pattern used in project: Express middleware functions that return 401 on auth failure") == "Middleware pattern used in project"
    assert title_from("Retry the flaky upload test three times because the storage emulator starts slowly on the CI runners of the project") == (
        "Retry the flaky upload test three times"  # the reason is the body's
    )
    assert not title_from("Always run the database migrations before the seed script runs in the staging environment of the project").split()[-1] in ("of", "the", "in")
    # patterns: rare words, never frequent ones that match any task ('over' is in "overview", "recover")
    words = distinctive_words("Middleware pattern used in project: Express middleware functions that return 401")
    assert words[0] == "middleware" and not {"used", "project", "that", "return"} & set(words)
    assert distinctive_words("Choose JWT over session-based auth") == ["jwt", "auth", "session"]
    for words in (distinctive_words("Middleware pattern used in project"), distinctive_words("Choose JWT over session-based auth")):
        assert [f for f in lint_pattern("|".join(words)) if f[1] == "pattern-common-word"] == []
    root = write_store(tmp_path / "store", {"jwt-tokens.md": memory(title="JWT tokens")})
    shutil.copytree(REPO_ROOT / ".rawko" / "sessions", root / ".rawko" / "sessions")
    assert main(["promote", "20260123-103000-abc1def2-auth-feature", "decision-001", str(root), "--when", "jwt|json web token", "--when", "bearer"]) == 0
    assert "whenToUse:\n- jwt|json web token\n- bearer\n" in capsys.readouterr().out
    # a title the person gives is used as written, however long
    given = "JWT over server sessions for the MVP, because the task asks for JWT by name"
    assert main(["promote", "20260123-103000-abc1def2-auth-feature", "decision-001", str(root), "--title", given]) == 0
    assert f"title: {given}\n" in capsys.readouterr().out


def test_a_promoted_memory_has_a_short_title_and_the_file_name_lint_expects(tmp_path):
    """A long first sentence is cut to a heading; the file is named after it by the one naming function (writer.slugify), so lint is quiet."""
    from rawko_tui.core.lint.linter import lint_text
    from rawko_tui.core.curation.sessions import MAX_TITLE, Session, SessionItem, promotion_draft
    from rawko_tui.core.store.reading import spec_extract
    from rawko_tui.core.record.writer import plan_create, slugify

    root = write_store(tmp_path / "store", {})
    summaries = [
        "The staging database connection pool must be capped at twenty connections for the reporting workers",
        "Retry the flaky upload test three times because the storage emulator starts slowly on the CI runners of the project",
        "Always run the database migrations before the seed script runs in the staging environment of the project",
        "Webhook signatures are verified with the raw request body and never with the parsed JSON object we log",
    ]
    session = Session(id="20260123-103000-abc", path=".rawko/sessions/20260123-103000-abc/agent-memory.yaml", agent="developer")
    for number, summary in enumerate(summaries):
        item = SessionItem("discovery", f"discovery-{number}", "2026-01-23T10:31:25.000Z", summary, summary + " " + "More detail. " * 20, "high", "code_pattern")
        draft = promotion_draft(session, item)
        title = spec_extract(draft).attrs["title"]
        assert 20 <= len(title) <= MAX_TITLE <= 60 and summary.startswith(title), title
        name = plan_create(root, title, draft).name
        assert name == slugify(title) + ".md" and len(name) <= MAX_TITLE + 3
        codes = {f.code for f in lint_text(root, name, draft.encode())}
        assert not codes & {"file-name", "long-title"}, (name, codes)


def test_an_item_appended_to_a_memory_is_promoted_beside_the_memory_own_source(tmp_path):
    """promotions() reads every entry's source: an item appended to a memory promoted from another item marks both."""
    from rawko_tui.core.curation.sessions import promotions

    first = memory(title="JWT tokens", extra="source: .rawko/sessions/a/agent-memory.yaml (discovery discovery-002)")
    appended = "\n\n---\nupdatedAt: 2026-01-24T08:00:00Z\nupdatedBy: Ada\ndiscoveredIn: b\nsource: .rawko/sessions/b/agent-memory.yaml (decision decision-001)\n---\n\nMore.\n"
    root = write_store(tmp_path / "store", {"jwt-tokens.md": first + appended, "plain.md": memory(title="Plain")})
    assert promotions(load_store(root)) == {
        ".rawko/sessions/a/agent-memory.yaml (discovery discovery-002)": ["jwt-tokens.md"],
        ".rawko/sessions/b/agent-memory.yaml (decision decision-001)": ["jwt-tokens.md"],
    }


def test_pattern_matches_and_unused_memories(repo):
    from rawko_tui.core.curation.consolidation.queue import unused_memories
    from rawko_tui.core.curation.entries import pattern_matches

    lines = pattern_matches(["redis|cache", "session"], [("warm the cache", "developer"), ("fix the session store", "developer")])
    assert lines == ["'redis|cache' matches 'warm the cache'", "'session' matches 'fix the session store'"]
    tasks = [("fix the session store", "developer"), ("log in again", "developer"), ("session timeout", "tester")]
    assert unused_memories(load_store(repo), tasks[:1], NOW) == []  # one task is too few to judge
    unused = unused_memories(load_store(repo), tasks, NOW)
    assert [g.paths for g in unused] == [(".rawko/memories/jwt-tokens.md",)] and unused[0].kind == "unused"


def test_stale_counts_from_the_last_dated_entry_and_says_so(tmp_path, capsys):
    old = "2025-01-01T00:00:00Z"
    corrected = memory(title="Corrected long ago", at=old) + "\n\n---\ncorrection: the limit\nupdatedAt: 2026-01-20T00:00:00Z\nupdatedBy: Ada\n---\n\nIt is 60, not 100.\n"
    undated = memory(title="Agent note after", at=old) + "\n\n---\nimportance: low\n---\n\nAn agent's note.\n"
    root = write_store(tmp_path, {"corrected.md": corrected, "undated.md": undated, "never.md": memory(title="Never updated", at=old)})
    reasons = {g.paths[0].rsplit("/", 1)[-1]: g.reason for g in consolidation_candidates(load_store(root), NOW) if g.kind == "stale"}
    assert "corrected.md" not in reasons  # confirmed four days before now: not stale
    assert reasons["never.md"] == "discovered 388 days ago and never updated since"
    assert reasons["undated.md"] == "discovered 388 days ago; its 1 later entry carries no date"
    (root / ".rawko" / "rawko-tui.yaml").write_text("staleDays: 400\n")
    assert [g for g in consolidation_candidates(load_store(root), NOW) if g.kind == "stale"] == []
    (root / ".rawko" / "rawko-tui.yaml").write_text("staleDays: soon\n")
    assert len([g for g in consolidation_candidates(load_store(root), NOW) if g.kind == "stale"]) == 2
    assert main(["lint", str(root)]) in (0, 1)
    assert "staleDays is 'soon', not a whole number of days: ignored, 180 is used" in capsys.readouterr().out


def test_a_retirement_needs_a_reason_a_person_wrote(repo, capsys):
    from rawko_tui.core.curation.entries import append_template, entry_problems

    draft = append_template("retire", load_store(repo).file("jwt-tokens.md"), "Ada")
    assert entry_problems(draft) == ["the reason is still the placeholder ('why it no longer holds'): write why this memory no longer holds"]
    for empty in ('""', "'  '", "", "~"):
        assert entry_problems(draft.replace("reason: why it no longer holds", f"reason: {empty}")) == [
            "a retirement needs a reason: write why the memory no longer holds"
        ]
    assert entry_problems(draft.replace("why it no longer holds", "tokens are opaque since the auth rewrite")) == []
    head = git(repo, "rev-parse", "HEAD")
    for reason in ("   ", "why it no longer holds", ""):
        assert main(["retire", "jwt-tokens", str(repo), "--reason", reason]) == 2
        assert "--reason: " in capsys.readouterr().err
    assert git(repo, "rev-parse", "HEAD") == head
