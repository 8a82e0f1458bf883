"""What appended entries mean, and the changes a person makes by appending.

The effective memory is the fold of a file's entries: a later entry overrides
the fields it sets and adds its body.  Retiring (``status: retired`` with a
``reason``) and superseding (``supersededBy:`` on the old memory,
``supersedes:`` on the new one) are entries too, so nothing is ever removed.

The fold itself (a memory's status, the store as the fold sees it) is
``store.fold``, below the arbiters; this module is what a person appends.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from .. import records
from ..js.values import JsDate, js_to_string
from ..disk.safeio import MEMORY_LIMIT, read_in_store
from ..store.fold import RETIRED, effective_body, effective_store, in_force
from ..store.reading import DECISIONS_FILE, LEGACY_DISMISSED_FILE, MemoryFile, Store


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def title_key(title: object) -> str | None:
    """What two titles share when they are the same title (lint's ``duplicate-title``): case and surrounding spaces aside."""
    return title.strip().lower() or None if isinstance(title, str) else None


def memories_titled(store: Store, title: str) -> list[MemoryFile]:
    """The memories in force whose title is the same as ``title`` (``duplicate-title``'s rule)."""
    key = title_key(title)
    return [m for m in store.files if key is not None and title_key(m.attrs.get("title")) == key and in_force(m)]


ENTRY_DATE_FIELDS = ("discoveredAt", "updatedAt", "retiredAt")
ENTRY_AUTHOR_FIELDS = ("discoveredBy", "updatedBy", "retiredBy")


def entry_stamp(fields: dict | None) -> tuple[object, object]:
    """When an entry was written and by whom, as its own fields say (``None`` for what it does not say)."""
    fields = fields or {}
    when = next((fields[k] for k in ENTRY_DATE_FIELDS if k in fields), None)
    who = next((fields[k] for k in ENTRY_AUTHOR_FIELDS if k in fields), None)
    return when, who


RETIRE_REASON_PLACEHOLDER = "why it no longer holds"  # what the retire editor's reason says until a person writes one


def reason_problem(reason: object) -> str | None:
    """Why ``reason`` is not a reason a person gave for retiring a memory (None: it is one)."""
    text = "" if reason is None else js_to_string(reason).strip()
    if not text:
        return "a retirement needs a reason: write why the memory no longer holds"
    if text.lower() == RETIRE_REASON_PLACEHOLDER:
        return f"the reason is still the placeholder ({RETIRE_REASON_PLACEHOLDER!r}): write why this memory no longer holds"
    return None


def entry_problems(text: str) -> list[str]:
    """What keeps an entry from being written as it is: a retirement without a real reason."""
    from ..store.reading import spec_extract

    try:
        fields = spec_extract(text).attrs
    except (ValueError, AttributeError):
        return []  # lint says what is wrong with the text itself
    if not isinstance(fields, dict) or js_to_string(fields.get("status", "")).strip().lower() != RETIRED:
        return []
    problem = reason_problem(fields.get("reason"))
    return [problem] if problem else []


def retire_entry(reason: str, by: str | None = None, superseded_by: str | None = None) -> dict:
    fields: dict = {"status": RETIRED, "reason": reason, "retiredAt": now_iso()}
    if by:
        fields["retiredBy"] = by
    if superseded_by:
        fields["supersededBy"] = superseded_by
    return fields


def parse_assignments(pairs: list[str]) -> dict:
    """``field=value`` pairs from the command line; values are YAML (``[a, b]`` is a list)."""
    from ..js.jsyaml import YamlError, load_yaml

    fields: dict = {}
    for pair in pairs:
        try:
            pair.encode("utf-8")
        except UnicodeEncodeError as exc:  # a byte of the argument that is not UTF-8 (Python carries it as a lone surrogate)
            raise ValueError(f"{pair!r} is not UTF-8 text (character {exc.start + 1} has no UTF-8 form)") from None
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{pair!r} is not field=value")
        try:
            parsed = load_yaml(value) if value.strip() else ""
        except YamlError:
            parsed = value
        fields[key.strip()] = parsed.iso() if isinstance(parsed, JsDate) else parsed
    return fields


def read_body(text: str | None, file: str | None) -> str:
    """``--body`` or ``--body-file``: a person's own file (a pipe or /dev/stdin too), never past a size limit."""
    from ..disk.safeio import read_named

    if file:
        return read_named(file).decode("utf-8")
    return text or ""


# --------------------------------------------------------------------------
# Merging and superseding (each one confirmed action, one commit)
# --------------------------------------------------------------------------


def merge_title(store: Store, memories: list[MemoryFile]) -> str:
    """The title a merge proposes: the first original's title that clashes with nothing lint checks once the merge is
    written: its file can be named after it (``file-name``), and no memory left in force has it (``duplicate-title``:
    the originals are retired by the merge). The first original's title when every one clashes: the editor says so."""
    from ..record.writer import WriteError, committed_names, new_memory_name, slugify

    titles = [js_to_string(m.effective()[0].get("title", "Merged memory")) for m in memories]
    originals = {m.name for m in memories}
    held = {key for m in store.files if m.name not in originals and (key := title_key(m.attrs.get("title"))) and in_force(m)}
    taken = {m.name for m in store.files} | committed_names(store.root)
    for title in titles:
        try:
            named_after_it = new_memory_name(store.root, title, taken) == slugify(title) + ".md"
        except WriteError:
            continue
        if named_after_it and title_key(title) not in held:
            return title
    return titles[0]


def merge_draft(memories: list[MemoryFile], title: str | None = None) -> str:
    """A first draft of the merged memory file for a person to edit: fields combined, bodies in order.

    ``title``: the merged memory's (``merge_title``); default: the first original's.
    """
    from ..arbiters.decision import IMPORTANCE_ORDER
    from ..record.writer import format_entry

    folded = [m.effective()[0] for m in memories]
    title = title if title is not None else js_to_string(folded[0].get("title", "Merged memory"))
    patterns: list[str] = []
    tags: list[str] = []
    for fields in folded:
        when = fields.get("whenToUse")
        for item in when if isinstance(when, list) else [when]:
            pattern = item.get("pattern") if isinstance(item, dict) else item
            if isinstance(pattern, str) and pattern not in patterns:
                patterns.append(pattern)
        for tag in fields.get("tags") or []:
            if isinstance(tag, str) and tag not in tags:
                tags.append(tag)
    levels = [js_to_string(f.get("importance")) for f in folded if js_to_string(f.get("importance")) in IMPORTANCE_ORDER]
    importance = max(levels, key=IMPORTANCE_ORDER.get) if levels else "medium"
    fields = {
        "title": title,
        "whenToUse": patterns if len(patterns) != 1 else patterns[0],
        "tags": tags,
        "importance": importance,
        "discoveredAt": now_iso(),
        "discoveredBy": js_to_string(folded[0].get("discoveredBy", "unknown")),
        "supersedes": [m.name for m in memories],
    }
    # each part under a heading naming its original: visible text (an HTML comment is hidden text lint warns about)
    body = "\n\n".join(f"## From {memory_id(m.name)}\n\n{effective_body(m)}" for m in memories)
    return format_entry(fields, body)


def supersede_entry(new_name: str, by: str, reason: str | None = None) -> str:
    """The entry appended to a memory another one replaces: retired, pointing at its successor."""
    from ..record.writer import format_entry

    reason = reason or f"superseded by {new_name}"
    fields = {"status": RETIRED, "reason": reason, "supersededBy": new_name, "retiredAt": now_iso(), "retiredBy": by}
    return format_entry(fields, f"Superseded by {new_name}: {reason}. This file keeps its history.")


def supersedes_entry(old_names: list[str], by: str) -> str:
    """The entry appended to the memory that replaces others (seed 001's ``supersedes``)."""
    from ..record.writer import format_entry

    fields = {"supersedes": list(old_names), "updatedAt": now_iso(), "updatedBy": by}
    return format_entry(fields, f"Supersedes {', '.join(old_names)}.")


def memory_id(name: str) -> str:
    """How ``relatedMemories`` names a memory (seed 001: its file name without ``.md``)."""
    return name.removesuffix(".md")


def related_of(memory: MemoryFile) -> list[str]:
    """The memories this one's ``relatedMemories`` lists, as written (after the fold of its entries)."""
    value = memory.effective()[0].get("relatedMemories")
    items = value if isinstance(value, list) else ([value] if value else [])
    return [js_to_string(v) for v in items]


def lists_related(memory: MemoryFile, other: str) -> bool:
    """Whether the memory's ``relatedMemories`` names ``other`` already (after the fold of its entries)."""
    return memory_id(other) in {memory_id(r) for r in related_of(memory)}


def link_entry(memory: MemoryFile, other: str, by: str) -> str:
    """The entry that adds ``other`` to the memory's ``relatedMemories`` (the list is repeated: a later entry's field wins)."""
    from ..record.writer import format_entry

    related = related_of(memory) + ([] if lists_related(memory, other) else [memory_id(other)])
    fields = {"relatedMemories": related, "updatedAt": now_iso(), "updatedBy": by}
    return format_entry(fields, f"Related: {memory_id(other)}.")


def link_writes(root: Path, store: Store, a: str, b: str, by: str) -> list:
    """The sides of a link still missing, as planned writes: each memory lists the other in ``relatedMemories``.

    A side that lists the other already is not written again; none at all (``[]``) when the two are linked.
    """
    from ..record.writer import WriteError, plan_append

    first, second = store.file(a), store.file(b)
    if first is None or second is None:
        raise WriteError(f"no memory {a if first is None else b!r} to link")
    sides = ((a, first, b), (b, second, a))
    # both planned first: a file that may not be appended to (an interrupted write in it) is refused, even on a side
    # that seems linked already (the link may be in that write's uncommitted bytes)
    planned = [plan_append(root, name, link_entry(memory, other, by)) for name, memory, other in sides]
    return [write for write, (_, memory, other) in zip(planned, sides) if not lists_related(memory, other)]


def confirm_entry(by: str, note: str | None = None) -> str:
    """A dated confirmation: the memory still holds (its stale clock starts again from this entry)."""
    from ..record.writer import format_entry

    fields = {"updatedAt": now_iso(), "updatedBy": by, "confirmed": True}
    return format_entry(fields, f"## Confirmed ({now_iso()[:10]})\n\n{note or 'Checked: this still holds.'}")


def supersede_writes(root: Path, old: str, new: str, reason: str | None, by: str) -> list:
    """Both sides of a supersede, as planned writes: ``supersededBy`` on the old memory, ``supersedes`` on the new one."""
    from ..record.writer import plan_append

    return [plan_append(root, old, supersede_entry(new, by, reason)), plan_append(root, new, supersedes_entry([old], by))]


def merge_writes(root: Path, store: Store, originals: list[str], merged_text: str, by: str) -> list:
    """A merge as planned writes: the new memory, and a supersede entry in each original."""
    from ..store.reading import spec_extract
    from ..record.writer import WriteError, plan_append, plan_create

    try:
        view = spec_extract(merged_text)
    except ValueError as exc:
        raise WriteError(f"the merged memory does not parse: {exc}") from None
    if not isinstance(view.attrs, dict) or not isinstance(view.attrs.get("title"), str):
        raise WriteError("the merged memory needs a frontmatter with a title")
    taken = {m.name for m in store.files}
    created = plan_create(root, view.attrs["title"], merged_text, taken)
    return [created] + [plan_append(root, name, supersede_entry(created.name, by, f"merged into {created.name}")) for name in originals]


def merge_changes(store: Store, originals: list[str], merged_text: str, new_name: str | None = None) -> dict[str, bytes]:
    """The bytes every file would hold after a merge (for its impact and its lint, before anything is written).

    ``new_name``: the merged memory's file name, when the caller knows it already.
    """
    from ..store.reading import spec_extract
    from ..record.writer import ends_with_newline, plan_create

    if new_name is None:
        title = spec_extract(merged_text).attrs.get("title") if merged_text.startswith("---") else None
        # the name merge_writes gives the new memory
        new_name = plan_create(store.root, str(title or "merged"), merged_text, {m.name for m in store.files}).name
    changes = {new_name: ends_with_newline(merged_text).encode("utf-8")}  # as plan_create writes it
    for name in originals:
        current = store.file(name)
        try:  # never through a link, never past the limit
            data = read_in_store(store.root, current.rel_path, MEMORY_LIMIT) if current is not None else b""
        except OSError:
            data = b""
        changes[name] = data + b"\n\n" + supersede_entry(new_name, "", f"merged into {new_name}").encode("utf-8")
    return changes


# --------------------------------------------------------------------------
# Decisions on consolidation candidates: an append-only, committed log
# --------------------------------------------------------------------------

DISMISS, RESTORE = "dismiss", "restore"
_DECISIONS_HEADER = (
    "# Consolidation candidates a person dismissed (and restored). rawko-tui appends a record per decision;\n"
    "# the last record for a group wins. Nothing here is ever rewritten.\n"
)


def dismissed(root: Path) -> set[tuple[str, ...]]:
    """Candidate groups a person dismissed and has not restored (they do not come back)."""
    return _read_decisions(root)[0]


def decision_log_problems(root: Path) -> list[tuple[str, str, int | None]]:
    """Why each decisions log that exists cannot be used: (path, reason, 1-based line), for lint.

    A log that cannot be read hides no candidate: its dismissals come back in the queue.
    """
    return _read_decisions(root)[1]


def _read_decisions(root: Path) -> tuple[set[tuple[str, ...]], list[tuple[str, str, int | None]]]:
    from ..disk.safeio import SETTINGS_LIMIT

    problems: list[tuple[str, str, int | None]] = []

    def read(name: str, shape: type, shape_words: str) -> object:
        """The file's YAML; None when it is missing, refused (a link, a device, too large: lint names it) or broken."""
        rel = f".rawko/{name}"
        try:
            raw = read_in_store(root, rel, SETTINGS_LIMIT)
        except OSError:  # missing, or refused (a link, a device, too large): lint names a refused file itself
            return None
        from ..js.jsyaml import load_with_ruamel, plain_yaml_error  # a store without the log never imports a YAML reader

        try:
            data = load_with_ruamel(raw.decode("utf-8"))
        except Exception as exc:  # noqa: BLE001 - ruamel raises many kinds; a log that cannot be read hides no candidate
            problems.append((rel, *plain_yaml_error(exc)))
            return None
        if data is not None and not isinstance(data, shape):
            problems.append((rel, f"not {shape_words}", None))
            return None
        return data

    groups: set[tuple[str, ...]] = set()
    legacy = read(LEGACY_DISMISSED_FILE, dict, "a mapping with a `dismissed:` list")
    for item in (legacy.get("dismissed") or [] if isinstance(legacy, dict) else []):
        if isinstance(item, list):
            groups.add(tuple(sorted(str(p) for p in item)))
    records = read(DECISIONS_FILE, list, "a list of decision records")
    for record in records if isinstance(records, list) else []:
        if isinstance(record, dict) and isinstance(record.get("paths"), list):
            group = tuple(sorted(str(p) for p in record["paths"]))
            if record.get("decision") == DISMISS:
                groups.add(group)
            elif record.get("decision") == RESTORE:
                groups.discard(group)
    return groups, problems


def decision_write(root: Path, decision: str, paths: tuple[str, ...], kind: str, by: str):
    """A planned append of one decision record (``dismiss`` or ``restore``) to the decisions log."""
    from ..record.writer import _dump_yaml, plan_settings

    record = [{"decision": decision, "paths": sorted(paths), "kind": kind, "at": now_iso(), "by": by}]
    log = Path(root) / ".rawko" / DECISIONS_FILE
    text = ("" if log.is_file() else _DECISIONS_HEADER) + _dump_yaml(record)
    return plan_settings(root, f".rawko/{DECISIONS_FILE}", addition=text.encode("utf-8"))


# --------------------------------------------------------------------------
# Impact of a change on injections
# --------------------------------------------------------------------------


def files_with(store: Store, changes: dict[str, bytes]) -> list[MemoryFile]:
    """The store's memory files with each ``.rawko/memories/<name>`` of ``changes`` holding its new bytes (in no order)."""
    from ..store.reading import memory_from_bytes

    return [f for f in store.files if f.name not in changes] + [memory_from_bytes(store.root, name, data) for name, data in changes.items()]


def store_with(store: Store, changes: dict[str, bytes]) -> Store:
    """The store as it would be with each ``.rawko/memories/<name>`` holding its new bytes (nothing is written)."""
    from ..js.values import utf16_sort_key

    files = sorted(files_with(store, changes), key=lambda f: (not f.top_level, utf16_sort_key(f.name)))
    return Store(root=store.root, files=files, agents=store.agents, config=store.config, skipped=store.skipped)


@records.record(frozen=True)
class Impact:
    task: str
    agent: str
    view: str  # spec | effective
    added: tuple[str, ...]
    removed: tuple[str, ...]
    throws_before: str = ""  # where the real arbiter throws (and injects nothing) before the change; "" when it does not
    throws_after: str = ""
    undecided: bool = False  # a regex rawko-tui could not decide: either side may be otherwise

    def describe(self) -> str:
        parts = [f"+{p.rsplit('/', 1)[-1]}" for p in self.added] + [f"-{p.rsplit('/', 1)[-1]}" for p in self.removed]
        if self.throws_after and not self.throws_before:
            parts = [f"now throws ({self.throws_after}): injects nothing"]
        elif self.throws_before and not self.throws_after:
            parts = [f"no longer throws ({self.throws_before})", *parts]
        elif self.throws_before != self.throws_after:
            parts = [f"throws elsewhere: {self.throws_after}"]
        if self.undecided:
            parts.append("(a regex match is undecided: this may differ)")
        return f"{self.view}: {self.task!r} ({self.agent}): {' '.join(parts)}"


def _fate(preview) -> tuple[set[str], str, bool]:
    """What the real arbiter does: the injected paths, where it surely throws (then nothing is injected), whether undecided."""
    failure = preview.arbiter_failure
    throws = f"{failure._stage_words()} {failure.path}: {failure.error}" if failure is not None and failure.certain else ""
    injected = set() if throws else {c.path for c in preview.injected}
    return injected, throws, bool(preview.uncertain_reasons)


def impact_of_change(store: Store, changes: dict[str, bytes], tasks: list[tuple[str, str]], now_ms: float, profile=None) -> list[Impact]:
    """For each task, what the change (new bytes for one or more files) adds to or removes from the injection, in both views.

    What counts is what the real arbiter does: a change that makes the run throw injects nothing at all (and one that
    stops a throw injects again), as ``check`` and ``impact`` judge it.
    ``profile``: the arbiter profile to judge by (default: the store's own).
    """
    from ..arbiters.decision import resolve_options
    from ..arbiters.ranking import run_preview

    after = store_with(store, changes)
    found = []
    for task, agent in tasks:
        for view, before_store, after_store in (("spec", store, after), ("effective", effective_store(store), effective_store(after))):
            options = resolve_options(store, agent, profile=profile)
            old, throws_before, unsure_before = _fate(run_preview(before_store, task, agent, options, now_ms))
            new, throws_after, unsure_after = _fate(run_preview(after_store, task, agent, options, now_ms))
            if old != new or throws_before != throws_after:
                found.append(Impact(task, agent, view, tuple(sorted(new - old)), tuple(sorted(old - new)), throws_before, throws_after, unsure_before or unsure_after))
    return found


def opener_problem(text: str) -> str | None:
    """Why a drafted file or entry does not open with its frontmatter's ``---`` line (None when it does).

    Without it the arbiters read no frontmatter at all: a new file has no title
    or whenToUse, and an appended entry becomes more body of the entry before it.
    """
    first = text.split("\n", 1)[0].rstrip("\r")
    if first == "---":
        return None
    shown = first if len(first) <= 40 else first[:40] + "…"
    return f"the text must open with a line '---' (its frontmatter); it opens with {shown!r}"


def body_start(text: str) -> tuple[int, int]:
    """(row, column) where a draft's body starts: the first line with text after the frontmatter's closing ``---``.

    Editors open there, so that typing at once never lands before the opening ``---``.
    """
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        return (0, 0)
    closer = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r") == "---"), None)
    if closer is None:
        return (len(lines) - 1, len(lines[-1]))
    for row in range(closer + 1, len(lines)):
        if lines[row].strip():
            return (row, 0)
    return (len(lines) - 1, len(lines[-1]))


def new_memory_template(agent: str) -> str:
    from ..record.writer import format_entry

    fields = {"title": "", "whenToUse": ["pattern|alternative"], "tags": [], "importance": "medium", "discoveredAt": now_iso(), "discoveredBy": agent}
    return format_entry(fields, "# Title\n\nWhat was learned, specifically (at least 50 words).")


def append_template(kind: str, memory: MemoryFile, by: str) -> str:
    """An entry to append: an update, a correction, a change of importance, or a retirement, dated and signed."""
    from ..record.writer import format_entry

    today = now_iso()[:10]
    signed = {"updatedAt": now_iso(), "updatedBy": by}
    if kind == "correct":
        return format_entry({**signed, "correction": "what was wrong"}, f"## Correction ({today})\n\n")
    if kind == "importance":
        current = js_to_string(memory.effective()[0].get("importance", "medium"))
        return format_entry({"importance": current, **signed}, f"## Importance changed ({today})\n\nWhy: ")
    if kind == "retire":
        return format_entry(retire_entry(RETIRE_REASON_PLACEHOLDER, by), f"Retired ({today}): ")
    return format_entry(signed, f"## Update ({today})\n\n")


def pattern_matches(when_to_use: object, tasks: list[tuple[str, str]]) -> list[str]:
    """For each whenToUse pattern, the recent tasks it matches (as the spec matches)."""
    from ..arbiters.decision import pattern_strings
    from ..arbiters.patterns import build_search_text, match_pattern

    lines = []
    for pattern in pattern_strings(when_to_use)[0]:
        hits = [task for task, agent in tasks if match_pattern(pattern, build_search_text(task, agent)).matched]
        shown = ", ".join(repr(t[:40]) for t in hits) if hits else "no recent task"
        lines.append(f"{pattern!r} matches {shown}")
    return lines
