"""A write killed before its commit, and journal records a repository brings along (issue 22's attack: faults 2 and 3).

- A write's journal record lives until its commit is made: a process killed
  after its bytes landed (after the first of two files, in a commit hook,
  before ``update-ref``) leaves rawko-tui's own uncommitted entry, which lint,
  verify, ``torn`` and the app report as such, which is never committed as
  another writer's bytes, and which is committed as rawko-tui's own or taken
  back.
- Records the last commit holds, or that describe committed bytes, came with
  the history of a clone: they are ignored (and said), and never block a write.

Real git repositories and clones, real processes killed with SIGKILL at a
point made deterministic by the process itself (never a timing race), real
commit hooks, and the app driven through Textual's Pilot.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import memory
from rawko_tui.cli import main
from rawko_tui.core.lint.linter import lint_store
from rawko_tui.core.store.loading import load_store
from test_history import TESTER, commit_all, git
from test_record import CI, _identity, append, committed, head, make_repo, mem, repo  # noqa: F401 - fixtures

FILES = {"m.md": memory(title="M", body="Body of m. " * 20), "n.md": memory(title="N", body="Body of n. " * 20)}

KILLED_BEFORE_COMMIT = r"""
import os, signal, sys
from rawko_tui.core.record import writer
from rawko_tui.cli import main

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

point = sys.argv[1]
if point == "after-the-first-file":
    real = writer._apply_one
    def apply_then_die(*args, **kwargs):
        real(*args, **kwargs)
        die()
    writer._apply_one = apply_then_die
elif point == "before-update-ref":
    writer._record_commit = die
