"""Each profile's loader: which memory files its arbiter reads, in what order, and as what.

A ``LoadedView`` is the store as one profile's loader sees it: the files it
never reaches (with the rule that says so, in words) and the files it loads,
each read the way that loader reads it.  Views are built once per store and
loader, like the rank index.

* spec-0007 -- Deno std's ``extract`` and js-yaml (the store's own reading);
  a file that cannot be read makes the whole run throw.
* rawko-sdk -- its own frontmatter regex, npm ``yaml`` 2.8.2 and a validation
  gate; a file that fails any of them is skipped with a warning.
* spec-0005 -- the spec's reading, but the first file that throws silently
  ends the loading: the files after it are never read.
"""

from __future__ import annotations

import operator
import sys

from ..text.firstuse import OnFirstUse
from .. import records
from ..records import record
from .decision import REASON_ERROR, REASON_NOT_READ, REASON_SKIPPED, REASON_STOPS, has_load_error, not_loaded_gate
from ..js.values import UNDEFINED, js_trim, type_name, utf16_sort_key
from ..store.columnar import decoded_views_bounded
from ..store.reading import LazyText, MemoryFile, SpecView, Store, same_fields_view, shared_reading
from .profiles import IMPORTANCE_LEVELS, Loader, Profile

# rawko-sdk's extractFrontmatter: /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/ (no flags: ^ and $ are the text's ends)
SDK_FRONTMATTER = OnFirstUse(r"---\n([\s\S]*?)\n---\n?([\s\S]*)\Z")


def sdk_frontmatter_span(text: str) -> tuple[int, int, int] | None:
    """Where rawko-sdk's frontmatter regex (``SDK_FRONTMATTER``, ``/^---\\n([\\s\\S]*?)\\n---\\n?([\\s\\S]*)$/``)
    matches: (start, end) of the frontmatter it captures and where the body it captures starts; None where it
    does not. Its lazy group tries every character for the first ``\\n---`` after the opening line (0.7 s for a
    frontmatter of 63 MB); a search finds the same one, and the body is the rest, past one ``\\n``."""
    if not text.startswith("---\n"):
        return None
    close = text.find("\n---", 4)
    if close < 0:
        return None
    return 4, close, close + 4 + text.startswith("\n", close + 4)


@record
class LoadedView:
    loader: Loader
    gated: list[tuple[MemoryFile, str, str]]  # files the arbiter never scores: (file, reason, why)
    loaded: list[MemoryFile]  # in the loader's order, each as this loader reads it
    order_note: str
    _plan_prompt: str | None = None

    def plan_prompt(self) -> str:
        """rawko-sdk's planning prompt section: every loaded memory, whatever the task (made once per view)."""
        if self._plan_prompt is None:
            from .planprompt import plan_prompt

            self._plan_prompt = plan_prompt(self.loaded)
        return self._plan_prompt


def load_view(store: Store, profile: Profile, recursive: bool) -> LoadedView:
    """The store as ``profile``'s loader sees it (built on first use; a store never changes in place)."""
    key = ("view", profile.name, profile.loader, recursive)  # the reasons name the profile
    view = store._indexes.get(key)
    if view is None:
        view = store._indexes[key] = _build_view(store, profile, recursive)
    return view


