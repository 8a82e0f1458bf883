"""Reading a rawko memory store: files, the spec's view of each, and its entry log.

Two views of one file are kept side by side:

* the **spec view** -- what SPEC-0007's loader sees: Deno's ``extract`` of the
  first frontmatter block, the rest of the file (appended entries included)
  as the body;
* the **entry log** -- what the append-only record means: the first entry
  plus every later ``---`` block that is a YAML mapping of memory fields,
  each with the body text that follows it.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import gc
import os
import re
import stat
from _thread import allocate_lock  # threading.Lock itself: a start need not import threading
import time
from pathlib import Path

from ..text.firstuse import OnFirstUse
from ..records import field, record, replace
from ..js.regexp import JS_WHITESPACE
from ..disk.safeio import MEMORY_LIMIT, SETTINGS_LIMIT, linked_part, read_in_store, read_regular
from ..text.safetext import clean_name
from .settings import pinned_now, store_settings  # noqa: F401 - pinned_now: read from here by the commands and the app
from ..js.values import UNDEFINED, js_trim, type_name, utf16_sort_key

RAWKO_DIR = ".rawko"
MEMORIES_DIR = "memories"
AGENTS_DIR = "agents"
CONFIG_FILE = "rawko-tui.yaml"
# the person's curation decisions (``curation.entries``), appended; and the earlier, rewritten format, still read
DECISIONS_FILE = "rawko-tui-decisions.yaml"
LEGACY_DISMISSED_FILE = "rawko-tui-dismissed.yaml"
# Bytes of memories and agent definitions read per store. Each file has its own limit (safeio), but a clone
# can hold any number of them: 25 memories of 55 MB (a .git of 452 KB) exhausted 2 GB. A store of 100,000
# memories is about 100 MB; what comes past this in the store's order is not read, and says so.
STORE_LIMIT = 256 << 20

# Deno std's front-matter extractor as the spec's arbiter runs it (flags "im").
# Python's re differs from JavaScript here in two ways that are handled below:
# "$" in MULTILINE also matches before "\r", U+2028 and U+2029 in JavaScript,
# and "\s" is JavaScript's white-space set.
_JS_LINE_END = r"(?=[\n\r\u2028\u2029]|\Z)"
_JS_LINE_START = r"(?:(?<=[\n\r\u2028\u2029])|\A)"
_JS_S = "[" + re.escape(JS_WHITESPACE) + "]"
_EXTRACT_RE = OnFirstUse(
    rf"\A(\ufeff?---{_JS_LINE_END}([\s\S]+?){_JS_LINE_START}(?:---|\.\.\.){_JS_S}*{_JS_LINE_END}(?:\n)?)"
)

MEMORY_FIELDS = frozenset(
    {
        "title",
        "whenToUse",
        "tags",
        "importance",
        "discoveredAt",
        "discoveredBy",
        "discoveredIn",
        "source",
        "relatedMemories",
        "status",
        "reason",
        "supersededBy",
        "supersedes",
        "expiresAt",
        "updatedAt",
        "correction",
    }
)


class StoreNotFound(Exception):
    """No ``.rawko/`` directory at or above the given place."""


@record(frozen=True)
class LoadError:
    """A file that could not be read as a memory, said in plain language."""

    path: str  # relative to the store root, forward slashes
    reason: str
    line: int | None = None  # 1-based line in the file
    stage: str = "parse"  # read | frontmatter | yaml | shape

    def to_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "reason": self.reason, "stage": self.stage}

    def __str__(self) -> str:
        where = f"{clean_name(self.path)}:{self.line}" if self.line else clean_name(self.path)
        return f"{where}: {self.reason}"


class LazyText:
    """A file's text kept as UTF-8 bytes in the parse cache's text file, read and decoded when first asked for.

    A warm start then reads only the parsed fields: at 100,000 memories the
    texts are most of the cache, and a ranking needs few of them.
    """

    __slots__ = ("_data", "_end", "_start", "_value")

    def __init__(self, data, start: int, end: int):
        self._data, self._start, self._end, self._value = data, start, end, None

    def value(self) -> str:
        value = self._value
        if value is None:
            value = self._value = self._data[self._start : self._end].decode("utf-8", "surrogatepass")
            _decoded_text(self, len(value))
        return value

    def contains(self, needle: str) -> bool:
        """Whether the text holds ``needle``; an ASCII one is looked for in the bytes, so a pass over every
        file keeps no decoded text (in UTF-8 an ASCII byte is never part of another character)."""
        if self._value is None and needle.isascii():
            return self._data.find(needle.encode("ascii"), self._start, self._end) != -1
        return needle in self.value()

    def utf8(self) -> bytes:
        """The bytes as kept (for the next cache, without decoding)."""
        return self._data[self._start : self._end] if self._value is None else self._value.encode("utf-8", "surrogatepass")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyText):
            other = other.value()
        return self.value() == other if isinstance(other, str) else NotImplemented

    __hash__ = None


class HeldText:
    """A text read now, held as it is: what a fresh view cuts its body from where asked (as a cached file's view
    does from its ``LazyText``), so a file's body is not held twice (``preview --at`` of a store of 256 MB held
    every memory's text and, apart, its body)."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def value(self) -> str:
        return self._value


def _body_view(attrs: object, text: str, body_at: int, frontmatter: str, first_line: int) -> SpecView:
    return SpecView(attrs=attrs, body=None, frontmatter_text=frontmatter, frontmatter_line=first_line, source=HeldText(text), body_length=len(text) - body_at, body_at=body_at)


# In the app, the texts decoded last stay decoded, up to this many characters; past it the oldest are let go (read
# again when asked): a pass that formats every injected memory's text (a prompt, another profile's) keeps none of
# them. None (a one-shot command): every text stays decoded (``loading.bound_decoded``).
KEPT_TEXT_CHARACTERS: int | None = None
_texts_lately: dict[int, tuple[LazyText, int]] = {}  # id(text) -> (text, its length), oldest first
_texts_kept = 0
_TEXTS = allocate_lock()


def _decoded_text(text: LazyText, length: int) -> None:
    global _texts_kept
    if KEPT_TEXT_CHARACTERS is None:
        return
    with _TEXTS:
        earlier = _texts_lately.pop(id(text), None)
        _texts_kept += length - (earlier[1] if earlier is not None else 0)
        _texts_lately[id(text)] = (text, length)
        while _texts_kept > KEPT_TEXT_CHARACTERS and len(_texts_lately) > 1:
            oldest, oldest_length = _texts_lately.pop(next(iter(_texts_lately)))
            oldest._value = None
            _texts_kept -= oldest_length


