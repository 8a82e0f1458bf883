"""`verify` and the hooks catch every lost entry: merges, force-pushes, subfolder stores, core.hooksPath.

Every case is made with real git in repositories under tmp_path: real merges (with real
conflicts resolved by writing the file), pushes and force-pushes to a real bare remote
whose pre-receive hook rawko-tui installed, stores in subfolders, hooks git really runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import memory, with_limits, write_store
from rawko_tui.cli import main
from test_history import PRE_RECEIVE, commit_all, git

BASE = memory(title="Auth session", body="Tokens expire after 24 hours.")
# two sides' entries open alike (the same field first), as rawko-tui's own appends do
ENTRY = "\n---\nimportance: low\nupdatedAt: '{stamp}'\n---\n\n{text}\n"
A = ENTRY.format(stamp="2026-01-02T00:00:00Z", text="On main: tokens now expire after 12 hours.")
B = ENTRY.format(stamp="2026-01-03T00:00:00Z", text="On side: refresh tokens rotate on use.")
# PATH first: the hooks run `rawko-tui` from this interpreter's environment
HOOK_ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}


def memfile(root: Path, name: str = "auth.md", store: str = "") -> Path:
    return root / store / ".rawko" / "memories" / name


def append(root: Path, text: str, name: str = "auth.md", store: str = "") -> None:
    path = memfile(root, name, store)
    path.write_text(path.read_text() + text)


def run_git(root: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """git that may fail (a hook refusing), for the test to look at."""
    identity = {"GIT_AUTHOR_NAME": "Tester", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "Tester", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env={**(env or HOOK_ENV), **identity})


@pytest.fixture
def repo(tmp_path) -> Path:
    root = write_store(tmp_path / "repo", {"auth.md": BASE, "other.md": memory(title="Other", body="Untouched.")})
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "initial memories")
    return root


def two_appending_branches(repo: Path) -> None:
    """main appends A, side appends B, each from the same commit."""
    git(repo, "checkout", "-q", "-b", "side")
    append(repo, B)
    commit_all(repo, "side appends B")
    git(repo, "checkout", "-q", "main")
    append(repo, A)
    commit_all(repo, "main appends A")


def conflicting_merge(repo: Path, other: str, content: str, *extra: str) -> str:
    """`git merge other` (a real conflict on auth.md), resolved by writing ``content``; the merge's sha."""
    merged = run_git(repo, "merge", *extra, other)
    assert merged.returncode != 0 and "CONFLICT" in merged.stdout, merged.stdout + merged.stderr
    memfile(repo).write_text(content)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "--no-edit")
    return git(repo, "rev-parse", "HEAD")


def verify_json(root: Path, capsys, *args: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["verify", str(root), "--json", *args])
    return code, json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------
# Item 6: merges
# --------------------------------------------------------------------------


def _keep_one_sides_copy(repo: Path) -> str:
    """The issue's reproduction: side merges main with --no-commit, keeps its own copy, and main fast-forwards to it."""
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "code.txt").write_text("side's own work\n")
    commit_all(repo, "side's work")
    git(repo, "checkout", "-q", "main")
    append(repo, A)
    commit_all(repo, "main appends A")
    git(repo, "checkout", "-q", "side")
    run_git(repo, "merge", "--no-commit", "main")
    git(repo, "checkout", "HEAD", "--", ".rawko/memories/auth.md")  # side's copy: A is gone
    git(repo, "commit", "-q", "--no-verify", "--no-edit")
    merge = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "side")
    return merge


def _strategy_ours(repo: Path) -> str:
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "code.txt").write_text("side's own work\n")
    commit_all(repo, "side's work")
    git(repo, "checkout", "-q", "main")
    append(repo, A)
    commit_all(repo, "main appends A")
    git(repo, "checkout", "-q", "side")
    git(repo, "merge", "-q", "-s", "ours", "-m", "merge main, keeping ours", "main")
    return git(repo, "rev-parse", "HEAD")


def _changed_byte_in_the_other_sides_entry(repo: Path) -> str:
    two_appending_branches(repo)
    return conflicting_merge(repo, "side", BASE + A + B.replace("rotate", "rotated"))