sys.exit(main(sys.argv[2:]))
"""


def kill_before_commit(root: Path, point: str, *command: str) -> None:
    """A real rawko-tui command in its own process, killed at ``point`` (``in-the-pre-commit-hook``: by a real hook)."""
    hook = root / ".git" / "hooks" / "pre-commit"
    if point == "in-the-pre-commit-hook":
        hook.write_text("#!/bin/sh\nkill -9 $PPID\nexit 1\n")  # the hook's parent is the writer itself
        hook.chmod(0o755)
    command = command if str(root) in command else (*command, str(root))
    proc = subprocess.run([sys.executable, "-c", KILLED_BEFORE_COMMIT, point, *command], env={**os.environ, **TESTER}, capture_output=True, timeout=120)
    hook.unlink(missing_ok=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()


def torn_findings(root: Path) -> list:
    return [f for f in lint_store(load_store(root)) if f.code == "torn-entry"]


OWN = "an interrupted write: rawko-tui's own entry of"
NEVER_COMMITTED = "but the commit it was written for was never made"


@pytest.mark.parametrize("point", ["after-the-first-file", "in-the-pre-commit-hook", "before-update-ref"])
def test_a_write_killed_before_its_commit_is_rawko_tuis_own_until_committed_and_never_another_writers(tmp_path, capsys, point):
    root = make_repo(tmp_path, files=FILES)
    before = {name: mem(root, name).read_bytes() for name in FILES}
    sha = head(root)
    kill_before_commit(root, point, "link", "m.md", "n.md")
    written = [name for name in FILES if mem(root, name).read_bytes() != before[name]]
    assert written == (["m.md"] if point == "after-the-first-file" else ["m.md", "n.md"]) and head(root) == sha
    # reported, as what it is, by verify, lint and torn
    capsys.readouterr()
    assert main(["verify", str(root)]) == 1
    out = capsys.readouterr().out
    for name in written:
        assert f".rawko/memories/{name}: {OWN}" in out and NEVER_COMMITTED in out
    assert sorted(f.path for f in torn_findings(root)) == [f".rawko/memories/{name}" for name in written]
    assert main(["torn", "m.md", str(root)]) == 1
    assert "`rawko-tui torn m.md --commit` commits them as rawko-tui's own (shown first)" in capsys.readouterr().out
    # the next write is refused until it is resolved: its bytes are never committed as another writer's
    assert main(["link", "m.md", "n.md", str(root), "--include-uncommitted"]) == 1
    err = capsys.readouterr().err
    assert f"m.md holds {OWN}" in err and "nothing was written" in err
    assert head(root) == sha
    # committed as rawko-tui's own, file by file: exactly the entry, no trailer naming another writer
    for name in written:
        assert main(["torn", name, str(root), "--commit"]) == 0
        out = capsys.readouterr().out
        assert f"--- committed from .rawko/memories/{name}, line" in out and "Committed .rawko/memories/" in out
        assert committed(root, f".rawko/memories/{name}") == mem(root, name).read_bytes()
    log = git(root, "log", "--format=%B", f"{sha}..HEAD")
    assert "Not-written-by-rawko-tui" not in log and log.count("Action: commit-interrupted") == len(written)
    assert mem(root, "m.md").read_text().count("relatedMemories") == 1
    assert not torn_findings(root) and main(["verify", str(root)]) == 0 and git(root, "status", "--porcelain") == ""
    assert main(["append", "m.md", str(root), "--body", "the next entry"]) == 0


def test_a_write_killed_before_its_commit_can_be_taken_back_and_written_again(tmp_path, capsys):
    root = make_repo(tmp_path, files=FILES)
    before = mem(root, "m.md").read_bytes()
    kill_before_commit(root, "after-the-first-file", "link", "m.md", "n.md")
    assert main(["torn", "m.md", str(root), "--take-back"]) == 0
    assert "rawko-tui's entry, never committed) ---" in capsys.readouterr().out
    assert mem(root, "m.md").read_bytes() == before and not torn_findings(root)
    assert main(["link", "m.md", "n.md", str(root)]) == 0
    assert "Not-written-by-rawko-tui" not in git(root, "log", "-1", "--format=%B")
    assert mem(root, "m.md").read_text().count("relatedMemories") == 1 and git(root, "status", "--porcelain") == ""


def test_a_new_memory_killed_before_its_commit_is_reported_and_taken_back_whole(tmp_path, capsys):
    root = make_repo(tmp_path, files=FILES)
    kill_before_commit(root, "before-update-ref", "new", "--title", "Deploy keys", "--when", "deploy", "--importance", "high", "--by", "Ada", "--body", "In the vault.")
    created = mem(root, "deploy-keys.md")
    assert created.exists() and [f.path for f in torn_findings(root)] == [".rawko/memories/deploy-keys.md"]
    assert main(["torn", "deploy-keys.md", str(root), "--acknowledge"]) == 1  # rawko-tui's own entry is never left to pass for another writer's
    assert "commit it as rawko-tui's (--commit) or take it back (--take-back)" in capsys.readouterr().err
    assert main(["torn", "deploy-keys.md", str(root), "--take-back"]) == 0
    assert "the file rawko-tui was creating, removed whole" in capsys.readouterr().out
    assert not created.exists() and not torn_findings(root) and git(root, "status", "--porcelain") == ""


def test_a_commit_hook_that_reads_the_store_sees_no_interrupted_write_in_rawko_tuis_own_write(tmp_path, capsys):
    """The records of a write under way (its hooks running) are not reported: only a stopped write's are."""
    root = make_repo(tmp_path, files=FILES)
    hook = root / ".git" / "hooks" / "pre-commit"
    rawko = f'"{sys.executable}" -m rawko_tui'
    hook.write_text(f"#!/bin/sh\nunset GIT_INDEX_FILE\n{rawko} verify . >&2 || exit 1\n{rawko} torn m.md . >&2 || exit 1\n")
    hook.chmod(0o755)
    assert main(["append", "m.md", str(root), "--body", "read by the hook"]) == 0, capsys.readouterr().err
    assert b"read by the hook" in committed(root, ".rawko/memories/m.md")


