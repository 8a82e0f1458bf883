"""A git repository as the rest of the core needs it: running git, where the repository is, what state it is in, files at a revision.

The plumbing under ``history`` (the append-only record), ``writer`` (refusing
to write mid-rebase, committing) and ``store`` (a store at a revision); it
imports nothing else of the core, so none of them imports another through it.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

MEMORIES = ".rawko/memories"
_OPERATIONS = (  # files in the git dir that mean an operation is half done, and what to do
    ("rebase-merge", "a rebase is in progress", "git rebase --continue or --abort"),
    ("rebase-apply", "a rebase or `git am` is in progress", "git rebase --continue or --abort"),
    ("MERGE_HEAD", "a merge is in progress", "commit the merge or git merge --abort"),
    ("CHERRY_PICK_HEAD", "a cherry-pick is in progress", "git cherry-pick --continue or --abort"),
    ("REVERT_HEAD", "a revert is in progress", "git revert --continue or --abort"),
    ("BISECT_LOG", "a bisect is in progress", "git bisect reset"),
)


class GitError(Exception):
    """git could not answer; the message says why in plain words."""


def git(root: Path, *args: str, check: bool = True, input_bytes: bytes | None = None) -> bytes:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        proc = subprocess.run(["git", *args], cwd=root, capture_output=True, input=input_bytes, env=env, timeout=600)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} did not finish in time") from None
    if check and proc.returncode != 0:
        raise GitError(proc.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return proc.stdout


def repo_root(path: Path) -> Path | None:
    """The top of the git work tree holding ``path``, or None when it is not in one."""
    try:
        out = git(path, "rev-parse", "--show-toplevel")
    except GitError:
        return None
    return Path(out.decode().strip())


@dataclass(frozen=True)
class RepositoryState:
    """What the store's repository is in the middle of; anything here makes rawko-tui read-only."""

    in_repo: bool
    operation: str | None = None  # "a rebase is in progress", ...
    finish: str | None = None  # how to end it
    index_locked: bool = False
    detached: bool = False
    shallow: bool = False

    @property
    def write_blocker(self) -> str | None:
        """Why writing now would be unsafe (None: it is safe)."""
        if self.operation:
            return f"{self.operation} ({self.finish} first)"
        if self.index_locked:
            return "the git index is locked (.git/index.lock): another git command is running, or one crashed; remove the lock once none is running"
        if self.detached:
            return "HEAD is detached (no branch is checked out), so a commit could be lost; check out a branch first"
        return None

    def describe(self) -> str | None:
        """One line for a banner, or None when there is nothing to say."""
        if not self.in_repo:
            return "not a git repository: history unavailable"
        blocker = self.write_blocker
        if blocker:
            return f"read-only: {blocker}"
        if self.shallow:
            return "a shallow clone: history before its first commit is not available"
        return None


def locate_repository(path: Path) -> tuple[Path, bool] | None:
    """(the git dir, whether the clone is shallow) of the repository holding ``path``; None outside git."""
    try:
        out = git(path, "rev-parse", "--absolute-git-dir", "--is-shallow-repository").decode().split("\n")
    except GitError:
        return None
    return Path(out[0]), len(out) > 1 and out[1].strip() == "true"


def repository_state(path: Path) -> RepositoryState:
    """The state of the repository holding ``path`` (one git call, then files in its git dir; never takes a lock)."""
    return repository_state_in(locate_repository(path))


def repository_state_in(located: tuple[Path, bool] | None) -> RepositoryState:
    """The state from what ``locate_repository`` gave: a caller that polls locates once (the git dir does not move)."""
    if located is None:
        return RepositoryState(in_repo=False)
    git_dir, shallow = located
    try:
        detached = not (git_dir / "HEAD").read_bytes().startswith(b"ref:")  # a branch (born or not) is "ref: refs/heads/…"
    except OSError:
        detached = False
    operation = next(((what, finish) for name, what, finish in _OPERATIONS if (git_dir / name).exists()), (None, None))
    return RepositoryState(
        in_repo=True,
        operation=operation[0],
        finish=operation[1],
        index_locked=(git_dir / "index.lock").exists(),
        detached=detached,
        shallow=shallow,
    )


def store_prefix(root: Path, top: Path) -> str:
    """The store's memories folder as a path inside the repository (forward slashes)."""
    rel = Path(os.path.relpath(root.resolve(), top.resolve())).as_posix()
    return MEMORIES if rel == "." else f"{rel}/{MEMORIES}"


class BlobReader:
    """One ``git cat-file --batch`` process for many blobs."""

    def __init__(self, top: Path):
        self.proc = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=top,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )

    def read(self, sha: str) -> bytes:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            raise GitError(f"object {sha} is missing (a shallow or broken clone?)")
        size = int(header[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)  # the newline after the content
        return data

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def rev_sha(top: Path, rev: str) -> str | None:
    try:
        return git(top, "rev-parse", "--verify", "--quiet", rev + "^{commit}").decode().strip() or None
    except GitError:
        return None


def git_dir(top: Path) -> Path:
    return Path(git(top, "rev-parse", "--absolute-git-dir").decode().strip())


def files_at(root: Path, rev: str) -> list[tuple[str, str, bytes]]:
    """(path inside .rawko/, mode, content) of every file under .rawko/ at ``rev``."""
    top = repo_root(root)
    if top is None:
        raise GitError(f"{root} is not in a git repository: --at needs history")
    sha = rev_sha(top, rev)
    if sha is None:
        raise GitError(f"{rev!r} is not a commit in this repository")
    prefix = store_prefix(root, top)[: -len("/memories")]
    with BlobReader(top) as blobs:
        return [(name[len(prefix) + 1 :], mode, blobs.read(blob)) for name, (mode, blob) in tree_blobs(top, sha, prefix).items()]


def tree_blobs(top: Path, rev: str, prefix: str) -> dict[str, tuple[str, str]]:
    """Every file under ``prefix`` at ``rev``: its path from the top of the repository -> (mode, blob sha); {} when rev has none."""
    found = {}
    for record in git(top, "ls-tree", "-r", "-z", "--full-tree", rev, "--", prefix, check=False).split(b"\x00"):
        meta, _, path = record.partition(b"\t")
        if meta.count(b" ") == 2:
            mode, kind, blob = meta.decode().split(" ")
            if kind == "blob":
                found[path.decode("utf-8", "surrogateescape")] = (mode, blob)
    return found

