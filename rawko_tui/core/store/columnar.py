"""The parse cache's layout: one column per field of the memory files, each file's parsed view decoded on first use.

A warm start compares the fresh walk's stats with the kept stat columns all at
once (``cache.trusted_columns``) and builds each trusted ``MemoryFile`` from
plain column values: its spec view (the frontmatter's values, the costly part)
stays encoded bytes in one blob until something asks for it, so loading
10,000 memories decodes none of them, and a ranking kept by ``rankcache``
decodes only the few it shows.
"""

from __future__ import annotations

import marshal
import pickle
from _thread import allocate_lock  # threading.Lock itself: a start need not import threading
from array import array
from operator import add

from ..disk import cache
from ..js.values import JsDate
from .reading import MEMORIES_DIR, RAWKO_DIR, LazyText, LoadError, MemoryFile, SpecView, kept_memory_file, spec_extract

_ATTRS = SpecView.__dict__["attrs"]  # the slots a decoding fills, reached past the lazy class's properties
_BODY_LENGTH = SpecView.__dict__["body_length"]
_FRONTMATTER_LINE = SpecView.__dict__["frontmatter_line"]
_FRONTMATTER_TEXT = SpecView.__dict__["_frontmatter_text"]
_DECODING = allocate_lock()  # the app reads a store from worker threads: one decoding per view
# In the app, the views decoded last stay decoded; past this many the oldest is encoded again (its record is still
# in the blob), so a pass over every file (the list's rows, lint, another profile's view) keeps none of their
# fields: decoded, the fields of 100,000 memories held 120 MB for as long as the store was shown. None (a one-shot
# command, which reads each file once or twice and exits): every view stays decoded (``loading.bound_decoded``).
KEPT_DECODED: int | None = None
_decoded_lately: dict[int, tuple[LazySpecView, tuple]] = {}  # id(view) -> (view, its record), oldest first


def decoded_views_bounded() -> bool:
    """Whether decoded views are let go past a bound (the app): a reading that could hold a copy of a view's
    fields then asks the view instead (``reading.SameFieldsView``)."""
    return KEPT_DECODED is not None


class LazySpecView(SpecView):
    """A ``SpecView`` kept in the cache: its fields are decoded when first read, and it then becomes a plain ``SpecView``.

    Until then its ``attrs`` slot holds where the encoded fields are and the file's ``LIFECYCLE_FIELDS`` values,
    kept apart when its first frontmatter alone decides them (else None): ``(blob, start, end, lifecycle)``, a
    plain tuple (a load makes one per file).
    """

    __slots__ = ()  # the same layout as SpecView: decoding switches the object's class to it

    def _decoded(self) -> SpecView:
        with _DECODING:
            pending = _ATTRS.__get__(self)
            if type(self) is LazySpecView:
                try:
                    blob, start, end, _ = pending
                    attrs, body_length, frontmatter_text, frontmatter_line = _decode(blob[start:end])
                except Exception:  # a kept view damaged on disk (sizes are checked at load, contents are not): read its text again
                    again = spec_extract(self._source.value())
                    attrs, body_length, frontmatter_text, frontmatter_line = again.attrs, again.body_length, again.frontmatter_text, again.frontmatter_line
                _ATTRS.__set__(self, attrs)
                _BODY_LENGTH.__set__(self, body_length)
                _FRONTMATTER_TEXT.__set__(self, frontmatter_text)
                _FRONTMATTER_LINE.__set__(self, frontmatter_line)
                self.__class__ = SpecView
                if KEPT_DECODED is not None:
                    _decoded_lately[id(self)] = (self, pending)
                    while len(_decoded_lately) > KEPT_DECODED:
                        _encode_again(*_decoded_lately.pop(next(iter(_decoded_lately))))
        return self

    attrs = property(lambda self: self._decoded().attrs)
    body_length = property(lambda self: self._decoded().body_length)
    frontmatter_line = property(lambda self: self._decoded().frontmatter_line)
    _frontmatter_text = property(lambda self: self._decoded()._frontmatter_text)

    def __reduce_ex__(self, protocol):  # copied or pickled as the plain view it decodes to
        return self._decoded().__reduce_ex__(protocol)

    def raw(self) -> tuple[bytes, dict | None] | None:
        """The encoded fields and the kept lifecycle values while not yet decoded (a cache rewrite copies them
        as they are), else None."""
        with _DECODING:
            if type(self) is not LazySpecView:
                return None
            blob, start, end, lifecycle = _ATTRS.__get__(self)
            return bytes(blob[start:end]), lifecycle

    def kept_lifecycle(self) -> dict | None:
        with _DECODING:
            return _ATTRS.__get__(self)[3] if type(self) is LazySpecView else None