def _entry_inserted_before_the_other_sides(repo: Path) -> str:
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "code.txt").write_text("side's own work\n")
    commit_all(repo, "side's work")
    git(repo, "checkout", "-q", "main")
    append(repo, A)
    commit_all(repo, "main appends A")
    git(repo, "checkout", "-q", "side")
    run_git(repo, "merge", "--no-commit", "main")
    forged = ENTRY.format(stamp="2026-01-01T00:00:00Z", text="Forged: this came first.")
    memfile(repo).write_text(BASE + forged + A)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "--no-edit")
    return git(repo, "rev-parse", "HEAD")


def _entries_joined_by_the_union_driver(repo: Path) -> str:
    (repo / ".gitattributes").write_text("*.md merge=union\n")
    commit_all(repo, "union merges for memories")
    two_appending_branches(repo)
    git(repo, "merge", "-q", "-m", "union merge", "side")  # git's union driver: no conflict, B's opening left out
    text = memfile(repo).read_text()
    assert "On side" in text and text.count("importance: low") == 1  # two entries, one opening: joined
    return git(repo, "rev-parse", "HEAD")


@pytest.mark.parametrize(
    "make",
    [_keep_one_sides_copy, _strategy_ours, _changed_byte_in_the_other_sides_entry, _entry_inserted_before_the_other_sides, _entries_joined_by_the_union_driver],
    ids=["keeps-one-sides-copy", "strategy-ours", "changes-a-byte", "inserts-before", "joins-entries"],
)
def test_a_merge_that_loses_or_changes_an_entry_is_refused(repo, capsys, make):
    before = git(repo, "rev-parse", "HEAD")
    merge = make(repo)
    code, report = verify_json(repo, capsys)
    assert code == 1
    found = [v for v in report["violations"] if v["commit"] == merge]
    assert found and found[0]["path"] == ".rawko/memories/auth.md" and found[0]["kind"] == "rewritten"
    assert "merge" in found[0]["message"]
    # the README's server-side check (history since the old tip) refuses it too
    code, report = verify_json(repo, capsys, "--rev", merge, "--since", before, "--history-only")
    assert code == 1 and any(v["commit"] == merge for v in report["violations"])


def test_a_union_of_two_appending_branches_passes_with_the_other_sides_entries_after_the_branchs_own(repo, tmp_path, capsys):
    two_appending_branches(repo)
    conflicting_merge(repo, "side", BASE + A + B)  # on main: main's A stays where it was, side's B after it
    code, report = verify_json(repo, capsys)
    assert code == 0, report
    # concluded on the other branch, the same rule the other way round
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    git(repo, "checkout", "-q", "side")
    conflicting_merge(repo, "main", BASE + B + A)
    code, report = verify_json(repo, capsys)
    assert code == 0, report
    # with blank lines added between the entries, and an entry of the merge's own after them
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    own = ENTRY.format(stamp="2026-01-04T00:00:00Z", text="Written while merging.")
    conflicting_merge(repo, "main", BASE + B + "\n\n" + A + own)
    code, report = verify_json(repo, capsys)
    assert code == 0, report


def test_a_merge_that_moves_the_branchs_own_entries_is_refused(repo, capsys):
    """The other side's entry put before the branch's own: nothing dropped, but the branch's record no longer grows at its end."""
    two_appending_branches(repo)
    merge = conflicting_merge(repo, "side", BASE + B + A)  # on main: B stands where main's A was
    code, report = verify_json(repo, capsys)
    assert code == 1
    [violation] = report["violations"]
    assert violation["commit"] == merge and "first parent" in violation["message"]


def test_an_entry_cherry_picked_onto_both_branches_is_kept_once(repo, capsys):
    append(repo, A)
    commit_all(repo, "main appends A")
    git(repo, "checkout", "-q", "-b", "side", "HEAD~1")
    git(repo, "cherry-pick", "main")  # the same entry on both branches
    append(repo, B)
    commit_all(repo, "side appends B")
    git(repo, "checkout", "-q", "main")
    third = ENTRY.format(stamp="2026-01-05T00:00:00Z", text="On main again.")
    append(repo, third)
    commit_all(repo, "main appends a third")
    conflicting_merge(repo, "side", BASE + A + third + B)  # A once, side's B after main's own entries
    code, report = verify_json(repo, capsys)
    assert code == 0, report


