"""Hostile input: every case of tests/hostile.py through lint, preview, the app and verify.

Each case must get its own specific finding, nothing may crash, hang or run,
and the good files of the same store must keep working.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXED_NOW
from hostile import CASES, GOOD, OUTSIDE_SECRET, PWNED, make_store
from rawko_tui.core.arbiter import parse_now, run_preview
from rawko_tui.core.lint import lint_store
from rawko_tui.core.store import load_store

NOW = parse_now(FIXED_NOW)
TASK = "fix the auth login"
REPO_ROOT = Path(__file__).parent.parent


def _rel(name: str) -> str:
    return f".rawko/memories/{name}"


@pytest.mark.parametrize("case", CASES, ids=[f"{c.group}:{c.name}" for c in CASES])
def test_each_hostile_case_gets_its_specific_finding_and_the_good_files_still_work(tmp_path, case):
    root = make_store(tmp_path / "store", [case])
    store = load_store(root)
    findings = lint_store(store, NOW)
    mine = [(f.code, f.message) for f in findings if f.path == _rel(case.name)]
    for code, words in case.findings:
        assert any(c == code and words in m for c, m in mine), f"no {code} finding saying {words!r} for {case.name!r}; got {mine}"
    for name in GOOD:
        assert not [f for f in findings if f.path == _rel(name) and f.severity == "error"]

    preview = run_preview(store, TASK, "developer", now_ms=NOW)
    injected = [c.file.name for c in preview.injected]
    assert {"good-auth.md", "good-login.md"} <= set(injected)
    if case.loaded:  # a proper memory, hostile or not, is ranked like any other
        assert preview.candidate(case.name).loaded
    assert not (root / PWNED).exists() and not (Path.cwd() / PWNED).exists()


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def _cli(root: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The installed command, in its own process: a hang fails the test instead of freezing it."""
    return subprocess.run(
        [sys.executable, "-m", "rawko_tui", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "TZ": "UTC"},
    )


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory) -> Path:
    """Every case in one store, committed (the FIFO and the symlinked folder are left out of git)."""
    root = make_store(tmp_path_factory.mktemp("hostile") / "store")
    _git(root, "init", "-q")
    _git(root, "add", "-A", "--", ".", ":!.rawko/memories/pipe.md")
    _git(root, "commit", "-q", "-m", "hostile memories")
    return root


def test_every_surface_of_the_command_line_survives_the_whole_hostile_store(hostile_repo):
    root = hostile_repo
    lint = _cli(root, "lint", "--json", "--now", FIXED_NOW)
    assert lint.returncode == 1 and "Traceback" not in lint.stderr, lint.stderr
    found = json.loads(lint.stdout)["findings"]
    for case in CASES:
        mine = [(f["code"], f["message"]) for f in found if f["path"] == _rel(case.name)]
        for code, words in case.findings:
            assert any(c == code and words in m for c, m in mine), (case.name, code, mine)

    preview = _cli(root, "preview", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW, "--json")
    assert preview.returncode == 0, preview.stderr
    data = json.loads(preview.stdout)
    assert {"good-auth.md", "good-login.md"} <= {Path(m["path"]).name for m in data["injected"]}

    text = _cli(root, "preview", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW)
    lint_text = _cli(root, "lint", "--now", FIXED_NOW)
    for output in (text.stdout, lint_text.stdout, lint.stdout, preview.stdout):
        # a memory's escape sequences and a file name's newline never reach the terminal raw
        assert "\x1b" not in output and "\x07" not in output and OUTSIDE_SECRET not in output
    assert ".rawko/memories/new␊line.md" in lint_text.stdout
    assert "␛]0;owned␇" in text.stdout or "␛]0;owned␇" in _cli(root, "explain", "markup.md", "--task", TASK, "--agent", "developer").stdout

    explain = _cli(root, "explain", "good-auth.md", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW)
    assert explain.returncode == 0 and "Good Auth" in explain.stdout

    verify = _cli(root, "verify", "--json")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert json.loads(verify.stdout)["ok"] is True

    candidates = _cli(root, "candidates", "--now", FIXED_NOW)
    assert candidates.returncode == 0 and "Traceback" not in candidates.stderr
    assert not (root / PWNED).exists() and not (root / (PWNED + "2")).exists()
    assert _git(root, "status", "--porcelain", "--", ".rawko/memories") == ""  # nothing was written