def _build_view(store: Store, profile: Profile, recursive: bool) -> LoadedView:
    loader = profile.loader
    files, order_note = _ordered(store, loader.order)
    gated: list[tuple[MemoryFile, str, str]] = []
    candidates: list[MemoryFile] = []
    for memory in files:
        # listed and in force (most): no gate to look at (``spec_loadable`` inlined: a view looks at every file)
        if memory.inactive is None and memory.top_level and not memory.symlink and memory.name.endswith(".md"):
            candidates.append(memory)
            continue
        gate = not_loaded_gate(memory, recursive)
        if gate is not None:
            why = gate[1] if profile.name == "spec-0007" else gate[1].replace("the spec's loader", f"{profile.name}'s loader").replace("a SPEC-0007 arbiter", profile.name)
            gated.append((memory, gate[0], why))
        else:
            candidates.append(memory)
    loaded: list[MemoryFile] = []
    if loader.on_error == "stop":
        stopped_at: MemoryFile | None = None
        for memory in candidates:
            if stopped_at is not None:
                gated.append((memory, REASON_NOT_READ, f"never read: {profile.name} stopped loading at {stopped_at.name}, which comes before it in {loader.order} order"))
            elif memory.refused_by_limit:  # the real arbiter reads on; what it makes of the file may be decided all the same
                decided = _decided_without_expanding(memory) if profile.matcher == "spec-0005" else None
                if decided is not None:
                    loaded.append(decided)
                else:
                    gated.append((memory, REASON_ERROR, f"not modelled: {memory.error.reason} by rawko-tui; {profile.name} reads it and goes on loading"))
            elif has_load_error(memory):
                stopped_at = memory
                gated.append((memory, REASON_STOPS, f"{profile.name} stops loading here ({memory.error.reason}): the files after it in {loader.order} order are never read"))
            else:
                loaded.append(memory)
    elif loader.splitter == "sdk-regex" or loader.gate != "none" or loader.on_error == "skip":
        if store.view == "spec":
            shared = {} if decoded_views_bounded() else None  # the app's view, held as long as the comparison
            reads = _kept_reads(store, profile, candidates, shared)
        else:
            reads = [_folded_read(memory, profile) for memory in candidates]
        for memory, read in zip(candidates, reads):
            if isinstance(read, str):
                gated.append((memory, REASON_SKIPPED, read))
            elif isinstance(read, tuple):  # npm yaml reads it, rawko-tui refuses to
                gated.append((memory, *read))
            else:
                loaded.append(read)
    else:
        for memory in candidates:  # the real arbiter reads a refused file: rawko-tui cannot say what it makes of it
            if memory.refused_by_limit:
                gated.append((memory, REASON_ERROR, f"not modelled: {memory.error.reason} by rawko-tui; {profile.name} reads it"))
            else:
                loaded.append(memory)
    return LoadedView(loader, gated, loaded, order_note)


def _decided_without_expanding(memory: MemoryFile) -> MemoryFile | None:
    """An alias bomb as SPEC-0005's code reads it, when what it does can be known without the expansion.

    js-yaml shares aliases, so SPEC-0005's loader reads such a file at once; its matcher then takes the
    ``whenToUse`` items in order: text is matched, and a list of lists throws ``pattern.toLowerCase is
    not a function`` (so every task fails). That is decided from the shared reading as long as nothing is
    turned into text whole: no list item holding '|' or '*' (``new RegExp(list)``), a title, importance and
    discoverer that are not collections (they are printed), and no more text to match than an expansion
    rawko-tui allows. The copy it returns holds only those fields, the item that throws replaced by an
    empty one of its kind (it throws the same), so nothing that shows the memory can walk the bomb.
    Else None: not modelled.
    """
    reading = shared_reading(memory)
    if reading is None or not isinstance(reading.attrs, dict):
        return None
    attrs = reading.attrs
    from ..js.jsyaml import MAX_ALIAS_CHARACTERS

    fields = {name: attrs[name] for name in ("title", "importance", "discoveredBy") if name in attrs}
    if any(isinstance(value, (list, dict)) for value in fields.values()):
        return None
    when = attrs.get("whenToUse", UNDEFINED)
    items: list = []
    characters = 0
    for item in when if isinstance(when, list) else [when]:
        if isinstance(item, str):
            characters += len(item)
            if characters > MAX_ALIAS_CHARACTERS:
                return None
            items.append(item)
            continue
        if isinstance(item, list) and ("|" in item or "*" in item):
            return None
        items.append([] if isinstance(item, list) else {} if isinstance(item, dict) else item)
        break  # this item throws: the items after it are never read
    if isinstance(when, list):
        fields["whenToUse"] = items
    elif when is not UNDEFINED:
        fields["whenToUse"] = items[0]
    spec = SpecView(attrs=fields, body=reading.body, frontmatter_text=reading.frontmatter_text, frontmatter_line=reading.frontmatter_line)
    return _read_again(memory, spec=spec, error=None)


def _ordered(store: Store, order: str) -> tuple[list[MemoryFile], str]:
    """The store's files in the loader's order, and a sentence saying which order that is."""
    if order == "name":
        return store.files, "files read in name order (the real loader takes the order the folder lists them)"
    if store.directory_order is None:
        return store.files, "files read in name order: the directory order of a git revision is not known"
    position = {name: i for i, name in enumerate(store.directory_order)}
    last = len(position)
    ordered = sorted(store.files, key=lambda f: (position.get(f.name, last), utf16_sort_key(f.name)))
    return ordered, "files read in directory order (as os.scandir lists the folder on this machine)"


