"""Git in awkward states: reads keep working, writes refuse when they would be unsafe, the repository stays sound.

Each state is made with real git commands in a repository under tmp_path.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import FIXED_NOW, memory, write_store
from rawko_tui.cli import main
from rawko_tui.core.record.history import repository_state
from rawko_tui.core.lint.linter import lint_store
from rawko_tui.core.store.loading import load_store
from test_history import commit_all, git, mem

BODY = "The session middleware in src/auth must run before the router; tokens expire after 24 hours. " * 6


@pytest.fixture
def repo(tmp_path) -> Path:
    root = write_store(tmp_path / "repo", {"auth-session.md": memory(title="Auth session", body=BODY), "login-flow.md": memory(title="Login flow", when='"login"', body=BODY)})
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "initial memories")
    return root


def _append(root: Path, name: str = "auth-session.md") -> int:
    return main(["append", name, str(root), "--body", "A correction: tokens now expire after 12 hours.", "--set", "importance=critical"])


def _reads_work(root: Path, capsys) -> None:
    """lint, preview and verify all run and say something useful, whatever git is doing."""
    assert main(["lint", str(root), "--now", FIXED_NOW]) in (0, 1)
    assert main(["preview", str(root), "--task", "fix the auth login", "--agent", "developer", "--now", FIXED_NOW, "--json"]) == 0
    out = capsys.readouterr().out
    assert "auth-session.md" in out
    assert main(["verify", str(root), "--json"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    assert isinstance(report["violations"], list)


def _sound(root: Path) -> None:
    subprocess.run(["git", "fsck", "--no-progress", "--strict"], cwd=root, check=True, capture_output=True)


def test_not_a_repository_writes_without_committing_and_says_so(tmp_path, capsys):
    root = write_store(tmp_path / "plain", {"auth-session.md": memory(title="Auth session", body=BODY)})
    assert not repository_state(root).in_repo
    assert _append(root) == 0
    assert "not committed" in capsys.readouterr().out
    assert main(["verify", str(root)]) == 2
    assert "not in a git repository: there is no history to verify" in capsys.readouterr().err
    assert main(["lint", str(root)]) in (0, 1)


def test_a_shallow_clone_verifies_what_it_has_and_says_what_it_lacks(repo, tmp_path, capsys):
    for n in range(3):
        mem(repo, "auth-session.md").write_text(mem(repo, "auth-session.md").read_text() + f"\n\nappended {n}\n")
        commit_all(repo, f"append {n}")
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)], check=True, capture_output=True)
    assert repository_state(clone).shallow
    assert main(["verify", str(clone), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["commitsChecked"] == 1
    assert "shallow clone: commits before the shallow boundary are not verified" in report["notes"]
    _reads_work(clone, capsys)
    assert _append(clone) == 0  # a shallow clone can still record new entries
    assert "committed" in capsys.readouterr().out
    _sound(clone)


@pytest.mark.parametrize("state", ["detached HEAD", "rebase in progress", "locked index", "merge in progress"])
def test_a_busy_repository_is_read_only_with_a_clear_reason(repo, capsys, monkeypatch, state):
    from rawko_tui.core.record import writer

    monkeypatch.setattr(writer, "INDEX_LOCK_WAIT_SECONDS", 0.2)  # the lock stays: how long a write waits for it changes nothing here
    before = {p.name: p.read_bytes() for p in (repo / ".rawko" / "memories").iterdir()}
    head = git(repo, "rev-parse", "HEAD")
    expected = _make_state(repo, state)
    after_setup = {p.name: p.read_bytes() for p in (repo / ".rawko" / "memories").iterdir()}
    assert repository_state(repo).write_blocker is not None

    assert _append(repo, "login-flow.md") == 1
    err = capsys.readouterr().err
    assert f"nothing was written: {expected}" in err
    assert main(["new", str(repo), "--title", "Another memory", "--when", "auth", "--importance", "high", "--by", "developer", "--body", BODY]) == 1
    assert f"nothing was written: {expected}" in capsys.readouterr().err
    now = {p.name: p.read_bytes() for p in (repo / ".rawko" / "memories").iterdir()}
    assert now == after_setup  # not a byte changed, no file added
    if state in ("detached HEAD", "locked index"):  # the others changed the file themselves (a conflict)
        assert now == before

    _reads_work(repo, capsys)
    if state == "locked index":
        assert (repo / ".git" / "index.lock").exists()  # never removed behind the user's back
        (repo / ".git" / "index.lock").unlink()
    _sound(repo)
    assert git(repo, "rev-parse", "HEAD") == head or state != "detached HEAD"


def _make_state(repo: Path, state: str) -> str:
    """Put the repository in ``state`` with real git commands; return the reason rawko-tui must give."""
    if state == "detached HEAD":
        git(repo, "checkout", "-q", "--detach")
        return "HEAD is detached"
    if state == "locked index":
        (repo / ".git" / "index.lock").write_bytes(b"")
        return "the git index is locked (.git/index.lock)"
    # two branches append different entries to the same memory: a real conflict
    git(repo, "checkout", "-q", "-b", "other")
    mem(repo, "auth-session.md").write_text(mem(repo, "auth-session.md").read_text() + "\n\ntheirs\n")
    commit_all(repo, "their append")
    git(repo, "checkout", "-q", "main")
    mem(repo, "auth-session.md").write_text(mem(repo, "auth-session.md").read_text() + "\n\nours\n")
    commit_all(repo, "our append")
    if state == "rebase in progress":
        result = subprocess.run(["git", "rebase", "other"], cwd=repo, capture_output=True, text=True)
        assert result.returncode != 0 and (repo / ".git" / "rebase-merge").is_dir()
        return "a rebase is in progress (git rebase --continue or --abort first)"
    result = subprocess.run(["git", "merge", "other"], cwd=repo, capture_output=True, text=True)
    assert result.returncode != 0 and (repo / ".git" / "MERGE_HEAD").exists()
    return "a merge is in progress (commit the merge or git merge --abort first)"


def test_merge_conflict_markers_are_an_error_with_their_line(repo):
    _make_state(repo, "merge in progress")
    text = mem(repo, "auth-session.md").read_text()
    assert "<<<<<<< " in text
    findings = [f for f in lint_store(load_store(repo)) if f.path.endswith("auth-session.md") and f.code == "conflict-markers"]
    marker_line = text.split("\n").index(next(line for line in text.split("\n") if line.startswith("<<<<<<<"))) + 1
    assert findings and findings[0].severity == "error" and findings[0].line == marker_line


async def test_the_app_says_the_repository_is_read_only_and_why(repo):
    from test_app import SIZE, app_for, settle

    _make_state(repo, "rebase in progress")
    app = app_for(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "read-only: a rebase is in progress (git rebase --continue or --abort first)" in app.sub_title
        subprocess.run(["git", "rebase", "--abort"], cwd=repo, check=True, capture_output=True)
        app.watch_store()  # what the poll timer does
        for _ in range(100):
            await pilot.pause(0.05)
            if "read-only" not in app.sub_title:
                break
        assert "read-only" not in app.sub_title


async def test_a_refused_write_in_the_app_is_a_message_not_a_crash(repo):
    from rawko_tui.tui.widgets.memories.memory_list import MemoryList
    from test_app import SIZE, app_for, settle

    before = mem(repo, "auth-session.md").read_bytes()
    git(repo, "checkout", "-q", "--detach")
    app = app_for(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(MemoryList).select_path(".rawko/memories/auth-session.md")
        await settle(pilot)
        app.query_one("#memory-table").focus()
        await pilot.press("a")  # no editor opens: the reason is said at once
        await settle(pilot)
        assert app.screen is app.main
        assert any("Read-only: HEAD is detached" in n.message for n in app._notifications)
        # a write that is started anyway (the state changed after the editor opened) is refused by the writer
        from rawko_tui.core.record.writer import plan_append

        entry = "---\nupdatedAt: '2026-11-22T08:00:00Z'\n---\n\nTokens now expire after 12 hours.\n"
        app.apply_plan([plan_append(repo, "auth-session.md", entry)], "append", "")
        for _ in range(100):
            await pilot.pause(0.05)
            if any("nothing was written" in n.message for n in app._notifications):
                break
        assert app.is_running and app.return_code is None
        assert any("nothing was written: HEAD is detached" in n.message for n in app._notifications)
    assert mem(repo, "auth-session.md").read_bytes() == before