class SpecView:
    """Deno ``extract``: the first frontmatter block parsed as YAML, the rest as body.

    The body is cut from the file's text when asked for, not held twice (the
    text a ``LazyText`` for a file from the cache, a ``HeldText`` for one read
    now); for a file from the cache (or a loader's reading of it) so is the
    frontmatter text: ``body_at`` is where the body starts (None: it is the
    text's last ``body_length`` characters), ``frontmatter_at`` the
    frontmatter's span.
    """

    __slots__ = ("_body", "_body_at", "_frontmatter_at", "_frontmatter_text", "_source", "attrs", "body_length", "frontmatter_line")

    def __init__(
        self,
        attrs: object,
        body: str | None,
        frontmatter_text: str | None,
        frontmatter_line: int,
        source: LazyText | None = None,
        body_length: int = 0,
        body_at: int | None = None,
        frontmatter_at: tuple[int, int] | None = None,
    ):
        self.attrs = attrs  # whatever the YAML held: a dict for a proper memory
        self.frontmatter_line = frontmatter_line  # 1-based line where the frontmatter text starts
        self._body, self._source, self._body_at = body, source, body_at
        self._frontmatter_text, self._frontmatter_at = frontmatter_text, frontmatter_at
        self.body_length = len(body) if body is not None else body_length

    @property
    def body(self) -> str:
        if self._body is not None:
            return self._body
        if not self.body_length:
            return ""
        text = self._source.value()
        start = len(text) - self.body_length if self._body_at is None else self._body_at
        return text[start : start + self.body_length]

    @property
    def frontmatter_text(self) -> str:
        if self._frontmatter_text is not None:
            return self._frontmatter_text
        start, end = self._frontmatter_at
        return self._source.value()[start:end]

    def fields_named(self, names: tuple[str, ...]) -> dict:
        """The frontmatter's values of ``names``, those it sets (none when it is not a mapping)."""
        attrs = self.attrs
        return {name: attrs[name] for name in names if name in attrs} if isinstance(attrs, dict) else {}

    def kept_lifecycle(self) -> dict | None:
        """What the parse cache kept of the file's fold: its ``LIFECYCLE_FIELDS`` values (None: nothing kept)."""
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SpecView):
            return NotImplemented
        return (self.attrs, self.frontmatter_text, self.frontmatter_line, self.body) == (other.attrs, other.frontmatter_text, other.frontmatter_line, other.body)

    __hash__ = None

    def __repr__(self) -> str:
        return f"SpecView(attrs={self.attrs!r}, body_length={self.body_length}, frontmatter_line={self.frontmatter_line})"


# The fields that say whether a memory is still in force (``store.fold.status_of``): the parse cache keeps
# each file's values of them beside its encoded view, so listing every memory's status decodes no view.
LIFECYCLE_FIELDS = ("status", "reason", "supersededBy")


_SPEC_ATTRS = SpecView.__dict__["attrs"]  # the slot, reached past a subclass's property


class SameFieldsView(SpecView):
    """A loader's reading of a file whose fields are those of the spec's reading, or those with a few of its own
    (rawko-sdk's, mostly: a date it reads as text): they are asked of that view when read, not held twice. A view
    from the parse cache decodes them then and lets them go again (``columnar``), so another profile's view of
    every file holds none of their fields."""

    __slots__ = ()

    @property
    def attrs(self):
        spec, order, own = _SPEC_ATTRS.__get__(self)
        attrs = spec.attrs
        return attrs if order is None else {key: own[key] if key in own else attrs[key] for key in order}

    def __reduce_ex__(self, protocol):  # copied or pickled as the plain view it reads as
        return SpecView, (self.attrs, self._body, self._frontmatter_text, self.frontmatter_line, self._source, self.body_length, self._body_at, self._frontmatter_at)

    def kept_lifecycle(self) -> dict | None:
        """The spec reading's kept lifecycle values where this reading's are the same: the same file and entries,
        and the same lifecycle fields (none of its own values is one, and it has the very ones the spec's has)."""
        spec, order, own = _SPEC_ATTRS.__get__(self)
        kept = spec.kept_lifecycle()
        if kept is None or order is None:
            return kept
        if any(name in own for name in LIFECYCLE_FIELDS) or {name for name in LIFECYCLE_FIELDS if name in order} != kept.keys():
            return None
        return kept


def same_fields_view(spec: SpecView, own: tuple | None, source: LazyText, body_length: int, body_at: int, frontmatter_at: tuple[int, int]) -> SpecView:
    """A view with ``spec``'s fields (``own``: the keys in order and the values that differ, else None), its
    frontmatter (from line 2) and body where given in ``source``."""
    view = object.__new__(SameFieldsView)
    _SPEC_ATTRS.__set__(view, (spec, None, None) if own is None else (spec, *own))
    view.frontmatter_line, view._body, view._source, view._body_at = 2, None, source, body_at
    view._frontmatter_text, view._frontmatter_at, view.body_length = None, frontmatter_at, body_length
    return view


@record(frozen=True)
class Entry:
    """One entry of the append-only log: a frontmatter block (or none) and its body."""

    index: int
    line: int  # 1-based line of the opening delimiter (or of the body for a bare entry)
    frontmatter: dict | None
    body: str


@record(frozen=True)
class SuspectBlock:
    """A ``---`` block that looks like an appended entry but is not valid YAML (a torn write?).

    ``cut``: not a torn block but the line from which the file is not read as
    entries (past ``MAX_ENTRY_BLOCKS``).
    """

    line: int
    reason: str
    cut: bool = False


