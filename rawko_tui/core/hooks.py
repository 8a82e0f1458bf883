"""Installing the git pre-commit hook that refuses a commit rewriting a memory."""

from __future__ import annotations

import shlex
import stat
import sys
from pathlib import Path

from .gitrepo import GitError, git_dir, repo_root

MARKER = "# installed by rawko-tui: refuses commits that rewrite memory files"


def hook_script() -> str:
    python = shlex.quote(sys.executable)
    return f"""#!/bin/sh
{MARKER}
# Skipped with `git commit --no-verify`; see the README for a server-side pre-receive check.
top=$(git rev-parse --show-toplevel) || exit 1
if command -v rawko-tui >/dev/null 2>&1; then
  exec rawko-tui verify --staged "$top"
fi
exec {python} -m rawko_tui verify --staged "$top"
"""


def install_hook(path: Path, force: bool = False) -> Path:
    top = repo_root(path)
    if top is None:
        raise GitError(f"{path} is not in a git repository")
    hooks = git_dir(top) / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    hook = hooks / "pre-commit"
    if hook.exists() and MARKER not in hook.read_text(errors="replace") and not force:
        raise GitError(f"{hook} already exists and is not rawko-tui's; add `rawko-tui verify --staged` to it, or use --force to replace it")
    hook.write_text(hook_script())
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return hook
