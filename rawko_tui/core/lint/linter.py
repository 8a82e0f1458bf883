"""Lint a memory store: per-file findings, each with a severity, a code and a plain reason.

The rules come from the memory-file convention (seed 001) and from how
SPEC-0007's arbiter really treats each field; every message says what the
arbiter will do with the file, not only what the convention wants.
"""

from __future__ import annotations

import fnmatch
import math
import os
import re
from collections import defaultdict

from ..text.firstuse import OnFirstUse
from ..arbiters.decision import js_to_number
from ..arbiters.scoring import IMPORTANCE_ORDER, pattern_strings
from ..text.commonwords import COMMON_WORD_RANK, is_common_word, words_containing
from ..js.dates import reading_notes
from ..js.regexp import JsRegexSyntaxError, JsRegexTimeout, annex_b_notes, compile_js, nested_quantifier_risk
from ..js.values import UNDEFINED, JsDate, display_value, js_new_date, js_to_string, js_truthy, type_name
from ..arbiters.patterns import ALTERNATIVES, REGEX, SUBSTRING, WILDCARD, looks_like_regex, match_pattern
from ..disk.safeio import SESSION_LIMIT, SETTINGS_LIMIT, linked_part, refusal
from ..text.safetext import character_name, inline, invisible_characters, tag_text
from ..store.settings import PersonSettings
from .settingsproblems import person_settings_problems, settings_problems
from ..store.reading import DECISIONS_FILE, LEGACY_DISMISSED_FILE, MemoryFile, Store

