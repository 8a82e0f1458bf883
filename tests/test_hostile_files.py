"""A store's files cannot reach outside it or exhaust the machine (issue 22, items 13 and 11).

A clone from a stranger can commit any file of ``.rawko/`` as a symlink to
``/dev/zero`` (reading never ends), ``/dev/tty`` or a FIFO (opening or reading
blocks), or to a file outside the store; any of its folders as a symlink to
anywhere; a journal record naming ``/dev/zero``; YAML alias bombs in the
settings, saved tasks and sessions. Every command runs in its own process,
with a timeout (a hang fails instead of freezing the suite) and a cap on its
address space (a read of ``/dev/zero`` fails instead of eating the machine).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import resource
import shlex
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from conftest import FIXED_NOW, with_limits
from hostile import GOOD, OUTSIDE_SECRET, _alias_bomb, make_store
from test_history import git as _git

TASK = "fix the auth login"
MEMORY_CAP = 2 << 30  # bytes of address space a command may use: the app needs under 1.5 GB
SYMLINK = "a symlink: never followed"
NOT_REGULAR = "not a regular file"


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@contextlib.contextmanager
def _controlling_tty():
    """A pty the child takes as its controlling terminal: its /dev/tty opens, and a read waits for typing that never comes."""
    master, slave = pty.openpty()

    def setup() -> None:
        _capped()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)  # after setsid (start_new_session), before exec

    try:
        yield {"start_new_session": True, "preexec_fn": setup, "pass_fds": (slave,)}
    finally:
        os.close(master)
        os.close(slave)


def _run(root: Path, *args: str, timeout: float = 90, child: dict | None = None, script: str | None = None, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    """``rawko-tui ARGS`` (or a Python script) in its own session, capped and timed: a hang or a runaway read fails the test."""
    command = [sys.executable, "-c", script, *args] if script is not None else [sys.executable, "-m", "rawko_tui", *args]
    if child is None:
        command, set_limits = with_limits(command, address_space=(MEMORY_CAP, MEMORY_CAP))
        child = {"start_new_session": True, "preexec_fn": set_limits}
    options = child
    run = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=timeout, stdin=stdin, env={**os.environ, "TZ": "UTC"}, **options)
    assert "Traceback" not in run.stderr and "MemoryError" not in run.stderr, run.stderr[-3000:]
    return run


def _findings(run: subprocess.CompletedProcess) -> dict[str, list[tuple[str, str, str]]]:
    """lint --json's findings by path: (severity, code, message)."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    for f in json.loads(run.stdout)["findings"]:
        found.setdefault(f["path"], []).append((f["severity"], f["code"], f["message"]))
    return found


def _store(tmp_path: Path) -> Path:
    root = make_store(tmp_path / "store", [])
    (root / ".rawko" / "agents").mkdir()
    (root / ".rawko" / "agents" / "tester.md").write_text("---\nname: tester\n---\n")
    return root


def _commit(root: Path) -> None:
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "store")


# Every file of .rawko/ rawko-tui reads besides the memories, with the finding that names it.
PLACES = {
    ".rawko/agents/developer.md": "agent",
    ".rawko/rawko-tui.yaml": "config",
    ".rawko/sessions/s1/agent-memory.yaml": "refused",
    ".rawko/checks.yaml": "refused",
    ".rawko/checks/more.yaml": "refused",
    ".rawko/rawko-tui-decisions.yaml": "refused",
    ".rawko/.write-journal/0123456789abcdef.json": "refused",
}


def _place(root: Path, rel: str, kind: str, outside: Path) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)  # nobody ever writes to it: opening it for reading blocks, reading it waits for ever
    else:
        path.symlink_to({"zero": "/dev/zero", "tty": "/dev/tty", "outside": str(outside)}[kind])