@record(repr=False, slots=True)
class MemoryFile:
    location: Path | str  # where the file is; ``path`` gives it as a Path (made on first use: a scan makes thousands)
    rel_path: str  # relative to the store root, forward slashes: ".rawko/memories/x.md"
    name: str  # path inside memories/, forward slashes: "x.md" or "auth/x.md"
    top_level: bool
    symlink: bool = False
    size: int = 0
    mtime_ns: int = 0
    signature: tuple = ()  # (size, mtime, ctime, inode, device) when read: what the cache checks
    read_ns: int = 0  # when the bytes were read (a file changed just before is not trusted from the cache)
    _text: str | LazyText | None = None  # ``text``: a file from the cache decodes it when first asked for
    spec: SpecView | None = None
    error: LoadError | None = None
    _entries: list[Entry] | None = None  # the entry log, split on first use
    _suspects: list[SuspectBlock] | None = None
    bom: bool = False
    bad_utf8: tuple[int, int] | None = None  # (byte offset, line) of the first byte that is not UTF-8 (read as U+FFFD)
    inactive: object = None  # in an effective store: the fold's Status (retired, superseded)
    _facts: object = None  # the arbiter's task-independent facts, computed once
    _single: bool | None = None  # ``single_entry()``, once known (kept in the parse cache: no text needed for it)

    def __repr__(self) -> str:  # the text can be megabytes: keep reprs (and logs) short
        return f"MemoryFile({self.rel_path!r}, {self.size} bytes)"

    @property
    def text(self) -> str | None:
        text = self._text
        return text.value() if isinstance(text, LazyText) else text

    @text.setter
    def text(self, value: str | None) -> None:
        self._text = value

    def text_contains(self, needle: str) -> bool:
        """``needle in (self.text or "")``, without decoding (and keeping) a cached file's text to learn it."""
        text = self._text
        if isinstance(text, LazyText):
            return text.contains(needle)
        return needle in (text or "")

    def text_utf8(self) -> bytes | None:
        """The text as UTF-8 (a file from the cache gives its kept bytes without decoding them)."""
        text = self._text
        if isinstance(text, LazyText):
            return text.utf8()
        return None if text is None else text.encode("utf-8", "surrogatepass")

    @property
    def path(self) -> Path:
        if not isinstance(self.location, Path):
            self.location = Path(self.location)
        return self.location

    @property
    def spec_loadable(self) -> bool:
        """Whether SPEC-0007's loader lists this file at all (top level, regular file, ``.md``)."""
        return self.top_level and not self.symlink and self.name.endswith(".md")

    @property
    def stem(self) -> str:
        return self.name.rsplit("/", 1)[-1][: -len(".md")] if self.name.lower().endswith(".md") else self.name

    @property
    def entries(self) -> list[Entry]:
        """The append-only log: the first entry and every appended one (split on first use)."""
        if self._entries is None:
            self._entries, self._suspects = split_entries(self.text, self.spec) if self.text is not None else ([], [])
        return self._entries

    @property
    def suspect_blocks(self) -> list[SuspectBlock]:
        """``---`` blocks that look like appended entries but do not parse (torn writes?)."""
        if self._suspects is None:
            self.entries  # noqa: B018 - splitting finds them
        suspects = self._suspects
        return suspects[:-1] if suspects and suspects[-1].cut else suspects

    @property
    def entries_cut(self) -> SuspectBlock | None:
        """Where the entry log stops when the file has more than ``MAX_ENTRY_BLOCKS`` of them (None: it holds all)."""
        if self._suspects is None:
            self.entries  # noqa: B018 - splitting finds it
        return self._suspects[-1] if self._suspects and self._suspects[-1].cut else None

    @property
    def refused_by_limit(self) -> bool:
        """Its frontmatter is one rawko-tui declines to expand (an alias bomb, nesting deeper than 100 levels, a
        million values) though js-yaml would read it: what a real arbiter makes of it is not modelled."""
        if self.error is None or self.error.stage != "yaml":
            return False
        from ..js.jsyaml import is_refusal  # the YAML readers are imported only by a run that parses YAML

        return is_refusal(self.error.reason)

    @property
    def attrs(self) -> dict:
        """The spec's frontmatter when it is a mapping, else empty."""
        return self.spec.attrs if self.spec is not None and isinstance(self.spec.attrs, dict) else {}

    def single_entry(self) -> bool:
        """Whether the file surely holds one entry: no line after its frontmatter starts with ``---`` (``split_entries``'s own test)."""
        if self._single is None:
            if self._text is None or self.spec is None or not isinstance(self.spec.attrs, dict):
                self._single = False
            else:
                text = self.text
                self._single = "\n---" not in text[len(text) - self.spec.body_length - 1 :]
        return self._single

    def appended_entries_cannot_set(self, fields: tuple[str, ...]) -> bool:
        """Whether no appended entry can set any of ``fields``: after the first frontmatter, no field name
        (nor a backslash, which a quoted key could spell one with) appears at all.  Sure, without splitting."""
        if self.text is None or self.spec is None or not isinstance(self.spec.attrs, dict):
            return False
        text = self.text
        rest = text[len(text) - self.spec.body_length :]
        return "\\" not in rest and not any(name in rest for name in fields)

    def lifecycle_fields(self) -> dict | None:
        """The fold's ``LIFECYCLE_FIELDS`` values when the first frontmatter alone decides them (no appended entry
        can set one): from the parse cache without decoding the view, else without splitting the entries.
        None: only the fold of the entries tells. The values may be the cache's own: read them, never change them."""
        if self._entries is not None or self.spec is None:
            return None
        kept = self.spec.kept_lifecycle()
        if kept is not None:
            return kept
        if self.single_entry() or self.appended_entries_cannot_set(LIFECYCLE_FIELDS):
            return self.spec.fields_named(LIFECYCLE_FIELDS)
        return None

    @property
    def differs_from_entries(self) -> bool:
        """Whether the spec's view (first frontmatter, all the rest as body) hides appended entries."""
        return len(self.entries) > 1

    def entry_offsets(self) -> list[int]:
        """Byte offsets (in the UTF-8 file) where each entry starts."""
        if self.text is None:
            return []
        starts = [0]
        for line in self.text.split("\n"):
            starts.append(starts[-1] + len(line.encode("utf-8", "surrogatepass")) + 1)
        bom = 3 if self.bom else 0  # the decoded text lost it; the bytes still have it
        return [starts[min(e.line - 1, len(starts) - 1)] + bom for e in self.entries]

    def effective(self) -> tuple[dict, dict[str, int]]:
        """The fold of all entries: later entries override fields. Returns (fields, field -> entry index)."""
        if self._entries is None and self.single_entry():
            # nothing appended: the fold is the first frontmatter (no need to split 10,000 files for it)
            return dict(self.spec.attrs), dict.fromkeys(self.spec.attrs, 0)
        fields: dict = {}
        origin: dict[str, int] = {}
        for entry in self.entries:
            for key, value in (entry.frontmatter or {}).items():
                fields[key] = value
                origin[key] = entry.index
        return fields, origin


@record
class AgentDefinition:
    name: str
    path: str
    attrs: dict
    error: LoadError | None = None

    @property
    def memory_config(self) -> dict:
        memory = self.attrs.get("memory")
        return memory if isinstance(memory, dict) else {}


