"""Noticing that files under ``.rawko/`` changed on disk (an agent wrote a memory)."""

from __future__ import annotations

import os
from pathlib import Path

from ..disk.safeio import linked_part


def store_signature(root: Path, memory_files: list[tuple[str, int, int]] | None = None) -> tuple:
    """A cheap fingerprint of every memory and agent file: names, sizes, modification times.

    ``memory_files``: the memories' part as a load just scanned it (``Store.file_stats``), not walked again.
    A symlinked folder is never walked (it could be ``/``, polled every second):
    the link itself is in its parent's listing, so changing it is noticed.
    """
    entries = list(memory_files) if memory_files is not None else _files_under(root, ".rawko/memories", descend=True)
    entries += _files_under(root, ".rawko/agents", descend=True)
    entries += _files_under(root, ".rawko", descend=False)
    entries.sort()
    return tuple(entries)


def _files_under(root: Path, rel: str, descend: bool) -> list[tuple[str, int, int]]:
    if linked_part(root, rel) is not None:
        return []
    entries = []
    pending = [Path(root) / rel]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as it:
                for entry in it:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if descend:
                                pending.append(Path(entry.path))
                            continue
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    entries.append((entry.path, info.st_size, info.st_mtime_ns))
        except OSError:
            continue
    return entries