@pytest.mark.parametrize("kind", ["zero", "fifo", "tty", "outside"])
def test_no_file_of_the_store_is_read_through_a_link_or_from_a_device_and_every_command_finishes(tmp_path, kind):
    outside = tmp_path / "secret.yaml"
    outside.write_text(f"---\nname: developer\nsecret: {OUTSIDE_SECRET}\ntasks: []\ndiscoveries: [{{id: x, content: {OUTSIDE_SECRET}}}]\n---\n")
    root = _store(tmp_path)
    _commit(root)
    for rel in PLACES:
        _place(root, rel, kind, outside)
    reason = NOT_REGULAR if kind == "fifo" else SYMLINK

    with _controlling_tty() if kind == "tty" else contextlib.nullcontext() as child:
        lint = _run(root, "lint", "--json", "--now", FIXED_NOW, child=child)
        preview = _run(root, "preview", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW, "--json", child=child)
        sessions = _run(root, "sessions", child=child)
        check = _run(root, "check", child=child)
        candidates = _run(root, "candidates", "--now", FIXED_NOW, child=child)
        verify = _run(root, "verify", child=child)

    found = _findings(lint)
    for rel, code in PLACES.items():
        assert any(c == code and reason in m for _, c, m in found.get(rel, [])), f"{rel}: no {code} finding saying {reason!r}: {found.get(rel)}"
    assert {"good-auth.md", "good-login.md"} <= {Path(m["path"]).name for m in json.loads(preview.stdout)["injected"]}
    assert f"s1: .rawko/sessions/s1/agent-memory.yaml: cannot be read: {reason}" in sessions.stdout
    assert f".rawko/checks.yaml: cannot be read: {reason}" in check.stderr and f".rawko/checks/more.yaml: cannot be read: {reason}" in check.stderr
    assert candidates.returncode == 0 and verify.returncode == 0, candidates.stderr + verify.stdout + verify.stderr
    for run in (lint, preview, sessions, check, candidates, verify):
        assert OUTSIDE_SECRET not in run.stdout + run.stderr


def test_journal_records_naming_devices_or_files_outside_the_store_are_never_read(tmp_path):
    root = _store(tmp_path)
    (tmp_path / "outside.md").write_text(f"{OUTSIDE_SECRET}\n" * 3)
    _commit(root)
    journal = root / ".rawko" / ".write-journal"
    journal.mkdir()
    for number, name in enumerate(["/dev/zero", "/dev/stdin", "../../../outside.md", "../../../../../../dev/zero", "good-auth.md/../../../outside.md"]):
        (journal / f"{number:016x}.json").write_text(json.dumps({"file": name, "offset": 0, "length": 10, "sha256": "0" * 64}))
    (journal / "link.json").symlink_to("/dev/zero")
    reader, writer = os.pipe()  # the commands' stdin: open, and never written to (a read of /dev/stdin would wait for ever)
    try:
        lint = _run(root, "lint", "--json", "--now", FIXED_NOW, stdin=reader)
        verify = _run(root, "verify", "--json", stdin=reader)
    finally:
        os.close(reader)
        os.close(writer)
    found = _findings(lint)
    assert not [path for path, items in found.items() if any(code == "torn-entry" for _, code, _ in items)], found
    assert any(code == "refused" and SYMLINK in message for _, code, message in found[".rawko/.write-journal/link.json"])
    assert json.loads(verify.stdout)["ok"] is True