async def test_the_app_commits_rawko_tuis_own_entry_left_uncommitted(tmp_path):
    from test_app import SIZE, app_for, settle
    from test_record import open_append

    from rawko_tui.tui.screens.confirm_write import ConfirmWrite
    from rawko_tui.tui.screens.torn_write import TornWriteScreen

    root = make_repo(tmp_path, files=FILES)
    sha = head(root)
    kill_before_commit(root, "after-the-first-file", "link", "m.md", "n.md")
    app = app_for(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_append(pilot, "m.md")
        screen = app.screen
        assert isinstance(screen, TornWriteScreen)
        what = str(screen.query_one("#torn-what").render())
        assert f"m.md holds {OWN}" in what and "c commits these" in what
        assert "relatedMemories" in str(screen.query_one("#torn-bytes").render())
        await pilot.press("k")  # not offered: acknowledged, rawko-tui's entry would later pass for another writer's
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmWrite)
        shown = str(app.screen.query_one("#confirm-bytes").render())
        assert "rawko-tui's own entry, already in the file" in shown and "relatedMemories" in shown and "⚠" not in shown
        await pilot.press("y")
        await settle(pilot)
        await settle(pilot)
    assert head(root) != sha and committed(root, ".rawko/memories/m.md") == mem(root, "m.md").read_bytes()
    assert "Not-written-by-rawko-tui" not in git(root, "log", "-1", "--format=%B") and not torn_findings(root)


# --------------------------------------------------------------------------
# 3. Records a repository brings along are no evidence of a write here
# --------------------------------------------------------------------------

NAME = "ci-workflow-yaml-layout.md"


def test_a_committed_journal_record_makes_no_clone_fail_verify_or_refuse_a_write(tmp_path, capsys):
    origin = make_repo(tmp_path)
    journal = origin / ".rawko" / ".write-journal"
    journal.mkdir()
    (journal / "1.json").write_text(json.dumps({"file": NAME, "offset": 10, "length": 999999, "sha256": "00"}))
    data = b"---\nimportance: high\n---\n\nforged\n"  # this version's shape, naming bytes a clone will not have
    header = {"v": 3, "path": f".rawko/memories/{NAME}", "offset": 9999, "length": len(data), "sha256": "0" * 64, "pid": 1, "commit": True}
    (journal / "2.write").write_bytes(json.dumps(header).encode() + b"\n" + data)
    commit_all(origin, "a file in the store")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    capsys.readouterr()
    assert main(["verify", str(clone)]) == 0, capsys.readouterr().out
    findings = lint_store(load_store(clone))
    assert not [f for f in findings if f.code == "torn-entry"]
    ignored = {f.path: f.message for f in findings if f.code == "journal-ignored"}
    assert set(ignored) == {".rawko/.write-journal/1.json", ".rawko/.write-journal/2.write"}
    assert all("the last commit holds: it came with the repository's history" in m for m in ignored.values())
    assert main(["append", NAME, str(clone), "--body", "a note"]) == 0
    assert b"a note" in committed(clone, f".rawko/memories/{NAME}")
    assert not list((clone / ".git" / "rawko-tui-journal").glob("*.ack"))  # nothing needed acknowledging


def test_a_record_describing_committed_bytes_is_ignored_even_untracked(repo, capsys):
    journal = repo / ".rawko" / ".write-journal"
    journal.mkdir()
    (journal / "old.json").write_text(json.dumps({"file": NAME, "offset": 10, "length": 999999, "sha256": "00"}))  # not committed
    capsys.readouterr()
    assert main(["verify", str(repo)]) == 0
    ignored = [f for f in lint_store(load_store(repo)) if f.code == "journal-ignored"]
    assert [f.path for f in ignored] == [".rawko/.write-journal/old.json"] and "bytes the last commit holds" in ignored[0].message
    assert main(["append", NAME, str(repo), "--body", "a note"]) == 0


def test_an_untracked_record_claiming_an_agents_bytes_for_rawko_tui_is_not_believed(repo, capsys):
    """An agent appends, then drops a record in the store's journal folder saying rawko-tui wrote it and meant to commit it."""
    path = mem(repo, NAME)
    agent = b"\n\n---\nimportance: high\n---\n\nAn agent's note.\n"
    offset = len(path.read_bytes())
    with open(path, "ab") as out:
        out.write(agent)
    journal = repo / ".rawko" / ".write-journal"
    journal.mkdir()
    header = {"v": 3, "path": f".rawko/memories/{NAME}", "offset": offset, "length": len(agent), "sha256": hashlib.sha256(agent).hexdigest(), "pid": 1, "commit": True}
    (journal / "1.write").write_bytes(json.dumps(header).encode() + b"\n" + agent)
    assert not torn_findings(repo)
    assert main(["torn", NAME, str(repo), "--commit"]) == 0 and f"{NAME} holds no interrupted write" in capsys.readouterr().out
    assert main(["append", NAME, str(repo), "--body", "a note", "--include-uncommitted"]) == 0
    assert "rawko-tui did not write them" in capsys.readouterr().out  # still another writer's bytes, and said so
    assert f"Not-written-by-rawko-tui: .rawko/memories/{NAME}" in git(repo, "log", "-1", "--format=%B")