def _encode_again(view: SpecView, record: tuple) -> None:
    """A decoded view back to its kept record (under ``_DECODING``). Its class is switched first: a reader in
    between finds the lazy class, whose every field waits for the lock and decodes the record again."""
    view.__class__ = LazySpecView
    _ATTRS.__set__(view, record)
    _FRONTMATTER_TEXT.__set__(view, None)


_NONE_SET: dict = {}  # the kept lifecycle of every file that sets none of the fields (shared: never changed)


def sets_no_lifecycle(memories: list[MemoryFile]) -> list[bool]:
    """For each file, whether the parse cache says its first frontmatter alone decides its lifecycle fields and it
    sets none of them (its status is in force without a look at it): one lock for the lot, where a listing of
    10,000 statuses asked ``lifecycle_fields`` file by file. False: ask the file."""
    with _DECODING:
        return [
            memory._entries is None and type(memory.spec) is LazySpecView and (kept := _ATTRS.__get__(memory.spec)[3]) is not None and not kept
            for memory in memories
        ]


# A view's fields are kept marshalled (a tenth of unpickling's cost per view) when they are plain values, a
# top-level date aside; else pickled. The first byte says which.
_MARSHAL, _PICKLE = b"m"[0], b"p"[0]


def _encode(spec: SpecView) -> bytes:
    attrs = spec.attrs
    dates = [(key, value.ms) for key, value in attrs.items() if type(value) is JsDate] if type(attrs) is dict else []
    if dates:
        attrs = {key: None if type(value) is JsDate else value for key, value in attrs.items()}  # each restored in its place
    try:
        return bytes((_MARSHAL,)) + marshal.dumps((attrs, spec.body_length, spec.frontmatter_text, spec.frontmatter_line, dates), 4)
    except ValueError:  # a value marshal cannot keep (a date inside a list, ``undefined``): pickled whole
        return bytes((_PICKLE,)) + pickle.dumps((spec.attrs, spec.body_length, spec.frontmatter_text, spec.frontmatter_line), protocol=pickle.HIGHEST_PROTOCOL)


def _decode(record) -> tuple:
    if record[0] == _PICKLE:
        return pickle.loads(record[1:])
    if record[0] != _MARSHAL:
        raise ValueError("a kept view of no known encoding")
    attrs, body_length, frontmatter_text, frontmatter_line, dates = marshal.loads(record[1:])
    for key, ms in dates:
        attrs[key] = JsDate(ms)
    return attrs, body_length, frontmatter_text, frontmatter_line


def _lazy_spec(blob, start: int, end: int, lifecycle: dict | None, text: LazyText) -> LazySpecView:
    view = object.__new__(LazySpecView)
    _ATTRS.__set__(view, (blob, start, end, lifecycle))
    view._body = view._body_at = view._frontmatter_at = None
    view._source = text
    return view


def load(root, scanned: list[tuple]) -> tuple[dict[str, MemoryFile], int, str | None]:
    """The kept files the fresh walk (``_scan_memories``'s tuples) may take from the cache, by name in the
    store's order, how many files the cache holds (0: no usable cache), and the digest of its readings."""
    columns, texts = cache.load(root)
    if not columns:
        return {}, 0, None
    try:
        files, count = _trusted_files(columns, texts, scanned)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError):
        return {}, 0, None  # a cache of the wrong shape counts as none (it is rewritten)
    readings = columns.get("readings")
    return files, count, readings if type(readings) is str else None


