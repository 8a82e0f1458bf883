"""Installing (and removing) the git hooks that refuse a commit (pre-commit) or a push (pre-receive) losing a memory entry.

A hook is written where git will run it: the folder ``git rev-parse --git-path
hooks`` names, which honours ``core.hooksPath`` and linked worktrees. A
``core.hooksPath`` that is not a folder (``/dev/null`` turns hooks off) is
refused; one outside the repository (a folder other repositories may share)
is refused unless forced.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

from ..records import record
from ..disk.gitrepo import GitError, git, git_dir, repo_root, write_git_file
from ..disk.safeio import read_regular

MARKER = "# installed by rawko-tui: refuses commits that rewrite memory files"
SERVER_MARKER = "# installed by rawko-tui: refuses pushes that lose or rewrite memory entries"


@record(frozen=True)
class InstalledHook:
    path: Path
    hooks_path: str | None  # core.hooksPath when it is set (the hook is where it sends git)
    server: bool = False
    also: tuple[Path, ...] = ()  # the same check under another hook's name (pre-merge-commit)


def hook_script(python: str | None = None) -> str:
    return _script(MARKER, "verify --staged \"$top\"", 'top=$(git rev-parse --show-toplevel) || exit 1\n', "Skipped with `git commit --no-verify`.", python)


def server_hook_script(python: str | None = None) -> str:
    # git gives a pre-receive hook "old new ref" lines on stdin; `verify --pre-receive` reads them
    return _script(SERVER_MARKER, "verify --pre-receive .", "", "Checks what each pushed ref does to every memory file.", python)


def _script(marker: str, command: str, setup: str, note: str, python: str | None = None) -> str:
    python = shlex.quote(sys.executable) if python is None else python
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


@record(frozen=True)
class UninstalledHooks:
    removed: tuple[Path, ...]  # rawko-tui's own hooks, removed
    kept: tuple[tuple[Path, str], ...]  # (a hook by that name left in place, why)
    folder: Path
    hooks_path: str | None
    edited: tuple[Path, ...] = ()  # among ``kept``: rawko-tui's hook with lines added, so still checking commits


def uninstall_hook(path: Path, server: bool = False) -> UninstalledHooks:
    """Remove the hooks ``install_hook`` wrote (pre-commit and pre-merge-commit; ``server``: pre-receive).

    ``install_hook`` writes each hook whole, so a hook is removed only when it is exactly such a script (with any
    Python's path in it): never a person's own hook, and never rawko-tui's with lines someone added to it.
    """
    _, folder, configured, _ = hooks_folder(path)
    names, make = (("pre-receive",), server_hook_script) if server else (("pre-commit", "pre-merge-commit"), hook_script)
    own = _own_script(make)
    removed, kept, edited = [], [], []
    for name in names:
        hook = folder / name
        if not os.path.lexists(hook):
            continue
        if hook.is_symlink() or not hook.is_file():
            kept.append((hook, "a link or not a file: not rawko-tui's"))
            continue
        try:
            text = read_regular(hook, 1 << 16).decode("utf-8", "replace")
        except OSError as exc:
            kept.append((hook, f"cannot be read ({exc.strerror or exc})"))
            continue
        if own.fullmatch(text):
            try:
                hook.unlink()
            except OSError as exc:
                raise GitError(f"cannot remove {hook}: {exc.strerror or exc}") from None
            removed.append(hook)
        elif (SERVER_MARKER if server else MARKER) in text:
            kept.append((hook, "rawko-tui's hook with other lines in it (edited, or written by another version): remove rawko-tui's lines yourself"))
            edited.append(hook)
        else:
            kept.append((hook, "not rawko-tui's"))
    return UninstalledHooks(tuple(removed), tuple(kept), folder, configured, tuple(edited))


def _own_script(make) -> re.Pattern:
    """The script ``make`` writes, whatever the Python path in it (the one that installed it may have moved)."""
    placeholder = "\x00python\x00"
    return re.compile(re.escape(make(placeholder)).replace(re.escape(placeholder), r"[^\n]+"))


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