def test_the_merge_rule_itself():
    """check_merge on bytes: the union after the branch's own entries and a one-sided change pass; drops, edits, insertions and moves do not."""
    from rawko_tui.core.record.history import check_merge

    base = BASE.encode()
    a, b = A.encode(), B.encode()
    assert check_merge([base + a, base + b], base + a + b, base, "m.md", "c") is None
    assert check_merge([base + b, base + a], base + b + a, base, "m.md", "c") is None  # made on the other branch
    assert check_merge([base + a, base + b], base + b + a, base, "m.md", "c") is not None  # the branch's own a moved
    assert check_merge([base + a, base + a], base + a, base, "m.md", "c") is None
    assert check_merge([base, base + a], base + a + b, base, "m.md", "c") is None  # one side's change, then an append
    assert check_merge([base + a, None], base + a, None, "m.md", "c") is None  # the file is on one side only
    assert check_merge([base + a, base + b], base + a, base, "m.md", "c").kind == "rewritten"  # b dropped
    assert check_merge([base + a, base + b], base + a + b.replace(b"rotate", b"spin"), base, "m.md", "c") is not None
    assert check_merge([base + a, base + b], base + b"x" + a + b, base, "m.md", "c") is not None
    assert check_merge([base + a, base + b], base + a[:-5] + b, base, "m.md", "c") is not None
    assert check_merge([base + a, base + b], None, base, "m.md", "c").kind == "deleted"
    assert check_merge([base + a, base + b], base.replace(b"24", b"48") + a + b, base, "m.md", "c") is not None


def test_the_pre_commit_hook_checks_a_merge_being_concluded(repo, capsys):
    assert main(["hook", "install", str(repo)]) == 0
    two_appending_branches(repo)
    merged = run_git(repo, "merge", "side")
    assert merged.returncode != 0 and "CONFLICT" in merged.stdout
    memfile(repo).write_text(BASE + A)  # "resolved" by dropping side's entry
    git(repo, "add", "-A")
    refused = run_git(repo, "commit", "--no-edit")
    assert refused.returncode != 0, refused.stdout
    assert "merge drops or changes entries a parent added" in refused.stdout + refused.stderr
    memfile(repo).write_text(BASE + B + A)  # both, side's first: main's A moved
    git(repo, "add", "-A")
    moved = run_git(repo, "commit", "--no-edit")
    assert moved.returncode != 0 and "first parent" in moved.stdout + moved.stderr
    memfile(repo).write_text(BASE + A + B)  # both, main's own first
    git(repo, "add", "-A")
    accepted = run_git(repo, "commit", "--no-edit")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert len(git(repo, "log", "-1", "--format=%P").split()) == 2


# --------------------------------------------------------------------------
# Item 7: pushes, whatever the shape of history
# --------------------------------------------------------------------------


