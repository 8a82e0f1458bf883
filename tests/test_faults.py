"""Faults: a disk that fills up mid-write, a Claude call that never answers, and a key that must never leak.

(Another process appending while rawko-tui writes, and a writer killed mid-write,
are in test_history.py; Claude's refusals, rate limits and malformed answers in
test_claude.py.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from conftest import memory, with_limits, write_store
from rawko_tui.core.curation.claude import ClaudeError, ask_claude
from rawko_tui.core.lint.linter import lint_store
from rawko_tui.core.store.loading import load_store
from hostile import without_read_override
from test_claude import GOOD
from test_history import commit_all, git

BODY = "The session middleware in src/auth must run before the router; tokens expire after 24 hours. " * 6


def _run_with_file_size_limit(root: Path, limit: int, *args: str) -> subprocess.CompletedProcess:
    """The CLI in a process that may not grow any file past ``limit`` bytes: a full disk, as the writer sees it."""

    command, set_limits = with_limits([sys.executable, "-m", "rawko_tui", *args], file_size=(limit, limit))
    return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120, preexec_fn=set_limits)


@pytest.fixture
def repo(tmp_path) -> Path:
    root = write_store(tmp_path / "repo", {"auth-session.md": memory(title="Auth session", body=BODY)})
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "initial memories")
    return root


def test_a_disk_that_fills_up_during_an_append_loses_nothing_and_leaves_nothing_half_written(repo):
    path = repo / ".rawko" / "memories" / "auth-session.md"
    before = path.read_bytes()
    head = git(repo, "rev-parse", "HEAD")
    # room for the write journal's record of the entry (about 1,050 bytes), not for the whole entry in the memory (about 800 more)
    result = _run_with_file_size_limit(repo, len(before) + 600, "append", "auth-session.md", "--body", "A correction. " * 50)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "the write failed (File too large); nothing was written, the file is as it was" in result.stderr
    assert path.read_bytes() == before
    assert git(repo, "rev-parse", "HEAD") == head and git(repo, "status", "--porcelain") == ""
    assert not list((repo / ".git" / "rawko-tui-journal").glob("*.write"))
    assert not [f for f in lint_store(load_store(repo)) if f.code == "torn-entry"]


def test_a_disk_that_fills_up_while_creating_leaves_no_half_memory(repo):
    result = _run_with_file_size_limit(
        repo, 200, "new", "--title", "Rate limiter keys", "--when", "rate limit", "--importance", "high", "--by", "developer", "--body", BODY * 3
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    # the journal's record of the entry (written first, and larger than the entry) is what the full disk refuses
    assert "the write could not be recorded in .git/rawko-tui-journal in the git dir (File too large); nothing was written" in result.stderr
    assert not (repo / ".rawko" / "memories" / "rate-limiter-keys.md").exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all", "--", ".rawko/memories") == ""


def test_a_full_disk_for_the_write_journal_refuses_before_touching_the_memory(repo):
    path = repo / ".rawko" / "memories" / "auth-session.md"
    before = path.read_bytes()
    journal = repo / ".git" / "rawko-tui-journal"  # in the git dir: never cloned, never committed
    journal.mkdir()
    os.chmod(journal, 0o500)  # the journal cannot be written (as a full disk would refuse it)
    try:
        command, drop_override = without_read_override([sys.executable, "-m", "rawko_tui", "append", "auth-session.md", "--body", "A correction."])
        result = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=120, preexec_fn=drop_override)
    finally:
        os.chmod(journal, 0o755)
    assert result.returncode == 1 and "the write could not be recorded in .git/rawko-tui-journal" in result.stderr
    assert path.read_bytes() == before


class SlowMessages(BaseHTTPRequestHandler):
    """An API that accepts the request and never answers in time: it answers nothing until the test is done."""

    done = threading.Event()

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length", 0)))
        SlowMessages.done.wait(10)

    def log_message(self, *args):
        pass


def test_a_claude_call_that_never_answers_times_out_with_a_plain_message():
    server = HTTPServer(("127.0.0.1", 0), SlowMessages)
    SlowMessages.done.clear()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        start = time.monotonic()
        with pytest.raises(ClaudeError, match=r"no answer within 0.5 s") as caught:
            ask_claude("prompt", "sk-test-timeout-key", base_url=f"http://127.0.0.1:{server.server_port}", timeout=0.5)
        assert time.monotonic() - start < 10  # one retry at most, never a hang
        assert "sk-test-timeout-key" not in str(caught.value)
    finally:
        SlowMessages.done.set()  # the request being handled ends, so the server can stop
        server.shutdown()


SECRET = "sk-ant-api03-SENTINEL-" + "Zq9" * 12


@pytest.fixture
def fake_with_secret(fake, monkeypatch):
    """The fake API (conftest), with a key that is searched for everywhere afterwards."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return fake


async def test_the_api_key_never_reaches_a_file_a_commit_an_error_or_the_screen(repo, tmp_path, fake_with_secret, capsys):
    from rawko_tui.cli import main

    (tmp_path / "output.txt").write_text("Added the rate limiter; it keys on X-Forwarded-For behind the proxy.")
    extract = ["extract", str(repo), "--from", str(tmp_path / "output.txt"), "--agent", "developer", "--task", "Add login rate limiting"]
    said = []
    # every failure the API can give, then a draft that is written and committed
    for answer in [
        (401, {"type": "error", "error": {"type": "authentication_error", "message": f"invalid x-api-key {SECRET[:12]}"}}),
        (429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
        (500, {"type": "error", "error": {"type": "api_error", "message": "boom"}}),
        (200, "not json at all"),
    ]:
        fake_with_secret.answers[:] = [answer, answer]  # the SDK retries a 429 or a 500 once
        assert main(extract) == 1
        said.append(capsys.readouterr())
    fake_with_secret.answers[:] = [(200, json.dumps(GOOD))]
    assert main([*extract, "--write"]) == 0
    said.append(capsys.readouterr())
    assert any(SECRET in value for value in fake_with_secret.seen[-1]["headers"].values())  # it was really sent

    # the app: a Claude draft refused on screen, and a screenshot of it
    import shutil

    from conftest import REPO_ROOT
    from test_app import SIZE, app_for, settle

    shutil.copytree(REPO_ROOT / ".rawko" / "sessions", repo / ".rawko" / "sessions")
    fake_with_secret.answers[:] = [(401, {"type": "error", "error": {"type": "authentication_error", "message": f"invalid x-api-key {SECRET}"}})] * 2
    app = app_for(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#memory-table").focus()
        await pilot.press("o")
        await settle(pilot)
        await pilot.press("x")
        for _ in range(100):
            await pilot.pause(0.05)
            if any("refused" in n.message for n in app._notifications):
                break
        shown = [n.message for n in app._notifications]
        assert any("the API key was refused" in message for message in shown), shown
        screenshot = Path(app.save_screenshot(path=str(tmp_path), filename="screen.svg")).read_text()

    for output in said:
        assert SECRET not in output.out and SECRET not in output.err
    assert not any(SECRET in message for message in shown)
    assert SECRET not in screenshot
    # every file in the store, the repository's objects (decompressed) and the cache
    for base in (repo, Path(os.environ["RAWKO_TUI_CACHE_DIR"]), tmp_path):
        for path in base.rglob("*"):
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                assert SECRET.encode() not in data, path
                if "/.git/objects/" in path.as_posix() and "/pack/" not in path.as_posix():
                    assert SECRET.encode() not in zlib.decompress(data), path
    log = git(repo, "log", "--all", "-p", "--format=%B")
    assert "extract" in log and SECRET not in log