# The source an SDK reading comes from: a change to any of them makes the kept readings stale.
SDK_MODULES = ("arbiters/loaders.py", "js/yaml2.py", "js/jsyaml.py", "js/values.py", "store/reading.py", "disk/cache.py")


def sdk_read(memory: MemoryFile, profile: Profile, kept=None, shared: dict | None = None) -> MemoryFile | str | tuple[str, str]:
    """The file as rawko-sdk's loader reads it, or why it skips the file (its console warning, in words), or
    (reason, why) for a file it reads that rawko-tui refuses to (an alias bomb npm yaml's guard lets through).

    ``kept`` (a ``cache.Derived``) holds each file's reading from earlier runs: the YAML is not parsed again.
    ``shared``: see ``sdk_file``.
    """
    return sdk_file(memory, sdk_outcome(memory, profile, kept), shared)


def sdk_outcome(memory: MemoryFile, profile: Profile, kept=None) -> tuple:
    """What rawko-sdk's loader makes of the file, in plain values (a view keeps them between runs, ``_kept_reads``):
    ("skip", why), ("gated", reason, why), or ("read", how its fields compare with the spec reading's -- "same",
    "patch" or "read" --, its own fields where they differ, the frontmatter's span, the body's start and length,
    ``single_entry()`` where known)."""
    name = profile.name
    if memory._text is None:
        return ("skip", f"{name} skips this file: it cannot be read ({memory.error.reason if memory.error else 'no text'})")
    reading = kept.get(memory, sdk_parse) if kept is not None else sdk_parse(memory)
    if reading[0] == "skip":
        return ("skip", f"{name} skips this file: {reading[1]}")
    if reading[0] == "refused":
        return ("gated", REASON_ERROR, f"not modelled: rawko-tui does not read its frontmatter ({reading[1]}); {name} reads it (npm yaml 2.8.2 loads it)")
    kind, own, frontmatter_at, untrimmed, trimmed = reading
    problem = gate_problem(_fields(memory, kind, own), profile)
    if problem is not None:
        return ("skip", problem)
    body_at, body_length = trimmed if profile.loader.trim_body else untrimmed
    single = _single_entry_as_read(memory, body_length) if kind != "read" else None
    return ("read", kind, own, frontmatter_at, body_at, body_length, single)


def _fields(memory: MemoryFile, kind: str, own: object) -> object:
    """The fields of a reading: the spec reading's (``same``), those with a few of its own (``patch``: the keys in
    order and the values that differ; a timestamp is a Date to one, text to the other), or its own (``read``)."""
    if kind == "same":
        return memory.spec.attrs  # one object for both readings
    if kind == "patch":
        order, patch = own
        spec_attrs = memory.spec.attrs
        return {key: patch[key] if key in patch else spec_attrs[key] for key in order}
    return own


def sdk_file(memory: MemoryFile, outcome: tuple, shared: dict | None = None) -> MemoryFile | str | tuple[str, str]:
    """``sdk_outcome`` as ``sdk_read`` gives it: the file as read, why it is skipped, or (reason, why).

    A file from the parse cache asks the spec reading for the fields it shares with it when they are read: a view
    of every file decodes none of them. ``shared``: the keys' orders and the text values of the files read so far,
    each kept once (a view of 65,000 files with a date of their own held as many copies of a few orders and dates,
    10 MB).
    """
    if outcome[0] == "skip":
        return outcome[1]
    if outcome[0] == "gated":
        return outcome[1:]
    _, kind, own, frontmatter_at, body_at, body_length, single = outcome
    if kind == "patch" and shared is not None:
        order, patch = own
        order = shared.setdefault(order, order) if all(type(key) is str for key in order) else order  # 1 and True are equal keys
        own = (order, {key: shared.setdefault(value, value) if type(value) is str else value for key, value in patch.items()})
    text = memory._text
    if isinstance(text, LazyText) and kind != "read":
        spec = same_fields_view(memory.spec, own, text, body_length, body_at, frontmatter_at)
    elif isinstance(text, LazyText):  # cut from the text when asked for, as the cache's own view is
        spec = SpecView(own, None, None, 2, source=text, body_length=body_length, body_at=body_at, frontmatter_at=frontmatter_at)
    else:
        spec = SpecView(_fields(memory, kind, own), text[body_at : body_at + body_length], text[frontmatter_at[0] : frontmatter_at[1]], 2)
    return _read_again(memory, spec=spec, error=None, _facts=None, _entries=None, _suspects=None, _single=single)