def test_linked_folders_of_the_store_are_never_followed_and_lint_says_so(tmp_path):
    """A clone's .rawko/memories (or agents, sessions, checks, .write-journal) can be a link to anywhere: nothing is read through it."""
    elsewhere = tmp_path / "elsewhere"
    for folder in ("memories", "agents", "sessions/s1", "checks", ".write-journal"):
        (elsewhere / folder).mkdir(parents=True)
    (elsewhere / "memories" / "outside.md").write_text(GOOD["good-auth.md"].replace("Good Auth", OUTSIDE_SECRET))
    (elsewhere / "agents" / "developer.md").write_text(f"---\nname: developer\nmemory: {{maxInjected: 0}}\nsecret: {OUTSIDE_SECRET}\n---\n")
    (elsewhere / "sessions" / "s1" / "agent-memory.yaml").write_text(f"sessionId: s1\ndiscoveries: [{{id: d1, content: {OUTSIDE_SECRET}}}]\n")
    (elsewhere / "checks" / "more.yaml").write_text(f"tasks: [{{task: {OUTSIDE_SECRET}, agent: developer}}]\n")
    root = make_store(tmp_path / "store", [])
    rawko = root / ".rawko"
    for folder in ("agents", "sessions", "checks", ".write-journal"):
        (rawko / folder).symlink_to(elsewhere / folder, target_is_directory=True)
    lint = _run(root, "lint", "--json", "--now", FIXED_NOW)
    found = _findings(lint)
    for folder, severity in ((".rawko/agents", "warning"), (".rawko/sessions", "warning"), (".rawko/checks", "warning"), (".rawko/.write-journal", "error")):
        assert [(s, c) for s, c, m in found[folder] if "a symlinked folder: rawko-tui never follows it" in m] == [(severity, "store-link")], folder
    preview = json.loads(_run(root, "preview", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW, "--json").stdout)
    assert {"good-auth.md", "good-login.md"} <= {Path(m["path"]).name for m in preview["injected"]}  # maxInjected: 0 was never read
    assert "sessions: .rawko/sessions: a symlinked folder: never followed" in _run(root, "sessions").stdout
    assert ".rawko/checks: a symlinked folder: never followed" in _run(root, "check").stderr

    # memories/ itself: not walked (it could be "/"), an error
    (rawko / "memories-real").mkdir()
    os.rename(rawko / "memories", rawko / "memories-real" / "kept")
    (rawko / "memories").symlink_to(elsewhere / "memories", target_is_directory=True)
    lint = _run(root, "lint", "--json", "--now", FIXED_NOW)
    assert json.loads(lint.stdout)["files"] == 0
    assert [(s, c) for s, c, _ in _findings(lint)[".rawko/memories"]] == [("error", "store-link")]
    # and .rawko itself
    os.rename(rawko, tmp_path / "real-rawko")
    rawko.symlink_to(tmp_path / "real-rawko", target_is_directory=True)
    lint = _run(root, "lint", "--json", "--now", FIXED_NOW)
    assert {path: [(s, c) for s, c, _ in items] for path, items in _findings(lint).items()} == {".rawko": [("error", "store-link")]}
    for run in (lint, preview):
        assert OUTSIDE_SECRET not in str(run)


def test_the_watcher_never_walks_a_linked_folder(tmp_path):
    from rawko_tui.core.store.watch import store_signature

    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "deep").mkdir(parents=True)
    (elsewhere / "deep" / "x.md").write_text("x")
    root = make_store(tmp_path / "store", [])
    (root / ".rawko" / "agents").symlink_to(elsewhere, target_is_directory=True)
    os.rename(root / ".rawko" / "memories", tmp_path / "kept")
    (root / ".rawko" / "memories").symlink_to(elsewhere, target_is_directory=True)
    walked = [path for path, _, _ in store_signature(root)]
    assert walked and not [p for p in walked if "x.md" in p or str(elsewhere) in p], walked


def test_oversized_files_are_refused_with_their_size_and_limit(tmp_path):
    from rawko_tui.core.disk.safeio import MEMORY_LIMIT, SESSION_LIMIT, SETTINGS_LIMIT

    root = _store(tmp_path)
    rawko = root / ".rawko"
    (rawko / "sessions" / "big").mkdir(parents=True)
    for rel, size in ((".rawko/memories/huge.md", MEMORY_LIMIT + 1), (".rawko/rawko-tui.yaml", SETTINGS_LIMIT + 1), (".rawko/agents/developer.md", SETTINGS_LIMIT + 1), (".rawko/sessions/big/agent-memory.yaml", SESSION_LIMIT + 1)):
        with open(root / rel, "wb") as handle:
            handle.truncate(size)  # sparse: no disk is used, but every byte would be read
    found = _findings(_run(root, "lint", "--json", "--now", FIXED_NOW))
    for rel, limit in ((".rawko/memories/huge.md", MEMORY_LIMIT), (".rawko/rawko-tui.yaml", SETTINGS_LIMIT), (".rawko/agents/developer.md", SETTINGS_LIMIT), (".rawko/sessions/big/agent-memory.yaml", SESSION_LIMIT)):
        assert any(f"over the {limit:,}-byte limit" in m for _, _, m in found[rel]), (rel, found.get(rel))
    assert f"{SESSION_LIMIT + 1:,} bytes, over the {SESSION_LIMIT:,}-byte limit" in _run(root, "sessions").stdout


def test_a_memory_that_becomes_a_link_or_a_fifo_after_the_scan_is_not_read(tmp_path):
    """The scan passes links and FIFOs over; the read refuses them too (the name can change in between)."""
    script = """
import os, sys
from rawko_tui.core.store.reading import MemoryFile, read_memory_file
for name in sys.argv[1:]:
    memory = MemoryFile(location=name, rel_path=name, name=name, top_level=True)
    read_memory_file(memory)
    print(memory.error.reason)
"""
    os.mkfifo(tmp_path / "fifo.md")
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    run = _run(tmp_path, str(tmp_path / "fifo.md"), str(tmp_path / "zero.md"), script=script)
    assert run.stdout.splitlines() == [f"cannot be read: {NOT_REGULAR} (a device, FIFO or socket): never read", f"cannot be read: {SYMLINK} (it could point anywhere)"]


