"""Parsed memory files kept between runs, never trusted over a changed file.

A second start reads the store's folders (one ``stat`` per file) and takes a
file's parsed views from the cache only when its size, modification time,
change time, inode and device are those it had when it was parsed, and it
had not changed in the two seconds before it was read (a file written twice
within one timestamp tick keeps its times; such "racy" files are read
again, as git does with its index).

How each whenToUse pattern is read (its interpretation and regex
translation, the same for any store) is kept too, in ``plans.pickle``, and
how each JavaScript regex translates (for every profile and lint) in
``translations.pickle``.

The cache lives outside the store (``$XDG_CACHE_HOME/rawko-tui/``, or the
folder ``RAWKO_TUI_CACHE_DIR`` names), one file per store (and a ``.root``
file naming the store, so that the caches of stores that no longer exist are
pruned), written atomically; ``RAWKO_TUI_CACHE=off`` turns it off.  A cache written by other
code (the parser's files, by size and modification time, are part of its key), by another user, or that
cannot be read, is ignored and rewritten.
"""

from __future__ import annotations

import os
import pickle
import stat
import time
from pathlib import Path

try:  # the interpreter's own BLAKE2: hashlib loads OpenSSL, 3 ms of every start (and its SHA-256 is slower than this)
    from _blake2 import blake2b
except ImportError:  # a Python built without it
    from hashlib import blake2b


def key_hash(data: bytes = b""):
    """A hash object for the cache's keys (``update``, ``hexdigest``: 64 hex digits)."""
    return blake2b(data, digest_size=32)