# What a kept view's outcomes come from besides the readings: the gate's levels, the reasons' words.
VIEW_MODULES = (*SDK_MODULES, "arbiters/profiles.py", "arbiters/decision.py")


def _kept_reads(store: Store, profile: Profile, candidates: list[MemoryFile], shared: dict | None) -> list:
    """``sdk_read`` of every candidate. While the store's files are the readings a view was made from, the
    outcomes kept with it are used (one blob: a start neither looks up each file's reading nor decodes its
    fields for the gate), else each file's kept reading (``cache.Derived``), and the outcomes are kept."""
    import marshal

    from ..disk import cache

    key = _view_key(store, profile, candidates)
    kind = cache.named_kind("sdkview", profile.name)  # one kept view per profile, as the rank index
    if key is not None:
        kept = cache.load_derived(store.root, kind, VIEW_MODULES)
        if kept.get("key") == key:
            try:
                outcomes = marshal.loads(kept["outcomes"])
                if type(outcomes) is list and len(outcomes) == len(candidates):
                    return [sdk_file(memory, outcome, shared) for memory, outcome in zip(candidates, outcomes)]
            except (EOFError, KeyError, TypeError, ValueError, IndexError, AttributeError):
                pass  # damaged, or of another shape: made again
    readings = cache.Derived(store.root, "sdk", SDK_MODULES, plain=True)  # each file's reading from earlier runs
    outcomes = [sdk_outcome(memory, profile, readings) for memory in candidates]
    readings.save()
    if key is not None:
        try:
            cache.save_derived(store.root, kind, VIEW_MODULES, {"key": key, "outcomes": marshal.dumps(outcomes, 4)})
        except ValueError:  # a value marshal cannot keep: made again each run
            pass
    return [sdk_file(memory, outcome, shared) for memory, outcome in zip(candidates, outcomes)]


def _view_key(store: Store, profile: Profile, candidates: list[MemoryFile]) -> list | None:
    """What a view's outcomes depend on: the profile's name (its words) and reading rules, and every candidate's
    reading, in order (None: one was not read from the working tree, or the cache is off)."""
    from ..disk import cache

    if not cache.enabled():
        return None
    readings = cache.readings_digest(candidates, store.kept_readings)
    return None if readings is None else [repr((profile.name, profile.loader)), readings]


_MEMORY_FIELDS = tuple(field.name for field in records.fields(MemoryFile))
_ALL_FIELDS = operator.attrgetter(*_MEMORY_FIELDS)


def _single_entry_as_read(memory: MemoryFile, body_length: int) -> bool | None:
    """``single_entry()`` of the file read with a body of ``body_length``, when the spec reading's answer (kept in the
    parse cache) tells it; None: to be worked out. It looks for a ``---`` line in the text's last ``body_length + 1``
    characters: the same length gives the same answer, and a shorter one (a trimmed body) a part of a tail that has
    none. A listing of every file's status would otherwise decode every text to learn it."""
    kept = memory._single
    if kept is None:
        return None
    spec_length = memory.spec.body_length
    if body_length == spec_length or (kept and body_length < spec_length):
        return kept
    return None


def _read_again(memory: MemoryFile, **changes) -> MemoryFile:
    """``records.replace(memory, **changes)`` in a third of its time: a file as a loader reads it (one per file of a view)."""
    clone = MemoryFile(*_ALL_FIELDS(memory))
    for name, value in changes.items():
        setattr(clone, name, value)
    return clone


def _sdk_text(memory: MemoryFile) -> str:
    return ("\ufeff" + memory.text) if memory.bom else memory.text  # Deno.readTextFile keeps the BOM


