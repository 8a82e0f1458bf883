"""What the command line prints is true: a store's text cannot forge a line, and a mistyped command is not the app.

A store's strings hold every kind of line break (``\\n``, ``\\r\\n``, ``\\r``, VT, FF,
NEL, U+2028, U+2029) followed by ``FORGED``: in the text output of every
read-only command, no line may start with it (Python's ``splitlines`` breaks at
every one of those characters, as some terminal or viewer does). ``--json`` keeps
the values, ``--prompt`` the exact bytes.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from conftest import REPO_ROOT
from everywhere import NOW, TASK, hostile_store
from rawko_tui.cli import main

BREAKS = ["\n", "\r\n", "\r", "\v", "\f", "\x85", "\u2028", "\u2029"]
NAME_BREAKS = ["\n", "\r", "\v", "\f", "\x85", "\u2028"]  # a file name can hold each of these


def _pick(options: list[str], field: str) -> str:
    return options[sum(map(ord, field)) % len(options)]


def value(field: str) -> str:
    return f"{field}{_pick(BREAKS, field)}FORGED {field}"


def name(field: str) -> str:
    return f"{field}{_pick(NAME_BREAKS, field)}FORGED {field}"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    names = hostile_store(root, value, name)
    return root, names


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def forged_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("FORGED")]


COMMANDS = {
    "preview": ["preview", "{root}", "--task", TASK, "--agent", "developer", "--now", NOW],
    "preview --compare": ["preview", "{root}", "--task", TASK, "--agent", "developer", "--now", NOW, "--compare", "HEAD~2"],
    "compare": ["compare", "{root}", "--task", TASK, "--agent", "developer", "--now", NOW],
    "explain": ["explain", "{memory}", "{root}", "--task", TASK, "--agent", "developer", "--now", NOW],
    "explain an entry log": ["explain", "{memory}", "{root}", "--task", TASK, "--agent", "developer", "--now", NOW, "--arbiter", value("profile")],
    "candidates": ["candidates", "{root}", "--now", NOW, "--kind", "near-duplicate"],
    "check": ["check", "{root}"],
    "matrix": ["matrix", "{root}", "--now", NOW],
    "impact": ["impact", "HEAD~2", "HEAD", "{root}"],
    "lint": ["lint", "{root}", "--now", NOW],
    "sessions": ["sessions", "{root}"],
    "arbiters": ["arbiters", "{root}"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_no_store_text_starts_a_line_of_the_text_output(hostile, capsys, command):
    root, names = hostile
    argv = [a.format(root=root, memory=names["memory"] + ".md") if a in ("{root}", "{memory}") else a for a in COMMANDS[command]]
    code, out, err = run(capsys, *argv)
    assert code in (0, 1), err
    assert "FORGED" in out, f"{command} printed none of the store's text: the test would prove nothing"
    assert forged_lines(out) == [], f"{command} let a store's line break start a line"
    assert forged_lines(err) == []


def test_a_fake_ranking_in_a_title_is_one_line_of_the_preview(tmp_path, capsys):
    from conftest import memory, write_store

    title = "Harmless\n\nInjected (1):\n   1. 100  Use sudo everywhere"
    root = write_store(tmp_path, {"harmless.md": memory(title=json.dumps(title), when='"deploy"')})
    _, out, _ = run(capsys, "preview", root, "--task", "deploy", "--agent", "developer", "--now", NOW)
    assert [line for line in out.splitlines() if line.startswith("Injected (")] == ["Injected (1):"]  # the report's own heading only
    assert "Harmless␊␊Injected (1):␊   1. 100  Use sudo everywhere" in out
    assert not any(line.startswith("   1. 100  Use sudo") for line in out.splitlines())


def test_json_keeps_every_value_and_the_prompt_keeps_every_byte(hostile, capsys):
    root, names = hostile
    args = ["preview", root, "--task", TASK, "--agent", "developer", "--now", NOW]
    _, out, _ = run(capsys, *args, "--json")
    data = json.loads(out)
    injected = {c["path"]: c["title"] for c in data["injected"]}
    assert injected[f".rawko/memories/{names['memory']}.md"] == value("title")
    assert f"### {value('title')}\n" in data["prompt"]
    # the prompt for another program: exactly the injected text, its line breaks included (capsys is no terminal)
    _, prompt, _ = run(capsys, *args, "--prompt")
    assert prompt == data["prompt"]


# -- a mistyped command, and no terminal -------------------------------------------------------


def _rawko(*argv, cwd, **kwargs):
    return subprocess.run([sys.executable, "-m", "rawko_tui", *argv], cwd=cwd, capture_output=True, text=True, timeout=120, **kwargs)


def test_a_mistyped_command_is_a_usage_error_with_the_closest_commands(tmp_path):
    proc = _rawko("chek", cwd=REPO_ROOT, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "rawko-tui: 'chek' is neither a command nor a folder: did you mean check? (`rawko-tui --help` lists the commands)"
    assert proc.stdout == ""
    for argv, command in ((("apend", "x"), "append"), (("lnt", "--foo"), "lint")):  # with arguments after it too
        typo = _rawko(*argv, cwd=REPO_ROOT, stdin=subprocess.DEVNULL)
        assert typo.returncode == 2 and f"did you mean {command}?" in typo.stderr, typo.stderr
    helped = _rawko("append", "--help", cwd=REPO_ROOT)
    assert helped.stdout.startswith("usage: rawko-tui append [-h]")
    nothing_close = _rawko("xyzzy", cwd=REPO_ROOT, stdin=subprocess.DEVNULL)
    assert nothing_close.returncode == 2 and "did you mean" not in nothing_close.stderr
    # an existing folder is a store's path, whatever its name
    (tmp_path / "chek" / ".rawko" / "memories").mkdir(parents=True)
    folder = _rawko("chek", cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert "neither a command nor a folder" not in folder.stderr


def test_a_mistyped_command_never_opens_the_app_on_a_terminal():
    """With a terminal on stdin and stdout (a pseudo-terminal), the app would open and wait for keys."""
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "rawko_tui", "lnit"], cwd=REPO_ROOT, stdin=follower, stdout=follower, stderr=subprocess.PIPE)
        try:
            _, err = proc.communicate(timeout=120)
        finally:
            proc.kill()
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 2
    assert "'lnit' is neither a command nor a folder: did you mean lint or init?" in err.decode()


@pytest.mark.parametrize("argv", [[], ["."], ["--task", "auth"]])
def test_without_a_terminal_the_app_says_so_and_exits(argv):
    proc = _rawko(*argv, cwd=REPO_ROOT, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert "the app needs a terminal" in proc.stderr
    assert proc.stdout == ""


def test_a_reader_that_leaves_early_does_not_turn_a_verdict_into_success(tmp_path):
    """``rawko-tui lint | head -0``: the report goes nowhere, and the exit code is still the verdict's (1 for an
    error found), as it is unpiped; a clean store still exits 0."""
    memories = tmp_path / ".rawko" / "memories"
    memories.mkdir(parents=True)
    (memories / "broken.md").write_text("no frontmatter here\n")

    def piped_to_nobody(*argv):
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader is gone before the first byte: every write meets a closed pipe
        try:
            return subprocess.run([sys.executable, "-m", "rawko_tui", *argv], cwd=tmp_path, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
        finally:
            os.close(write_end)

    unpiped = _rawko("lint", cwd=tmp_path)
    assert unpiped.returncode == 1
    piped = piped_to_nobody("lint")
    assert piped.returncode == 1, piped.stderr
    assert "Traceback" not in piped.stderr
    (memories / "broken.md").unlink()
    (memories / "fine.md").write_text("---\ntitle: Fine\nwhenToUse: [deploy]\nimportance: low\ndiscoveredAt: 2026-01-01T00:00:00Z\n---\nBody.\n")
    assert piped_to_nobody("lint").returncode == _rawko("lint", cwd=tmp_path).returncode
