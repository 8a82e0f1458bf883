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
from hostile import CASES, GOOD, OUTSIDE_SECRET, PWNED, make_store, without_read_override
from rawko_tui.core.arbiters.decision import parse_now, resolve_options
from rawko_tui.core.arbiters.ranking import run_preview
from rawko_tui.core.lint.linter import lint_store
from rawko_tui.core.store.loading import load_store
from test_history import git as _git

NOW = parse_now(FIXED_NOW)
TASK = "fix the auth login"


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
    """Every case in one store, committed (but the FIFO: git cannot hold one)."""
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
    markup = _cli(root, "explain", "markup.md", "--task", TASK, "--agent", "developer").stdout
    assert "[@click=app.quit]Q[/] [bold]B[/bold] ␛]0;owned␇␛[2J" in markup and "\x1b" not in markup

    explain = _cli(root, "explain", "good-auth.md", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW)
    assert explain.returncode == 0 and "Good Auth" in explain.stdout

    verify = _cli(root, "verify", "--json")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert json.loads(verify.stdout)["ok"] is True

    candidates = _cli(root, "candidates", "--now", FIXED_NOW)
    assert candidates.returncode == 0 and "Traceback" not in candidates.stderr
    assert not (root / PWNED).exists() and not (root / (PWNED + "2")).exists()
    assert _git(root, "status", "--porcelain", "--", ".rawko/memories") == ""  # nothing was written


_APP_REPORT = f"""
import asyncio, json, sys
from pathlib import Path
from rawko_tui.tui.app import create_app

async def main():
    app = create_app(Path(sys.argv[1]), task={TASK!r}, agent="developer", now={FIXED_NOW!r}, poll_seconds=None)
    async with app.run_test(size=(150, 46)) as pilot:
        await app.settled()
        while not app.findings:
            await pilot.pause(0.05)
        print(json.dumps({{"running": app.is_running, "injected": [c.file.name for c in app.preview.injected],
                          "findings": [[f.path, f.code] for f in app.findings]}}))

asyncio.run(main())
"""


def test_an_unreadable_file_and_folder_are_reported_and_the_rest_loads(tmp_path):
    root = make_store(tmp_path / "store", [])
    memories = root / ".rawko" / "memories"
    (memories / "locked.md").write_text(GOOD["good-auth.md"].replace("Good Auth", "Locked"))
    (memories / "private").mkdir()
    (memories / "private" / "inside.md").write_text(GOOD["good-auth.md"])
    os.chmod(memories / "locked.md", 0)
    os.chmod(memories / "private", 0)
    try:
        def run(*args: str) -> subprocess.CompletedProcess:
            command, drop_override = without_read_override([sys.executable, "-m", "rawko_tui", *args])
            return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120, preexec_fn=drop_override)

        lint = run("lint", "--json", "--now", FIXED_NOW)
        found = {(f["path"], f["code"]): f["message"] for f in json.loads(lint.stdout)["findings"]}
        assert "cannot be read: Permission denied" in found[(_rel("locked.md"), "parse")]
        assert "a folder that cannot be listed (Permission denied)" in found[(_rel("private/"), "not-loaded")]
        preview = run("preview", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW, "--json")
        assert preview.returncode == 0 and "Traceback" not in preview.stderr
        assert {"good-auth.md", "good-login.md"} <= {Path(m["path"]).name for m in json.loads(preview.stdout)["injected"]}
        # the app, in a process that cannot read the file either
        command, drop_override = without_read_override([sys.executable, "-c", _APP_REPORT, str(root)])
        app = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120, preexec_fn=drop_override)
        assert app.returncode == 0, app.stderr[-2000:]
        report = json.loads(app.stdout.strip().splitlines()[-1])
        assert report["running"] and {"good-auth.md", "good-login.md"} <= set(report["injected"])
        assert [_rel("locked.md"), "parse"] in report["findings"] and [_rel("private/"), "not-loaded"] in report["findings"]
    finally:
        os.chmod(memories / "locked.md", 0o644)
        os.chmod(memories / "private", 0o755)