def sdk_parse(memory: MemoryFile) -> tuple:
    """What depends on the text alone: ("skip", why) or ("read", fields, the frontmatter's span, the body's
    (start, length) as the regex gives it, and trimmed).  Where the spec loader read the same values, they
    are not kept twice: "same" (all of them) or "patch" (the keys in order, and the values that differ)."""
    text = _sdk_text(memory)
    span = sdk_frontmatter_span(text)
    if span is None:
        return ("skip", f"{_why_no_match(text)}, so it reads no fields and its validation gate fails")
    start, close, body_start = span
    from ..js.jsyaml import YamlError, is_refusal  # the YAML readers: only a run that parses a file imports them
    from ..js.yaml2 import load_yaml12

    try:
        attrs = load_yaml12(text[start:close])
    except YamlError as exc:
        if is_refusal(exc.message):  # a limit of rawko-tui's, past npm yaml's own guard: the library reads it
            return ("refused", exc.message)
        return ("skip", f"its frontmatter is not valid YAML to npm yaml 2.8.2 ({exc.message}), so it reads no fields")
    body = text[body_start:]
    trimmed = js_trim(body)
    lead = body.find(trimmed) if trimmed else 0  # a trimmed text starts after the leading white space
    where = ((start, close), (body_start, len(body)), (body_start + lead, len(trimmed)))
    spec_attrs = memory.spec.attrs if memory.spec is not None else None
    if _same_values(attrs, spec_attrs):
        return ("same", None, *where)
    if isinstance(attrs, dict) and isinstance(spec_attrs, dict):
        patch = {key: value for key, value in attrs.items() if key not in spec_attrs or not _same_values(value, spec_attrs[key])}
        return ("patch", (tuple(sys.intern(key) if type(key) is str else key for key in attrs), patch), *where)
    return ("read", attrs, *where)


def _same_values(a: object, b: object) -> bool:
    """Equal and of the same types throughout (1, 1.0 and True are not the same value here), keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same_values(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_values(x, y) for x, y in zip(a, b))
    return a == b


def _folded_read(memory: MemoryFile, profile: Profile) -> MemoryFile | str:
    """A memory of the effective view (the fold of its entries) through the profile's gate."""
    attrs = memory.spec.attrs if memory.spec is not None else UNDEFINED
    problem = gate_problem(attrs, profile)
    if problem is not None:
        return problem
    body = js_trim(memory.spec.body) if profile.loader.trim_body else memory.spec.body
    spec = memory.spec
    return _read_again(memory, spec=SpecView(spec.attrs, body, spec.frontmatter_text, spec.frontmatter_line), _facts=None, _single=None)


def _why_no_match(text: str) -> str:
    if text.startswith("\ufeff"):
        return "it starts with a byte-order mark, so its frontmatter regex (^---\\n) does not match"
    if text.startswith("---\r\n"):
        return "its lines end in CRLF, and its frontmatter regex wants '---\\n'"
    if not text.startswith("---\n"):
        return "it does not start with a line '---', so its frontmatter regex does not match"
    return "no line '---' closes the frontmatter, so its frontmatter regex does not match"


def gate_problem(attrs: object, profile: Profile) -> str | None:
    """rawko-sdk's isValidFrontmatter, the first failing check in its order, in words (None: it passes)."""
    name = profile.name
    if attrs is None or attrs is UNDEFINED:
        return f"{name} skips this file: its frontmatter is empty (the gate throws on it: 'Failed to read memory file')"
    if not isinstance(attrs, dict):
        attrs = {}  # a list or a scalar has none of the fields

    def field_problem(key: str, wanted: str) -> str:
        value = attrs.get(key, UNDEFINED)
        shown = "is missing" if value is UNDEFINED else f"is {_a(type_name(value))}, not {wanted}"
        return f"{name} skips this file: `{key}` {shown} (its validation gate)"

    if not isinstance(attrs.get("title"), str):
        return field_problem("title", "text")
    when = attrs.get("whenToUse", UNDEFINED)
    if not isinstance(when, (str, list)):
        return field_problem("whenToUse", "text or a list")
    if not isinstance(attrs.get("tags"), list):
        return field_problem("tags", "a list")
    importance = attrs.get("importance", UNDEFINED)
    if not isinstance(importance, str):
        return field_problem("importance", "one of " + ", ".join(IMPORTANCE_LEVELS))
    if importance not in IMPORTANCE_LEVELS:
        return f"{name} skips this file: `importance: {importance}` is not one of {', '.join(IMPORTANCE_LEVELS)} (its validation gate wants lower case)"
    if not isinstance(attrs.get("discoveredAt"), str):
        return field_problem("discoveredAt", "text (a YAML timestamp that reads as a date fails)")
    if not isinstance(attrs.get("discoveredBy"), str):
        return field_problem("discoveredBy", "text")
    return None


def _a(kind: str) -> str:
    return ("an " if kind[:1] in "aeiou" else "a ") + kind