from .findings import ERROR, INFO, SEVERITY_ORDER, WARNING, FileFindings, Finding, order_key  # noqa: F401 - the lint's public face
MIN_WORDS, MAX_WORDS = 50, 2000
_REGEX_SYNTAX = set(".*+?()[]{}\\^$")
_PROBES = ("", " ", "x", "\n", "the quick brown fox 42 developer")
_WORD_RE = OnFirstUse(r"\S+")
MAX_TITLE = 200
# findings no pane shows (the app says them in a notification): .rawko/agents/, rawko-tui.yaml (a person's key in it
# included), the store's folders and files refused for reading (``store_file_findings``) and ignored journal records
# (``settings``, the person's own file, is the app's to say: it reads that file itself)
SETTINGS_CODES = frozenset({"agent", "agent-config", "config", "person-setting", "store-link", "refused", "journal-ignored", "saved-tasks", "session"})
MAX_ALTERNATIVES = 200
MAX_FRONTMATTER = 64 * 1024
LONG_LINE = 10_000
_CONFLICT_MARKER = OnFirstUse(r"^(?:<{7}|>{7})(?: [^\n]*)?$", re.MULTILINE)
_ISO_LIKE = OnFirstUse(r"^[+-]?\d{4,6}-\d{2}-\d{2}(?:[Tt]\d|$)")
_LOCAL_DATETIME = OnFirstUse(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$")


def lint_store(
    store: Store, now_ms: float | None = None, arbiter: str | None = None, person: PersonSettings | None = None
) -> list[Finding]:
    """Every finding in the store, and what each arbiter profile does with it.

    ``arbiter`` names the one profile to report on besides spec-0007's own
    rules (``--arbiter``); by default every profile is, the store's as warnings.
    ``person``: the person's own settings, whose problems are findings on their file too.
    """
    from .keptstore import KeptStoreFindings

    findings: list[Finding] = []
    # what depends on the memory files alone (each file's findings, the store-wide ones, each profile's), kept whole
    # for the very same readings of every file
    whole = KeptStoreFindings(store, arbiter)
    kept = whole.findings(now_ms)
    if kept is not None:
        own_findings, together, by_profile = kept
    else:
        owns = _file_findings(store)
        together = store_level_findings(store.files)
        by_profile = _profile_findings(store, arbiter)
        whole.keep(owns, together, by_profile)
        own_findings = [finding for own in owns for finding in _at(own, now_ms)]
    # in this order: a finding's place among those of equal path, severity and line (the sort below keeps it);
    # ``keptreport`` puts the kept ones' lines and the rest in the same places
    findings.extend(own_findings)
    findings.extend(together)
    findings.extend(moment_findings(store))
    findings.extend(by_profile)
    findings.extend(person_findings(person))
    from ..arbiters.patterns import save_new_plans

    save_new_plans()  # the patterns lint translated are not translated again by the next run
    findings.sort(key=sort_key)
    return findings


def sort_key(finding: Finding) -> tuple:
    """Lint's order: by path, then severity (errors first), then line."""
    return order_key(finding.path, finding.severity, finding.line)


def moment_findings(store: Store) -> list[Finding]:
    """The findings made afresh on every run, which the memory files alone do not decide: interrupted writes and the
    journal records ignored, the files the load skipped, the agents and settings, the store's other files."""
    from ..record.journals import no_journal

    findings: list[Finding] = []
    if no_journal(store.root):  # most stores: the writer is not imported to find no record
        interrupted, ignored = [], []
    else:
        from ..record.writer import journal_report

        interrupted, ignored = journal_report(store.root)
    for name, what in interrupted:
        findings.append(Finding(f".rawko/memories/{name}", ERROR, "torn-entry", what + " (the writer was stopped before it finished)"))
    for name, reason in store.skipped:
        findings.append(Finding(f".rawko/memories/{name}", WARNING, "not-loaded", reason))
    findings.extend(settings_findings(store))
    if store.directory_order is not None:  # the folders on disk (not a store read at a git revision)
        findings.extend(store_file_findings(store.root))
        findings.extend(saved_file_findings(store.root, {f.path for f in findings if f.code in ("store-link", "refused")}))
        # journal records a clone commits (naming /dev/zero, ../x) are ignored: said, never opened
        linked = {f.path for f in findings if f.code == "store-link"}
        for where, why in ignored:
            if not any(where == folder or where.startswith(folder + "/") for folder in linked):  # said as store-link already
                findings.append(Finding(where, WARNING, "journal-ignored", why))
    return findings


def person_findings(person: PersonSettings | None) -> list[Finding]:
    """What the app would ignore in the person's own settings file, said on that file."""
    return [] if person is None else settings_file_findings(person_settings_problems(person))


def _file_findings(store: Store) -> list[FileFindings]:
    """Each file's findings whatever the time, in the store's order: those kept for the very same bytes (``Derived``),
    else made now."""
    from ..disk.cache import Derived

    kept = Derived(store.root, "lint", LINT_MODULES)  # each file's findings from earlier runs, for the very same bytes
    owns = [kept.get(memory, _lint_file_at_any_time) for memory in store.files]
    kept.save()
    return owns


_PLAIN_NAME = OnFirstUse(r"[a-z0-9][a-z0-9._-]*")  # no upper case, space, quote or other character a shell or a file system treats apart
_CAMEL = OnFirstUse(r"(?<=[a-z])(?=[A-Z])")


def name_words(text: str) -> list[str]:
    """The words of a file name or a title, lower-cased (``pgPool_size`` -> pg, pool, size), numbers left out."""
    return [w for w in re.findall(r"[^\W_]+", _CAMEL.sub(" ", text).lower()) if not w.isdigit()]


def names_another_subject(stem: str, title: str) -> bool:
    """Whether a file name names a subject its title does not: not one of the name's words is in the title.

    A word is in the title when the title holds it (``macos`` in "Jekyll on macOS", ``vuejs`` in "Vue.js"), or
    when the two share a start of four letters or more (``auth``, "authentication"). Only Latin-script words are
    compared: a title in another script (a translated page) says nothing about an English name.
    """
    name = [w for w in name_words(stem) if w.isascii()]
    title_words = [w for w in name_words(title) if w.isascii()]
    if not name or not title_words:
        return False
    letters = "".join(title_words)
    for word in name:
        if len(word) >= 3 and word in letters:
            return False
        if any(min(len(word), len(other)) >= 4 and (word.startswith(other) or other.startswith(word)) for other in title_words):
            return False
    return True


def file_name_note(stem: str, title: str) -> str | None:
    """``file-name``, a note (the arbiter never reads a file's name): the name names another subject than the title,
    or it holds characters a plain name does not (upper case, spaces, quotes, ``$``, non-ASCII letters).

    Chosen on 581 files people wrote (docs/reference/lint-rules.md; ``bench/lint_file_names.py``): asking for exactly the title's
    slug flagged 70% of them, good names among them (``pg-pool`` for "Postgres pool size"); this flags 13%.
    """
    from ..record.writer import slugify  # the writer, the injection detector and the YAML reader: imported only to make a file's findings

    name, slug = repr(stem + ".md"), slugify(title)
    if names_another_subject(stem, title):
        return f"file name {name} has none of the title's words: someone looking for this memory by its name would not find it (its slug: {slug}.md)"
    if not _PLAIN_NAME.fullmatch(stem):
        return (
            f"file name {name} holds characters a plain name does not (upper case, spaces, quotes, non-ASCII): "
            f"a shell needs it quoted, and file systems differ on case and accents; its slug: {slug}.md"
        )
    return None


def store_level_findings(files: list[MemoryFile], only: str | None = None) -> list[Finding]:
    """The findings that depend on the other memories too (``duplicate-title``, ``related-missing``); ``only``: about that
    one path (a draft judged in the store it is written to, as ``rawko-tui lint`` will judge it)."""
    return _duplicate_titles(files, only) + _missing_links(files, only)


def _duplicate_titles(files: list[MemoryFile], only: str | None) -> list[Finding]:
    """Two memories in force with one title. A retired or superseded memory is history, not a second memory of that
    title: a merge gives the new memory an original's title and retires the originals, and that is no clash."""
    from ..curation.entries import title_key
    from ..store.fold import in_force

    titles: dict[str, list[MemoryFile]] = defaultdict(list)
    for memory in files:
        key = title_key(memory.attrs.get("title"))
        if key:
            titles[key].append(memory)
    found = []
    for same in titles.values():
        if len(same) > 1:  # the fold of the entries is read only for the memories that share a title
            same = [m for m in same if in_force(m)]
        if len(same) > 1 and (only is None or any(m.rel_path == only for m in same)):
            names = ", ".join(m.rel_path for m in same)
            for memory in same:
                if only is None or memory.rel_path == only:
                    found.append(Finding(memory.rel_path, WARNING, "duplicate-title", f"the title is shared by {names}; titles should be unique"))
    return found


def _missing_links(files: list[MemoryFile], only: str | None) -> list[Finding]:
    """``relatedMemories`` naming a memory the store does not have (seed 001 names them without ``.md``)."""
    from ..curation.entries import memory_id, related_of

    known = {memory_id(m.name) for m in files} | {memory_id(m.name.rsplit("/", 1)[-1]) for m in files}
    found = []
    for memory in files:
        if only is not None and memory.rel_path != only:
            continue
        if memory.error is not None or memory.spec is None or not memory.text_contains("relatedMemories"):
            continue
        missing = [r for r in related_of(memory) if memory_id(r) not in known]
        if missing:
            found.append(Finding(memory.rel_path, WARNING, "related-missing", f"relatedMemories names {_some(missing)}, which no memory file is"))
    return found


def _profile_findings(store: Store, arbiter: str | None) -> list[Finding]:
    """What each profile does with the files: a warning under the store's own (or ``arbiter``'s), a note under the rest.
    A store whose ``arbiter:`` names no profile has no own one (settings_problems says so, as an error)."""
    from .arbiterrules import profile_findings
    from ..arbiters.profiles import ProfileError, defined_profiles, resolve_profile

    profiles = defined_profiles(store.config)[0]
    try:
        active = resolve_profile(store.config, arbiter)[0]
    except ProfileError:
        active = None
    chosen = [active] if arbiter is not None and active is not None else list(profiles.values())
    return [Finding(path, severity, code, message) for path, severity, code, message in profile_findings(store, chosen, active.name if active else "")]


# The source a file's findings come from: a change to any of them makes the kept findings stale.
LINT_MODULES = (
    "lint/linter.py", "arbiters/decision.py", "js/dates.py", "arbiters/scoring.py", "text/commonwords.py", "data/english_words.txt", "js/regexp.py",
    "js/values.py", "arbiters/patterns.py", "disk/safeio.py", "text/safetext.py", "store/reading.py", "record/writer.py", "js/jsyaml.py", "disk/cache.py",
    "lint/injection.py", "text/markdownhidden.py", "data/injection_model.json", "data/lookalikes.txt", "lint/findings.py",
)  # fmt: skip


def _at(own: FileFindings, now_ms: float | None) -> list[Finding] | tuple[Finding, ...]:
    """The file's findings at ``now_ms`` (None: no date is in the future)."""
    if own.future is None or now_ms is None or not own.future[1] > now_ms:
        return own.findings
    at, _, finding = own.future
    return [*own.findings[:at], finding, *own.findings[at:]]


def lint_file(memory: MemoryFile, now_ms: float | None = None) -> list[Finding]:
    return list(_at(_lint_file_at_any_time(memory), now_ms))


def _lint_file_at_any_time(memory: MemoryFile) -> FileFindings:
    out: list[Finding] = []
    future: tuple[int, float, Finding] | None = None
    path = memory.rel_path

    def add(severity: str, code: str, message: str, line: int | None = None) -> None:
        out.append(Finding(path, severity, code, message, line))

    if memory.symlink:
        add(WARNING, "symlink", "a symlink: the spec's loader skips it (Deno readDir reports it as not a file), and rawko-tui does not follow it")
        return FileFindings(tuple(out))
    if not memory.name.endswith(".md"):
        add(WARNING, "extension", "the name does not end in lower-case '.md', so the spec's loader skips it")
    if not memory.top_level:
        add(INFO, "subfolder", "in a subfolder: not loaded by a SPEC-0007 arbiter (top level only); use --recursive to preview arbiters that read subfolders")
    if memory.text is not None:  # what the bytes and the text hold, parsed or not
        out.extend(Finding(path, sev, code, msg, line) for sev, code, msg, line in text_findings(memory))
    if memory.error is not None:
        consequence = " A SPEC-0007 arbiter that loads it throws and injects nothing at all." if memory.spec_loadable else ""
        if memory.refused_by_limit:  # js-yaml reads it; rawko-tui will not
            consequence = " A real arbiter reads it: what it makes of this file is not modelled." if memory.spec_loadable else ""
        add(ERROR, "parse", memory.error.reason + "." + consequence, memory.error.line)
        return FileFindings(tuple(out))
    attrs = memory.attrs
    line_of = _field_lines(memory)

    # title
    title = attrs.get("title", UNDEFINED)
    if title is UNDEFINED:
        add(ERROR, "missing-field", "no title: the spec's scoring calls title.toLowerCase() and throws, so nothing is injected for anyone", line_of("title"))
    elif not isinstance(title, str):
        add(ERROR, "field-type", f"title is a {type_name(title)}, not text: the spec's scoring throws on it", line_of("title"))
    elif not title.strip():
        add(ERROR, "missing-field", "the title is empty: the injected block would read '### ' with nothing after it", line_of("title"))
    else:
        if len(title) > MAX_TITLE:
            add(WARNING, "long-title", f"the title is {len(title):,} characters long: it is injected whole, as the memory's heading; keep it under {MAX_TITLE}", line_of("title"))
        message = file_name_note(memory.stem, title)
        if message:
            add(INFO, "file-name", message)

    # whenToUse
    when = attrs.get("whenToUse", UNDEFINED)
    if when is UNDEFINED:
        add(ERROR, "missing-field", "no whenToUse: the spec's matchPattern throws on undefined, so nothing is injected for anyone", line_of("whenToUse"))
    else:
        raw = when if isinstance(when, list) else [when]
        for item in raw:
            if isinstance(item, dict) and isinstance(item.get("pattern"), str):
                add(
                    ERROR,
                    "pattern-map",
                    f"whenToUse item {{pattern: {item['pattern']!r}}}: SPEC-0007's matchPattern calls pattern.toLowerCase() and throws on a map, "
                    "so an arbiter running the spec's code verbatim injects nothing; write the pattern as a plain string. rawko-tui reads it as its pattern.",
                    line_of("whenToUse"),
                )
            elif not isinstance(item, str):
                add(ERROR, "field-type", f"whenToUse item {js_to_string(item)!r} is a {type_name(item)}, not text: the spec's matchPattern throws on it", line_of("whenToUse"))
        patterns, _ = pattern_strings(when)
        for pattern in patterns:
            out.extend(Finding(path, sev, code, msg, line_of("whenToUse")) for sev, code, msg in lint_pattern(pattern))

    # importance
    importance = attrs.get("importance", UNDEFINED)
    if importance is UNDEFINED:
        add(ERROR, "missing-field", "no importance: it scores 0 and fails every importance threshold, so it is never injected", line_of("importance"))
    elif js_to_string(importance) not in IMPORTANCE_ORDER:
        hint = f"; did you mean {js_to_string(importance).lower()!r}?" if js_to_string(importance).lower() in IMPORTANCE_ORDER else ""
        add(ERROR, "importance", f"importance {js_to_string(importance)!r} is not low, medium, high or critical: it scores 0 and is never injected{hint}", line_of("importance"))
    elif not isinstance(importance, str):
        add(ERROR, "field-type", "importance is a list: it scores, but formatting calls importance.toUpperCase() and throws once it is injected", line_of("importance"))

    # discoveredAt
    discovered = attrs.get("discoveredAt", UNDEFINED)
    if discovered is UNDEFINED:
        add(WARNING, "missing-field", "no discoveredAt: it never gets a recency bonus", line_of("discoveredAt"))
    else:
        date = js_new_date(discovered)
        written = discovered if isinstance(discovered, str) else _plain_text(memory, "discoveredAt") if isinstance(discovered, JsDate) else None
        if not date.valid:
            add(WARNING, "date", f"discoveredAt {js_to_string(discovered)!r} is not a date JavaScript can read: no recency bonus", line_of("discoveredAt"))
        elif not isinstance(discovered, (JsDate, str)):
            add(WARNING, "date", f"discoveredAt is a {type_name(discovered)}; JavaScript reads it as {date.iso()}", line_of("discoveredAt"))
        else:
            if isinstance(discovered, str):
                notes = reading_notes(discovered)
            else:  # a timestamp js-yaml made into a date itself
                from ..js.jsyaml import timestamp_notes

                notes = [(True, note) for note in timestamp_notes(written or "")]
            moved = [note for moves, note in notes if moves]
            if moved:
                add(WARNING, "date", f"discoveredAt {written!r} is not the date it looks like: {'; '.join(moved)}. JavaScript reads it as {date.iso()}", line_of("discoveredAt"))
            # in the future or not depends on when lint runs: kept aside, so the rest can be kept between runs
            spelled_otherwise = written is not None and not _ISO_LIKE.match(written)  # "Nov 21, 2026": say what it became
            shown = f"{written!r} (read as {date.iso()})" if moved or spelled_otherwise else date.iso()
            future = (len(out), date.ms, Finding(path, WARNING, "date", f"discoveredAt {shown} is in the future: it always counts as recent (+10)", line_of("discoveredAt")))
            if isinstance(discovered, str) and _LOCAL_DATETIME.match(discovered.strip()):
                add(INFO, "date", "discoveredAt has a time but no offset: JavaScript reads it in the arbiter machine's local time zone; add 'Z'", line_of("discoveredAt"))
            elif any(not moves for moves, _ in notes):
                add(INFO, "date", f"discoveredAt {written!r} names no time zone: JavaScript reads it in the arbiter machine's local time zone (an ISO date such as 2026-11-21 is UTC); add 'Z' or an offset", line_of("discoveredAt"))

    # discoveredBy
    by = attrs.get("discoveredBy", UNDEFINED)
    if by is UNDEFINED:
        add(WARNING, "missing-field", "no discoveredBy: the injected text says '*Discovered by: undefined*'", line_of("discoveredBy"))
    elif not isinstance(by, str):
        add(WARNING, "field-type", f"discoveredBy is a {type_name(by)}: it never matches an agent and prints as {js_to_string(by)!r}", line_of("discoveredBy"))

    # tags and optional fields
    tags = attrs.get("tags", UNDEFINED)
    if js_truthy(tags) and not isinstance(tags, list):
        add(ERROR, "field-type", f"tags is a {type_name(tags)}, not a list: the spec's scoring calls tags.filter() and throws", line_of("tags"))
    elif isinstance(tags, list) and any(not isinstance(t, str) for t in tags):
        add(WARNING, "field-type", "tags holds values that are not text; they never match an agent's tags", line_of("tags"))
    elif tags is not UNDEFINED and not isinstance(tags, list):
        add(WARNING, "field-type", f"tags is {js_to_string(tags)!r}, not a list", line_of("tags"))
    for name in ("discoveredIn", "source"):
        value = attrs.get(name, UNDEFINED)
        if value is not UNDEFINED and not isinstance(value, str):
            add(WARNING, "field-type", f"{name} is a {type_name(value)}, not text", line_of(name))
    related = attrs.get("relatedMemories", UNDEFINED)
    if related is not UNDEFINED and not (isinstance(related, list) and all(isinstance(r, str) for r in related)):
        add(WARNING, "field-type", "relatedMemories should be a list of memory file names", line_of("relatedMemories"))

    # body and entries
    words = count_words((entry.body for entry in memory.entries), stop=MAX_WORDS + 1)
    if words < MIN_WORDS:
        add(INFO, "body-length", f"the body has {words} words; the convention asks for at least {MIN_WORDS}")
    elif words > MAX_WORDS:
        add(WARNING, "body-length", f"the body has more than {MAX_WORDS} words, the convention's maximum (split it)")
    for suspect in memory.suspect_blocks:
        add(ERROR, "torn-entry", suspect.reason, suspect.line)
    cut = memory.entries_cut
    if cut is not None:
        add(WARNING, "entries-limit", f"{cut.reason} (the fold, the timeline and the torn-entry check end before it)", cut.line)
    if memory.differs_from_entries:
        later = memory.entries[1:]
        add(INFO, "appended-entries", f"{len(later)} appended entr{'y' if len(later) == 1 else 'ies'}: the spec's arbiter reads only the first frontmatter and injects the rest as body text")
        first = memory.entries[0].frontmatter or {}
        for entry in later:
            for key, value in (entry.frontmatter or {}).items():
                if key in ("title", "whenToUse", "importance", "tags", "discoveredAt", "discoveredBy") and not _same_value(first.get(key, UNDEFINED), value):
                    add(WARNING, "hidden-change", f"entry {entry.index + 1} sets {key}: {display_value(value)!r}, which the spec's arbiter never sees", entry.line)
    return FileFindings(tuple(out), future)


# The store's folders: what rawko-tui does when one is a symlink (never followed, for reading or writing).
_STORE_FOLDERS = (
    (".rawko", ERROR, "nothing under it is read or written; make it a real folder"),
    (".rawko/memories", ERROR, "no memory in it is loaded, and writing a memory there is refused"),
    (".rawko/.write-journal", ERROR, "no record of an interrupted write in it is read, and rawko-tui never writes its journal through it"),
    (".rawko/agents", WARNING, "no agent definition in it is read: every agent is previewed with the spec's defaults"),
    (".rawko/sessions", WARNING, "no session in it is read"),
    (".rawko/checks", WARNING, "no saved task in it is read or checked"),
)
_DISMISSALS_LOST = "the dismissals it records are not read: those candidates come back in the queue"
_DECISION_LOGS = (DECISIONS_FILE, LEGACY_DISMISSED_FILE)
# The other files of .rawko/ rawko-tui reads (memories, agents and rawko-tui.yaml have findings of their own):
# (folder, file pattern, size limit, what refusing one means)
_STORE_FILES = (
    (".rawko", "checks.yaml", SETTINGS_LIMIT, "its saved tasks are not read or checked"),
    (".rawko/checks", "*.yaml", SETTINGS_LIMIT, "its saved tasks are not read or checked"),
    (".rawko/sessions", "*/agent-memory.yaml", SESSION_LIMIT, "the session is not read"),
    *((".rawko", name, SETTINGS_LIMIT, _DISMISSALS_LOST) for name in _DECISION_LOGS),
    (".rawko/.write-journal", "*", SETTINGS_LIMIT, "a write it records as begun is not checked for having finished"),
)


def saved_file_findings(root, said: set[str]) -> list[Finding]:
    """Saved tasks and agent sessions that cannot be read as such (an alias bomb, not YAML, the wrong shape): what
    `check` and `sessions` would report, so that lint names every file of the store it cannot use. ``said``: paths
    already reported (a link, a device), not said twice."""
    from ..curation.checks import load_checks

    found = []
    for error in load_checks(root)[1]:
        if error.path not in said:
            found.append(Finding(error.path, ERROR, "saved-tasks", f"{error.reason}: its saved tasks are not checked", error.line))
    # the sessions and the decision logs are read (their modules imported) only where there are any: most stores have none
    if os.path.lexists(os.path.join(root, ".rawko", "sessions")) or linked_part(root, ".rawko/sessions") is not None:
        from ..curation.sessions import load_sessions

        for session in load_sessions(root):
            if session.error is not None and session.error.path not in said:
                found.append(Finding(session.error.path, WARNING, "session", f"{session.error.reason}: the session is not read", session.error.line))
    if any(os.path.lexists(os.path.join(root, ".rawko", name)) for name in _DECISION_LOGS):
        from ..curation.entries import decision_log_problems

        for path, reason, line in decision_log_problems(root):
            if path not in said:
                found.append(Finding(path, WARNING, "refused", f"{reason}; {_DISMISSALS_LOST}", line))
    return found


def store_file_findings(root) -> list[Finding]:
    """The store's folders that are symlinks, and each file of ``.rawko/`` rawko-tui refuses to read.

    A clone can commit ``.rawko/memories`` as a link to ``/`` or a session file
    as a link to ``/dev/zero``: neither is ever followed (``safeio``), and each
    gets a finding naming it and saying what is not read because of it. Only
    ``lstat`` is used here: nothing is opened.
    """
    found: list[Finding] = []
    for rel, severity, consequence in _STORE_FOLDERS:
        if linked_part(root, rel) == rel:
            found.append(Finding(rel, severity, "store-link", f"a symlinked folder: rawko-tui never follows it (a clone could point it anywhere, even at /); {consequence}"))
    if linked_part(root, ".rawko") is not None:
        return found  # nothing below it is read
    for folder, pattern, limit, consequence in _STORE_FILES:
        if linked_part(root, folder) is not None:
            continue  # said above
        for rel in _store_entries(root, folder, pattern):
            reason = refusal(os.path.join(root, rel), limit)
            if reason is not None:
                found.append(Finding(rel, WARNING, "refused", f"{reason}; {consequence}"))
    return found


def _store_entries(root, folder: str, pattern: str) -> list[str]:
    """Paths (from ``root``) under ``folder`` matching ``pattern`` part by part, links included; a symlinked
    folder on the way is listed itself, never listed through."""
    head, _, rest = pattern.partition("/")
    try:
        with os.scandir(os.path.join(root, folder)) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        return []
    found = []
    for entry in entries:
        if not fnmatch.fnmatchcase(entry.name, head):
            continue
        rel = f"{folder}/{entry.name}"
        if not rest or entry.is_symlink():
            found.append(rel)
        elif entry.is_dir(follow_symlinks=False):
            found += _store_entries(root, rel, rest)
    return found


def settings_findings(store: Store) -> list[Finding]:
    """Findings for the agent definitions (``.rawko/agents/*.md``) and ``.rawko/rawko-tui.yaml``."""
    found: list[Finding] = []
    for agent in store.agents.values():
        if agent.error is not None:
            found.append(
                Finding(agent.path, WARNING, "agent", f"{agent.error.reason}: its memory settings cannot be read, so rawko-tui previews it with the spec's defaults (5 memories, minimum importance low)", agent.error.line)
            )
            continue
        memory = agent.attrs.get("memory", UNDEFINED)
        if memory is not UNDEFINED and not isinstance(memory, dict):
            found.append(Finding(agent.path, WARNING, "agent-config", f"memory is a {type_name(memory)}, not a mapping of settings: ignored"))
            continue
        config = agent.memory_config
        if "maxInjected" in config:
            value = config["maxInjected"]
            number = js_to_number(value)
            shown = js_to_string(value)
            if math.isnan(number):
                found.append(Finding(agent.path, WARNING, "agent-config", f"memory.maxInjected {shown!r} is not a number: an arbiter that applies it (slice(0, NaN)) injects no memory for this agent"))
            elif number < 0:
                found.append(Finding(agent.path, WARNING, "agent-config", f"memory.maxInjected is {shown}: an arbiter that applies it (slice(0, {shown})) drops the last {shown.lstrip('-')} ranked memories instead of keeping that many"))
            elif math.isfinite(number) and number != int(number):
                found.append(Finding(agent.path, INFO, "agent-config", f"memory.maxInjected {shown} is not a whole number: slice() truncates it to {int(number)}"))
        if "minImportance" in config and js_to_string(config["minImportance"]) not in IMPORTANCE_ORDER:
            shown = js_to_string(config["minImportance"])
            found.append(Finding(agent.path, WARNING, "agent-config", f"memory.minImportance {shown!r} is not low, medium, high or critical: an arbiter that applies it lets no memory through for this agent"))
    found.extend(settings_file_findings(settings_problems(store.config)))
    return found


def settings_file_findings(problems) -> list[Finding]:
    """Settings problems (``settings.settings_problems``) as findings on their files."""
    return [Finding(p.file, p.severity, p.code, p.message) for p in problems]


def text_findings(memory: MemoryFile) -> list[tuple[str, str, str, int | None]]:
    """Findings about the file's bytes and raw text: encoding, NUL bytes, size, conflict markers, prompt injection."""
    found: list[tuple[str, str, str, int | None]] = []
    text = memory.text
    if memory.bad_utf8 is not None:
        offset, line = memory.bad_utf8
        found.append((WARNING, "encoding", f"byte {offset:,} is not UTF-8: the arbiter (and rawko-tui) read every such byte as U+FFFD '\ufffd'", line))
    nul = text.find("\x00")
    if nul >= 0:
        found.append((ERROR, "nul-bytes", f"the file holds {text.count(chr(0)):,} NUL bytes: it looks binary or corrupted, and the arbiter would inject them into prompts as they are", text.count("\n", 0, nul) + 1))
    if memory.bom:
        found.append((INFO, "bom", "the file starts with a UTF-8 byte order mark; the arbiter's decoder drops it, so it reads as usual", 1))
    crlf = text.find("\r\n")
    if crlf >= 0:
        found.append((INFO, "line-endings", "CRLF (Windows) line endings: the arbiter reads the fields as usual but injects the body with its carriage returns", text.count("\n", 0, crlf) + 1))
    if memory.spec is not None and len(memory.spec.frontmatter_text) > MAX_FRONTMATTER:
        size = len(memory.spec.frontmatter_text)
        found.append((WARNING, "frontmatter-size", f"the frontmatter is {size:,} characters: the arbiter parses it on every run, and a memory's fields fit in a few hundred", memory.spec.frontmatter_line))
    if len(text) > LONG_LINE:
        longest, line = _longest_line(text)
        if longest > LONG_LINE:
            found.append((INFO, "long-line", f"a line {longest:,} characters long: hard to review, and a diff shows any change to it as one huge change", line))
    if "<<<<<<<" in text and ">>>>>>>" in text:
        marker = _CONFLICT_MARKER.search(text)
        if marker is not None:
            line = text.count("\n", 0, marker.start()) + 1
            found.append((ERROR, "conflict-markers", f"a merge-conflict marker ({marker.group()[:7]}): a merge was saved unresolved; keep both sides' entries, in order, and remove the markers before committing", line))
    found.extend(injection_findings(text))
    found.extend(invisible_findings(memory))
    found.extend(hidden_findings(memory))
    return found


_LINES_PIECE = 1 << 20  # characters split at a time: a piece's lines, never a whole file's millions of them


def _longest_line(text: str) -> tuple[int, int]:
    """The length and line number of the first longest line. Splitting keeps C speed (a regex for a long run of
    non-newlines is quadratic); a piece of about a megabyte at a time keeps the lines of one piece only (all the
    lines of a 64 MB file of short lines held 700 MB)."""
    longest, longest_line, line, start = -1, 1, 1, 0
    while True:
        end = text.find("\n", start + _LINES_PIECE)
        lengths = list(map(len, (text[start:] if end < 0 else text[start:end]).split("\n")))
        most = max(lengths)
        if most > longest:
            longest, longest_line = most, line + lengths.index(most)
        if end < 0:
            return longest, longest_line
        line, start = line + len(lengths), end + 1


def injection_findings(text: str) -> list[tuple[str, str, str, int | None]]:
    """``prompt-injection``: each move of a passage the detector flags (``injection.read``: the text as written,
    decoded and as a model reads it; each move's context; a fitted score), one finding per move, on its first line."""
    from .injection import MOVES, read

    found: list[tuple[str, str, str, int | None]] = []
    said: set[str] = set()
    move_words = {move.name: move.what for move in MOVES}
    for verdict in read(text):
        if not verdict.flagged:
            continue
        moves = [hit for hit in verdict.hits if not hit.context] or list(verdict.hits)  # only mentions: say them
        named = {hit.move for hit in moves}
        for hit in moves:
            if hit.move in said or _STRONGER.get(hit.move) in named:
                continue
            said.add(hit.move)
            how = f" (read as a model reads it: {hit.how})" if hit.view else ""
            hidden = " in text a Markdown view hides" if hit.hidden else ""
            found.append((WARNING, "prompt-injection", f"{move_words[hit.move]}{hidden}: '{inline(hit.excerpt, 100)}'{how}. The arbiter injects this text into agents' prompts as it is; check who wrote it", hit.line))
        if not verdict.hits and "hidden-addressed" not in said:
            said.add("hidden-addressed")
            found.append((WARNING, "prompt-injection", f"text a Markdown view hides speaks to the agent (lines {verdict.first_line}-{verdict.last_line}). The arbiter injects this text into agents' prompts as it is; check who wrote it", verdict.first_line))
    return found


_STRONGER = {"override-weak": "override", "secrets-weak": "secrets"}  # said once: the stronger reading of the same words
MAX_HIDDEN_FINDINGS = 10  # parts named per file


def hidden_findings(memory: MemoryFile) -> list[tuple[str, str, str, int | None]]:
    """``hidden-text``: each part of a field or the body a Markdown renderer does not show but the arbiter injects
    (HTML comments, link reference definitions nothing links to, elements a browser hides), quoted visibly. A
    warning, as ``invisible-characters`` is: whatever it says, a reviewer reading the rendered memory never sees it."""
    from ..text.markdownhidden import hidden_parts, may_hide

    text = memory.text
    if text is None or not may_hide(text):
        return []
    parts = hidden_parts(text)
    if not parts:
        return []
    where = _places(memory, text)
    found = []
    for part in parts[:MAX_HIDDEN_FINDINGS]:
        lines = f" (to line {part.end_line})" if part.end_line > part.line else ""
        found.append(
            (
                WARNING,
                "hidden-text",
                f"{where(part.line)}{lines} holds {part.kind}, which a Markdown view does not show but the arbiter injects into agents' prompts: "
                f"'{inline(part.text, 200)}'",
                part.line,
            )
        )
    if len(parts) > MAX_HIDDEN_FINDINGS:
        found.append((WARNING, "hidden-text", f"{len(parts) - MAX_HIDDEN_FINDINGS} more hidden parts after line {parts[MAX_HIDDEN_FINDINGS - 1].line} (only the first {MAX_HIDDEN_FINDINGS} are named)", parts[MAX_HIDDEN_FINDINGS].line))
    return found


MAX_INVISIBLE_FINDINGS = 10  # lines named per file; a file of hidden text needs no thousand findings


def invisible_findings(memory: MemoryFile) -> list[tuple[str, str, str, int | None]]:
    """``invisible-characters``: each field or body line holding characters a reader cannot see
    (zero-width, tag characters, bidi controls, other format characters), named with what they are;
    tag characters with the text they spell."""
    text = memory.text
    if text is None or text.isascii():
        return []
    by_line: dict[int, list[str]] = {}
    line, counted_to, more = 1, 0, False
    for offset, char in invisible_characters(text):
        line += text.count("\n", counted_to, offset)
        counted_to = offset
        if line not in by_line and len(by_line) == MAX_INVISIBLE_FINDINGS:
            more = True
            break
        by_line.setdefault(line, []).append(char)
    if not by_line:
        return []
    where = _places(memory, text)
    found = []
    for number, chars in by_line.items():
        what = _what_is_hidden(chars)
        found.append(
            (
                WARNING,
                "invisible-characters",
                f"{where(number)} holds {what}: a reader does not see them (rawko-tui shows them as \\u escapes), "
                "but the arbiter injects them into agents' prompts as they are",
                number,
            )
        )
    if more:
        found.append((WARNING, "invisible-characters", f"more lines after line {line - 1} hold invisible characters too (only the first {MAX_INVISIBLE_FINDINGS} are named)", line))
    return found


def _what_is_hidden(chars: list[str]) -> str:
    """``3 invisible characters (U+200B ZERO WIDTH SPACE ×2, …)``; tag characters with what they spell."""
    tags = [c for c in chars if 0xE0000 <= ord(c) <= 0xE007F]
    parts = []
    if tags:
        spelled = tag_text("".join(tags))
        parts.append(f"{len(tags)} tag character{'s' if len(tags) != 1 else ''} (U+E0000 block)" + (f" spelling {spelled[:120]!r}" if spelled.strip() else ""))
    counts: dict[str, int] = {}
    for char in chars:
        if char not in tags:
            counts[char] = counts.get(char, 0) + 1
    named = [f"{character_name(c)}" + (f" ×{n}" if n > 1 else "") for c, n in list(counts.items())[:4]]
    if len(counts) > 4:
        named.append(f"{len(counts) - 4} more kinds")
    if named:
        others = sum(counts.values())
        parts.append(f"{others} invisible character{'s' if others != 1 else ''} ({', '.join(named)})")
    return " and ".join(parts)


_FIELD_LINE = OnFirstUse(r"([A-Za-z_][\w-]*)\s*:")


def _places(memory: MemoryFile, text: str):
    """A lookup from a line number to where it is: ``the title``, ``entry 2's tags``, ``the body``."""
    entries = memory.entries if memory.error is None else []
    lines = text.split("\n")
    blocks = []  # (entry index, first line, closing line) of each frontmatter
    for entry in entries:
        if entry.frontmatter is None:
            continue
        closing = entry.line + 1
        while closing <= len(lines) and lines[closing - 1].rstrip("\r") != "---":
            closing += 1
        blocks.append((entry.index, entry.line, closing))
    starts = sorted((e.line, e.index) for e in entries)

    def where(number: int) -> str:
        for index, first, closing in blocks:
            if first < number < closing:
                field = next((m.group(1) for n in range(number, first, -1) if (m := _FIELD_LINE.match(lines[n - 1]))), None)
                name = f"the {field} field" if field else "the frontmatter"
                return f"line {number} ({name}{'' if index == 0 else f' of entry {index + 1}'})"
        owner = [index for start, index in starts if start <= number]
        if not owner:
            return f"line {number}"
        return f"line {number} (the body{'' if owner[-1] == 0 else f' of entry {owner[-1] + 1}'})"

    return where


def lint_text(root, name: str, data: bytes) -> list[Finding]:
    """Findings for a memory file as it would be (nothing is written to find out)."""
    from ..store.reading import memory_from_bytes

    return _lint_as_written(memory_from_bytes(root, name, data))


def lint_in_store(store: Store, changes: dict[str, bytes], name: str) -> list[Finding]:
    """What ``rawko-tui lint`` would say about memory ``name`` once every file of ``changes`` holds its new bytes
    (``name`` among them): its own findings and those the other memories make (a title another one has too).
    Nothing is written to find out."""
    from ..curation.entries import files_with

    files = files_with(store, changes)
    memory = next(f for f in files if f.name == name)
    return _lint_as_written(memory) + store_level_findings(files, only=memory.rel_path)


def _lint_as_written(memory: MemoryFile) -> list[Finding]:
    from ..arbiters.loaders import sdk_read
    from ..arbiters.profiles import RAWKO_SDK

    found = lint_file(memory)
    # a file written now should load under every arbiter: rawko-sdk's loader is the strictest
    skipped = sdk_read(memory, RAWKO_SDK) if memory.text is not None else None
    if isinstance(skipped, str):
        found.append(Finding(memory.rel_path, WARNING, "arbiter-skips", skipped))
    return found


def count_words(texts, stop: int) -> int:
    """Words in the texts, counting no further than ``stop`` (a 30 MB body is not read to the end)."""
    count = 0
    for text in texts:
        for _ in _WORD_RE.finditer(text):
            count += 1
            if count >= stop:
                return count
    return count


def lint_pattern(pattern: str) -> list[tuple[str, str, str]]:
    """Findings for one whenToUse pattern, judged by how SPEC-0007's matchPattern reads it."""
    found: list[tuple[str, str, str]] = []
    result = match_pattern(pattern, "")
    shown = _quote(pattern)
    if result.interpretation == ALTERNATIVES:
        alternatives = [a.strip() for a in result.normalized.split("|")]
        if len(alternatives) > MAX_ALTERNATIVES:
            found.append((WARNING, "pattern-size", f"{shown} has {len(alternatives):,} alternatives: too many to review, and any one of them injects the memory"))
        if "" in alternatives:
            found.append((ERROR, "pattern-matches-everything", f"{shown} has an empty alternative, which every task contains: it matches everything"))
        regexy = [a for a in alternatives if looks_like_regex(a)]
        if regexy:
            wildcard = " ('.*' is not a wildcard there)" if any(".*" in a for a in regexy) else " (regex syntax is not read there)"
            verb = "matches only a task" if len(regexy) == 1 else "match only tasks"
            found.append(
                (
                    WARNING,
                    "pattern-regex-in-alternatives",
                    f"{shown} is split on '|' into literal substrings; {_some(regexy)} {verb} that literally contain{'s' if len(regexy) == 1 else ''} those characters{wildcard}",
                )
            )
        found += _common_words(shown, [a for a in alternatives if a])
        long_phrases = [a for a in alternatives if len(a.split()) >= 3 and a not in regexy]
        if long_phrases:
            found.append((WARNING, "pattern-natural-language", f"{shown}: {_some(long_phrases)} must appear word for word in the task to match"))
        return found
    if result.normalized == "":
        found.append((ERROR, "pattern-matches-everything", f"{shown} is empty: every task contains the empty string"))
        return found
    for reason in result.fell_through:
        if len(reason) > 300:
            reason = reason[:200] + "…" + reason[-100:]
        found.append((WARNING, "pattern-invalid-regex", f"{shown}: {reason}, to a plain substring match of {_quote(result.normalized)}"))
    if result.interpretation in (WILDCARD, REGEX):
        compiled = compile_js(result.regex_source)
        if _matches_everything(compiled):
            found.append((ERROR, "pattern-matches-everything", f"{shown} becomes /{result.regex_source}/i, which matches every task"))
        if compiled.engine != "re2":
            found.append(
                (
                    WARNING,
                    "pattern-not-linear",
                    f"{shown} needs a backtracking engine (backreference, lookaround or a count over 1000); "
                    "rawko-tui runs it under a time limit and a slow match counts as no match",
                )
            )
        notes = annex_b_notes(result.regex_source)
        if notes:
            found.append((INFO, "pattern-js-syntax", f"{shown} uses syntax only JavaScript reads this way: {'; '.join(notes)}"))
        if nested_quantifier_risk(result.regex_source):
            found.append((WARNING, "pattern-catastrophic", f"{shown} has nested quantifiers: your arbiter's backtracking engine (V8) can hang on some tasks"))
        if result.interpretation == WILDCARD and "?" in result.normalized:
            found.append((INFO, "pattern-wildcard", f"{shown}: every '?' becomes '.', any one character (also in '(?:' or a lazy '+?')"))
    elif result.interpretation == SUBSTRING and not result.fell_through and _REGEX_SYNTAX.difference(".").intersection(result.normalized):
        found.append(
            (
                WARNING,
                "pattern-regex-as-substring",
                f"{shown} looks like a regex, but the spec compiles a pattern only when it holds '*' or '?', or both '.' and '{{': "
                f"it matches only a task that literally contains {_quote(result.normalized)}",
            )
        )
    elif result.interpretation == SUBSTRING and (common := _common_words(shown, [result.normalized.strip()])):
        found += common
    elif result.interpretation == SUBSTRING and len(result.normalized.split()) >= 3:
        found.append((WARNING, "pattern-natural-language", f"{shown} is matched as a literal substring; a task rarely contains that phrase word for word"))
    return found


def _common_words(shown: str, alternatives: list[str]) -> list[tuple[str, str, str]]:
    """A warning for alternatives that are among the most frequent English words: they match tasks on any subject."""
    common = [a for a in alternatives if a.isalpha() and is_common_word(a)]
    if not common:
        return []
    inside = {a: words_containing(a, 2) for a in common[:3]}
    examples = "; ".join(f"{a!r} also matches inside {', '.join(repr(w) for w in words)}" for a, words in inside.items() if words)
    subject = f"{_some(common)} {'is' if len(common) == 1 else 'are'} among the {COMMON_WORD_RANK} most frequent English words"
    return [(WARNING, "pattern-common-word", f"{shown}: {subject}, so the memory is injected for tasks on any subject" + (f" ({examples})" if examples else ""))]


def _quote(text: str) -> str:
    """``repr`` of a pattern, cut when long (a message is read, not scrolled)."""
    return repr(text) if len(text) <= 120 else repr(text[:100]) + f"… ({len(text):,} characters)"


def _some(items: list[str], shown: int = 5) -> str:
    """The first few items, quoted: a pattern can hold 20,000 alternatives."""
    text = ", ".join(repr(item[:80]) for item in items[:shown])
    return text + (f" and {len(items) - shown:,} more" if len(items) > shown else "")


def _same_value(a: object, b: object) -> bool:
    """Equal as the arbiter would see them (a quoted and an unquoted ISO date are the same instant)."""
    if isinstance(a, (JsDate, str)) and isinstance(b, (JsDate, str)) and type(a) is not type(b):
        return js_new_date(a).ms == js_new_date(b).ms
    return a == b


def _matches_everything(compiled) -> bool:
    try:
        return all(compiled.test(probe) for probe in _PROBES)
    except JsRegexTimeout:
        return False


def _plain_text(memory: MemoryFile, name: str) -> str | None:
    """A top-level field's value as written on its line (quotes and a trailing comment removed), or None."""
    if memory.spec is None:
        return None
    for text in memory.spec.frontmatter_text.split("\n"):
        match = re.match(rf"^{re.escape(name)}\s*:[ \t]*(.*?)(?:[ \t]+#.*)?[ \t\r]*$", text)
        if match:
            return match.group(1).strip("'\"") or None
    return None


def _field_lines(memory: MemoryFile):
    """A lookup from a field name to its 1-based line in the first frontmatter block."""
    lines: dict[str, int] = {}
    if memory.spec is not None:
        for offset, text in enumerate(memory.spec.frontmatter_text.split("\n")):
            match = re.match(r"^([A-Za-z_][\w-]*)\s*:", text)
            if match and match.group(1) not in lines:
                lines[match.group(1)] = memory.spec.frontmatter_line + offset
    return lines.get


__all__ = ["Finding", "lint_store", "lint_file", "lint_pattern", "ERROR", "WARNING", "INFO", "JsRegexSyntaxError"]
