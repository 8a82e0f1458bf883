"""Opening, previewing, linting or verifying a cloned store runs no program its repository names.

A store is a stranger's clone, its ``.git/config`` and ``.gitattributes`` included. Each
program they can name (core.fsmonitor, a filter driver's clean/smudge/process, a diff
driver's textconv or command, diff.external, a partial clone's fetch through
remote.<r>.uploadpack) is a real script here that leaves a marker file when it runs.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import FIXED_NOW, memory, write_store
from rawko_tui.cli import main
from test_history import commit_all, git

BODY = "The session middleware in src/auth must run before the router."


def _spy(tmp_path: Path) -> tuple[Path, Path]:
    """A program that records that it ran (and passes its input through, as a filter would)."""
    marker = tmp_path / "MARKER"
    script = tmp_path / "spy.sh"
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> "{marker}"\ncat\n')
    script.chmod(0o755)
    return script, marker


def _arm(root: Path, spy: Path) -> None:
    """Every program-naming setting, in the repository's own config and attributes."""
    for key, value in (
        ("core.fsmonitor", str(spy)),
        ("filter.spy.clean", f"{spy} clean"),
        ("filter.spy.smudge", f"{spy} smudge"),
        ("filter.spy.required", "true"),
        ("filter.long.process", f"{spy} process"),
        ("diff.spy.textconv", f"{spy} textconv"),
        ("diff.spy.command", f"{spy} diff-command"),
        ("diff.external", f"{spy} external"),
    ):
        git(root, "config", key, value)
    (root / ".gitattributes").write_text("*.md filter=spy diff=spy\n*.yaml filter=long\n")


@pytest.fixture
def armed(tmp_path) -> tuple[Path, Path, str]:
    """A store with history, then armed (after its commits: the test's own git must not run the spy)."""
    root = write_store(tmp_path / "clone", {"auth-session.md": memory(title="Auth session", when='"auth|login"', body=BODY)})
    git(root, "init", "-q", "-b", "main")
    first = commit_all(root, "first")
    path = root / ".rawko" / "memories" / "auth-session.md"
    path.write_text(path.read_text() + "\n---\nimportance: critical\n---\n\nTokens expire after 12 hours.\n")
    commit_all(root, "an entry")
    spy, marker = _spy(tmp_path)
    _arm(root, spy)
    path.write_text(path.read_text() + "\nAn uncommitted line.\n")  # a working-tree change git must look at
    (root / ".rawko" / "memories" / "new.md").write_text(memory(title="New", body="untracked"))
    return root, marker, first


def _spy_was_armed(root: Path, marker: Path) -> None:
    """The control: plain git runs the spy for the same questions rawko-tui asked."""
    subprocess.run(["git", "diff", "HEAD", "--name-only"], cwd=root, capture_output=True, check=True)
    subprocess.run(["git", "show", "HEAD"], cwd=root, capture_output=True, check=True)
    ran = marker.read_text()
    assert "clean" in ran and "textconv" in ran and "spy.sh 2 " in ran  # fsmonitor's hook is called with its version


def test_the_command_line_runs_none_of_a_stores_programs(armed, capsys):
    root, marker, first = armed
    assert main(["preview", str(root), "--task", "fix the auth login", "--now", FIXED_NOW, "--json"]) == 0
    assert "auth-session.md" in capsys.readouterr().out
    assert main(["preview", str(root), "--task", "fix the auth login", "--now", FIXED_NOW, "--at", first]) == 0
    assert main(["lint", str(root), "--now", FIXED_NOW]) in (0, 1)
    assert main(["lint", str(root), "--now", FIXED_NOW, "--at", "HEAD"]) in (0, 1)
    capsys.readouterr()
    assert main(["verify", str(root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["changesChecked"] >= 2
    assert main(["verify", str(root), "--staged"]) == 0
    assert not marker.exists(), marker.read_text()
    _spy_was_armed(root, marker)


async def test_the_app_runs_none_of_a_stores_programs(armed):
    from rawko_tui.tui.screens.diff import DiffScreen
    from rawko_tui.tui.widgets.memories.memory_list import MemoryList
    from test_app import SIZE, app_for, settle

    root, marker, _first = armed
    app = app_for(root, task="fix the auth login")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)  # the load, the first ranking, lint and the rewritten-file badges
        app.query_one(MemoryList).select_path(".rawko/memories/auth-session.md")
        await settle(pilot)  # the history view: every commit of the file, each entry's commit
        assert "entry 2: added in" in str(app.query_one("#memory-history").render())
        sha = git(root, "rev-parse", "HEAD")
        app.show_diff(sha, ".rawko/memories/auth-session.md")  # what Enter on a commit does
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen)
        assert "+Tokens expire after 12 hours." in app.screen.query_one("#diff-text").text
    assert not marker.exists(), marker.read_text()
    _spy_was_armed(root, marker)


def test_a_partial_clone_is_never_fetched_into(tmp_path, capsys):
    """A missing object would be fetched from the promisor remote through remote.<r>.uploadpack: never."""
    server = write_store(tmp_path / "server", {"auth-session.md": memory(title="Auth session", body=BODY)})
    git(server, "init", "-q", "-b", "main")
    commit_all(server, "first")
    path = server / ".rawko" / "memories" / "auth-session.md"
    path.write_text(path.read_text() + "\n---\nimportance: low\n---\n\nSecond.\n")
    commit_all(server, "second")
    git(server, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{server}", str(clone))
    spy, marker = _spy(tmp_path)
    spy.write_text(f'#!/bin/sh\necho "$0 $*" >> "{marker}"\n')
    git(clone, "config", "remote.origin.uploadpack", f"{spy} uploadpack </dev/null; git-upload-pack")

    code = main(["verify", str(clone)])  # the first commit's blob is not in the clone
    err = capsys.readouterr().err
    assert code == 2 and "is missing" in err and "never fetches" in err
    assert main(["preview", str(clone), "--task", "auth", "--now", FIXED_NOW, "--at", "HEAD~1"]) == 2
    assert "is missing" in capsys.readouterr().err
    from rawko_tui.core.record.history import GitError, file_history

    with pytest.raises(GitError, match="is missing"):  # the app shows it as a notification
        file_history(clone, ".rawko/memories/auth-session.md", [0])
    assert not marker.exists(), marker.read_text()
    # plain git would have fetched it, running the repository's uploadpack
    blob = git(clone, "rev-parse", "HEAD~1:.rawko/memories/auth-session.md")
    subprocess.run(["git", "cat-file", "-p", blob], cwd=clone, capture_output=True, timeout=60)
    assert "uploadpack" in marker.read_text()


def test_git_options_before_the_command_keep_the_guard(armed):
    """A caller's own git options (``--literal-pathspecs``, ``-c``) come before the command; the guard still applies."""
    from rawko_tui.core.disk.gitrepo import git as guarded

    root, marker, _first = armed
    assert b"+Tokens expire after 12 hours." in guarded(root, "--literal-pathspecs", "show", "HEAD")
    assert b"auth-session.md" in guarded(root, "-c", "core.quotePath=false", "diff", "HEAD", "--name-only")
    assert not marker.exists(), marker.read_text()
    _spy_was_armed(root, marker)