def test_working_tree_memories_linked_to_devices_are_never_read_by_history(tmp_path):
    """``uncommitted_rewrites`` (the list's badge), ``file_history`` and ``verify`` read the working copy of changed memories."""
    root = _store(tmp_path)
    memories = root / ".rawko" / "memories"
    (memories / "link.md").symlink_to("good-login.md")
    _commit(root)
    (memories / "good-auth.md").unlink()
    (memories / "good-auth.md").symlink_to("/dev/zero")  # a committed memory, now a link
    (memories / "link.md").unlink()
    (memories / "link.md").symlink_to("/dev/zero")  # a committed link, now pointing elsewhere
    script = """
import json, sys
from pathlib import Path
from rawko_tui.core.record.history import file_history, uncommitted_rewrites, verify
root = Path(sys.argv[1])
print(json.dumps({"rewritten": sorted(uncommitted_rewrites(root)),
                  "badge": file_history(root, ".rawko/memories/good-auth.md", [0]).badge,
                  "violations": sorted(v.path for v in verify(root).violations)}))
"""
    report = json.loads(_run(root, str(root), script=script).stdout)
    assert report["rewritten"] == [".rawko/memories/good-auth.md", ".rawko/memories/link.md"]
    assert report["badge"] == "uncommitted-rewrite"
    assert report["violations"] == [".rawko/memories/good-auth.md", ".rawko/memories/link.md"]


# --------------------------------------------------------------------------
# YAML alias bombs in rawko-tui's own files
# --------------------------------------------------------------------------

BOMB = _alias_bomb().split("---\n")[1]  # nine anchors, each ten aliases of the one before: 10^9 nodes
REFUSED = "aliases expand to more than 100,000 nodes (an alias bomb); refused"


def test_the_settings_loader_refuses_alias_bombs_before_anything_walks_them():
    from rawko_tui.core.js.jsyaml import YamlError, load_with_ruamel

    def refusal(text: str) -> str:
        with pytest.raises(YamlError) as caught:
            load_with_ruamel(text)
        return caught.value.message

    assert refusal(BOMB + "now: *i\n") == REFUSED
    # libyaml cannot parse this one (a NEL it is not shown as a stand-in): it is counted on ruamel's own events
    assert refusal("odd: \x85b\nstand_in: \U000f0085\n" + BOMB + "now: *i\n") == REFUSED
    assert refusal("now: &a [1, *a]\n") == "recursive alias: the document refers to itself"
    chain = "a0: &a0 [x]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 150))  # 150 levels, one per line
    assert refusal(chain).startswith("nested more than 100 levels deep")
    # aliases used as intended, and a large document without any, still load
    assert load_with_ruamel("base: &b {x: 1}\nuse: [*b, *b]\n") == {"base": {"x": 1}, "use": [{"x": 1}, {"x": 1}]}
    big = "tasks:\n" + "".join(f"  - {{task: t{i}, agent: a}}\n" for i in range(40_000)) + "x: &q 1\ny: *q\n"
    assert len(load_with_ruamel(big)["tasks"]) == 40_000


def test_alias_bombs_in_settings_saved_tasks_and_sessions_are_one_finding_each(tmp_path):
    root = _store(tmp_path)
    rawko = root / ".rawko"
    (rawko / "rawko-tui.yaml").write_text(BOMB + "now: *i\narbiter: *f\n")  # each is walked: a message shows it
    (rawko / "checks.yaml").write_text(BOMB + "tasks:\n  - {task: auth, agent: developer, expect: {inject: *i}}\n")
    (rawko / "sessions" / "s1").mkdir(parents=True)
    (rawko / "sessions" / "s1" / "agent-memory.yaml").write_text(BOMB + "discoveries:\n  - {id: d1, content: *i}\n")
    (rawko / "rawko-tui-decisions.yaml").write_text(BOMB + "records: *i\n")

    found = _findings(_run(root, "lint", "--json", "--now", FIXED_NOW))
    assert [m for _, c, m in found[".rawko/rawko-tui.yaml"] if c == "config"] == [f"rawko-tui.yaml line 6: {REFUSED}; the settings are ignored"]
    check = _run(root, "check")
    assert f".rawko/checks.yaml:6: {REFUSED}" in check.stderr
    assert f"s1: .rawko/sessions/s1/agent-memory.yaml:6: {REFUSED}" in _run(root, "sessions").stdout
    assert _run(root, "candidates", "--now", FIXED_NOW).returncode == 0
    preview = json.loads(_run(root, "preview", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW, "--json").stdout)
    assert {"good-auth.md", "good-login.md"} <= {Path(m["path"]).name for m in preview["injected"]}


