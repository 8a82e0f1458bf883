"""The commands' one way to write a memory: the exact bytes and their lint verdict shown, then written and committed."""

from __future__ import annotations

import sys

from ..core import records
from ..core.curation.entries import read_body
from .output import EXIT_FINDINGS, EXIT_OK, UsageError, _report, _write


def _apply(args, root, writes, action: str, summary: str = "") -> int:
    """Write what was shown, then commit it (one commit for all the files), under the write lock."""
    from ..core.record.writer import apply_writes

    written = apply_writes(root, writes, action, summary, and_commit=not getattr(args, "no_commit", False))
    _write(written.describe(root) + "\n")
    return EXIT_OK


def _write_planned(args, root, plan, action: str, summary: str = "") -> int:
    """Plan, show and check the writes, and write exactly what was shown (nothing with --dry-run).

    Planned under the write lock: no other rawko-tui write comes between what
    is printed and what is written (an agent's ``>>`` still can: then nothing
    is written and the message says what changed).
    """
    import contextlib

    from ..core.record.writer import write_lock

    with contextlib.nullcontext() if args.dry_run else write_lock(root):
        writes = _include_uncommitted(args, plan())
        if not _show_and_check(args, root, writes):
            return EXIT_FINDINGS
        if args.dry_run:
            return EXIT_OK
        return _apply(args, root, writes, action, summary)


def _include_uncommitted(args, writes):
    """--include-uncommitted: bytes another writer appended since the last commit go into this commit too (they were shown)."""
    if not getattr(args, "include_uncommitted", False):
        return writes
    return [records.replace(w, include_foreign=True) if w.foreign else w for w in writes]


def _show_and_check(args, root, writes, ask_on_warnings: bool = False) -> bool:
    """Print the exact bytes of each write and the lint verdict on each result; True when they may be written.

    Bytes another writer appended since the last commit are printed as such:
    they are committed only with --include-uncommitted.  ``ask_on_warnings``
    (Claude's proposals): lint warnings are asked about on a terminal, and
    need --force without one.
    """
    from ..core.lint.linter import ERROR, WARNING, lint_text
    from ..core.record.writer import read_current, shown_text

    errors = warnings = False
    foreign = [w for w in writes if w.foreign]
    for write in writes:
        before = b""
        if write.kind == "append":
            before = read_current(root, write.rel_path) or b""
            where = f"appended to {write.rel_path} (after its {len(before):,} bytes; the leading blank line separates the entries)"
        elif write.kind == "commit":
            before = read_current(root, write.rel_path) or b""  # the entry is in it already: lint judges the file as it is
            where = f"committed from {write.rel_path}, line {write.line} on: rawko-tui's own entry, already in the file, never committed"
        else:
            where = f"new file {write.rel_path}"
        # every byte as it is committed: a byte that is not UTF-8 is shown as an escape (\xff), never replaced
        if write.foreign:
            _write(f"--- {write.foreign_note()} ---\n{shown_text(write.foreign)}--- end ---\n")
        _write(f"--- {where} ---\n{shown_text(write.data)}--- end ---\n")
        findings = lint_text(root, write.name, before if write.kind == "commit" else before + write.data)
        for finding in findings:
            _write(_report([str(finding)]))
        errors = errors or any(f.severity == ERROR for f in findings)
        warnings = warnings or any(f.severity == WARNING for f in findings)
    if errors and not getattr(args, "force", False):
        _write("Not written: the result has lint errors (use --force to write it anyway).\n")
        return False
    if foreign and not getattr(args, "no_commit", False) and not getattr(args, "include_uncommitted", False):
        whose = "that another writer appended" if not any(w.own for w in foreign) else "appended since the last commit (named above)"
        why = (
            f"the bytes above {whose} are not committed, and rawko-tui commits only what it shows "
            "as its own. Commit them first, or use --include-uncommitted to commit them with this entry (the commit message names "
            "another writer's as not written by rawko-tui)."
        )
        if getattr(args, "dry_run", False):
            _write(f"Note: without --include-uncommitted this would not be written: {why}\n")
        else:
            _write(f"Not written: {why}\n")
            return False
    if ask_on_warnings and warnings and not errors and not getattr(args, "force", False):
        if not sys.stdin.isatty():
            _write("Not written: lint warns about the proposal (above); check it, then use --force to write it anyway.\n")
            return False
        sys.stdout.write("Lint warns about the proposal (above). Write it anyway? [y/N] ")
        sys.stdout.flush()
        answer = sys.stdin.readline().strip().lower()
        if answer not in ("y", "yes"):
            _write("Not written.\n")
            return False
    return True


def _refuse_duplicate_title(args, store, title: str, writing: bool = True) -> None:
    """A title another memory has is refused (lint would warn duplicate-title on both), naming that memory;
    --allow-duplicate-title writes it all the same. Not ``writing`` (a proposal only): said, not refused."""
    from ..core.curation.entries import memories_titled
    from ..core.record.writer import WriteError

    same = memories_titled(store, title)
    if not same:
        return
    names = ", ".join(m.rel_path for m in same)
    if args.allow_duplicate_title:
        _write(_report([f"Note: {names} has this title too; lint will warn duplicate-title on both (--allow-duplicate-title)."]))
        return
    if not writing:
        _write(_report([f"Note: {names} has this title already: --write refuses it (give another --title, or --allow-duplicate-title)."]))
        return
    raise WriteError(
        f"{names} already has the title {title!r}: add to it with `rawko-tui append {same[0].name} --body …`, "
        "choose another title, or use --allow-duplicate-title to create a second memory with it; nothing was written"
    )


def _write_closest(store, title: str, body: str, when) -> None:
    """Before a memory is created: the existing memories that may hold its lesson already (append to one instead)."""
    from ..core.curation.consolidation.queue import closest_memories

    for closest in closest_memories(store, title, body, when):
        _write(_report([f"Closest existing memory: {closest.describe()}"]))
        if closest.same_knowledge:
            _write(_report([f"  rawko-tui append {closest.name} --body ...  adds to it instead of creating a new memory"]))


def _body(args) -> str:
    try:
        return read_body(args.body, args.body_file)
    except OSError as exc:
        raise UsageError(f"--body-file: cannot read {args.body_file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"--body-file: {args.body_file} is not UTF-8 text (byte {exc.start})") from None