def _trusted_files(columns: dict, texts, scanned: list[tuple]) -> tuple[dict[str, MemoryFile], int]:
    names = columns["names"].split("\0") if columns["names"] else []
    count = len(names)
    position = dict(zip(names, range(count)))
    found: list = [None] * count  # per kept file: its scanned tuple
    for entry in scanned:
        at = position.get(entry[0])
        if at is not None:
            found[at] = entry
    ok = cache.trusted_columns([cache.ABSENT if entry is None else entry[3] for entry in found], columns)
    text_start, text_length, spec_at, specs = columns["text_start"], columns["text_length"], columns["spec_at"], columns["specs"]
    single, bom, errors, bad_utf8, read_ns = columns["single"], columns["bom"], columns["errors"], columns["bad_utf8"], columns["read_ns"]
    decided, lifecycle = columns["lifecycle_decided"], columns["lifecycle"]
    if not (len(text_start) == len(text_length) == len(single) == len(bom) == len(decided) == len(spec_at) - 1 == count):
        raise ValueError("kept columns of another length than the files they describe")
    # views and texts are decoded later, where a short blob could not be told from a short file: checked here
    if spec_at[-1] != len(specs) or max(map(add, text_start, text_length), default=0) > len(texts):
        raise ValueError("kept spans past the end of what was kept")
    specs = memoryview(specs)
    files: dict[str, MemoryFile] = {}
    # the columns side by side (zip, not an index into each per file): a load makes 10,000 of these
    rows = zip(range(count), ok, found, text_start, text_length, spec_at, spec_at[1:], decided, read_ns, bom, single)
    for at, trusted, entry, start, length, begin, end, lifecycle_decided, read_at, has_bom, one_entry in rows:
        if not trusted:
            continue
        name, path, is_link, signature = entry
        text = None if start < 0 else LazyText(texts, start, start + length)
        spec = _lazy_spec(specs, begin, end, lifecycle.get(at, _NONE_SET) if lifecycle_decided else None, text) if begin != end else None
        error = errors.get(at) if errors else None
        if error is not None:
            error = LoadError(f"{RAWKO_DIR}/{MEMORIES_DIR}/{name}", *error)
        files[name] = kept_memory_file(name, path, is_link, signature, read_at, text, spec, error, has_bom == 1, bad_utf8.get(at) if bad_utf8 else None, one_entry == 1)
    return files, count


def save(root, files: list[MemoryFile]) -> str:
    """The columns of every file read (in the store's order), and apart every text (one file of UTF-8 bytes, which the next start reads where asked).

    A file never read (past ``STORE_LIMIT``: ``read_ns`` 0) is not kept: whether it is read depends on the others.
    Returns the digest of the kept readings (``cache.columns_digest``), which the cache keeps with them.
    """
    kept = [memory for memory in files if memory.read_ns]
    signatures = [memory.signature for memory in kept]
    columns: dict = {name: cache.signature_column(index, signatures) for index, (name, _) in enumerate(cache.SIGNATURE_COLUMNS)}
    columns["names"] = "\0".join(memory.name for memory in kept)  # no file name holds a NUL
    columns["read_ns"] = array("q", [memory.read_ns for memory in kept])
    columns["readings"] = readings = cache.columns_digest(columns["names"], [*(columns[name] for name, _ in cache.SIGNATURE_COLUMNS), columns["read_ns"]])
    text_start, text_length, chunks, offset = array("q"), array("q"), [], 0
    spec_at, specs, spec_offset = array("q", [0]), [], 0
    decided, lifecycle = bytearray(), {}  # per file: whether its first frontmatter decides its lifecycle fields; those it sets
    errors, bad_utf8 = {}, {}
    for at, memory in enumerate(kept):
        data = memory.text_utf8()
        text_start.append(-1 if data is None else offset)
        text_length.append(0 if data is None else len(data))
        if data is not None:
            chunks.append(data)
            offset += len(data)
        spec = memory.spec
        if spec is not None:
            encoded = spec.raw() if isinstance(spec, LazySpecView) else None
            if encoded is None:
                record, fields = _encode(spec), memory.lifecycle_fields()
            else:
                record, fields = encoded
            specs.append(record)
            spec_offset += len(record)
            decided.append(fields is not None)
            if fields:
                lifecycle[at] = fields
        else:
            decided.append(False)
        spec_at.append(spec_offset)
        if memory.error is not None:
            errors[at] = (memory.error.reason, memory.error.line, memory.error.stage)
        if memory.bad_utf8 is not None:
            bad_utf8[at] = memory.bad_utf8
    columns.update(
        text_start=text_start,
        text_length=text_length,
        spec_at=spec_at,
        specs=b"".join(specs),
        single=bytes(memory.single_entry() for memory in kept),
        bom=bytes(memory.bom for memory in kept),
        lifecycle_decided=bytes(decided),
        lifecycle=lifecycle,
        errors=errors,
        bad_utf8=bad_utf8,
    )
    cache.save(root, columns, chunks)  # written one after another: joined, a store of 256 MB held another copy
    return readings
