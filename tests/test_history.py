"""Git: the append-only record verified, enforced and shown, on real repositories."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXED_NOW, memory, write_store
from rawko_tui.cli import main
from rawko_tui.core.arbiters.decision import ArbiterOptions, parse_now
from rawko_tui.core.arbiters.ranking import run_preview
from rawko_tui.core.record.history import file_history, verify
from rawko_tui.core.lint.linter import lint_store
from rawko_tui.core.store.reading import load_store_at
from rawko_tui.core.store.loading import load_store
from rawko_tui.core.record.writer import (
    Seen,
    WriteError,
    append_entry,
    apply_writes,
    create_memory,
    format_entry,
    plan_append,
    safe_memory_path,
)

NOW = parse_now(FIXED_NOW)


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Tester", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "Tester", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout.strip()


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path):
    root = write_store(
        tmp_path / "repo",
        {
            "a-memory.md": memory(title="A memory", body="line one\nline two\nline three"),
            "b-memory.md": memory(title="B memory", body="keep me"),
            "c-memory.md": memory(title="C memory", body="rename me"),
            "no-newline.md": memory(title="No newline", body="ends without newline").rstrip("\n"),
        },
    )
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "initial memories")
    return root


def mem(root: Path, name: str) -> Path:
    return root / ".rawko" / "memories" / name


def test_clean_history_verifies(repo, capsys):
    mem(repo, "a-memory.md").write_text(mem(repo, "a-memory.md").read_text() + "\n\n---\nimportance: critical\n---\n\nMore.\n")
    with open(mem(repo, "no-newline.md"), "a") as f:
        f.write(" -- appended without a newline first")  # numstat would count a deleted line here
    commit_all(repo, "append")
    assert main(["verify", str(repo)]) == 0
    assert "OK: memory files were only appended to" in capsys.readouterr().out


def test_every_kind_of_violation_is_named_with_its_commit(repo, capsys):
    a = mem(repo, "a-memory.md")
    a.write_text(a.read_text().replace("line two", "line 2"))
    rewrite = commit_all(repo, "rewrite an old line")
    b = mem(repo, "b-memory.md")
    b.write_text("# inserted at the top\n" + b.read_text())  # numstat shows no deletion here
    insert = commit_all(repo, "insert at the top")
    mem(repo, "b-memory.md").unlink()
    delete = commit_all(repo, "delete a memory")
    git(repo, "mv", ".rawko/memories/c-memory.md", ".rawko/memories/renamed.md")
    rename = commit_all(repo, "rename a memory")
    d = mem(repo, "no-newline.md")
    d.write_text(d.read_text().replace("ends", "finishes"))  # not committed: a working-tree edit

    assert main(["verify", str(repo), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    found = {(v["kind"], v["path"], v["commit"]) for v in report["violations"]}
    assert ("rewritten", ".rawko/memories/a-memory.md", rewrite) in found
    assert ("rewritten", ".rawko/memories/b-memory.md", insert) in found
    assert ("deleted", ".rawko/memories/b-memory.md", delete) in found
    assert ("renamed", ".rawko/memories/c-memory.md", rename) in found
    assert ("rewritten", ".rawko/memories/no-newline.md", "working tree") in found
    rewritten = [v for v in report["violations"] if v["commit"] == rewrite][0]
    assert rewritten["line"] and "line two" in rewritten["lost"] and "line 2" in " ".join(rewritten["now"])
    assert main(["verify", str(repo)]) == 1
    text = capsys.readouterr().out
    assert f"commit {rewrite[:10]}: .rawko/memories/a-memory.md: rewritten at line" in text
    assert "    - line two" in text


def test_since_limits_the_commits(repo, capsys):
    a = mem(repo, "a-memory.md")
    a.write_text(a.read_text().replace("line one", "line 1"))
    commit_all(repo, "rewrite")
    good = git(repo, "rev-parse", "HEAD")
    assert main(["verify", str(repo), "--since", good]) == 0


def test_staged_rewrite_is_refused_by_the_hook_and_an_append_commits(repo, capsys):
    assert main(["hook", "install", str(repo)]) == 0
    capsys.readouterr()
    a = mem(repo, "a-memory.md")
    original = a.read_text()
    a.write_text(original.replace("line three", "line 3"))
    git(repo, "add", "-A")
    refused = subprocess.run(["git", "commit", "-m", "rewrite"], cwd=repo, capture_output=True, text=True, env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    assert refused.returncode != 0
    assert "rewritten at line" in refused.stdout + refused.stderr
    a.write_text(original + "\n\n---\nimportance: low\n---\n\nAppended.\n")
    git(repo, "add", "-A")
    accepted = subprocess.run(["git", "commit", "-m", "append"], cwd=repo, capture_output=True, text=True, env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


def test_hook_install_does_not_clobber_another_hook(repo, capsys):
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho mine\n")
    assert main(["hook", "install", str(repo)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["hook", "install", str(repo), "--force"]) == 0


def test_preview_at_a_revision_matches_a_checkout_of_it(repo, tmp_path, capsys):
    first = git(repo, "rev-parse", "HEAD")
    mem(repo, "a-memory.md").write_text(mem(repo, "a-memory.md").read_text() + "\n\nmore text\n")
    (mem(repo, "d-memory.md")).write_text(memory(title="D memory", when='"auth"', importance="critical"))
    commit_all(repo, "second")
    checkout = tmp_path / "checkout"
    git(repo, "worktree", "add", "-q", str(checkout), first)
    args = ["--task", "fix auth", "--agent", "developer", "--now", FIXED_NOW, "--json"]
    assert main(["preview", str(repo), "--at", first, *args]) == 0
    at_rev = json.loads(capsys.readouterr().out)
    assert main(["preview", str(checkout), *args]) == 0
    checked_out = json.loads(capsys.readouterr().out)
    for key in ("injected", "candidates", "prompt"):
        assert at_rev[key] == checked_out[key]
    assert main(["preview", str(repo), *args[:-1], "--compare", first]) == 0
    out = capsys.readouterr().out
    assert "+ .rawko/memories/d-memory.md" in out


def test_provenance_and_badges(repo):
    a = mem(repo, "a-memory.md")
    a.write_text(a.read_text() + "\n\n---\nimportance: critical\n---\n\nSecond entry.\n")
    second = commit_all(repo, "append an entry")
    store = load_store(repo)
    memory_file = store.file("a-memory.md")
    offsets = memory_file.entry_offsets()
    history = file_history(repo, memory_file.rel_path, offsets)
    assert history.badge == "verified"
    assert [c.subject for c in history.commits] == ["initial memories", "append an entry"]
    assert history.entry_commits[0].subject == "initial memories" and history.entry_commits[1].sha == second
    a.write_text(a.read_text() + "\nuncommitted line\n")
    assert file_history(repo, memory_file.rel_path, offsets).badge == "uncommitted-append"
    a.write_text("rewritten\n")
    assert file_history(repo, memory_file.rel_path, offsets).badge == "uncommitted-rewrite"


def test_a_store_outside_git_says_so(tmp_path, capsys):
    root = write_store(tmp_path / "plain", {"m.md": memory()})
    assert main(["verify", str(root)]) == 2
    assert "not in a git repository" in capsys.readouterr().err
    assert file_history(root, ".rawko/memories/m.md", [0]).badge == "not-a-repo"


def test_rewritten_history_under_the_last_verified_head_is_reported(repo, capsys):
    mem(repo, "b-memory.md").write_text(mem(repo, "b-memory.md").read_text() + "\n\nappended\n")
    commit_all(repo, "append")
    assert main(["verify", str(repo), "--remember"]) == 0
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    mem(repo, "b-memory.md").write_text(mem(repo, "b-memory.md").read_text() + "\n\nother\n")
    commit_all(repo, "different append")
    capsys.readouterr()
    assert main(["verify", str(repo)]) == 1
    assert "history was rewritten" in capsys.readouterr().out


# --------------------------------------------------------------------------
# The writer
# --------------------------------------------------------------------------


def test_append_keeps_every_byte_and_commits_with_a_structured_message(repo):
    path = mem(repo, "a-memory.md")
    before = path.read_bytes()
    entry = format_entry({"importance": "high", "discoveredBy": "reviewer"}, "## Correction\n\nTwelve rounds.")
    sha = apply_writes(repo, [plan_append(repo, "a-memory.md", entry)], "append", "Correction of the salt rounds.").sha
    after = path.read_bytes()
    assert after.startswith(before) and after.endswith(entry.encode())
    assert git(repo, "show", f"{sha}:.rawko/memories/a-memory.md") + "\n" == after.decode()  # the commit holds exactly the file
    journals = [repo / ".git" / "rawko-tui-journal", repo / ".rawko" / ".write-journal"]
    assert not [f for folder in journals if folder.is_dir() for f in folder.iterdir() if f.suffix in (".write", ".json")]  # a finished write leaves no record
    entries = load_store(repo).file("a-memory.md").entries
    assert entries[-1].frontmatter == {"importance": "high", "discoveredBy": "reviewer"}
    message = git(repo, "log", "-1", "--format=%B", sha)
    assert message.startswith("rawko-tui: append a-memory.md") and "Action: append" in message and "Memory: .rawko/memories/a-memory.md" in message
    assert verify(repo).ok


def test_a_concurrent_agent_append_is_kept_not_clobbered(repo):
    path = mem(repo, "a-memory.md")
    seen_bytes = path.read_bytes()
    with open(path, "a") as agent:  # an agent appends between our read and our write
        agent.write("\n\nagent's late addition\n")
    result = append_entry(repo, "a-memory.md", format_entry({"importance": "low"}, "ours"), Seen.of(seen_bytes))
    text = path.read_text()
    assert "agent's late addition" in text and text.index("agent's late addition") < text.index("ours")
    assert result.merged_after == len("\n\nagent's late addition\n")


def test_a_rewritten_file_is_refused(repo):
    path = mem(repo, "a-memory.md")
    seen = Seen.of(path.read_bytes())
    path.write_text("someone rewrote it\n")
    with pytest.raises(WriteError, match="no longer starts with what was read"):
        append_entry(repo, "a-memory.md", format_entry({"importance": "low"}, "x"), seen)
    assert path.read_text() == "someone rewrote it\n"


def test_no_byte_is_lost_with_another_process_appending_at_the_same_time(repo):
    path = mem(repo, "a-memory.md")
    script = (
        "import sys, time\n"
        "path = sys.argv[1]\n"
        "for i in range(300):\n"
        "    with open(path, 'a') as f:\n"
        "        f.write(f'\\n\\nagent line {i:04d}\\n')\n"
        "    time.sleep(0.001)\n"
    )
    agent = subprocess.Popen([sys.executable, "-c", script, str(path)])
    ours = []
    for i in range(40):
        entry = format_entry({"importance": "low"}, f"our entry {i:04d}")
        append_entry(repo, "a-memory.md", entry, Seen.of(path.read_bytes()))
        ours.append(entry)
    agent.wait(timeout=60)
    text = path.read_text()
    for i in range(300):
        assert f"agent line {i:04d}" in text
    for entry in ours:
        assert entry in text


# A child process that appends through rawko-tui and is stopped half-way through the memory's bytes: the
# kill is made deterministic by a hook in the child (it writes half, says so, and waits to be killed).
KILLED_MID_WRITE = """
import os, signal, sys
from pathlib import Path
from rawko_tui.core.record import writer

