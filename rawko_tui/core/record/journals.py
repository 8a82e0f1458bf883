"""Where a store's write journals are, and whether either is there at all: asked by every lint, without the writer.

The writer (``writer.py``) journals each write in the git dir when the store
is in a repository, and reads older versions' records in ``.rawko/`` too.
When neither folder exists there is no record to survey, and ``lint`` need
not import the writer (its git plumbing, 2,200 lines) to say so.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..store.reading import RAWKO_DIR

JOURNAL_DIR = ".write-journal"  # inside .rawko/, for a store outside git (and where older versions kept it)
GIT_JOURNAL_DIR = "rawko-tui-journal"  # inside the git dir: never cloned, never committed
NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW


def no_journal(root: Path) -> bool:
    """Whether neither journal folder of the store exists, found as the writer's survey finds them (the git dir
    as git names it, each folder below opened without following a link). False whenever the survey could find
    anything, or say anything (a folder it cannot open): the survey is then made."""
    from ..disk.gitrepo import GitError, git

    try:  # the survey's own question (writer._Repo.of)
        said = git(Path(root), "rev-parse", "--absolute-git-dir", "--show-toplevel").decode()
    except GitError:
        said = None  # outside git: only the store's own journal
    except UnicodeDecodeError:
        return False
    if said is not None and (said.count("\n") != 2 or not _missing(Path(said.split("\n")[0]), (GIT_JOURNAL_DIR,))):
        return False
    return _missing(Path(root), (RAWKO_DIR, JOURNAL_DIR))


def _missing(folder: Path, parts: tuple[str, ...]) -> bool:
    """Whether opening ``folder/parts…`` as the writer does (``writer._open_folder``) finds a part missing."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        for part in parts:
            child = os.open(part, FOLDER_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except FileNotFoundError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False