async def test_the_app_loads_the_whole_hostile_store_and_typing_never_waits_for_a_pattern(hostile_repo):
    from textual.widgets import TextArea

    from rawko_tui.tui.widgets.memories.memory_list import MemoryList
    from rawko_tui.tui.widgets.preview.preview_pane import PreviewPane
    from test_app import SIZE, _screen_text, app_for, settle

    app = app_for(hostile_repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        while app.findings is None or not app.findings:
            await pilot.pause(0.05)
        paths = {f.path for f in app.findings}
        for case in CASES:
            if case.findings:  # a case with none is a proper memory (one dated past the year 2262): listed like any other
                assert _rel(case.name) in paths, case.name
        assert all(app.store.file(case.name) is not None for case in CASES if case.loaded)
        assert " · " not in app.sub_title  # a clean repository: nothing to warn about
        assert "3 passed over (rawko-tui lint)" in str(app.query_one(MemoryList).border_subtitle)  # pipe.md, folder.md, up
        # every keystroke lands at once, whatever the patterns (catastrophic, 20,000 alternatives) cost
        area = app.query_one("#task", TextArea)
        area.focus()
        for typed, key in enumerate(TASK.replace(" ", "_"), start=1):
            await pilot.press("space" if key == "_" else key)
            assert len(area.text) == typed
        await settle(pilot)
        assert {"good-auth.md", "good-login.md"} <= {c.file.name for c in app.preview.injected}
        assert _rel("poisoned.md") in app.query_one(PreviewPane).flagged
        app.query_one(MemoryList).select_path(_rel("poisoned.md"))
        await settle(pilot)
        screen = _screen_text(app)
        assert "INJ" in screen and "⚠ possible prompt injection, line 12:" in screen
        app.query_one(MemoryList).select_path(_rel("markup.md"))
        await settle(pilot)
        assert "\x1b" not in _screen_text(app) and app.is_running


async def test_a_flagged_memory_is_marked_where_it_is_injected(tmp_path):
    from test_app import SIZE, _screen_text, app_for, settle

    from hostile import CASES as ALL

    poisoned = next(c for c in ALL if c.name == "poisoned.md")
    root = make_store(tmp_path / "store", [poisoned])
    app = app_for(root, task="auth")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        while not app.findings:
            await pilot.pause(0.05)
        await settle(pilot)
        assert "poisoned.md" in {c.file.name for c in app.preview.injected}
        screen = _screen_text(app)
        assert "⚠ INJECTION? Deploy Checklist" in screen
        assert "1 flagged as possible prompt injection" in screen


def test_writing_to_hostile_names_runs_nothing_and_keeps_the_log_one_line_per_name(tmp_path, capsys):
    from rawko_tui.cli import main

    names = [c for c in CASES if c.group == "paths" and c.loaded]
    root = make_store(tmp_path / "store", names)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "memories")
    for case in names:
        assert main(["append", case.name, str(root), "--body", "Appended \x1b[2J safely.", "--set", "importance=critical"]) == 0, capsys.readouterr().err
    log = _git(root, "log", "--format=%B")
    assert "rawko-tui: append new␊line.md" in log and "Memory: .rawko/memories/new␊line.md" in log
    assert "\x1b" not in log and not (root / PWNED).exists() and not (Path.cwd() / PWNED).exists()
    assert main(["verify", str(root)]) == 0
    for case in names:
        assert load_store(root).file(case.name).effective()[0]["importance"] == "critical"


def test_broken_agent_definitions_and_settings_are_reported_and_the_memories_still_rank(tmp_path):
    root = make_store(tmp_path / "store", [])
    agents = root / ".rawko" / "agents"
    agents.mkdir()
    (agents / "developer.md").write_text("---\nname: developer\nmemory:\n  maxInjected: '[bold]5'\n  minImportance: urgent\n---\n")
    (agents / "tester.md").write_bytes(b"\x00\xff binary")
    (agents / "reviewer.md").write_text(f"---\nmemory: !!python/object/apply:os.system ['touch {PWNED}']\n---\n")
    (agents / "planner.md").write_text("---\nmemory: [3, low]\n---\n")
    (root / ".rawko" / "rawko-tui.yaml").write_text("recursive: 'yes'\nkeymap: [1, 2]\nmodel: {a: 1}\n")
    findings = {(f.path, f.code, f.message) for f in lint_store(load_store(root), NOW)}

    def said(path: str, code: str, words: str) -> bool:
        return any(p == path and c == code and words in m for p, c, m in findings)

    assert said(".rawko/agents/developer.md", "agent-config", "memory.maxInjected '[bold]5' is not a number: an arbiter that applies it (slice(0, NaN)) injects no memory")
    assert said(".rawko/agents/developer.md", "agent-config", "memory.minImportance 'urgent' is not low, medium, high or critical")
    assert said(".rawko/agents/tester.md", "agent", "no frontmatter")
    assert said(".rawko/agents/reviewer.md", "agent", "unknown tag")
    assert said(".rawko/agents/planner.md", "agent-config", "memory is a list, not a mapping of settings")
    assert said(".rawko/rawko-tui.yaml", "config", "recursive is 'yes', not true or false: ignored, the default (false) is used")
    # the person's own settings are never a store's, whatever their value: said, and where they belong
    assert said(".rawko/rawko-tui.yaml", "person-setting", "keymap, model are yours to set, not a store's")
    assert not (root / PWNED).exists()
    # an arbiter given those settings keeps nothing; the broken agent files fall back to the defaults
    store = load_store(root)
    assert run_preview(store, TASK, "developer", resolve_options(store, "developer"), NOW).injected == []
    assert {"good-auth.md", "good-login.md"} <= {c.file.name for c in run_preview(store, TASK, "tester", resolve_options(store, "tester"), NOW).injected}