@record(repr=False)
class Store:
    root: Path
    files: list[MemoryFile]
    agents: dict[str, AgentDefinition]
    config: dict
    view: str = "spec"  # "effective": the fold of each file's entries (curation.effective_store)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name in memories/, why) for entries passed over
    _indexes: dict = field(default_factory=dict, repr=False, compare=False)  # rank indexes and profile views, built on first use
    directory_order: list[str] | None = None  # top-level names as the folder lists them (readdir); None: not known (a git revision)
    file_stats: list[tuple[str, int, int]] | None = None  # (path, size, mtime) of every file under memories/ as scanned (``watch``)
    # the digest of the parse cache's readings when these files are exactly the ones it keeps (``cache.readings_digest``)
    kept_readings: str | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r}, {len(self.files)} files)"

    @property
    def memories_dir(self) -> Path:
        return self.root / RAWKO_DIR / MEMORIES_DIR

    def with_own_indexes(self) -> Store:
        """The same store whose indexes are a copy: what it already holds is used, what is built on the copy
        (another profile's view, its index) is dropped with it (at 100,000 memories, hundreds of megabytes)."""
        return replace(self, _indexes=dict(self._indexes))

    @functools.cached_property
    def errors(self) -> list[LoadError]:
        """Every file's load error (a store's files are never changed in place)."""
        return [f.error for f in self.files if f.error is not None]

    def file(self, name_or_path: str) -> MemoryFile | None:
        wanted = name_or_path.replace(os.sep, "/")
        for f in self.files:
            if wanted in (f.rel_path, f.name, os.fspath(f.location)) or wanted.endswith("/" + f.rel_path):
                return f
        return None


# --------------------------------------------------------------------------
# Finding the store
# --------------------------------------------------------------------------


