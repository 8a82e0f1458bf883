"""Loading a store: the fresh walk of its memories, each file taken from the columnar cache while its stat still
matches, the rest read again, and the cache rewritten when it changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..disk import cache
from ..disk.safeio import linked_part
from . import columnar, reading
from .reading import (
    MEMORIES_DIR,
    RAWKO_DIR,
    STORE_LIMIT,
    LoadError,
    MemoryFile,
    Store,
    _cached_differs,
    _memory_file,
    _past_store_limit,
    _scan_memories,
    _store_order,
    load_agents,
    load_config,
    no_cyclic_gc,
    read_memory_file,
    walk_stats,
)


def bound_decoded(views: int = 4096, characters: int = 8 << 20) -> None:
    """Keep at most the last ``views`` decoded cached views and ``characters`` of decoded texts decoded (the others go
    back to their kept form, decoded again when read): what a long-lived process (the app) holds of a store stays
    bounded whatever passes over every file it makes. A one-shot command keeps what it decodes."""
    columnar.KEPT_DECODED = views
    reading.KEPT_TEXT_CHARACTERS = characters


def load_store(root: str | os.PathLike, previous: Store | None = None) -> Store:
    """Read every memory file under ``root/.rawko/memories`` (all folders), agents and config.

    Unchanged files are not parsed again: they are taken from ``previous`` (a
    reload) or from the persistent cache (``cache``), each only when the
    file's stat still matches.
    """
    with no_cyclic_gc():  # tens of thousands of new objects, none cyclic garbage: collecting is wasted time
        return _load_store(Path(root), previous)


def _load_store(root: Path, previous: Store | None) -> Store:
    memories_dir = root / RAWKO_DIR / MEMORIES_DIR
    skipped: list[tuple[str, str]] = []
    stats: list[tuple[str, int, int]] = []
    # a symlinked .rawko or memories/ is never walked (it could be "/"): lint says so
    followable = linked_part(root, f"{RAWKO_DIR}/{MEMORIES_DIR}") is None
    scanned = _scan_memories(memories_dir, skipped, stats) if followable and memories_dir.is_dir() else []
    real_dir = os.path.realpath(memories_dir)
    use_cache = cache.enabled()
    cached, kept_count, kept_readings = columnar.load(root, scanned) if use_cache else ({}, 0, None)  # the files the cache may serve
    known = dict(cached)
    if previous is not None and previous.root == root and previous.view == "spec":
        known.update((f.name, f) for f in previous.files if f.read_ns)  # its objects keep their facts
    files: list[MemoryFile] = []
    fresh = not_from_cache = 0
    every_file_kept = len(cached) == kept_count == len(scanned)  # as the cache holds it: those kept were read, none is past the limit
    if every_file_kept:
        past_limit, left = {}, STORE_LIMIT - sum(signature[0] for _, _, is_link, signature in scanned if not is_link)
    else:
        past_limit, left = _past_store_limit(scanned)
    # with every file trusted from the cache (``columnar.load`` checked the trust rule on this walk's stats) and no
    # earlier load's objects to keep, the store is the cache's files in its order: nothing to look at one by one
    as_kept = every_file_kept and previous is None
    for name, path, is_link, signature in [] if as_kept else scanned:
        if name in past_limit:  # never read, nor taken from the cache (whether it fits depends on the other files)
            memory = _memory_file(name, path, is_link, signature)
            memory.error = LoadError(memory.rel_path, f"cannot be read: {past_limit[name]}", stage="read")
            files.append(memory)
            continue
        earlier = known.get(name)
        if earlier is not None and cache.trusted(signature, earlier.signature, signature[2], earlier.read_ns):
            files.append(earlier)
            not_from_cache += earlier is not cached.get(name)
            continue
        memory = _memory_file(name, path, is_link, signature)
        if is_link:  # never followed: the spec's loader skips them and they may point anywhere
            memory.read_ns = time.time_ns()
        else:
            read_memory_file(memory, real_dir)
        files.append(memory)
        fresh += 1
    if as_kept or not fresh and not not_from_cache and len(files) == kept_count:
        files = list(cached.values())  # exactly the cache: already in the store's order
    else:
        _store_order(files)
        kept = len(files) - len(past_limit)
        if use_cache and (fresh or kept != kept_count or any(_cached_differs(f, cached.get(f.name)) for f in files if f.read_ns)):
            kept_readings = columnar.save(root, files)
        # the cache keeps every file's reading as it is here: unless some file is not kept at all (past the limit)
        if past_limit:
            kept_readings = None
    listed = [name for name, _, _, _ in scanned if "/" not in name]  # _scan_memories lists the top level first, in readdir order
    return Store(
        root=root, files=files, agents=load_agents(root, left), config=load_config(root), skipped=sorted(skipped), directory_order=listed, file_stats=walk_stats(scanned, stats),
        kept_readings=kept_readings,
    )  # fmt: skip
