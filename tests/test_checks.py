"""Injection under test: saved tasks, check, impact, the matrix, token budgets."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import FIXED_NOW, REPO_ROOT, memory, write_store
from rawko_tui.cli import main
from rawko_tui.core.arbiters.decision import parse_now
from rawko_tui.core.arbiters.ranking import run_preview
from rawko_tui.core.arbiters.formatters import prompt_shares
from rawko_tui.core.curation.checks import add_saved_task, load_checks, matrix
from rawko_tui.core.store.loading import load_store

NOW = parse_now(FIXED_NOW)


def git(root, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "a@example.com"}
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout.strip()


def test_the_demo_store_suite_passes(capsys):
    assert main(["check", str(REPO_ROOT)]) == 0
    assert "4 passed, 0 failed" in capsys.readouterr().out


@pytest.fixture
def repo(tmp_path):
    root = write_store(
        tmp_path / "repo",
        {
            "jwt.md": memory(title="JWT tokens", when='"token|login"', importance="critical"),
            "cache.md": memory(title="Cache layer", when='"cache"', importance="medium"),
        },
    )
    (root / ".rawko" / "checks.yaml").write_text(
        "tasks:\n"
        "  - task: fix the login token\n    agent: developer\n    now: 2026-01-24T12:00:00Z\n    expect:\n      inject: [jwt.md]\n      not_inject: [cache.md]\n"
        "  - task: warm the cache\n    agent: developer\n    now: 2026-01-24T12:00:00Z\n    expect:\n      inject: [cache.md]\n"
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def test_a_changed_pattern_fails_the_check_with_the_task_and_memory_named(repo, capsys):
    assert main(["check", str(repo)]) == 0
    path = repo / ".rawko" / "memories" / "jwt.md"
    path.write_text(path.read_text().replace('"token|login"', '"session"'))
    git(repo, "commit", "-qam", "narrow the jwt pattern")
    capsys.readouterr()
    assert main(["check", str(repo)]) == 1
    out = capsys.readouterr().out
    assert "FAIL 'fix the login token' (developer)" in out
    assert "jwt.md must be injected, but is not: not injected: no whenToUse pattern matched" in out
    assert main(["check", str(repo), "--at", "HEAD~1"]) == 0
    capsys.readouterr()
    assert main(["impact", "HEAD~1", "HEAD", str(repo), "--json"]) == 0
    changed = json.loads(capsys.readouterr().out)["changed"]
    assert changed == [
        {"task": "fix the login token", "agent": "developer", "before": ["jwt.md"], "after": [], "beforeFailure": None, "afterFailure": None, "undecided": []}
    ]
    assert main(["impact", "HEAD~1", "worktree", str(repo)]) == 0
    assert "1 of 2 saved tasks change" in capsys.readouterr().out


def test_order_expectations(repo, capsys):
    checks = repo / ".rawko" / "checks.yaml"
    checks.write_text(checks.read_text() + "  - task: token cache\n    agent: developer\n    now: 2026-01-24T12:00:00Z\n    expect:\n      order: [[cache.md, jwt.md]]\n")
    assert main(["check", str(repo), "--json"]) == 1
    results = json.loads(capsys.readouterr().out)["results"]
    assert results[2]["failures"] == ["cache.md must rank above jwt.md, but ranks 2 to 1"]


def test_matrix_dead_over_broad_and_empty(tmp_path):
    root = write_store(
        tmp_path,
        {
            "everywhere.md": memory(title="Everywhere", when='"e"'),
            "auth.md": memory(title="Auth", when='"auth"'),
            "never.md": memory(title="Never", when='"zzzz"'),
        },
    )
    # searched texts: "fix auth developer", "deploy tester", "write the release notes planner", "go reviewer", "go ops"
    tasks = [("fix auth", "developer"), ("deploy", "tester"), ("write the release notes", "planner"), ("go", "reviewer"), ("go", "ops")]
    result = matrix(load_store(root), tasks, NOW)
    assert result.counts["auth.md"] == {"developer": 1, "ops": 0, "planner": 0, "reviewer": 0, "tester": 0}
    assert result.counts["everywhere.md"] == {"developer": 1, "ops": 0, "planner": 1, "reviewer": 1, "tester": 1}
    assert result.dead == ["never.md"]
    assert result.over_broad() == ["everywhere.md"]  # 4 of 5 tasks: 80%
    assert result.empty_tasks == [("go", "ops")]


def test_token_budget_and_shares(tmp_path, capsys):
    root = write_store(
        tmp_path,
        {"a.md": memory(title="A", body="x " * 400), "b.md": memory(title="B", body="y " * 40)},
        agents={"developer": "---\nname: developer\nmemory:\n  tokenBudget: 100\n---\n"},
    )
    assert main(["preview", str(root), "--task", "auth", "--agent", "developer", "--now", FIXED_NOW, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["budget"]["tokens"] == 100 and data["budget"]["over"] is True
    shares = {s["path"]: s["share"] for s in data["budget"]["shares"]}
    assert shares[".rawko/memories/a.md"] > shares[".rawko/memories/b.md"] > 0
    preview = run_preview(load_store(root), "auth", "developer", now_ms=NOW)
    header = len(preview.prompt) - sum(block for _, block, _ in prompt_shares(preview))
    assert header == len("## Background Knowledge from Previous Runs\n\nThe following information was learned from prior runs and may be relevant:\n\n")
    assert main(["preview", str(root), "--task", "auth", "--agent", "developer", "--now", FIXED_NOW]) == 0
    assert "Token budget for developer: 100; the block is about" in capsys.readouterr().out


def test_saving_a_task_keeps_comments_and_a_bad_file_is_reported(tmp_path, capsys):
    root = write_store(tmp_path, {"a.md": memory(title="A")})
    checks = root / ".rawko" / "checks.yaml"
    checks.write_text("# my comment\ntasks: []\n")
    add_saved_task(root, "fix auth", "developer", FIXED_NOW, ["a.md"])
    assert checks.read_text().startswith("# my comment")
    assert "\n  - name: fix auth\n    task: fix auth\n    agent: developer\n    now: '2026-01-24T12:00:00Z'\n" in checks.read_text()
    tasks, errors = load_checks(root)
    assert [(t.task, t.inject) for t in tasks] == [("fix auth", ["a.md"])] and errors == []
    (root / ".rawko" / "checks").mkdir()
    (root / ".rawko" / "checks" / "broken.yaml").write_text("tasks: [\n")
    assert main(["check", str(root)]) == 1
    assert "checks/broken.yaml" in capsys.readouterr().err


TABBED = '---\ntitle: Tabbed\n\twhenToUse: ["token"]\nimportance: high\n---\n\nFrontmatter indented with a tab.\n'
YAML_TAB_ERROR = "YAMLError: frontmatter is not valid YAML: a tab at line 3, column 1: YAML cannot be indented with tabs; indent with spaces"


def test_a_run_that_throws_fails_the_check_changes_the_impact_and_differs_from_a_revision(repo, capsys):
    """The arbiter throws on a tab-indented frontmatter and injects nothing: check, impact, compare and matrix say so."""
    assert main(["check", str(repo)]) == 0
    (repo / ".rawko" / "memories" / "tabbed.md").write_text(TABBED)
    capsys.readouterr()

    assert main(["check", str(repo)]) == 1
    out = capsys.readouterr().out
    assert "FAIL 'fix the login token' (developer)" in out and "FAIL 'warm the cache' (developer)" in out
    assert f"the arbiter throws while loading .rawko/memories/tabbed.md: {YAML_TAB_ERROR}" in out
    assert "agents get nothing for this task" in out and "injected: nothing (the arbiter throws; without that file: jwt.md)" in out
    assert "0 passed, 2 failed" in out
    assert main(["check", str(repo), "--json"]) == 1
    first = json.loads(capsys.readouterr().out)["results"][0]
    assert first["status"] == "fail" and first["injected"] == [] and first["arbiterFailure"]["path"] == ".rawko/memories/tabbed.md"

    assert main(["impact", "HEAD", "worktree", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 saved tasks change between HEAD and worktree" in out
    assert "'fix the login token' (developer): injects jwt.md -> throws while loading .rawko/memories/tabbed.md (YAMLError" in out
    assert main(["impact", "HEAD", "worktree", str(repo), "--json"]) == 0
    change = json.loads(capsys.readouterr().out)["changed"][0]
    assert change["before"] == ["jwt.md"] and change["after"] == [] and change["beforeFailure"] is None
    assert change["afterFailure"]["stage"] == "load" and change["afterFailure"]["path"] == ".rawko/memories/tabbed.md"

    compare = ["preview", str(repo), "--task", "fix the login token", "--now", FIXED_NOW, "--compare", "HEAD"]
    assert main(compare) == 0
    out = capsys.readouterr().out
    assert "the same memories" not in out
    assert "! at working tree: throws while loading .rawko/memories/tabbed.md" in out
    assert "- .rawko/memories/jwt.md  (the arbiter throws and injects nothing)" in out
    assert main([*compare, "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)["diff"]
    assert diff["same"] is False and diff["removed"] == [".rawko/memories/jwt.md"] and diff["failure"]["before"] is None
    assert diff["failure"]["after"]["path"] == ".rawko/memories/tabbed.md"

    assert main(["matrix", str(repo), "--now", FIXED_NOW]) == 0
    out = capsys.readouterr().out
    assert "Task where the arbiter throws (agents get nothing): 'fix the login token' (developer): throws while loading" in out
    assert "Tasks that get nothing: none" in out  # a run that throws is said as such, not as a task with no memory
    assert main(["matrix", str(repo), "--now", FIXED_NOW, "--json"]) == 0
    grid = json.loads(capsys.readouterr().out)
    assert [t["failure"]["path"] for t in grid["failingTasks"]] == [".rawko/memories/tabbed.md"] * 2 and grid["counts"]["jwt.md"]["developer"] == 0

    # the same throw on both sides is no difference; another throw is one; and back to injecting is one too
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a tab-indented memory")
    assert main(["impact", "HEAD", "worktree", str(repo)]) == 0
    assert "0 of 2 saved tasks change" in capsys.readouterr().out
    assert main(["preview", str(repo), "--task", "fix the login token", "--now", FIXED_NOW, "--compare", "HEAD"]) == 0
    assert "the same: the arbiter throws the same way on both sides and injects nothing" in capsys.readouterr().out
    (repo / ".rawko" / "memories" / "tabbed.md").write_text(TABBED.replace("\twhenToUse", "whenToUse").replace("title: Tabbed\n", "title: [Tabbed\n"))
    assert main(["impact", "HEAD", "worktree", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 saved tasks change" in out and "throws while loading .rawko/memories/tabbed.md (YAMLError: frontmatter is not valid YAML: a tab at line 3" in out
    assert "-> throws while loading .rawko/memories/tabbed.md (YAMLError" in out
    (repo / ".rawko" / "memories" / "tabbed.md").write_text(TABBED.replace("\twhenToUse", "whenToUse"))
    assert main(["impact", "HEAD", "worktree", str(repo), "--json"]) == 0
    change = json.loads(capsys.readouterr().out)["changed"][0]
    assert change["beforeFailure"]["path"] == ".rawko/memories/tabbed.md" and change["afterFailure"] is None and change["after"] == ["jwt.md", "tabbed.md"]


def test_an_undecided_saved_task_is_neither_passed_nor_failed(tmp_path, capsys):
    root = write_store(
        tmp_path / "store",
        {
            "jwt.md": memory(title="JWT tokens", when='"token"', importance="critical"),
            # the backtracking engine's answer for this one would not be V8's (an empty repetition's capture): undecided at any budget
            "odd.md": memory(title="Odd", when='"(a{0,1}a{0,1}){0,}\\\\1!.{0}"', importance="critical"),
        },
    )
    (root / ".rawko" / "checks.yaml").write_text(
        "tasks:\n"
        "  - task: fix the token aa!\n    agent: developer\n    now: 2026-01-24T12:00:00Z\n    expect:\n      not_inject: [odd.md]\n"
        # whether odd.md matches or not, jwt.md is injected: this one is decided
        "  - task: fix the token aa!\n    agent: developer\n    now: 2026-01-24T12:00:00Z\n    expect:\n      inject: [jwt.md]\n"
    )
    assert main(["check", str(root)]) == 4
    out = capsys.readouterr().out
    assert "??   'fix the token aa!' (developer)" in out and "ok   'fix the token aa!' (developer)" in out
    assert "1 passed, 0 failed, 1 undecided" in out
    assert "undecided: .rawko/memories/odd.md is injected at rank 2 with a score of 45 if whenToUse" in out
    assert main(["check", str(root), "--allow-undecided"]) == 0
    capsys.readouterr()
    assert main(["check", str(root), "--json"]) == 4
    data = json.loads(capsys.readouterr().out)
    assert (data["passed"], data["failed"], data["undecided"]) == (1, 0, 1) and [r["status"] for r in data["results"]] == ["undecided", "pass"]


def test_saved_tasks_read_the_same_are_not_parsed_again_and_changed_ones_are(tmp_path, monkeypatch):
    """Each saved-task file's YAML is kept by its exact bytes: the same bytes are not parsed again (no YAML reader),
    one changed byte is, and a file that cannot be read says so each time."""
    from rawko_tui.core.js import jsyaml

    root = write_store(tmp_path, {"a.md": memory(title="Auth", when='"auth"')})
    checks = root / ".rawko" / "checks.yaml"
    checks.write_text('tasks:\n  - task: "fix auth"\n    agent: developer\n    now: 2026-01-24T12:00:00Z\n', encoding="utf-8")
    (root / ".rawko" / "checks").mkdir()
    (root / ".rawko" / "checks" / "broken.yaml").write_text("tasks: [unclosed\n", encoding="utf-8")
    first = load_checks(root)
    assert [t.task for t in first[0]] == ["fix auth"] and first[0][0].now == "2026-01-24 12:00:00+00:00"
    assert [e.path for e in first[1]] == [".rawko/checks/broken.yaml"]
    with monkeypatch.context() as patched:
        patched.setattr(jsyaml, "load_with_ruamel", lambda text: pytest.fail("parsed bytes read before"))
        assert load_checks(root) == first
    checks.write_text(checks.read_text(encoding="utf-8").replace("fix auth", "fix login"), encoding="utf-8")
    again = load_checks(root)
    assert [t.task for t in again[0]] == ["fix login"] and again[1] == first[1]