async def test_the_app_says_once_what_is_wrong_with_the_settings(tmp_path):
    from test_app import SIZE, app_for, settle

    root = make_store(tmp_path / "store", [])
    (root / ".rawko" / "rawko-tui.yaml").write_text("keymap: [1, 2]\n")
    app = app_for(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        while not app.findings:
            await pilot.pause(0.05)
        await settle(pilot)
        said = [n.message for n in app._notifications if "rawko-tui.yaml" in n.message]
        assert len(said) == 1 and said[0].startswith(".rawko/rawko-tui.yaml: keymap is yours to set, not a store's")


def test_hostile_sessions_saved_tasks_and_settings_are_reported_plainly(tmp_path):
    from hostile import _alias_bomb
    from rawko_tui.core.curation.checks import load_checks
    from rawko_tui.core.curation.sessions import load_sessions

    root = make_store(tmp_path / "store", [])
    sessions = root / ".rawko" / "sessions"
    for name, data in {"deep": b"discoveries: " + b"[" * 5000 + b"]" * 5000, "binary": b"\x00\xff\xfe", "bomb": _alias_bomb().encode()}.items():
        (sessions / name).mkdir(parents=True)
        (sessions / name / "agent-memory.yaml").write_bytes(data)
    (root / ".rawko" / "checks.yaml").write_bytes(b"tasks: " + b"[" * 5000 + b"]" * 5000)
    (root / ".rawko" / "rawko-tui.yaml").write_bytes(b"\xff not text")

    errors = {s.id: s.error.reason for s in load_sessions(root) if s.error is not None}
    assert errors["deep"] == "nested more than 100 levels deep; refused (no rawko file nests like that)"
    assert errors["binary"] == "not UTF-8 text (byte 1 is not)"
    _, check_errors = load_checks(root)
    assert [e.reason for e in check_errors] == ["nested more than 100 levels deep; refused (no rawko file nests like that)"]
    config = [f for f in lint_store(load_store(root), NOW) if f.code == "config"]
    assert [f.message for f in config] == ["rawko-tui.yaml: not UTF-8 text (byte 0 is not); the settings are ignored"]
    run = _cli(root, "sessions")
    assert run.returncode == 0 and "Traceback" not in run.stderr


def test_the_line_of_a_bad_byte_is_the_line_in_the_version_linted(tmp_path):
    from rawko_tui.core.store.reading import load_store_at

    invalid = next(c for c in CASES if c.name == "invalid-utf8.md")
    root = make_store(tmp_path / "store", [invalid])
    path = root / ".rawko" / "memories" / "invalid-utf8.md"
    data = path.read_bytes()
    bad_line = data[: data.index(b"\xe9")].count(b"\n") + 1
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "memories")
    path.write_bytes(b"\n" * 50 + data)  # the working tree moves the bad byte 50 lines down
    for store, line in ((load_store_at(root, "HEAD"), bad_line), (load_store(root), bad_line + 50)):
        encoding = [f for f in lint_store(store, NOW) if f.code == "encoding"]
        assert [f.line for f in encoding] == [line]


def test_the_loads_own_scan_gives_the_watchers_signature(tmp_path):
    """The app takes the watcher's fingerprint from the load's walk of memories/ (one walk, not two): it must be the same."""
    from rawko_tui.core.store.watch import store_signature

    root = make_store(tmp_path / "store")
    memories = root / ".rawko" / "memories"
    (memories / "notes.txt").write_text("not a memory")
    (memories / "deep").mkdir(exist_ok=True)
    (memories / "deep" / "x.md").write_text("---\ntitle: X\n---\n")
    if hasattr(os, "mkfifo") and not (memories / "a-pipe.md").exists():
        os.mkfifo(memories / "a-pipe.md")
    (memories / "a-linked-folder").symlink_to(tmp_path, target_is_directory=True)
    store = load_store(root)
    assert store.file_stats and store_signature(root, store.file_stats) == store_signature(root)