real = writer._write_all

def half_then_wait(fd, data):
    if os.readlink(f"/proc/self/fd/{fd}").endswith(".md"):
        real(fd, data[: len(data) // 2 if sys.argv[5] == "half" else 0])
        os.fsync(fd)
        print("half", flush=True)
        signal.pause()
    real(fd, data)

writer._write_all = half_then_wait
root, name, body = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
entry = writer.format_entry({"title": "Huge", "importance": "low"}, body * 1000)
if sys.argv[4] == "append_entry":
    writer.append_entry(root, name, entry, None)
else:
    writer.apply_writes(root, [writer.plan_append(root, name, entry)], "append")
"""


def kill_mid_write(root: Path, name: str, body: str = "x" * 200, how: str = "apply", part: str = "half") -> None:
    """A real rawko-tui write, in its own process, killed once half of the entry is in the file (``part="none"``: before its first byte)."""
    writer = subprocess.Popen([sys.executable, "-c", KILLED_MID_WRITE, str(root), name, body, how, part], stdout=subprocess.PIPE)
    assert writer.stdout.readline().strip() == b"half"
    writer.send_signal(signal.SIGKILL)
    writer.wait()


def test_a_writer_killed_mid_write_leaves_the_old_bytes_and_a_torn_entry_that_is_reported(repo, capsys):
    path = mem(repo, "a-memory.md")
    before = path.read_bytes()
    kill_mid_write(repo, "a-memory.md", how="append_entry")
    after = path.read_bytes()
    assert after.startswith(before)
    assert len(before) < len(after) < len(before) + 200_000  # it really was cut short
    findings = [f for f in lint_store(load_store(repo), NOW) if f.code == "torn-entry"]
    assert findings and findings[0].path == ".rawko/memories/a-memory.md" and "an interrupted write" in findings[0].message
    assert main(["verify", str(repo), "--json"]) == 1
    assert any(v["kind"] == "torn-entry" for v in json.loads(capsys.readouterr().out)["violations"])


def test_create_uses_the_title_slug_and_never_escapes_or_overwrites(repo):
    entry = format_entry({"title": "Cache: Redis or DB?"}, "body")
    first = create_memory(repo, "Cache: Redis or DB?", entry)
    second = create_memory(repo, "Cache: Redis or DB?", entry)
    assert first.name == "cache-redis-or-db.md" and second.name == "cache-redis-or-db-2.md"
    for bad in ("../escape.md", "/etc/passwd.md", "sub/../../x.md", "x.txt"):
        with pytest.raises(WriteError):
            safe_memory_path(repo, bad)
    os.symlink(repo.parent, mem(repo, "outside"))
    with pytest.raises(WriteError, match="outside"):
        safe_memory_path(repo, "outside/x.md")
    mem(repo, "real").mkdir()
    os.symlink(mem(repo, "real"), mem(repo, "link"))
    with pytest.raises(WriteError, match="symlink"):
        safe_memory_path(repo, "link/x.md")


def test_load_store_at_reads_blobs_not_the_working_tree(repo):
    first = git(repo, "rev-parse", "HEAD")
    mem(repo, "b-memory.md").unlink()
    store = load_store_at(repo, first)
    assert store.file("b-memory.md") is not None and store.file("b-memory.md").attrs["title"] == "B memory"
    result = run_preview(store, "auth", "developer", ArbiterOptions(), NOW)
    assert ".rawko/memories/b-memory.md" in [c.path for c in result.candidates]


PRE_RECEIVE = """#!/bin/sh
# pre-receive: refuse pushes that rewrite memory files
while read old new ref; do
  [ "$new" = 0000000000000000000000000000000000000000 ] && continue
  if [ "$old" = 0000000000000000000000000000000000000000 ]; then since=""; else since="--since $old"; fi
  {rawko} verify . --rev "$new" $since --history-only || exit 1
done
"""


def test_the_server_side_pre_receive_recipe_refuses_a_rewriting_push(repo, tmp_path):
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    hook = server / "hooks" / "pre-receive"
    hook.write_text(PRE_RECEIVE.format(rawko=f"{sys.executable} -m rawko_tui"))
    hook.chmod(0o755)
    git(repo, "remote", "add", "origin", str(server))
    git(repo, "push", "-q", "origin", "main")  # a new branch: its whole history is checked
    a = mem(repo, "a-memory.md")
    a.write_text(a.read_text() + "\n\nappended\n")
    commit_all(repo, "append")
    git(repo, "push", "-q", "origin", "main")
    a.write_text(a.read_text().replace("line one", "line 1"))
    commit_all(repo, "rewrite")
    refused = subprocess.run(["git", "push", "origin", "main"], cwd=repo, capture_output=True, text=True)
    assert refused.returncode != 0
    assert "rewritten at line" in refused.stderr and "pre-receive hook declined" in refused.stderr


TESTER = {"GIT_AUTHOR_NAME": "Tester", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "Tester", "GIT_COMMITTER_EMAIL": "t@example.com"}


def _writers(repo: Path, count: int, *extra: str) -> list[subprocess.Popen]:
    return [
        subprocess.Popen(
            [sys.executable, "-m", "rawko_tui", "append", "a-memory.md", str(repo), "--body", f"writer entry {n}", *extra],
            env={**os.environ, **TESTER},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(count)
    ]


def test_concurrent_appends_all_succeed_each_in_its_own_commit(repo):
    """Twelve writers at once: each plans under the write lock, so each entry is written once and committed on its own."""
    results = [(w.wait(timeout=120), w.stdout.read(), w.stderr.read()) for w in _writers(repo, 12)]
    for code, out, err in results:
        assert code == 0, err
        assert "and committed" in out
    text = mem(repo, "a-memory.md").read_text()
    assert all(text.count(f"writer entry {n}\n") == 1 for n in range(12))
    assert git(repo, "show", "HEAD:.rawko/memories/a-memory.md") + "\n" == text  # every writer's entry is in history
    assert int(git(repo, "rev-list", "--count", "HEAD")) == 13
    assert verify(repo).ok


def test_concurrent_appends_with_an_agent_appending_lose_nothing_and_commit_no_byte_unseen(repo):
    """Twelve writers while an agent appends with >>: nothing is lost, and no byte of the agent's goes into a commit unnamed.

    Whether the agent's bytes land before a writer plans (shown, and committed with
    --include-uncommitted, named in the message) or between its plan and its write
    (nothing written: "changed since it was shown") depends on timing; either way holds.
    """
    target = mem(repo, "a-memory.md")
    agent = subprocess.Popen(
        ["bash", "-c", f'for i in $(seq 1 10); do printf "\\n\\n---\\nimportance: low\\n---\\n\\nagent note %s\\n" "$i" >> "{target}"; sleep 0.02; done'],
    )
    results = [(w.wait(timeout=120), w.stdout.read(), w.stderr.read()) for w in _writers(repo, 12, "--include-uncommitted")]
    assert agent.wait(timeout=60) == 0
    text = target.read_text()
    assert all(text.count(f"agent note {i}\n") == 1 for i in range(1, 11))
    for n, (code, out, err) in enumerate(results):
        assert (code == 0 and "and committed" in out) or (code == 1 and "changed since it was shown" in err and "nothing was written" in err), err
        assert text.count(f"writer entry {n}\n") == (1 if code == 0 else 0)
    for sha in git(repo, "rev-list", "HEAD", "--", ".rawko/memories/a-memory.md").split()[:-1]:
        old = git(repo, "show", f"{sha}~1:.rawko/memories/a-memory.md").encode() + b"\n"
        new = git(repo, "show", f"{sha}:.rawko/memories/a-memory.md").encode() + b"\n"
        added, message = new[len(old) :], git(repo, "log", "-1", "--format=%B", sha)
        named = re.search(r"Not-written-by-rawko-tui: \S+ lines? [\d-]+, bytes ([\d,]+)-([\d,]+)", message)
        ours = added
        if named:  # the bytes named are exactly the agent's, and what follows them is the writer's own entry
            first, last = (int(v.replace(",", "")) for v in named.groups())
            assert first == len(old) and new[first : last + 1].count(b"agent note") >= 1
            ours = new[last + 1 :]
        assert b"agent note" not in ours and ours.count(b"writer entry") == 1
    assert verify(repo, history_only=True).ok


def test_a_refusing_pre_commit_hook_takes_the_entry_back(repo, capsys):
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'refused by policy' >&2\nexit 1\n")
    hook.chmod(0o755)
    before, head = mem(repo, "a-memory.md").read_bytes(), git(repo, "rev-parse", "HEAD")
    assert main(["append", "a-memory.md", str(repo), "--body", "refused entry"]) == 1
    err = capsys.readouterr().err
    assert "nothing was written: the pre-commit hook refused the commit (refused by policy)" in err
    assert mem(repo, "a-memory.md").read_bytes() == before and git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "status", "--porcelain") == ""  # nothing written, nothing staged


def test_written_but_not_committed_says_so_with_its_own_exit_code(repo, capsys):
    from rawko_tui.cli import main

    # a hook that refuses after appending to the file itself: the entry can no longer be taken back (its bytes are not last)
    target = mem(repo, "a-memory.md")
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nprintf 'hook line\\n' >> '{target}'\necho 'refused by policy' >&2\nexit 1\n")
    hook.chmod(0o755)
    before = target.read_bytes()
    assert main(["append", "a-memory.md", str(repo), "--body", "kept entry"]) == 3
    err = capsys.readouterr().err
    assert "written but not committed: a-memory.md now holds the change" in err and "refused by policy" in err and "do not write it again" in err
    assert target.read_bytes().startswith(before) and b"kept entry" in target.read_bytes()


def test_a_write_of_several_files_writes_none_when_one_changed_since_it_was_shown(repo):
    from rawko_tui.core.record.writer import apply_writes, plan_append

    writes = [plan_append(repo, "a-memory.md", format_entry({"importance": "low"}, "one")), plan_append(repo, "b-memory.md", format_entry({"importance": "low"}, "two"))]
    before_a = mem(repo, "a-memory.md").read_bytes()
    mem(repo, "b-memory.md").write_text("rewritten by someone else\n")  # after the person saw the writes
    with pytest.raises(WriteError, match=r"b-memory.md changed since it was shown \(it was cut to \d+ of the \d+ bytes shown\); nothing was written"):
        apply_writes(repo, writes, "supersede")
    assert mem(repo, "a-memory.md").read_bytes() == before_a
    # as shown, they are written together and committed once
    mem(repo, "b-memory.md").write_text(git(repo, "show", "HEAD:.rawko/memories/b-memory.md") + "\n")
    writes = [plan_append(repo, "a-memory.md", format_entry({"importance": "low"}, "one")), plan_append(repo, "b-memory.md", format_entry({"importance": "low"}, "two"))]
    written = apply_writes(repo, writes, "supersede")
    assert written.sha and set(git(repo, "show", "--name-only", "--format=", "HEAD").split()) == {".rawko/memories/a-memory.md", ".rawko/memories/b-memory.md"}
