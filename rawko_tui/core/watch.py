"""Noticing that files under ``.rawko/`` changed on disk (an agent wrote a memory)."""

from __future__ import annotations

import os
from pathlib import Path


def store_signature(root: Path) -> tuple:
    """A cheap fingerprint of every memory and agent file: names, sizes, modification times."""
    entries = []
    for folder in (root / ".rawko" / "memories", root / ".rawko" / "agents", root / ".rawko"):
        pending = [folder]
        while pending:
            directory = pending.pop()
            try:
                with os.scandir(directory) as it:
                    for entry in it:
                        try:
                            if entry.is_dir(follow_symlinks=False):
                                if folder.name != ".rawko":
                                    pending.append(Path(entry.path))
                                continue
                            info = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        entries.append((entry.path, info.st_size, info.st_mtime_ns))
            except OSError:
                continue
    entries.sort()
    return tuple(entries)