_APP = f"""
import asyncio, json, sys
from pathlib import Path
from rawko_tui.tui.app import create_app
from textual.widgets import TextArea

async def main():
    app = create_app(Path(sys.argv[1]), agent="developer", now={FIXED_NOW!r}, poll_seconds=None)
    async with app.run_test(size=(150, 46)) as pilot:
        await app.settled()
        area = app.query_one("#task", TextArea)
        area.focus()
        for key in {TASK!r}:
            await pilot.press("space" if key == " " else key)
        await pilot.pause()
        await app.settled()
        while app.findings is None:
            await pilot.pause(0.05)
        await pilot.pause()
        print(json.dumps({{"running": app.is_running, "task": area.text, "injected": [c.file.name for c in app.preview.injected],
                          "notes": [n.message for n in app._notifications]}}))

asyncio.run(main())
"""


@pytest.mark.parametrize("hostile", ["alias bomb", "refused files"])
def test_the_app_stays_responsive_and_says_what_it_refused(tmp_path, hostile):
    """An alias bomb in rawko-tui.yaml (the profile was resolved, and its bad value shown, on every ranking: each key
    waited for it); an agent definition that is a FIFO and a linked sessions folder. The app types, ranks, and says so."""
    root = _store(tmp_path)
    rawko = root / ".rawko"
    if hostile == "alias bomb":
        (rawko / "rawko-tui.yaml").write_text(BOMB + "arbiter: *i\n")
        expected = [f".rawko/rawko-tui.yaml: rawko-tui.yaml line 6: {REFUSED}; the settings are ignored"]
    else:
        os.mkfifo(rawko / "agents" / "developer.md")
        (rawko / "sessions").symlink_to(tmp_path, target_is_directory=True)
        expected = [f".rawko/agents/developer.md: cannot be read: {NOT_REGULAR} (a device, FIFO or socket): never read: its memory settings cannot be read, "
                    "so rawko-tui previews it with the spec's defaults (5 memories, minimum importance low) (and 1 more; rawko-tui lint lists them)"]  # fmt: skip
    run = _run(root, str(root), script=_APP, timeout=180)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["running"] and report["task"] == TASK
    assert {"good-auth.md", "good-login.md"} <= set(report["injected"])
    assert report["notes"] == expected


def test_saving_a_task_refuses_a_checks_file_that_is_a_link_or_a_bomb(tmp_path):
    from rawko_tui.core.curation.checks import saved_task_write
    from rawko_tui.core.record.writer import WriteError

    root = _store(tmp_path)
    checks = root / ".rawko" / "checks.yaml"
    checks.write_text(BOMB + "tasks: *i\n")
    with pytest.raises(WriteError, match=re.escape(f".rawko/checks.yaml line 6: {REFUSED}; nothing was written")):
        saved_task_write(root, TASK, "developer", FIXED_NOW, [], "a task")
    checks.unlink()
    checks.symlink_to(tmp_path / "elsewhere.yaml")
    (tmp_path / "elsewhere.yaml").write_text(f"# {OUTSIDE_SECRET}\ntasks: []\n")  # the confirmation would show it
    with pytest.raises(WriteError, match=re.escape(f".rawko/checks.yaml: cannot be read: {SYMLINK}")):
        saved_task_write(root, TASK, "developer", FIXED_NOW, [], "a task")