@pytest.fixture
def remote(repo, tmp_path, capsys) -> Path:
    """A bare server repository whose pre-receive hook `rawko-tui hook install --server` wrote; main pushed to it."""
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(server))
    assert main(["hook", "install", "--server", str(server)]) == 0
    assert "pre-receive" in capsys.readouterr().out
    git(repo, "remote", "add", "origin", str(server))
    pushed = run_git(repo, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    return server


def push(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return run_git(repo, "push", "origin", *args)


def refused_by_the_hook(result: subprocess.CompletedProcess) -> str:
    assert result.returncode != 0, result.stderr
    assert "pre-receive hook declined" in result.stderr
    return result.stderr


def test_a_force_push_back_to_before_an_entry_is_refused(repo, remote):
    append(repo, A)
    commit_all(repo, "append A")
    assert push(repo, "main").returncode == 0
    server_tip = git(remote, "rev-parse", "main")
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    err = refused_by_the_hook(push(repo, "-f", "main"))
    assert "auth.md" in err and "truncated" in err
    assert git(remote, "rev-parse", "main") == server_tip


def test_an_amended_entry_force_pushed_is_refused(repo, remote):
    append(repo, A)
    commit_all(repo, "append A")
    assert push(repo, "main").returncode == 0
    memfile(repo).write_text(BASE + A.replace("12 hours", "48 hours"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--amend", "--no-edit", "--no-verify")
    err = refused_by_the_hook(push(repo, "-f", "main"))
    assert "auth.md" in err and "rewritten at line" in err


def test_a_merge_dropping_an_entry_is_refused_by_the_server(repo, remote):
    merge = _keep_one_sides_copy(repo)
    err = refused_by_the_hook(push(repo, "main"))
    assert merge[:10] in err and "merge drops or changes entries" in err


def test_the_server_accepts_appends_branches_unions_and_deletions_that_lose_nothing(repo, remote):
    append(repo, A)
    commit_all(repo, "append A")
    assert push(repo, "main").returncode == 0  # a fast-forward
    git(repo, "checkout", "-q", "-b", "side", "HEAD~1")
    append(repo, B)
    commit_all(repo, "side appends B")
    assert push(repo, "side").returncode == 0  # a new branch
    git(repo, "checkout", "-q", "main")
    conflicting_merge(repo, "side", BASE + A + B)  # a union, side's entry after main's
    result = push(repo, "main")
    assert result.returncode == 0, result.stderr
    assert push(repo, "--delete", "side").returncode == 0  # merged: nothing is lost
    git(repo, "checkout", "-q", "-b", "code-only", "main~1")
    (repo / "code.txt").write_text("no memory here\n")
    commit_all(repo, "code")
    assert push(repo, "code-only").returncode == 0
    assert push(repo, "--delete", "code-only").returncode == 0  # unmerged, but its memory files are all in main's
    git(repo, "checkout", "-q", "-b", "lonely", "main")
    append(repo, ENTRY.format(stamp="2026-02-01T00:00:00Z", text="Only on this branch."))
    commit_all(repo, "an entry only this branch holds")
    assert push(repo, "lonely").returncode == 0
    err = refused_by_the_hook(push(repo, "--delete", "lonely"))
    assert "deleting refs/heads/lonely" in err and "auth.md" in err
    assert git(remote, "rev-parse", "lonely") == git(repo, "rev-parse", "lonely")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-edit", "lonely")
    result = push(repo, "main", ":lonely")  # merged and deleted in one push: the hook sees both
    assert result.returncode == 0, result.stderr


def test_a_fast_forward_to_a_merge_made_on_the_other_branch_keeps_the_old_tip_as_a_prefix(repo, remote):
    """side merges main with its own entry first (right for side), then main fast-forwards to it: main's A moved, refused."""
    append(repo, A)
    commit_all(repo, "append A")
    assert push(repo, "main").returncode == 0
    git(repo, "checkout", "-q", "-b", "side", "HEAD~1")
    append(repo, B)
    commit_all(repo, "side appends B")
    conflicting_merge(repo, "main", BASE + B + A)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "side")
    err = refused_by_the_hook(push(repo, "main"))
    assert "auth.md" in err and "the push moves" in err
    git(repo, "reset", "-q", "--hard", "HEAD@{1}")  # main as it was; merge side's own work on main instead
    merged = run_git(repo, "merge", "side^1")
    assert merged.returncode != 0  # B against A: a conflict
    memfile(repo).write_text(BASE + A + B)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "--no-edit")
    result = push(repo, "main")
    assert result.returncode == 0, result.stderr


def test_the_old_readme_recipe_refuses_a_force_push_too(repo, tmp_path):
    """`verify --rev NEW --since OLD` checks the old tip's files against the new tip, whatever lies between."""
    server = tmp_path / "recipe.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    hook = server / "hooks" / "pre-receive"
    hook.write_text(PRE_RECEIVE.format(rawko=f"{sys.executable} -m rawko_tui"))
    hook.chmod(0o755)
    git(repo, "remote", "add", "origin", str(server))
    append(repo, A)
    commit_all(repo, "append A")
    assert push(repo, "main").returncode == 0
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    refused_by_the_hook(push(repo, "-f", "main"))


def test_a_pushed_replace_ref_does_not_hide_a_rewrite_from_the_server(repo, tmp_path):
    """refs/replace/* (which a client can push) would make git read a clean commit in place of a rewriting one."""
    server = tmp_path / "recipe.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    hook = server / "hooks" / "pre-receive"
    hook.write_text(PRE_RECEIVE.format(rawko=f"{sys.executable} -m rawko_tui"))
    hook.chmod(0o755)
    git(repo, "remote", "add", "origin", str(server))
    assert push(repo, "main").returncode == 0
    memfile(repo).write_text(BASE.replace("24 hours", "forever"))
    rewrite = commit_all(repo, "rewrite")
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    append(repo, A)
    clean = commit_all(repo, "a clean stand-in")
    git(repo, "checkout", "-q", "main")
    git(repo, "replace", rewrite, clean)
    assert push(repo, f"refs/replace/{rewrite}").returncode == 0
    err = refused_by_the_hook(push(repo, "main"))
    assert rewrite[:10] in err and "rewritten at line" in err


def test_verify_push_on_the_command_line(repo, capsys):
    append(repo, A)
    old = commit_all(repo, "append A")
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    append(repo, B)
    new = commit_all(repo, "B instead of A")
    code, report = verify_json(repo, capsys, "--push", old, new, "--ref", "refs/heads/main")
    assert code == 1
    assert [(v["kind"], v["path"], v["ref"]) for v in report["violations"]] == [("rewritten", ".rawko/memories/auth.md", "refs/heads/main")]
    code, report = verify_json(repo, capsys, "--push", "0" * 40, new)
    assert code == 0 and report["ok"]
    assert main(["verify", str(repo), "--push", old, new, "--staged"]) == 2
    assert "--push and --staged cannot be used together" in capsys.readouterr().err


# --------------------------------------------------------------------------
# Item 8: a store in a subfolder
# --------------------------------------------------------------------------


@pytest.fixture
def app_repo(tmp_path) -> Path:
    """A repository whose only store is in app/ (the top has no .rawko/)."""
    top = tmp_path / "mono"
    write_store(top / "app", {"auth.md": BASE})
    (top / "README.md").write_text("a monorepo\n")
    git(top, "init", "-q", "-b", "main")
    commit_all(top, "initial")
    return top


def test_a_hook_installed_for_a_subfolder_store_lets_appends_commit_and_refuses_rewrites(app_repo, capsys):
    assert main(["hook", "install", str(app_repo / "app")]) == 0
    capsys.readouterr()
    append(app_repo, A, store="app")
    git(app_repo, "add", "-A")
    accepted = run_git(app_repo, "commit", "-m", "append in app")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    memfile(app_repo, store="app").write_text(BASE.replace("24 hours", "1 hour") + A)
    git(app_repo, "add", "-A")
    refused = run_git(app_repo, "commit", "-m", "rewrite in app")
    assert refused.returncode != 0
    assert "app/.rawko/memories/auth.md: rewritten at line" in refused.stdout + refused.stderr


def test_verify_from_the_top_checks_every_store_in_the_repository(app_repo, capsys):
    memfile(app_repo, store="app").write_text("rewritten\n")
    commit_all(app_repo, "rewrite in app")
    code, report = verify_json(app_repo, capsys)
    assert code == 1
    assert {(v["kind"], v["path"]) for v in report["violations"]} == {("rewritten", "app/.rawko/memories/auth.md")}


def test_the_server_refuses_a_rewrite_in_a_subfolder_store(app_repo, tmp_path, capsys):
    for name, install in (("new.git", None), ("recipe.git", PRE_RECEIVE)):
        server = tmp_path / name
        git(tmp_path, "init", "-q", "--bare", "-b", "main", str(server))
        if install is None:
            assert main(["hook", "install", "--server", str(server)]) == 0
        else:
            (server / "hooks" / "pre-receive").write_text(install.format(rawko=f"{sys.executable} -m rawko_tui"))
            (server / "hooks" / "pre-receive").chmod(0o755)
        git(app_repo, "remote", "add", name, str(server))
        assert run_git(app_repo, "push", name, "main").returncode == 0
    memfile(app_repo, store="app").write_text(BASE.replace("24 hours", "1 hour"))
    commit_all(app_repo, "rewrite in app")
    for name in ("new.git", "recipe.git"):
        result = run_git(app_repo, "push", name, "main")
        refused_by_the_hook(result)
        assert "app/.rawko/memories/auth.md" in result.stderr


# --------------------------------------------------------------------------
# Item 9: hook install and core.hooksPath
# --------------------------------------------------------------------------


def _rewrite_and_commit(repo: Path) -> subprocess.CompletedProcess:
    memfile(repo).write_text(BASE.replace("24 hours", "2 hours"))
    git(repo, "add", "-A")
    return run_git(repo, "commit", "-m", "rewrite")


def test_hook_install_writes_where_core_hooks_path_sends_git(repo, capsys):
    git(repo, "config", "core.hooksPath", ".githooks")
    assert main(["hook", "install", str(repo)]) == 0
    out = capsys.readouterr().out
    assert str(repo / ".githooks" / "pre-commit") in out and "core.hooksPath is .githooks" in out
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    refused = _rewrite_and_commit(repo)
    assert refused.returncode != 0 and "rewritten at line" in refused.stdout + refused.stderr  # git ran it


def test_hook_install_refuses_a_hooks_path_it_should_not_write(repo, tmp_path, capsys):
    git(repo, "config", "core.hooksPath", "/dev/null")
    assert main(["hook", "install", str(repo)]) == 2
    assert "core.hooksPath is /dev/null, which is not a folder" in capsys.readouterr().err
    shared = tmp_path / "shared-hooks"
    git(repo, "config", "core.hooksPath", str(shared))
    assert main(["hook", "install", str(repo)]) == 2
    assert "outside this repository" in capsys.readouterr().err
    assert not shared.exists() and not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert main(["hook", "install", str(repo), "--force"]) == 0
    assert str(shared / "pre-commit") in capsys.readouterr().out
    assert _rewrite_and_commit(repo).returncode != 0  # git runs it from there


def test_hook_install_from_a_linked_worktree_writes_the_hooks_git_runs(repo, tmp_path, capsys):
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "other", str(linked))
    assert main(["hook", "install", str(linked)]) == 0
    assert str(repo / ".git" / "hooks" / "pre-commit") in capsys.readouterr().out
    assert _rewrite_and_commit(linked).returncode != 0


def test_hook_install_failing_says_one_line_in_a_fresh_process(repo):
    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\necho mine\n")
    result = subprocess.run([sys.executable, "-m", "rawko_tui", "hook", "install", str(repo)], capture_output=True, text=True)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    assert "already exists and is not rawko-tui's" in result.stderr


# --------------------------------------------------------------------------
# Item 16 (verify's share): a store's names never forge a line of the report
# --------------------------------------------------------------------------


def test_a_newline_in_a_file_name_cannot_forge_a_verify_line(repo, capsys):
    name = "evil\nOK: memory files were only appended to (forged)\t\x1b[32m.md"
    memfile(repo, name).write_text(BASE)
    commit_all(repo, "a memory with a hostile name")
    memfile(repo, name).write_text("rewritten\n")
    commit_all(repo, "rewrite it")
    capsys.readouterr()
    assert main(["verify", str(repo)]) == 1
    out = capsys.readouterr().out
    assert not [line for line in out.split("\n") if line.startswith("OK")]
    assert "\t" not in out and "\x1b" not in out
    assert "evil\u240aOK: memory files were only appended to (forged)\u2409" in out
    code, report = verify_json(repo, capsys)
    assert report["violations"][0]["path"] == f".rawko/memories/{name}"  # JSON keeps the name exactly


def test_a_fifo_in_the_working_tree_is_reported_not_read(repo):
    """verify reads a working-tree file only when it is a regular file (a FIFO would block it for ever)."""
    path = memfile(repo)
    path.unlink()
    os.mkfifo(path)
    memfile(repo, "other.md").unlink()
    memfile(repo, "other.md").symlink_to("/dev/zero")
    result = subprocess.run([sys.executable, "-m", "rawko_tui", "verify", str(repo), "--json"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    found = {(v["kind"], v["path"]) for v in json.loads(result.stdout)["violations"]}
    assert ("unchecked", ".rawko/memories/auth.md") in found and ("type-changed", ".rawko/memories/other.md") in found


def test_verify_during_a_merge_judges_the_index_and_the_working_tree_as_that_merge(repo, capsys):
    two_appending_branches(repo)
    assert run_git(repo, "merge", "side").returncode != 0  # a conflict on auth.md
    code, report = verify_json(repo, capsys)
    assert code == 1
    found = {(v["kind"], v["commit"]) for v in report["violations"] if v["path"] == ".rawko/memories/auth.md"}
    assert ("unchecked", "index") in found  # not resolved yet: said so, not called a deletion
    assert ("rewritten", "working tree") in found  # the conflict markers
    memfile(repo).write_text(BASE + A + B)  # resolved: side's entry after main's own
    code, report = verify_json(repo, capsys)
    assert [(v["kind"], v["commit"]) for v in report["violations"]] == [("unchecked", "index")]
    git(repo, "add", "-A")
    code, report = verify_json(repo, capsys)
    assert code == 0, report


def test_remember_never_writes_through_a_link_in_the_git_dir(repo, tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (repo / ".git" / "rawko-tui-verified").symlink_to(victim)
    assert main(["verify", str(repo), "--remember"]) == 2
    assert "cannot write the verified HEAD" in capsys.readouterr().err
    assert victim.read_text() == "precious\n"


def test_the_server_hook_does_not_judge_again_commits_it_already_holds(repo, tmp_path, capsys):
    """A branch pushed before the hook was installed, with a rewrite in its history (since put back), can still be merged."""
    server = tmp_path / "late.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(server))
    git(repo, "remote", "add", "origin", str(server))
    git(repo, "checkout", "-q", "-b", "old-work")
    original = memfile(repo, "other.md").read_text()
    memfile(repo, "other.md").write_text("rewritten before the hook existed\n")
    commit_all(repo, "an old rewrite")
    memfile(repo, "other.md").write_text(original)
    commit_all(repo, "put back")
    assert push(repo, "main", "old-work").returncode == 0
    assert main(["hook", "install", "--server", str(server)]) == 0
    git(repo, "checkout", "-q", "main")
    append(repo, A)
    commit_all(repo, "append A")
    git(repo, "merge", "-q", "--no-edit", "old-work")
    result = push(repo, "main")
    assert result.returncode == 0, result.stderr
    memfile(repo).write_text(BASE)  # a new rewrite is still refused
    commit_all(repo, "drop A")
    refused_by_the_hook(push(repo, "main"))


# --------------------------------------------------------------------------
# Faults an attack found: history and repositories shaped to slip past verify
# --------------------------------------------------------------------------


def _tree_listing_a_file_twice(repo: Path) -> str:
    """A commit whose memories tree lists auth.md twice (fsck's duplicateEntries): git's diff pairs the first
    copy (with the entry), a checkout writes the second (without it)."""
    new = git(repo, "rev-parse", "HEAD:.rawko/memories/auth.md")
    old = git(repo, "rev-parse", "HEAD~1:.rawko/memories/auth.md")
    other = git(repo, "rev-parse", "HEAD:.rawko/memories/other.md")
    raw = b"".join(b"100644 " + name + b"\x00" + bytes.fromhex(sha) for name, sha in ((b"auth.md", new), (b"auth.md", old), (b"other.md", other)))
    listed = subprocess.run(["git", "hash-object", "-t", "tree", "-w", "--literally", "--stdin"], cwd=repo, input=raw, capture_output=True, check=True)
    memories = listed.stdout.decode().strip()
    rawko = subprocess.run(["git", "mktree"], cwd=repo, input=f"040000 tree {memories}\tmemories\n", capture_output=True, text=True, check=True).stdout.strip()
    top = subprocess.run(["git", "mktree"], cwd=repo, input=f"040000 tree {rawko}\t.rawko\n", capture_output=True, text=True, check=True).stdout.strip()
    commit = git(repo, "commit-tree", top, "-p", "HEAD", "-m", "innocent")
    git(repo, "reset", "-q", "--hard", commit)
    assert "entry" not in memfile(repo).read_text() or A.strip() not in memfile(repo).read_text()  # what a checkout holds
    return commit


def test_a_tree_listing_a_memory_twice_is_refused_by_verify_and_the_server(repo, remote, capsys):
    append(repo, A)
    commit_all(repo, "append A")
    assert push(repo, "main").returncode == 0
    commit = _tree_listing_a_file_twice(repo)
    code, report = verify_json(repo, capsys, "--history-only")
    assert code == 1 and any(v["kind"] == "malformed-tree" and v["commit"] == commit and "auth.md" in v["message"] for v in report["violations"])
    err = refused_by_the_hook(push(repo, "main"))
    assert "lists 'auth.md' twice" in err


def test_the_merge_hook_refuses_a_merge_git_concludes_by_itself(repo, capsys):
    """`git merge -s ours` (or a clean merge) commits without pre-commit: `hook install` puts the check in pre-merge-commit too."""
    assert main(["hook", "install", str(repo)]) == 0
    assert "pre-merge-commit" in capsys.readouterr().out
    two_appending_branches(repo)
    refused = run_git(repo, "merge", "-s", "ours", "-m", "keep ours", "side")
    assert refused.returncode != 0 and "merge drops or changes entries a parent added" in refused.stdout + refused.stderr
    assert len(git(repo, "log", "-1", "--format=%P").split()) == 1  # no merge commit was made


@pytest.mark.parametrize("flag", ["--assume-unchanged", "--skip-worktree"])
def test_a_rewrite_hidden_from_git_by_an_index_flag_is_not_hidden_from_verify_or_the_badge(repo, capsys, flag):
    from rawko_tui.core.record.history import uncommitted_rewrites

    git(repo, "update-index", flag, ".rawko/memories/auth.md")
    memfile(repo).write_text(BASE.replace("24 hours", "48 hours"))
    assert run_git(repo, "status", "--porcelain").stdout == ""  # git does not see it
    code, report = verify_json(repo, capsys)
    assert code == 1 and [(v["kind"], v["commit"]) for v in report["violations"]] == [("rewritten", "working tree")]
    assert uncommitted_rewrites(repo) == {".rawko/memories/auth.md"}


def test_a_huge_blob_in_history_is_reported_without_being_held_in_memory(repo):
    """A 12 MB repository can hold a 2.5 GB blob of zeros: verify reads past it a chunk at a time and says so."""
    size = 200 << 20
    with subprocess.Popen(["git", "hash-object", "-w", "--stdin"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        proc.stdin.write(BASE.encode())
        chunk = b"a" * (1 << 20)
        for _ in range(size >> 20):
            proc.stdin.write(chunk)
        proc.stdin.close()
        blob = proc.stdout.read().decode().strip()
    git(repo, "update-index", "--cacheinfo", f"100644,{blob},.rawko/memories/auth.md")
    git(repo, "commit", "-q", "--no-verify", "-m", "big")
    git(repo, "reset", "-q", "--hard")

    for command in (["verify", "--history-only", "--json"], ["lint", "--at", "HEAD", "--json"]):
        # 1 GB of address space: far below what holding the blob would take
        capped, set_limits = with_limits([sys.executable, "-m", "rawko_tui", command[0], str(repo), *command[1:]], address_space=(1 << 30, 1 << 30))
        result = subprocess.run(capped, capture_output=True, text=True, timeout=300, preexec_fn=set_limits)
        assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr, result.stderr[-2000:]
        assert "over the 67,108,864-byte limit" in result.stdout, result.stdout[-2000:]


def test_a_graft_file_cannot_hide_a_commit_that_dropped_an_entry(repo, capsys):
    first = git(repo, "rev-parse", "HEAD")
    append(repo, A)
    commit_all(repo, "append A")
    memfile(repo).write_text(BASE)
    dropped = commit_all(repo, "drop A")
    assert verify_json(repo, capsys)[0] == 1
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "grafts").write_text(f"{dropped} {first}\n")  # the history as git would otherwise show it
    code, report = verify_json(repo, capsys)
    assert code == 1 and any(v["commit"] == dropped for v in report["violations"])


def test_the_server_refuses_a_pushed_replace_ref(repo, remote):
    append(repo, A)
    tip = commit_all(repo, "append A")
    assert push(repo, "main").returncode == 0
    stand_in = git(repo, "commit-tree", f"{tip}~1^{{tree}}", "-p", f"{tip}~1", "-m", "append A")
    git(repo, "replace", tip, stand_in)
    err = refused_by_the_hook(push(repo, f"refs/replace/{tip}"))
    assert "replace ref" in err
    assert run_git(remote, "for-each-ref", "refs/replace").stdout == ""


def test_verify_push_of_a_new_branch_outside_a_hook_judges_its_commits_even_when_checked_out(repo, capsys):
    git(repo, "checkout", "-q", "-b", "bad")
    memfile(repo).write_text(BASE.replace("24 hours", "1 hour"))
    bad = commit_all(repo, "rewrite")
    zero = "0" * 40
    code, report = verify_json(repo, capsys, "--push", zero, bad, "--ref", "refs/heads/bad")
    assert code == 1 and [v["commit"] for v in report["violations"]] == [bad]


def test_remember_never_blocks_on_a_fifo_planted_in_the_git_dir(repo):
    os.mkfifo(repo / ".git" / "rawko-tui-verified")
    result = subprocess.run([sys.executable, "-m", "rawko_tui", "verify", str(repo), "--remember"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "cannot write the verified HEAD" in result.stderr, result.stderr


def test_the_persons_own_log_follow_does_not_break_verify(tmp_path, capsys, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[log]\n\tfollow = true\n[user]\n\tname = Tester\n\temail = t@example.com\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    root = write_store(tmp_path / "one", {"auth.md": BASE})  # one memory file: git's --follow takes the glob pathspec for a file
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "initial")
    append(root, A)
    commit_all(root, "append A")
    code, report = verify_json(root, capsys)
    assert code == 0, report


@pytest.mark.parametrize("head", ["ref: refs/tags/v1\n", "ref: refs/remotes/origin/main\n"])
def test_no_write_commits_on_a_head_that_names_a_tag_or_a_remote_branch(repo, capsys, head):
    git(repo, "tag", "v1")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    (repo / ".git" / "HEAD").write_text(head)
    before = memfile(repo).read_bytes()
    code = main(["append", "auth", str(repo), "--body", "A note."])
    assert code == 1 and "check out a branch first" in capsys.readouterr().err
    assert memfile(repo).read_bytes() == before