def test_an_entry_written_with_no_commit_stays_rawko_tuis_own_when_a_later_write_commits_it(tmp_path, capsys):
    root = make_repo(tmp_path, files=FILES)
    assert main(["append", "m.md", str(root), "--body", "written now, committed later", "--no-commit"]) == 0
    assert not torn_findings(root) and main(["verify", str(root)]) == 0  # the person's choice, not a problem
    capsys.readouterr()
    assert main(["append", "m.md", str(root), "--body", "the next entry"]) == 1  # not this write's bytes: committed only when included
    note = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("--- .rawko/memories/m.md holds"))
    assert "are rawko-tui's own entry, written with --no-commit and not committed since" in note and "another writer" not in note
    assert main(["append", "m.md", str(root), "--body", "the next entry", "--include-uncommitted"]) == 0
    message = git(root, "log", "-1", "--format=%B")
    assert "Not-written-by-rawko-tui" not in message and "are rawko-tui's own entry, written with --no-commit" in message
    from rawko_tui.core.record.history import file_history

    offsets = load_store(root).file("m.md").entry_offsets()
    assert file_history(root, ".rawko/memories/m.md", offsets).entry_not_written_by_committer == [False, False, False]
    assert not list((root / ".git" / "rawko-tui-journal").glob("*.write"))  # committed: the records are gone


def test_an_interrupted_write_after_another_writers_bytes_commits_them_only_when_included_and_names_only_theirs(tmp_path, capsys):
    root = make_repo(tmp_path, files=FILES)
    path = mem(root, "m.md")
    agent = "\n\n---\nimportance: high\n---\n\nAn agent's note.\n"
    with open(path, "a") as out:
        out.write(agent)
    committed_size = len(committed(root, ".rawko/memories/m.md"))
    kill_before_commit(root, "before-update-ref", "append", "m.md", str(root), "--body", "ours", "--include-uncommitted")
    capsys.readouterr()
    assert main(["torn", "m.md", str(root), "--commit"]) == 1
    out = capsys.readouterr().out
    assert f"holds {len(agent)} bytes" in out and "by another writer; rawko-tui did not write them" in out and "Not written:" in out
    assert main(["torn", "m.md", str(root), "--commit", "--include-uncommitted"]) == 0
    message = git(root, "log", "-1", "--format=%B")
    trailers = [line for line in message.splitlines() if line.startswith("Not-written-by-rawko-tui:")]
    assert trailers == [f"Not-written-by-rawko-tui: .rawko/memories/m.md lines 11-17, bytes {committed_size:,}-{committed_size + len(agent) - 1:,}"]
    assert committed(root, ".rawko/memories/m.md") == path.read_bytes() and path.read_bytes().endswith(b"ours\n")
    offsets = load_store(root).file("m.md").entry_offsets()
    from rawko_tui.core.record.history import file_history

    assert file_history(root, ".rawko/memories/m.md", offsets).entry_not_written_by_committer == [False, True, False]


# -- another writer's entry left unfinished: its frontmatter never closed ---------------------------------------

UNFINISHED = "\n---\nimportance: low\nupdatedBy: tes"  # an agent's `cat >>` killed inside the frontmatter


def test_an_append_after_another_writers_unfinished_entry_is_refused_not_swallowed(repo, capsys):  # noqa: F811
    """The opening ``---`` of rawko-tui's entry would close the other writer's block, and the person's entry would
    be read as that block's body, signed by it: refused (with or without taking the other writer's bytes),
    naming the line, and nothing is written."""
    path = mem(repo)
    with path.open("a") as out:
        out.write(UNFINISHED)
    before, tip = path.read_bytes(), head(repo)
    for extra in ((), ("--include-uncommitted",)):
        assert append(repo, *extra) == 1
        assert "is unfinished: its frontmatter is never closed" in capsys.readouterr().err
        assert path.read_bytes() == before and head(repo) == tip