def budget_for(store: Store, agent: str) -> int | None:
    """An agent's token budget: ``memory.tokenBudget`` in its file, else ``budgets:`` in rawko-tui.yaml."""
    if agent in store.agents:
        value = store.agents[agent].memory_config.get("tokenBudget")
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    budgets = store.config.get("budgets")
    value = budgets.get(agent) if isinstance(budgets, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def find_store_root(path: str | os.PathLike | None = None) -> Path:
    """The directory holding ``.rawko/``: ``path`` itself, or, with no path, the nearest above the cwd."""
    if path is not None:
        candidate = Path(path).expanduser()
        if candidate.name == RAWKO_DIR and candidate.is_dir():
            return candidate.parent.resolve()
        if (candidate / RAWKO_DIR).is_dir():
            return candidate.resolve()
        if not candidate.exists():
            raise StoreNotFound(f"{candidate} does not exist")
        raise StoreNotFound(f"no {RAWKO_DIR}/ directory in {candidate}")
    here = Path.cwd().resolve()
    for directory in (here, *here.parents):
        if (directory / RAWKO_DIR).is_dir():
            return directory
    raise StoreNotFound(f"no {RAWKO_DIR}/ directory in {here} or any folder above it")


def store_root_of(memory_path: str) -> Path | None:
    """The store a memory's path names (``/work/proj/.rawko/memories/x.md`` -> ``/work/proj``), from anywhere; None
    when the path goes through no ``.rawko/memories/`` folder that exists."""
    parts = Path(os.path.abspath(os.path.expanduser(memory_path))).parts
    for at in range(len(parts) - 2, 0, -1):  # the innermost: a store's memory may mention another path above it
        if parts[at] == RAWKO_DIR and parts[at + 1] == MEMORIES_DIR:
            root = Path(*parts[:at])
            if (root / RAWKO_DIR / MEMORIES_DIR).is_dir():
                return root.resolve()
    return None


# --------------------------------------------------------------------------
# Reading files
# --------------------------------------------------------------------------


def decode_like_deno(data: bytes) -> str:
    """``Deno.readTextFile``: UTF-8 with a leading BOM dropped and bad bytes as U+FFFD."""
    return data.decode("utf-8-sig", errors="replace")


def _decode(data: bytes) -> tuple[str, tuple[int, int] | None]:
    """``decode_like_deno``, and (byte offset, line) of the first byte that is not UTF-8 (None: all good)."""
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        offset = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        return data.decode("utf-8-sig", errors="replace"), (offset, data.count(b"\n", 0, offset) + 1)


_LINE_BREAKS = "\n\r\u2028\u2029"
_JS_SPACE_RUN = OnFirstUse(_JS_S + "*")
# the regex's closing line on its own, searched for in C where a file holds more candidates than are worth a look each
_CLOSING_LINE = OnFirstUse(rf"(?<=[\n\r\u2028\u2029])(?:---|\.\.\.){_JS_S}*{_JS_LINE_END}")
CANDIDATES_LOOKED_AT = 64


def extract_span(text: str) -> tuple[int, int, int] | None:
    """Where Deno std's ``extract`` regex (``_EXTRACT_RE``) matches: (start, end) of the frontmatter it captures and
    the end of the whole match; None where it does not match.

    The regex tries every character after the opening line for the closing one (a lazy ``[\\s\\S]+?``): 2.7 s
    for a file of 63 MB. This looks at the ``---`` and ``...`` the file holds, nearest first, with the regex's
    rules: the closing delimiter starts a line (after a JavaScript line break, at least one character into the
    frontmatter); JavaScript white space may follow it (line breaks included), up to a line break or the end,
    the regex giving back white space until one; and one ``\\n`` there is part of the match. Past
    ``CANDIDATES_LOOKED_AT`` delimiters that close nothing (a file of millions of them), the closing line alone is
    searched for by a regex, which runs in C and tries no frontmatter lazily: never slower than the whole regex.
    """
    start = 4 if text.startswith("\ufeff---") else 3 if text.startswith("---") else -1
    length = len(text)
    if start < 0 or (start < length and text[start] not in _LINE_BREAKS):
        return None
    at, dash, dots = start + 1, -1, -1
    for _ in range(CANDIDATES_LOOKED_AT):
        if dash < at:
            dash = text.find("---", at)
            dash = dash if dash >= 0 else length
        if dots < at:
            dots = text.find("...", at)
            dots = dots if dots >= 0 else length
        close = min(dash, dots)
        if close >= length:
            return None
        at = close + 1
        if text[close - 1] not in _LINE_BREAKS:
            continue
        run_end = _JS_SPACE_RUN.match(text, close + 3).end()
        if run_end == length:
            return start, close, length
        # white space up to a character that is not: the regex gives it back to the last line break in it
        line_break = max(text.rfind(character, close + 3, run_end) for character in _LINE_BREAKS)
        if line_break >= 0:
            return start, close, line_break + (text[line_break] == "\n")
    closing = _CLOSING_LINE.search(text, at)  # its look-behind sees the text before ``at``
    if closing is None:
        return None
    end = closing.end()
    return start, closing.start(), end + (text[end : end + 1] == "\n")


def _frontmatter_of(text: str) -> tuple[int, str, int] | None:
    """Where Deno std's ``extract`` match ends, the trimmed frontmatter and its first line, or None without frontmatter."""
    span = extract_span(text)
    if span is None:
        return None
    start, close, end = span
    raw = text[start:close]
    leading = raw[: len(raw) - len(raw.lstrip(JS_WHITESPACE))]
    return end, js_trim(raw), 1 + _count_lines(text[:start]) + _count_lines(leading)


def spec_extract(text: str) -> SpecView:
    """Deno std's YAML ``extract`` as SPEC-0007 calls it. Raises LoadError-like ValueError."""
    found = _frontmatter_of(text)
    if found is None:
        raise _ExtractError("no frontmatter: the file must start with a line '---' and have a closing '---'", 1)
    end, frontmatter, first_line = found
    from ..js.jsyaml import YamlError, is_refusal, load_yaml, tab_message  # imported by a run that parses: a warm one reads the cache

    try:
        attrs = load_yaml(frontmatter)
    except YamlError as exc:
        # libyaml puts an end-of-input error past the last line; the last line is where to look
        line = first_line + min(exc.line, frontmatter.count("\n")) if exc.line is not None else first_line
        said = "frontmatter not read" if is_refusal(exc.message) else "frontmatter is not valid YAML"  # a limit: valid, but not read
        message = tab_message(line, exc.column + 1) if exc.tab else exc.message  # the file's line, not the frontmatter's
        raise _ExtractError(f"{said}: {message}", line) from None
    return _body_view(attrs, text, end, frontmatter, first_line)


def shared_reading(memory: "MemoryFile") -> SpecView | None:
    """The spec reading of a file whose frontmatter rawko-tui refuses to expand (``refused_by_limit``), its
    aliases shared as js-yaml shares them (``load_yaml_shared``); None for any other file or when it cannot
    be read that way. Only a loader that can decide the file without walking the values uses it."""
    text = memory.text
    found = _frontmatter_of(text) if memory.refused_by_limit and text is not None else None
    if found is None:
        return None
    end, frontmatter, first_line = found
    from ..js.jsyaml import YamlError, load_yaml_shared

    try:
        attrs = load_yaml_shared(frontmatter)
    except YamlError:
        return None
    return _body_view(attrs, text, end, frontmatter, first_line)


class _ExtractError(ValueError):
    def __init__(self, reason: str, line: int | None):
        super().__init__(reason)
        self.reason = reason
        self.line = line


def _count_lines(text: str) -> int:
    return text.count("\n")


# --------------------------------------------------------------------------
# The entry log
# --------------------------------------------------------------------------

_FENCE_RE = OnFirstUse(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_DELIMITER_RE = OnFirstUse(r"^---[ \t]*\r?$")
_CLOSER_RE = OnFirstUse(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
_FIELD_LINE_RE = OnFirstUse(r"^(?:" + "|".join(sorted(MEMORY_FIELDS)) + r")\s*:", re.MULTILINE)
# The only lines the split looks at: a fence (``` or ~~~) and a delimiter (---); every other line is body text.
_MARK_LINE_RE = OnFirstUse(r"^(?: {0,3}(?:`{3,}|~{3,})[^\n]*|---[ \t]*\r?)$", re.MULTILINE)
_MAX_FRONTMATTER_LINES = 400
# Blocks read as YAML per file (entries, torn blocks, YAML blocks that are not entries), and characters of
# YAML in them. A memory appended to every day for thirty years has about 10,000 entries of a few hundred
# characters; a file past either is not a record anyone keeps, and reading on would hold millions of entries
# (2,400,000 tiny ones in a 66 MB file took gigabytes) or of values (each a Python object of 50 bytes or more).
MAX_ENTRY_BLOCKS = 10_000
MAX_ENTRY_YAML = 8 << 20
ENTRIES_CUT = (
    f"past rawko-tui's limit for appended entries ({MAX_ENTRY_BLOCKS:,} of them, {MAX_ENTRY_YAML:,} characters of their frontmatter): "
    "from this line on the file is not read as entries"
)


def split_entries(text: str, spec: SpecView | None) -> tuple[list[Entry], list[SuspectBlock]]:
    """Split a memory file into its append-only entries.

    A later entry starts at a ``---`` line outside fenced code, after a blank
    line, directly followed by YAML up to a closing ``---``/``...`` that parses
    as a mapping with at least one memory field.  Anything else (a horizontal
    rule, a ``---`` inside a code fence, a setext underline) is body text.

    Only fence and delimiter lines are visited (found by one regex), and bodies
    are cut from the text, so memory is proportional to the entries, not to the
    lines. Past ``MAX_ENTRY_BLOCKS`` blocks read as YAML, or ``MAX_ENTRY_YAML``
    characters of them, the split stops: the rest of the file is not read as
    entries, and a ``SuspectBlock`` with ``cut=True``, last in the list, says
    from which line (``MemoryFile.entries_cut``).
    """
    entries: list[Entry] = []
    suspects: list[SuspectBlock] = []
    if spec is not None and isinstance(spec.attrs, dict):
        consumed = len(text) - spec.body_length
        if text[consumed - 1 : consumed] == "\n":
            position, line = consumed, text.count("\n", 0, consumed)
        else:  # the closing line ends in another line break (\r, U+2028): the entries start on the next line
            newline = text.find("\n", consumed)
            position, line = (len(text) + 1, 0) if newline < 0 else (newline + 1, text.count("\n", 0, newline + 1))
        entries.append(Entry(0, 1, spec.attrs, ""))
        searched = text[consumed - 1 :]
    else:
        position, line = 0, 0
        entries.append(Entry(0, 1, None, ""))
        searched = "\n" + text
    if "\n---" not in searched:
        # no line from `position` on begins with "---": one entry, the whole body
        return [_with_body(entries[0], text, position, len(text))], []
    body_start = position
    fence: tuple[str, int] | None = None
    blocks = read = 0  # blocks read as YAML, and their characters
    counted_to = position  # `line` is the number (0-based) of the line starting at `counted_to`
    while True:
        mark = _MARK_LINE_RE.search(text, position)
        if mark is None:
            break
        at = mark.start()
        line += text.count("\n", counted_to, at)
        counted_to = at
        content = mark.group()
        position = mark.end() + 1
        if not content.startswith("---"):
            fence_match = _FENCE_RE.match(content)
            marker = fence_match.group(1)
            if fence is None:
                fence = (marker[0], len(marker))
            elif marker[0] == fence[0] and len(marker) >= fence[1] and not fence_match.group(2).strip():
                fence = None
            continue
        if fence is not None or not (at == 0 or _after_blank_or_delimiter(text, at)):
            continue
        found = _entry_block_at(text, at, mark.end(), MAX_ENTRY_YAML - read if blocks < MAX_ENTRY_BLOCKS else -1)
        if found is None:
            continue
        if found is _PAST_LIMIT:
            suspects.append(SuspectBlock(line + 1, ENTRIES_CUT, cut=True))
            entries[-1] = _with_body(entries[-1], text, body_start, at - 1)
            return entries, suspects
        kind, value, size = found
        blocks += 1
        read += size
        if kind == "suspect":
            if at > 0:  # the file's own first block is not an appended entry: a broken file, which lint reports
                suspects.append(SuspectBlock(line + 1, value))
        elif kind == "entry":
            frontmatter, close_end = value
            entries[-1] = _with_body(entries[-1], text, body_start, at - 1)
            entries.append(Entry(len(entries), line + 1, frontmatter, ""))
            body_start = position = close_end + 1  # the line after the closing one (past the end: none)
    entries[-1] = _with_body(entries[-1], text, body_start, len(text))
    if entries[0].frontmatter is None and not entries[0].body.strip(JS_WHITESPACE) and len(entries) > 1:
        entries = [Entry(k, e.line, e.frontmatter, e.body) for k, e in enumerate(entries[1:])]
    return entries, suspects


_PAST_LIMIT = object()


def _line_at(text: str, start: int) -> str:
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def _after_blank_or_delimiter(text: str, at: int) -> bool:
    """Whether the line before the one starting at ``at`` is blank or a delimiter."""
    previous = text.rfind("\n", 0, at - 1) + 1
    before = text[previous : at - 1]
    return not before.strip() or _DELIMITER_RE.match(before) is not None


NEVER_CLOSED = "an appended entry's frontmatter is never closed with '---' (a torn write?)"


def _entry_block_at(text: str, at: int, end: int, room: int):
    """What the ``---`` line spanning ``text[at:end]`` starts: None (body text, nothing read), or (kind, value,
    characters of YAML read): ("entry", (its fields, where its closing line ends)), ("suspect", why: a torn
    block), ("text", None: YAML that is not an entry). ``_PAST_LIMIT`` when it would read YAML past ``room``
    characters (negative: no block may be read). The block is at most ``_MAX_FRONTMATTER_LINES`` lines."""
    first = end + 1  # the line after the delimiter
    if first > len(text):
        return None
    next_line = _line_at(text, first)
    if not next_line.strip() or _DELIMITER_RE.match(next_line):
        return None
    if room < 0:
        return _PAST_LIMIT
    # every delimiter is also a closer, so the searches from successive delimiters never overlap: linear in all
    closer = _CLOSER_RE.search(text, first)
    if closer is not None and text.count("\n", first, closer.start()) < _MAX_FRONTMATTER_LINES:
        block = text[first : closer.start() - 1]
        if len(block) > room:
            return _PAST_LIMIT
        from ..js.jsyaml import YamlError, load_yaml

        try:
            value = load_yaml(block)
        except YamlError as exc:
            if _FIELD_LINE_RE.search(block):
                return ("suspect", f"looks like an appended entry but its YAML does not parse: {exc.message}", len(block))
            return ("text", None, len(block))
        if isinstance(value, dict) and MEMORY_FIELDS.intersection(value):
            return ("entry", (value, closer.end()), len(block))
        return ("text", None, len(block))
    head_end = first
    for _ in range(5):
        head_end = text.find("\n", head_end) + 1
        if head_end == 0:
            head_end = len(text)
            break
    if _FIELD_LINE_RE.search(text, first, head_end):
        return ("suspect", NEVER_CLOSED, 0)
    return None


def _with_body(entry: Entry, text: str, start: int, end: int) -> Entry:
    """The entry with the lines of ``text[start:end]`` as its body.

    The SPEC-0005 separator ("\n\n---\n\n") before an appended entry belongs to neither body: blank and
    delimiter lines at its end and blank lines at its start are left out.
    """
    if start >= end:
        return Entry(entry.index, entry.line, entry.frontmatter, "")
    while True:
        cut = text.rfind("\n", start, end)
        last = text[cut + 1 if cut >= 0 else start : end]
        if last.strip(JS_WHITESPACE) and not _DELIMITER_RE.match(last):  # blank as JavaScript's trim sees it
            break
        if cut < 0:
            return Entry(entry.index, entry.line, entry.frontmatter, "")
        end = cut
    while True:
        cut = text.find("\n", start, end)
        if cut < 0 or text[start:cut].strip(JS_WHITESPACE):  # a line of U+001F is text to JavaScript, blank to Python
            break
        start = cut + 1
    return Entry(entry.index, entry.line, entry.frontmatter, text[start:end])


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


def read_memory_file(memory: MemoryFile, real_dir: str | None = None) -> None:
    """Fill in text, spec view, entries and error. Never raises for a bad file.

    ``real_dir`` is the memories folder's resolved path: the file opened must be
    inside it by the name read (a folder swapped for a link during the scan is caught).
    """
    memory.read_ns = time.time_ns()
    try:
        # not memory.path: no Path object per file
        data = read_regular(memory.location, MEMORY_LIMIT, None if real_dir is None else os.path.join(real_dir, memory.name))
    except OSError as exc:
        memory.error = LoadError(memory.rel_path, f"cannot be read: {exc.strerror or exc}", stage="read")
        return
    parse_memory_bytes(memory, data)


def memory_from_bytes(root, name: str, data: bytes) -> MemoryFile:
    """The memory ``.rawko/memories/<name>`` of the store at ``root`` as it would be holding ``data`` (nothing is read or written)."""
    memory = MemoryFile(location=Path(root) / ".rawko" / "memories" / name, rel_path=f".rawko/memories/{name}", name=name, top_level="/" not in name, size=len(data))
    parse_memory_bytes(memory, data)
    return memory


def parse_memory_bytes(memory: MemoryFile, data: bytes) -> None:
    """Parse a memory file's bytes (from disk or from a git blob) into its two views."""
    text, memory.bad_utf8 = _decode(data)
    memory.text = text
    memory.bom = data.startswith(b"\xef\xbb\xbf")
    try:
        memory.spec = spec_extract(text)
    except _ExtractError as exc:
        memory.error = LoadError(memory.rel_path, exc.reason, exc.line, stage="frontmatter" if "no frontmatter" in exc.reason else "yaml")
    else:
        attrs = memory.spec.attrs
        if not isinstance(attrs, dict):
            kind = "empty" if attrs is UNDEFINED or attrs is None else f"a {type_name(attrs)}, not a mapping of fields"
            memory.error = LoadError(memory.rel_path, f"frontmatter is {kind}", memory.spec.frontmatter_line, stage="shape")
    memory._entries = memory._suspects = memory._single = None  # split from the new text when first asked


def _scan_memories(memories_dir: Path, skipped: list[tuple[str, str]] | None = None, stats: list | None = None) -> list[tuple[str, str, bool, tuple]]:
    """Every ``*.md`` under memories/ as (name, path, is symlink, signature); symlinked folders not followed.

    What is passed over and worth knowing about (a symlinked folder, a folder
    named like a memory, a FIFO or device, a folder that cannot be listed) is
    added to ``skipped`` as (name, reason).  ``stats`` gets (path, size, mtime)
    of every file but the memories found, as ``watch.store_signature`` lists them (one walk for both):
    theirs are in their signatures (``walk_stats``).
    """
    found: list[tuple[str, str, bool, tuple]] = []
    pending = [str(memories_dir)]
    memories_prefix = len(str(memories_dir)) + 1

    def skip(path: str, reason: str) -> None:
        if skipped is not None:
            skipped.append((path[memories_prefix:].replace(os.sep, "/"), reason))

    add = found.append
    regular = stat.S_ISREG
    other_separator = os.sep != "/"
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            skip(directory + "/", f"a folder that cannot be listed ({exc.strerror or exc}): the memories in it are not loaded")
            continue
        # a start walks 10,000 files here: the loop does what a plain file needs and little else
        for entry in entries:
            try:
                is_link = entry.is_symlink()
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                    if entry.name.lower().endswith(".md"):
                        skip(entry.path, "a folder named like a memory file: the spec's loader skips it (not a file); the files in it are in a subfolder")
                    continue
                if not entry.name.lower().endswith(".md"):
                    if is_link and entry.is_dir(follow_symlinks=True):
                        skip(entry.path, "a symlinked folder: never followed (it could lead outside the store, or back into it)")
                    if stats is not None:
                        other = entry.stat(follow_symlinks=False)
                        stats.append((entry.path, other.st_size, other.st_mtime_ns))
                    continue
                info = entry.stat(follow_symlinks=False)
                if not is_link and not regular(info.st_mode):
                    if stats is not None:
                        stats.append((entry.path, info.st_size, info.st_mtime_ns))
                    skip(entry.path, "not a regular file (a FIFO, socket or device): never opened")
                    continue
            except OSError:
                continue
            # entry.path is the folder's path plus "/name": cut strings rather than Path.relative_to
            path = entry.path
            name = path[memories_prefix:].replace(os.sep, "/") if other_separator else path[memories_prefix:]
            add((name, path, is_link, (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)))
    return found


def walk_stats(scanned: list[tuple[str, str, bool, tuple]], others: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """(path, size, mtime) of every file the walk saw: the memories' from their signatures, and the rest."""
    return others + [(path, signature[0], signature[1]) for _, path, _, signature in scanned]


def _memory_file(name: str, path: str, is_link: bool, signature: tuple) -> MemoryFile:
    return kept_memory_file(name, path, is_link, signature, 0, None, None, None, False, None, None)


def kept_memory_file(name: str, path: str, is_link: bool, signature: tuple, read_ns: int, text, spec, error, bom: bool, bad_utf8, single) -> MemoryFile:
    """A file found by the walk, with what the parse cache keeps of it, made in one positional call: keyword
    arguments to the 19-field constructor cost three times as much, and a load makes one per file (a test holds
    the order to the class's fields)."""
    return MemoryFile(
        path, f"{RAWKO_DIR}/{MEMORIES_DIR}/{name}", name, "/" not in name, is_link, signature[0], signature[1], signature,
        read_ns, text, spec, error, None, None, bom, bad_utf8, None, None, single,
    )  # fmt: skip


def _cached_differs(memory: MemoryFile, cached: MemoryFile | None) -> bool:
    return cached is None or (cached.signature, cached.read_ns) != (memory.signature, memory.read_ns)


def _store_order(files: list[MemoryFile]) -> None:
    """JavaScript's default sort of names (UTF-16 code units); top level first for readability."""
    files.sort(key=lambda f: (not f.top_level, utf16_sort_key(f.name)))


def load_agents(root: Path, left: int = STORE_LIMIT) -> dict[str, AgentDefinition]:
    """``.rawko/agents/*.md``; none from a symlinked folder (lint says so), and each file through ``read_in_store``.

    At most ``left`` bytes of them (what the memories left of ``STORE_LIMIT``): an agent past it is not read.
    """
    directory = root / RAWKO_DIR / AGENTS_DIR
    if linked_part(root, f"{RAWKO_DIR}/{AGENTS_DIR}") is not None or not directory.is_dir():
        return {}
    sources = []
    read, full = 0, False
    for path in sorted(directory.glob("*.md")):
        try:
            data = b"" if full else read_in_store(root, f"{RAWKO_DIR}/{AGENTS_DIR}/{path.name}", SETTINGS_LIMIT)
            if full or read + len(data) > left:
                full = True  # and every agent after it
                raise OSError(errno.EFBIG, _past_limit_words(STORE_LIMIT - left + read, "the memories and the agent definitions before it"))
            read += len(data)
            sources.append((path.name, data))
        except OSError as exc:
            sources.append((path.name, exc))
    return agents_from(sources, kept_agents(root))


def kept_agents(root: Path):
    """The agent definitions parsed from these very bytes before: a warm start reads the few files and parses
    none of them (nor imports the YAML readers)."""
    from ..disk import cache

    return cache.KeptByBytes(root, "agents")


def agents_from(sources: list[tuple[str, bytes | OSError]], kept=None) -> dict[str, AgentDefinition]:
    """Agent definitions from (file name, bytes or the error reading them); ``kept``: ``kept_agents``' readings."""
    if kept is not None:
        agents = kept.get(sources)
        if agents is None:
            agents = kept.keep(sources, agents_from(sources))
        return agents
    agents: dict[str, AgentDefinition] = {}
    for file_name, data in sources:
        rel = f"{RAWKO_DIR}/{AGENTS_DIR}/{file_name}"
        stem = file_name[: -len(".md")]
        if isinstance(data, OSError):
            attrs, error = {}, LoadError(rel, f"cannot be read: {data.strerror or data}", stage="read")
        else:
            try:
                view = spec_extract(decode_like_deno(data))
                attrs = view.attrs if isinstance(view.attrs, dict) else {}
                error = None if isinstance(view.attrs, dict) else LoadError(rel, "frontmatter is not a mapping", stage="shape")
            except _ExtractError as exc:
                attrs, error = {}, LoadError(rel, exc.reason, exc.line)
        name = attrs.get("name") if isinstance(attrs.get("name"), str) else stem
        agents[name] = AgentDefinition(name=name, path=rel, attrs=attrs, error=error)
    return agents


def load_config(root: Path) -> dict:
    """``.rawko/rawko-tui.yaml``: the settings that describe the store (its arbiter, recursive loading, a
    pinned ``now``, …). The person's own (keymap, theme, author, model) are never taken from a store's
    file: they are left out, and named under ``settings.IGNORED`` for lint to report (``settings.py``)."""
    if linked_part(root, RAWKO_DIR) is not None:
        return {}  # nothing is read through a symlinked .rawko (lint says so)
    try:
        return config_from(read_in_store(root, f"{RAWKO_DIR}/{CONFIG_FILE}", SETTINGS_LIMIT).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        return {"_error": f"{CONFIG_FILE}: cannot be read ({exc.strerror or exc})"}
    except UnicodeDecodeError as exc:
        from ..js.jsyaml import plain_yaml_error

        return {"_error": f"{CONFIG_FILE}: {plain_yaml_error(exc)[0]}"}


def config_from(text: str) -> dict:
    from ..js.jsyaml import load_with_ruamel, plain_yaml_error

    try:
        data = load_with_ruamel(text)
    except Exception as exc:  # ruamel raises many types; the file is only advisory
        reason, line = plain_yaml_error(exc)
        return {"_error": f"rawko-tui.yaml{f' line {line}' if line else ''}: {reason}"}
    return store_settings(data) if isinstance(data, dict) else {}


@contextlib.contextmanager
def no_cyclic_gc():
    """Build a large, long-lived structure without the cyclic collector walking it as it grows."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # The new objects live as long as the store: move them to the oldest generation at once
        # (freeze, then unfreeze) instead of having the next young collection walk all of them.
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def _past_store_limit(scanned: list[tuple[str, str, bool, tuple]], limit: int = STORE_LIMIT) -> tuple[dict[str, str], int]:
    """The memories not read because those before them in the store's order fill ``STORE_LIMIT`` (name -> why),
    and the bytes left for the agent definitions. A link is never read and counts nothing."""
    past: dict[str, str] = {}
    total = 0
    for name, _, is_link, signature in sorted(scanned, key=lambda f: ("/" in f[0], utf16_sort_key(f[0]))):
        if is_link:
            continue
        if past or total + signature[0] > limit:
            past[name] = _past_limit_words(total, "the memory files before it in name order")
            continue
        total += signature[0]
    return past, max(limit - total, 0) if not past else 0


def _past_limit_words(total: int, before: str) -> str:
    return f"{before} already hold {total:,} bytes, and rawko-tui reads at most {STORE_LIMIT:,} bytes of memories and agent definitions per store: not read"


def load_store_at(root: str | os.PathLike, rev: str) -> Store:
    """The store as it was at a git revision (read from blobs, not the working tree)."""
    root = Path(root)
    files: list[MemoryFile] = []
    agent_sources: list[tuple[str, bytes | OSError]] = []
    config: dict = {}
    for path, mode, data in _blobs_at(root, rev):
        # a blob over a limit was never read (why is given instead): it is a file that cannot be read
        too_large = None if isinstance(data, bytes) else OSError(errno.EFBIG, str(data))
        if path.startswith(MEMORIES_DIR + "/"):
            name = path[len(MEMORIES_DIR) + 1 :]
            memory = MemoryFile(
                location=root / RAWKO_DIR / path,
                rel_path=f"{RAWKO_DIR}/{path}",
                name=name,
                top_level="/" not in name,
                symlink=mode == "120000",
                size=len(data) if too_large is None else 0,
            )
            if too_large is not None:
                memory.error = LoadError(memory.rel_path, f"cannot be read: {too_large.strerror}", stage="read")
            elif not memory.symlink:
                parse_memory_bytes(memory, data)
            files.append(memory)
        elif path.startswith(AGENTS_DIR + "/"):
            agent_sources.append((path[len(AGENTS_DIR) + 1 :], data if too_large is None else too_large))
        else:
            config = config_from(data.decode("utf-8", "replace")) if too_large is None else {"_error": f"{CONFIG_FILE}: cannot be read ({too_large.strerror})"}
    _store_order(files)
    return Store(root=root, files=files, agents=agents_from(sorted(agent_sources)), config=config)


def _blobs_at(root: Path, rev: str):
    """(path inside .rawko/, mode, bytes or why they were not read) of the files a store at ``rev`` reads: its
    memories in the store's order, its agent definitions, its rawko-tui.yaml; one blob at a time.

    As ``gitrepo.files_at``, but reading only those files, and at most ``STORE_LIMIT`` bytes of memories and
    agents: 25 blobs of 55 MB (a repository of 452 KB) would otherwise all be held at once.
    """
    from ..disk.gitrepo import BlobReader, BlobTooLarge, store_at, tree_blobs

    top, sha, prefix = store_at(root, rev)
    read: list[tuple[str, str, str]] = []  # (path inside .rawko/, mode, blob)
    for name, (mode, blob) in tree_blobs(top, sha, prefix).items():
        path = name[len(prefix) + 1 :]
        if path.startswith(MEMORIES_DIR + "/") and path.lower().endswith(".md"):
            read.append((path, mode, blob))
        elif (path.startswith(AGENTS_DIR + "/") and path.endswith(".md") and path.count("/") == 1) or path == CONFIG_FILE:
            read.append((path, mode, blob))
    memories = len(MEMORIES_DIR) + 1
    read.sort(key=lambda f: (not f[0].startswith(MEMORIES_DIR + "/"), f[0] == CONFIG_FILE, "/" in f[0][memories:], utf16_sort_key(f[0])))
    total, full = 0, False
    with BlobReader(top) as blobs:
        for path, mode, blob in read:
            counted = path != CONFIG_FILE and mode != "120000"  # a link is never read as a memory
            if counted and full:
                yield path, mode, _past_limit_words(total, "the memories and agent definitions before it")
                continue
            try:
                data: bytes | str = blobs.read(blob)
            except BlobTooLarge as exc:
                data = str(exc)
            if counted and isinstance(data, bytes):
                if total + len(data) > STORE_LIMIT:
                    full = True
                    data = _past_limit_words(total, "the memories and agent definitions before it")
                else:
                    total += len(data)
            yield path, mode, data
