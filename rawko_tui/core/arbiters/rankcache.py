"""The rank index's tables kept between runs, for a store whose loaded files are the very ones they were made from.

Building a ``rankindex.StoreIndex`` reads every memory's facts and gathers
every whenToUse test (a second at 100,000 memories); none of it depends on
the task.  The tables (columns of facts, the pattern index, which memories
throw) are kept per store and profile, beside the parse cache and under its
rules: they are used only when the profile's loader lists the same files, in
the same order, each with the token of the reading the tables were made from
(``cache.file_token``: its stat and when it was read), by the same code.
A store read at a git revision, or as the fold of its entries, keeps nothing.
"""

from __future__ import annotations

import hashlib
import os
import time
import weakref

from ..disk import cache

# The source the tables come from: a change to any of them makes kept tables stale.
MODULES = (
    "arbiters/rankcache.py", "arbiters/rankindex.py", "arbiters/decision.py", "arbiters/scoring.py", "arbiters/loaders.py", "js/yaml2.py",
    "arbiters/profiles.py", "arbiters/spec0005.py", "arbiters/patterns.py", "js/regexp.py", "js/values.py", "store/reading.py", "js/jsyaml.py", "disk/cache.py",
)  # fmt: skip


def _key(store, view, profile) -> list | None:
    """What the tables depend on: the profile's reading rules and every loaded file's reading, in order (a digest
    of them: a start reads 64 characters, not 10,000 kept tuples, to learn whether the tables are its own)."""
    if store.view != "spec":
        return None
    readings = cache.readings_digest(view.loaded)
    return None if readings is None else [repr((profile.name, profile.loader, profile.scorer, profile.matcher)), readings]


def _gone():
    return None


# (store, view, profile, key), the first two weakly held (the app replaces its store on each reload)
_last_key: tuple = (_gone, _gone, None, None)


def _view_key(store, view, profile) -> list | None:
    """``_key``, computed once for the same store, view and profile (a start asks for the tables, then the points)."""
    global _last_key
    remembered = _last_key
    if remembered[0]() is store and remembered[1]() is view and remembered[2] is profile:
        return remembered[3]
    key = _key(store, view, profile)
    _last_key = (weakref.ref(store), weakref.ref(view), profile, key)
    return key


def _kind(profile) -> str:
    """One kept index per profile (a custom profile's name can be anything: it is hashed)."""
    return "index" + hashlib.sha256(profile.name.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def load(store, view, profile) -> dict | None:
    """The tables kept for this store and profile, when they were made from exactly these files; else None.

    A table's bytes kept apart (``save``'s ``apart``) come back as a ``cache.TextFile``, read where sliced.
    """
    if not cache.enabled():
        return None
    key = _view_key(store, view, profile)
    if key is None:
        return None
    kept = cache.load_derived(store.root, _kind(profile), MODULES)
    tables = kept.get("tables")
    if kept.get("key") != key or not isinstance(tables, dict):
        return None
    apart = kept.get("apart")
    if apart is not None:
        name, field = apart
        if not isinstance(name, str) or "/" in name or not isinstance(field, str):
            return None
        blob = cache.open_kept_bytes(_path(store, profile).with_name(name))
        if blob is None:
            return None
        tables = {**tables, field: blob}
    return tables


def save(store, view, profile, tables: dict, apart: str | None = None) -> None:
    """Keep the tables; ``apart`` names one of them, bytes, written to a file of its own that the next start reads
    only where it is sliced (spec-0005's plans of every memory: most of its tables, and a ranking shows a few)."""
    if not cache.enabled():
        return
    key = _view_key(store, view, profile)
    if key is None:
        return
    record = {"key": key, "tables": tables}
    path = _path(store, profile)
    if apart is not None:
        name = f"{path.stem}-{time.time_ns():x}-{os.getpid()}.bin"
        if not cache.write_bytes_atomically(path.with_name(name), tables[apart]):
            return
        record = {"key": key, "tables": {k: v for k, v in tables.items() if k != apart}, "apart": (name, apart)}
    cache.save_derived(store.root, _kind(profile), MODULES, record)
    for old in path.parent.glob(f"{path.stem}-*.bin"):  # a process that opened an older one keeps reading it
        if apart is None or old.name != record["apart"][0]:
            old.unlink(missing_ok=True)


def _path(store, profile):
    return cache.companion_path(cache.cache_path(store.root), _kind(profile))


MAX_KEPT_AGENTS = 16  # per store and profile; past it the points of an agent not kept are made each run


def agent_points(store, view, profile, agent: str, make, count: int) -> list:
    """The points of every scored memory (``count`` of them) that depend on the agent alone (``StoreIndex._agent_points``):
    those an earlier run kept for these very readings of the files, by this code, else ``make()``'s, then kept beside
    the others (a few agents per store and profile: each kept file is small)."""
    key = _view_key(store, view, profile) if cache.enabled() else None
    if key is None:
        return make()
    kind = _kind(profile) + "-points"
    kept = cache.load_derived(store.root, kind, MODULES)
    agents = kept.get("agents") if kept.get("key") == key and isinstance(kept.get("agents"), dict) else {}
    points = agents.get(agent)
    if isinstance(points, list) and len(points) == count:
        return points
    points = make()
    if len(agents) < MAX_KEPT_AGENTS:
        cache.save_derived(store.root, kind, MODULES, {"key": key, "agents": {**agents, agent: points}})
    return points
