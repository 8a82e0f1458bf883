"""What a command's arguments name: the store (at a revision), its arbiter profile, the now, a memory, the saved tasks."""

from __future__ import annotations

import os
from pathlib import Path

from ..core.arbiters.decision import parse_now
from ..core.arbiters.request import chosen_profile, requested_store
from ..core.store.reading import find_store_root, pinned_now
from ..core.store.loading import load_store
from .output import UsageError, _error


def _now(args, store=None) -> float | None:
    """--now, else ``now:`` pinned in the store's rawko-tui.yaml, else None (the clock)."""
    if getattr(args, "now", None):
        try:
            return parse_now(args.now)
        except ValueError as exc:
            raise UsageError(f"--now: {exc}") from None
    return pinned_now(store.config) if store is not None else None


def _load(args, rev: str | None = None):
    return requested_store(_store_root(args), rev if rev is not None else getattr(args, "at", None))


def _profile(args, store):
    """``--arbiter`` (and ``--order``) over the store's ``arbiter:`` (``request.chosen_profile``: a name that is no
    profile, or a store's ``arbiter:`` that names none, is refused, never replaced by another)."""
    return chosen_profile(store.config, getattr(args, "arbiter", None), getattr(args, "order", None))


def _store_root(args) -> Path:
    """PATH; else the store a memory's path names (``explain /work/proj/.rawko/memories/x.md`` from anywhere);
    else the nearest store at or above here."""
    from ..core.store.reading import store_root_of

    memory = getattr(args, "memory", None)
    if args.path is None and memory:
        root = store_root_of(memory)
        if root is not None:
            return root
    return find_store_root(args.path)


def _memory_name(root, given: str) -> str:
    from ..core.disk.safeio import linked_part

    linked = linked_part(root, ".rawko/memories/x.md")
    if linked is not None:  # the store never walks a linked folder: say why no memory is found
        raise UsageError(f"{linked} is a symlink; rawko-tui never reads or writes through links (lint reports it: store-link)")
    store = load_store(root)
    wanted = given.replace("\\", "/")
    memory = _named(store.file, wanted, root)
    if memory is None:
        raise UsageError(f"no memory file {given!r} in {root}/.rawko/memories" + _did_you_mean(store, wanted))
    return memory.name


def _named(lookup, wanted: str, root=None):
    """A memory by the name given, or by that name with ``.md`` added (``explain jwt``); a path to it (``root``: its
    store) by its name in that store, wherever the path was given from."""
    if root is not None:
        inside = Path(root).resolve() / ".rawko" / "memories"
        given = Path(os.path.abspath(os.path.expanduser(wanted)))
        given = given.parent.resolve() / given.name  # the folders as the store's root is named; the file itself never followed
        if inside in given.parents:
            wanted = given.relative_to(inside).as_posix()
    return lookup(wanted) or (lookup(wanted + ".md") if not wanted.endswith(".md") else None)


def _did_you_mean(store, given: str) -> str:
    """The closest file names and titles, for a name that matches none."""
    from rapidfuzz import fuzz, process

    by_name = process.extract(given.lower(), {m.name: m.name.lower() for m in store.files}, scorer=fuzz.WRatio, limit=3, score_cutoff=60)
    by_title = process.extract(given.lower(), {m.name: str(m.attrs.get("title", "")).lower() for m in store.files}, scorer=fuzz.WRatio, limit=3, score_cutoff=60)
    best = sorted(by_name + by_title, key=lambda hit: -hit[1])
    names = list(dict.fromkeys(key for _, _, key in best))[:3]
    return f"; did you mean {' or '.join(names)}?" if names else "; `rawko-tui lint` lists the files"


def _saved_tasks(root):
    from ..core.curation.checks import load_checks  # the ranking it brings: imported only by the commands that run saved tasks

    tasks, errors = load_checks(root)
    for error in errors:
        _error(str(error))
    return tasks, errors