def test_a_committed_unfinished_entry_is_lints_error_not_a_verify_failure_for_ever(repo, capsys):  # noqa: F811
    """Committed, it is history (verify passes: nothing was lost) and lint's error; an append is refused until a
    person closes it, then works."""
    path = mem(repo)
    with path.open("a") as out:
        out.write(UNFINISHED)
    commit_all(repo, "an agent's interrupted note")
    assert main(["verify", str(repo)]) == 0
    capsys.readouterr()
    assert main(["lint", str(repo)]) == 1
    assert "torn-entry" in capsys.readouterr().out
    assert append(repo) == 1
    line = path.read_text().count("\n") - 1  # the block's '---' line, 1-based
    assert f"the entry at line {line} is unfinished" in capsys.readouterr().err
    # an uncommitted unfinished block after the committed text is still a pending write for verify
    with path.open("a") as out:
        out.write("\n---\n")  # the person closes it
    assert main(["verify", str(repo)]) == 0
    assert append(repo, "--include-uncommitted") == 0
    text = path.read_text()
    assert text.endswith("a note\n") and "\n---\nimportance: low\nupdatedBy: tes\n---\n" in text


def test_verify_still_reports_an_unfinished_entry_that_is_not_committed(repo, capsys):  # noqa: F811
    with mem(repo).open("a") as out:
        out.write(UNFINISHED)
    assert main(["verify", str(repo)]) == 1
    assert "working tree: .rawko/memories/ci-workflow-yaml-layout.md: an appended entry's frontmatter is never closed" in capsys.readouterr().out


def test_an_unfinished_entry_in_a_file_git_is_told_not_to_look_at_is_still_pending(repo, capsys):  # noqa: F811
    """``assume-unchanged`` hides the file from ``git diff``: its uncommitted unfinished block is still reported."""
    git(repo, "update-index", "--assume-unchanged", ".rawko/memories/ci-workflow-yaml-layout.md")
    with mem(repo).open("a") as out:
        out.write(UNFINISHED)
    assert main(["verify", str(repo)]) == 1
    assert "an appended entry's frontmatter is never closed" in capsys.readouterr().out


@pytest.mark.parametrize("folder", ["plain", "line\nbreak"])
def test_the_repository_is_located_in_one_git_call_as_in_two(tmp_path, folder):
    """``_Repo.of`` asks git for the git dir and the top together; a path with a line break in it is asked one at a
    time; a bare repository, or no repository, is none."""
    import subprocess

    from rawko_tui.core.disk.gitrepo import locate_repository, repo_root
    from rawko_tui.core.record.writer import _Repo

    top = tmp_path / folder
    store = top / "sub" / "store"
    store.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    repo = _Repo.of(store)
    assert repo is not None and (repo.top, repo.git_dir, repo.store) == (repo_root(store), locate_repository(store)[0], "sub/store/")
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    assert _Repo.of(bare) is None and _Repo.of(tmp_path) is None


@pytest.mark.parametrize("journal", [None, ".git/rawko-tui-journal", ".rawko/.write-journal"])
def test_lint_imports_the_writer_only_where_a_write_journal_is(repo, journal):
    """A store with no journal folder (most) is linted without importing the writer: nothing to survey. With either
    folder there, even empty, the survey is made; the report is the same. (A first run makes each file's findings,
    some with the writer's slugs: the second, on the kept findings, is asked.)"""
    if journal is not None:
        (repo / journal).mkdir()
    code = (
        "import sys, contextlib, io\n"
        "from rawko_tui.core.disk import cache\n"
        "cache.RACY_NS = 0  # the files were written a moment ago: trusted all the same\n"
        "from rawko_tui.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    main(['lint', {str(repo)!r}, '--now', '2026-01-24T12:00:00Z'])\n"
        "print('rawko_tui.core.record.writer' in sys.modules, repr(out.getvalue()))\n"
    )
    said = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60) for _ in range(2)]
    assert all(proc.returncode == 0 for proc in said), said[0].stderr + said[1].stderr
    (first, first_report), (second, second_report) = (proc.stdout.split(" ", 1) for proc in said)
    assert first == "True" and second == str(journal is not None)
    assert first_report == second_report and "[body-length]" in first_report