async def test_the_app_says_why_it_cannot_save_a_task_and_keeps_running(tmp_path):
    from test_app import SIZE, app_for, settle

    from rawko_tui.tui.screens.confirm_write import ConfirmWrite

    root = _store(tmp_path)
    _commit(root)
    (tmp_path / "elsewhere.yaml").write_text(f"# {OUTSIDE_SECRET}\ntasks: []\n")
    (root / ".rawko" / "checks.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    app = app_for(root, task="auth", agent="developer")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.action_save_task()
        await settle(pilot)
        assert app.is_running and not isinstance(app.screen, ConfirmWrite)
        said = [n.message for n in app._notifications if "nothing was written" in n.message]
        assert said == [f".rawko/checks.yaml: cannot be read: {SYMLINK} (it could point anywhere); nothing was written"], said
        assert not [n for n in app._notifications if OUTSIDE_SECRET in n.message]


# --------------------------------------------------------------------------
# A person's own files (--body-file, extract --from): a pipe is fine, an endless device is not
# --------------------------------------------------------------------------


def test_a_body_file_may_be_a_pipe_but_never_an_endless_device(tmp_path):
    root = _store(tmp_path)
    _commit(root)
    new = ("new", "--title", "Piped body", "--when", "auth", "--importance", "low", "--by", "me", "--dry-run")
    zero = _run(root, *new, "--body-file", "/dev/zero")
    assert zero.returncode == 2 and "--body-file: cannot read /dev/zero: more than the 16,777,216-byte limit" in zero.stderr
    extract = _run(root, "extract", "--from", "/dev/zero", "--agent", "developer", "--task", "t")
    assert extract.returncode == 2 and "--from: cannot read /dev/zero: more than the 16,777,216-byte limit" in extract.stderr
    # a pipe (as `--body-file <(make-notes)` gives) is read to its end
    command, set_limits = with_limits(
        ["bash", "-c", f"{shlex.join([sys.executable, '-m', 'rawko_tui', *new])} --body-file <(printf 'Body from a pipe.\\n')"],
        address_space=(MEMORY_CAP, MEMORY_CAP),
    )
    piped = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=90, preexec_fn=set_limits)
    assert piped.returncode == 0 and "Body from a pipe." in piped.stdout, piped.stderr


def test_a_journal_record_nested_past_the_json_parsers_depth_is_ignored_not_a_traceback(tmp_path):
    """A record of 60,000 nested arrays (untracked: the last commit does not hold it) made the JSON parser recurse out."""
    root = _store(tmp_path)
    _commit(root)
    journal = root / ".rawko" / ".write-journal"
    journal.mkdir()
    (journal / "0123456789abcdef.json").write_text("[" * 60_000 + "]" * 60_000)
    lint = _run(root, "lint", "--json", "--now", FIXED_NOW)
    assert any(f["code"] == "journal-ignored" and "cannot be read" in f["message"] for f in json.loads(lint.stdout)["findings"])
    _run(root, "verify")
    name = next(p.name for p in (root / ".rawko" / "memories").iterdir() if p.suffix == ".md")
    _run(root, "append", name, "--body", "A note.", "--dry-run")


def _memory_text(body: str) -> str:
    return f"---\ntitle: Deploy notes\nwhenToUse: [deploy]\nimportance: medium\n---\n{body}\n"


def test_a_folder_swapped_for_a_link_after_the_scan_is_caught_at_the_open(tmp_path):
    """The scan found ``team/`` a real folder; by the read it is a link to a folder outside the store holding a file
    of the same name. The descriptor's real path, not the name, decides: nothing outside is read."""
    from rawko_tui.core.store.reading import read_memory_file
    from rawko_tui.core.store.loading import load_store

    root = tmp_path / "repo"
    team = root / ".rawko" / "memories" / "team"
    team.mkdir(parents=True)
    (team / "deploy.md").write_text(_memory_text("inside"))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "deploy.md").write_text(_memory_text(OUTSIDE_SECRET))
    store = load_store(root)
    (memory,) = [f for f in store.files if f.name == "team/deploy.md"]
    assert memory.error is None and "inside" in memory.text

    team.rename(root / "kept")
    team.symlink_to(outside)  # the swap, after the scan
    real_dir = os.path.realpath(root / ".rawko" / "memories")
    memory.text, memory.error = "", None
    read_memory_file(memory, real_dir)
    assert OUTSIDE_SECRET not in memory.text
    assert memory.error is not None and "a folder that became a link as it was read" in memory.error.reason
    # read through the store's guarded reader (settings, saved tasks, sessions) the same way
    from rawko_tui.core.disk.safeio import UnsafeFile, read_regular

    with pytest.raises(UnsafeFile, match="became a link"):
        read_regular(team / "deploy.md", 1 << 20, os.path.join(real_dir, "team", "deploy.md"))
    assert read_regular(root / "kept" / "deploy.md", 1 << 20, os.path.join(os.path.realpath(root), "kept", "deploy.md")).endswith(b"inside\n")