def named_kind(prefix: str, name: str) -> str:
    """The kind of a companion kept per named thing (a profile, whose name can be any text): the prefix and a hash."""
    return prefix + key_hash(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _sha256(data: bytes):
    """SHA-256, for the cache's file names (a store's cache keeps its name across versions, and is pruned by it):
    the interpreter's own, for a few bytes."""
    try:
        from _sha256 import sha256
    except ImportError:  # Python 3.12 onwards names the module _sha2
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256(data)

FORMAT = 1
RACY_NS = 2_000_000_000  # a file changed this close to being read is read again next time

# The modules whose output is cached: editing any of them invalidates the cache.
_PARSER_MODULES = ("store/reading.py", "store/loading.py", "store/columnar.py", "disk/safeio.py", "js/jsyaml.py", "js/values.py", "disk/cache.py")  # safeio: what a refused read says
_PLAN_MODULES = ("arbiters/patterns.py", "js/regexp.py", "js/values.py", "disk/cache.py")
MAX_PLANS = 200_000


def enabled() -> bool:
    return os.environ.get("RAWKO_TUI_CACHE", "").lower() not in ("0", "off", "no", "false")


def cache_dir() -> Path:
    named = os.environ.get("RAWKO_TUI_CACHE_DIR")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rawko-tui"


def cache_path(root: Path) -> Path:
    key = _sha256(str(root.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:24]  # the name every version gave it
    return cache_dir() / f"store-{key}.pickle"


def companion_path(store_cache: Path, kind: str) -> Path:
    """Another file kept for the same store (``terms``: the consolidation queue's term counts), pruned with it."""
    return store_cache.with_name(store_cache.name.replace("store-", f"{kind}-", 1))


def file_token(memory) -> tuple | None:
    """What identifies one reading of a memory file: its stat and when it was read (None: not from the working tree).

    Two readings with the same token are the same bytes, by the parse cache's own rule.
    """
    return (memory.signature, memory.read_ns) if memory.read_ns and memory.signature else None


def readings_digest(memories, kept_readings: str | None = None) -> str | None:
    """One digest of these files' names and readings (``file_token``: stat and read time), in order: what a value
    derived from all of them at once was made from (None: one was not read from the working tree).

    ``kept_readings`` (``Store.kept_readings``): the digest of every reading the parse cache keeps, when the
    store's files are exactly those; each name then stands for its reading, and the digest is of the names alone
    (a start otherwise spends a tenth of its time turning 10,000 stats into bytes to learn it)."""
    if kept_readings is not None:
        names = "\0".join([memory.name for memory in memories])
        return key_hash(f"{kept_readings}\0{names}".encode("utf-8", "surrogatepass")).hexdigest()
    import marshal

    # file_token's rule, inlined: this runs over every loaded file on every start
    if not all(memory.read_ns and memory.signature for memory in memories):
        return None
    # marshal writes the same bytes for the same names and numbers (version 2: without its references, twice as fast)
    return key_hash(marshal.dumps([(memory.name, memory.signature, memory.read_ns) for memory in memories], 2)).hexdigest()


def columns_digest(names: str, columns: list) -> str:
    """The digest of the parse cache's kept readings: the files' names (NUL-separated) and their stat and read-time
    columns, computed once as the cache is written (``Store.kept_readings``)."""
    digest = key_hash(names.encode("utf-8", "surrogatepass"))
    for column in columns:
        digest.update(column.typecode.encode())
        digest.update(column)
    return digest.hexdigest()


def load_derived(root: Path, kind: str, modules: tuple[str, ...]) -> dict:
    """What was derived from each file of the store before (``kind``: ``lint``, ``sdk``): name -> (file token, value).

    ``modules`` name the source files the values come from: other code's values are not used.
    """
    data = _read(companion_path(cache_path(root), kind))
    if not isinstance(data, dict) or data.get("code") != _digest(modules) or data.get("root") != str(root.resolve()):
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def save_derived(root: Path, kind: str, modules: tuple[str, ...], files: dict) -> None:
    _write(companion_path(cache_path(root), kind), {"code": _digest(modules), "root": str(root.resolve()), "files": files})


class Derived:
    """Per-file values kept between runs: a file's value is reused while its token is the one it was made from.

    ``plain``: the values are plain (what ``marshal`` keeps), and each file's is kept as bytes of its own, read
    when that file asks for it: a pass over the store holds one file's value at a time rather than every file's
    (rawko-sdk's readings of 90,000 files held 120 MB as objects, 30 MB as bytes).
    """

    def __init__(self, root: Path, kind: str, modules: tuple[str, ...], plain: bool = False):
        self.root, self.kind, self.modules, self.plain = root, kind, modules, plain
        self.on = enabled()
        self.stored = load_derived(root, kind, modules) if self.on else {}
        self.kept: dict = {}
        self.changed = False

    def get(self, memory, make):
        """``make(memory)``, or what it gave for this very reading of the file before."""
        token = file_token(memory)
        if token is None:
            return make(memory)
        stored = self.stored.get(memory.name)
        hit = _unmarshalled(stored) if self.plain else stored
        if hit is not None and hit[0] == token:
            value = hit[1]
            self.kept[memory.name] = stored
            return value
        value = make(memory)
        self.changed = True
        if not self.plain:
            self.kept[memory.name] = (token, value)
            return value
        import marshal

        try:
            self.kept[memory.name] = marshal.dumps((token, value), 4)
        except ValueError:  # not a plain value: made again each run
            pass
        return value

    def save(self) -> None:
        """Keep the values of the files seen in this run (a file no longer seen is dropped).

        A run that saw no file of the working tree (a store read at a git revision) keeps what was kept.
        """
        if self.on and self.kept and (self.changed or len(self.kept) != len(self.stored)):
            save_derived(self.root, self.kind, self.modules, self.kept)


def _unmarshalled(data: object) -> tuple | None:
    """A file's (token, value) kept as bytes by a plain ``Derived``; None for anything else."""
    import marshal

    try:
        hit = marshal.loads(data) if type(data) is bytes else None
    except (EOFError, ValueError, TypeError):
        return None
    return hit if type(hit) is tuple and len(hit) == 2 else None


class _KeptByCode:
    """A companion file of the store's cache, used only when the parser's code and the store's root are the ones that
    wrote it."""

    def __init__(self, root: Path, kind: str):
        self.root, self.kind = root, kind

    def _record(self) -> dict | None:
        data = _read(companion_path(cache_path(self.root), self.kind)) if enabled() else None
        ours = isinstance(data, dict) and data.get("code") == code_key() and data.get("root") == str(self.root.resolve())
        return data if ours else None

    def _keep_record(self, **fields) -> None:
        _write(companion_path(cache_path(self.root), self.kind), {"code": code_key(), "root": str(self.root.resolve()), **fields})


class KeptByBytes(_KeptByCode):
    """A value made from a few small files' exact bytes (the agent definitions), kept for the next run: it is
    used when every file's bytes are the same, and made again otherwise. No stat is trusted: the bytes are compared."""

    def get(self, sources: list) -> object | None:
        if any(not isinstance(data, bytes) for _, data in sources):
            return None
        data = self._record()
        return data["value"] if data is not None and data.get("sources") == sources else None

    def keep(self, sources: list, value):
        if enabled() and all(isinstance(data, bytes) for _, data in sources):
            self._keep_record(sources=sources, value=value)
        return value


class KeptParses(_KeptByCode):
    """What small files' exact bytes were read into (the saved tasks' YAML), each kept beside its bytes for the next
    run: a file whose bytes are the same is not parsed again, and a run that reads them all the same imports no
    YAML reader. No stat is trusted: the bytes are compared. ``keep`` writes what this run read, once."""

    def __init__(self, root: Path, kind: str):
        super().__init__(root, kind)
        self.kept: dict | None = None
        self.read: dict[str, tuple[bytes, object]] = {}

    def value(self, name: str, data: bytes, parse):
        """``parse(data)``, or what it gave for these very bytes before."""
        if self.kept is None:
            kept = self._record()
            self.kept = kept["files"] if kept is not None and isinstance(kept.get("files"), dict) else {}
        entry = self.kept.get(name)
        value = entry[1] if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == data else parse(data)
        self.read[name] = (data, value)
        return value

    def keep(self) -> None:
        if enabled() and self.kept is not None and self.read != self.kept:
            self._keep_record(files=self.read)


_code_key: str | None = None
_package_key: str | None = None


def package_key() -> str:
    """A digest of every file of the installed package, by name, size and modification time: what a value made by
    many modules at once (lint's store-wide findings) was made by. Any edit or reinstall changes it; a stat per file
    costs a fraction of reading them all."""
    global _package_key
    if _package_key is None:
        top = Path(__file__).resolve().parent.parent.parent  # rawko_tui/
        digest = key_hash(f"{FORMAT}".encode())
        pending = [str(top)]
        while pending:
            folder = pending.pop()
            with os.scandir(folder) as entries:
                for entry in sorted(entries, key=lambda e: e.name):
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != "__pycache__":
                            pending.append(entry.path)
                    elif not entry.name.endswith((".pyc", ".pyo")):
                        info = entry.stat(follow_symlinks=False)
                        digest.update(f"{entry.path[len(str(top)):]}\0{info.st_size}\0{info.st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
        _package_key = digest.hexdigest()
    return _package_key


_plan_key: str | None = None


def _digest(modules: tuple[str, ...]) -> str:
    """What the code of ``modules`` is: each file's name, size and modification time (as ``package_key``), so any
    edit or reinstall changes it. A stat per module: reading and hashing their source cost every start 3 ms."""
    digest = key_hash(f"{FORMAT}".encode())
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # module paths are named from rawko_tui/core/
    for name in modules:
        info = os.stat(os.path.join(here, name))
        digest.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def code_key() -> str:
    """A digest of the parser's code (``_digest``): a cache from other code is not used."""
    global _code_key
    if _code_key is None:
        _code_key = _digest(_PARSER_MODULES)
    return _code_key


def plan_key() -> str:
    """A digest of the pattern planner's and the regex translator's source."""
    global _plan_key
    if _plan_key is None:
        _plan_key = _digest(_PLAN_MODULES)
    return _plan_key


def trusted(signature: tuple, cached_signature: tuple, ctime_ns: int, read_ns: int) -> bool:
    """Whether a cached parse still describes the file: same stat, and not changed just before it was read."""
    return signature == cached_signature and ctime_ns < read_ns - RACY_NS


# The stat columns of a kept store, in ``MemoryFile.signature`` order, with their array type codes
# (inode and device are unsigned on Linux; times before 1970 are negative).
SIGNATURE_COLUMNS = (("size", "q"), ("mtime_ns", "q"), ("ctime_ns", "q"), ("inode", "Q"), ("device", "Q"))


def signature_column(index: int, signatures):
    """Column ``index`` of ``SIGNATURE_COLUMNS`` for these stat signatures. A value past the column's type (an
    mtime set past the year 2262: ``touch`` can) is kept as the type's bound: the kept and the fresh stat are
    bounded alike, and the change time, which no one can set, still tells a changed file."""
    return _bounded_column(SIGNATURE_COLUMNS[index][1], [signature[index] for signature in signatures])


def _bounded_column(code: str, values):
    from array import array

    try:
        return array(code, values)
    except OverflowError:
        low, high = _BOUNDS[code]
        return array(code, [min(max(value, low), high) for value in values])


_BOUNDS = {"q": (-(2**63), 2**63 - 1), "Q": (0, 2**64 - 1)}
ABSENT = (-1, 0, 0, 0, 0)  # the stat given for a kept file not found now: no file has size -1, so it never matches


def trusted_columns(signatures: list[tuple], kept: dict) -> list[bool]:
    """``trusted`` for every kept file at once: ``signatures[i]`` is the fresh stat of kept file ``i``
    (``ABSENT``: not found now), ``kept`` the stat columns it was parsed with and ``read_ns``, when it was read.

    Each column is compared whole (C array comparisons, no tuple per file); only where some file
    changed are they compared element by element.
    """
    from itertools import repeat
    from operator import and_, eq, lt, sub

    count = len(signatures)
    if any(len(kept[name]) != count for name in (*(name for name, _ in SIGNATURE_COLUMNS), "read_ns")):
        raise ValueError("kept columns of another length than the files they describe")
    same: list[bool] | None = None  # None: every column so far is the same
    fresh_columns = list(zip(*signatures)) if signatures else [()] * len(SIGNATURE_COLUMNS)  # transposed in C, not a loop per column
    for (name, code), column in zip(SIGNATURE_COLUMNS, fresh_columns):
        values = _bounded_column(code, column)
        if values != kept[name]:
            equal = map(eq, values, kept[name])
            same = list(equal) if same is None else list(map(and_, same, equal))
    # the racy-file rule: a file changed less than RACY_NS before it was read may change again unseen
    settled = map(lt, kept["ctime_ns"], map(sub, kept["read_ns"], repeat(RACY_NS)))
    return list(settled) if same is None else list(map(and_, same, settled))


def load(root: Path) -> tuple[dict | list, object]:
    """The memory files as last parsed (``store.columnar``'s columns, in store order) and their texts
    (the text file, read where asked: ``TextFile``); ``([], None)`` when there is no usable cache."""
    path = cache_path(root)
    data = _read(path)
    if not isinstance(data, dict) or data.get("code") != code_key() or data.get("root") != str(root.resolve()):
        return [], None
    columns, texts_name = data.get("columns"), data.get("texts")
    if not isinstance(columns, dict) or not isinstance(texts_name, str) or "/" in texts_name:
        return [], None
    texts = open_kept_bytes(path.with_name(texts_name))
    return (columns, texts) if texts is not None else ([], None)


def save(root: Path, columns: dict, texts: list[bytes]) -> None:
    """The columns, and the texts they point into (written one after another): a text file of a new name first,
    then the columns naming it."""
    path = cache_path(root)
    texts_name = f"{path.stem.replace('store-', 'texts-', 1)}-{time.time_ns():x}-{os.getpid()}.bin"
    if not write_bytes_atomically(path.with_name(texts_name), texts):
        return
    _write(path, {"code": code_key(), "root": str(root.resolve()), "columns": columns, "texts": texts_name})
    for old in _text_files(path):  # a process that opened an older one keeps reading it until it closes
        if old.name != texts_name:
            old.unlink(missing_ok=True)
    try:
        path.with_suffix(".root").write_text(str(root.resolve()), encoding="utf-8", errors="surrogateescape")
    except OSError:
        pass
    prune()


def _text_files(store_cache: Path) -> list[Path]:
    try:
        return list(store_cache.parent.glob(store_cache.stem.replace("store-", "texts-", 1) + "-*.bin"))
    except OSError:
        return []


def _ours(info: os.stat_result) -> bool:
    """Only a regular file this user wrote, that no one else could have changed, is read as kept."""
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and stat.S_ISREG(info.st_mode)


def open_kept_bytes(path: Path):
    """A kept file of bytes (the texts, spec-0005's plans) opened for reads where sliced (``TextFile``; bytes for an
    empty one); None when it is missing or not this user's own."""
    try:
        handle = open(path, "rb")
    except OSError:
        return None
    try:
        info = os.fstat(handle.fileno())
        if not _ours(info):
            handle.close()
            return None
        if info.st_size == 0:
            handle.close()
            return b""
        return TextFile(handle, info.st_size)
    except (OSError, ValueError):
        handle.close()
        return None


class TextFile:
    """The kept texts, each read from the open file when asked for (``os.pread``), not mapped.

    A mapped page a pass over every text touches (lint's, the other profiles')
    stays resident in the process: 170 MB at 100,000 memories. A text read is
    held only while it is used. The open file is read even after a newer
    cache replaces its name, as a mapping was.
    """

    __slots__ = ("_handle", "_size")

    def __init__(self, handle, size: int):
        self._handle, self._size = handle, size

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, span: slice) -> bytes:
        start, stop = max(0, span.start or 0), min(self._size, self._size if span.stop is None else span.stop)
        return os.pread(self._handle.fileno(), stop - start, start) if stop > start else b""

    def head(self, size: int) -> TextFile:
        """The file's first ``size`` bytes, read from the same open file."""
        return TextFile(self._handle, min(size, self._size))

    def find(self, needle: bytes, start: int, end: int) -> int:
        """Where ``needle`` first is within ``[start, end)``, or -1 (as ``bytes.find``)."""
        at = self[start:end].find(needle) if start <= self._size else -1
        return at if at < 0 else start + at


UNOWNED_DAYS = 30  # a cache file that names no store (an older format) is removed after this long unused


def prune() -> list[Path]:
    """Remove the caches of stores that no longer exist (their folder, or its .rawko/, is gone); returns what was removed."""
    removed = []
    folder = cache_dir()
    try:
        caches = list(folder.glob("store-*.pickle"))
    except OSError:
        return removed
    for pickled in caches:
        named = pickled.with_suffix(".root")
        try:
            if named.is_file():
                root = Path(named.read_text(encoding="utf-8", errors="surrogateescape"))
                gone = not (root / ".rawko").is_dir()
            else:
                gone = time.time() - pickled.stat().st_mtime > UNOWNED_DAYS * 86_400
            if gone:
                pickled.unlink(missing_ok=True)
                named.unlink(missing_ok=True)
                # its texts, and every companion (``terms-``, ``lint-``, ``index…-``): each file named with the store's key
                key = pickled.stem.removeprefix("store-")
                for companion in folder.glob(f"*-{key}*"):
                    companion.unlink(missing_ok=True)
                removed.append(pickled)
        except OSError:
            continue  # another process pruned it, or it cannot be read: left for next time
    return removed


def _load_shared(name: str) -> dict:
    """A record kept for any store (``plans``, ``translations``), when this code wrote it."""
    data = _read(cache_dir() / f"{name}.pickle")
    if not isinstance(data, dict) or data.get("code") != plan_key() or not isinstance(data.get(name), dict):
        return {}
    return data[name]


def _save_shared(name: str, records: dict) -> None:
    if len(records) > MAX_PLANS:  # keep the newest (dicts keep insertion order)
        records = dict(list(records.items())[-MAX_PLANS:])
    _write(cache_dir() / f"{name}.pickle", {"code": plan_key(), name: records})


class SharedRecords:
    """Records kept for any store (``plans``, ``translations``: how each pattern reads, the same in every store).

    The kept ones are read on first need, after the first ``direct`` lookups
    are answered by making the record (a run that explains a few memories does
    not read every pattern ever seen); what is made after that is added on ``save``.
    """

    def __init__(self, name: str, direct: int):
        self.name, self.direct = name, direct
        self.stored: dict | None = None
        self.new: dict = {}

    def get(self, key):
        """The kept record for ``key``; None when there is none, or while the first lookups are made directly."""
        if self.stored is None:
            if self.direct > 0:
                self.direct -= 1
                return None
            self.stored = _load_shared(self.name) if enabled() else {}
        return self.stored.get(key)

    def add(self, key, record) -> None:
        """A record made in this run (one made before the kept ones were read is not kept: it is cheap to make again)."""
        if self.stored is not None:
            self.new[key] = record

    def save(self) -> None:
        """Add the records made in this run to the kept ones (after lint or an index build)."""
        if not self.new or not enabled() or self.stored is None:
            return
        self.stored.update(self.new)
        self.new.clear()
        _save_shared(self.name, self.stored)


def load_plans() -> dict:
    """How each whenToUse pattern seen before is read (``patterns.plan_record``), for any store."""
    return _load_shared("plans")


def load_translations() -> dict:
    """How each JavaScript pattern seen before translates (``(source, ignore_case) -> (engine, translated, needles)``), for any store."""
    return _load_shared("translations")


def _read(path: Path) -> object:
    return _read_with(path, pickle.load)


def read_marshalled(path: Path) -> object:
    """A kept file of plain values (``marshal``), when this user wrote it; None otherwise."""
    import marshal

    return _read_with(path, lambda handle: marshal.loads(handle.read()))  # marshal.load reads a file object piece by piece


def read_kept(path: Path, load) -> object:
    """A kept file, when this user wrote it, read by ``load(handle)`` (a file of parts reads one at a time); None
    when it cannot be read."""
    return _read_with(path, load)


def _read_with(path: Path, load) -> object:
    try:
        with open(path, "rb") as handle:
            return load(handle) if _ours(os.fstat(handle.fileno())) else None
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, IndexError, TypeError, ValueError, MemoryError, RecursionError):
        return None


def _write(path: Path, data: dict) -> bool:
    """Write atomically (a temporary file renamed over the old one); failures are ignored (False)."""
    return _write_with(path, lambda out: pickle.dump(data, out, protocol=pickle.HIGHEST_PROTOCOL))


def write_bytes_atomically(path: Path, data: bytes | list[bytes]) -> bool:
    """``data`` (or its parts, one after another) as the whole of the kept file at ``path``, written as every kept
    file is (atomically; False: not written)."""
    return _write_with(path, lambda out: out.writelines(data) if isinstance(data, list) else out.write(data))


def _write_with(path: Path, write) -> bool:
    import tempfile  # only when writing: a warm start never pays for it

    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".store-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                write(out)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except (OSError, RecursionError, pickle.PicklingError, TypeError, ValueError):
        return False  # a cache is an optimisation: a read-only or full disk only makes the next start slower
    return True
