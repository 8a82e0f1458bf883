"""Installing the git hooks that refuse a commit (pre-commit) or a push (pre-receive) losing a memory entry.

A hook is written where git will run it: the folder ``git rev-parse --git-path
hooks`` names, which honours ``core.hooksPath`` and linked worktrees. A
``core.hooksPath`` that is not a folder (``/dev/null`` turns hooks off) is
refused; one outside the repository (a folder other repositories may share)
is refused unless forced.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from .gitrepo import GitError, git, git_dir, repo_root, write_git_file
from .safeio import read_regular

MARKER = "# installed by rawko-tui: refuses commits that rewrite memory files"
SERVER_MARKER = "# installed by rawko-tui: refuses pushes that lose or rewrite memory entries"


@dataclass(frozen=True)
class InstalledHook:
    path: Path
    hooks_path: str | None  # core.hooksPath when it is set (the hook is where it sends git)
    server: bool = False
    also: tuple[Path, ...] = ()  # the same check under another hook's name (pre-merge-commit)


def hook_script() -> str:
    return _script(MARKER, "verify --staged \"$top\"", 'top=$(git rev-parse --show-toplevel) || exit 1\n', "Skipped with `git commit --no-verify`.")


def server_hook_script() -> str:
    # git gives a pre-receive hook "old new ref" lines on stdin; `verify --pre-receive` reads them
    return _script(SERVER_MARKER, "verify --pre-receive .", "", "Checks what each pushed ref does to every memory file.")


def _script(marker: str, command: str, setup: str, note: str) -> str:
    python = shlex.quote(sys.executable)
    return f"""#!/bin/sh
{marker}
# {note}
{setup}if command -v rawko-tui >/dev/null 2>&1; then
  exec rawko-tui {command}
fi
exec {python} -m rawko_tui {command}
"""


def hooks_folder(path: Path) -> tuple[Path, Path, str | None, bool]:
    """(the top of the repository, the folder git runs its hooks from, core.hooksPath or None, whether it is bare)."""
    top = repo_root(path)
    bare = False
    if top is None:
        try:
            bare = b"true" in git(path, "rev-parse", "--is-bare-repository", "--is-inside-git-dir").split()
        except GitError:
            bare = False
        if not bare:
            raise GitError(f"{path} is not in a git repository")
        top = Path(path)
    folder = os.fsdecode(git(top, "rev-parse", "--git-path", "hooks").rstrip(b"\n"))
    configured = os.fsdecode(git(top, "config", "--get", "core.hooksPath", check=False).rstrip(b"\n")) or None
    return top, (top / folder).absolute(), configured, bare


def install_hook(path: Path, force: bool = False, server: bool = False) -> InstalledHook:
    """Write the pre-commit hook (``server``: the pre-receive hook of a server's repository) where git runs it."""
    top, folder, configured, bare = hooks_folder(path)
    if bare and not server:
        raise GitError(f"{path} is a bare repository: nobody commits in it; `hook install --server` installs the check for pushes")
    if configured is not None:
        _check_hooks_path(top, folder, configured, force)
    # a merge that git concludes by itself (no conflict, or -s ours) runs pre-merge-commit, not pre-commit
    names, script, marker = (("pre-receive",), server_hook_script(), SERVER_MARKER) if server else (("pre-commit", "pre-merge-commit"), hook_script(), MARKER)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GitError(f"cannot make the hooks folder {folder}: {exc.strerror}") from None
    hooks = [folder / name for name in names]
    for hook in hooks:  # every one checked before any is written
        if hook.is_symlink() or hook.exists() and not hook.is_file():
            raise GitError(f"{hook} is a link or not a file; rawko-tui does not write through it")
        if hook.exists() and marker not in _head(hook) and not force:
            raise GitError(f"{hook} already exists and is not rawko-tui's; add `rawko-tui {'verify --pre-receive' if server else 'verify --staged'}` to it, or use --force to replace it")
    for hook in hooks:
        write_git_file(hook, script, f"the {hook.name} hook", executable=True)
    return InstalledHook(hooks[0], configured, server, tuple(hooks[1:]))


def _head(hook: Path) -> str:
    """The start of an existing hook (never read through a link, never past 64 KiB)."""
    try:
        return read_regular(hook, 1 << 16).decode("utf-8", "replace")
    except OSError:
        return ""


def _check_hooks_path(top: Path, folder: Path, configured: str, force: bool) -> None:
    """Refuse a core.hooksPath git cannot run hooks from, or (unless forced) one other repositories may share."""
    if folder.exists() and not folder.is_dir():
        raise GitError(f"core.hooksPath is {configured}, which is not a folder: git runs no hooks in this repository; unset core.hooksPath to install the hook")
    resolved = folder.resolve()
    inside = [top.resolve(), git_dir(top).resolve()]
    common = os.fsdecode(git(top, "rev-parse", "--git-common-dir").rstrip(b"\n"))
    inside.append((top / common).resolve())
    if not any(resolved == place or place in resolved.parents for place in inside) and not force:
        raise GitError(
            f"core.hooksPath sends git to {folder}, outside this repository (other repositories may use it too); "
            "add `rawko-tui verify --staged` to its pre-commit yourself, or use --force to install there"
        )