def test_a_folder_flipping_between_real_and_a_link_never_lets_outside_bytes_in(tmp_path):
    """A real race: another process swaps ``team/`` between a real folder and a link to outside as fast as it can
    while rawko-tui loads the store over and over (no cache). Whatever the interleaving, no load holds the
    outside file's bytes; each load has the inside memory, or says why it did not read it."""
    root = tmp_path / "repo"
    memories = root / ".rawko" / "memories"
    (memories / "team-real").mkdir(parents=True)
    (memories / "team-real" / "deploy.md").write_text(_memory_text("inside"))
    (memories / "team").symlink_to("team-real")  # replaced at once by the flipper
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "deploy.md").write_text(_memory_text(OUTSIDE_SECRET))
    # renameat2(RENAME_EXCHANGE) swaps the folder and the link atomically: team/ is always one or the other
    flipper = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import ctypes, os, sys\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "m = sys.argv[1]\n"
            "os.unlink(m + '/team'); os.symlink(sys.argv[2], m + '/team-link'); os.rename(m + '/team-real', m + '/team')\n"
            "a, b = (m + '/team').encode(), (m + '/team-link').encode()\n"
            "if libc.renameat2(-100, a, -100, b, 2) != 0:\n"
            "    print('no renameat2', flush=True); sys.exit()\n"
            "print('flipping', flush=True)\n"
            "while True:\n"
            "    libc.renameat2(-100, a, -100, b, 2)\n",
            str(memories),
            str(outside),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    if flipper.stdout.readline() != "flipping\n":
        flipper.wait()
        pytest.skip("this system has no renameat2(RENAME_EXCHANGE) to swap a folder and a link atomically")
    script = """
import sys
from rawko_tui.core.store.loading import load_store
leaks = reads = 0
for _ in range(3000):
    store = load_store(sys.argv[1])
    for f in store.files:
        leaks += "OUTSIDE-THE-STORE" in (f.text or "")
        reads += f.error is None and f.name == "team/deploy.md"
print(leaks, reads)
"""
    try:
        run = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True, text=True, timeout=600, env={**os.environ, "RAWKO_TUI_CACHE": "0"})
    finally:
        flipper.kill()
        flipper.wait()
    assert run.returncode == 0, run.stderr
    leaks, reads = map(int, run.stdout.split())
    assert leaks == 0, f"{leaks} loads read the outside file ({reads} read the inside one)"


def test_a_document_walked_for_its_nesting_is_walked_once_and_only_the_same_text_gets_its_answer(monkeypatch):
    """Every dialect reads a frontmatter, so the same long document comes to the nesting walk again: it is
    walked once, and a second reading is refused in the same words and line. A document of the same length
    that differs is walked for itself (its answer is its own), and the one after it again."""
    from rawko_tui.core.js import jsyaml
    from rawko_tui.core.js.jsyaml import YamlError, load_yaml_fully

    walked = []
    walk = jsyaml._walk_for_nesting
    monkeypatch.setattr(jsyaml, "_walk_for_nesting", lambda text: (walked.append(len(text)), walk(text))[1])
    monkeypatch.setattr(jsyaml, "_last_nesting_check", None)
    deep = "a: " + "[" * 160 + "]" * 160 + "\n"
    flat = "a: [" + "[]," * 101 + "1]\n"  # as many brackets as a deep one has (so it is walked), two levels deep
    flat += "# " + "x" * (len(deep) - len(flat) - 3) + "\n"  # the deep one's length: only their content tells them apart
    assert len(flat) == len(deep)

    def refusal(text: str) -> tuple[str, int | None] | None:
        try:
            load_yaml_fully(text)
        except YamlError as exc:
            return exc.message, exc.line
        return None

    first = refusal(deep)
    assert first is not None and first[0].startswith("nested more than 100 levels deep")
    assert refusal(deep) == first and len(walked) == 1  # kept: the same words and line, no second walk
    assert refusal(flat) is None and len(walked) == 2  # same length, other text: walked, and not refused
    assert refusal(deep) == first and len(walked) == 3  # the last one walked is the flat one now
