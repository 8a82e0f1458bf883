"""The lint command: every file of a store checked, findings said one per line."""

from __future__ import annotations

from ..core.arbiters.profiles import resolve_profile
from ..core.text.safetext import inline, inline_lines, plural
from .loading import _load, _now
from .output import EXIT_FINDINGS, EXIT_OK, _dumps, _write, _write_utf8


def cmd_lint(args) -> int:
    from ..core.store.settings import load_person_settings

    store = _load(args)
    if args.arbiter:
        resolve_profile(store.config, args.arbiter)  # an unknown --arbiter is a usage error, not a finding
    now_ms = _now(args, store)
    # the person's own settings file too: what the app would ignore there is said here, on that file
    person = load_person_settings()
    kept = None
    if not args.json:  # the report kept for these very readings, when it is
        from ..core.lint.keptreport import KeptReport

        kept = KeptReport(store, args.arbiter)
        report = kept.report(now_ms, person)
        if report is not None:
            data, count, errors, warnings = report
            _write_utf8(data)  # its lines shown by inline already
            return _said(store, "\n\n" if data else "", count, errors, warnings)
    from ..core.lint.linter import ERROR, lint_store

    findings = lint_store(store, now_ms, arbiter=args.arbiter, person=person)
    errors = sum(1 for f in findings if f.severity == ERROR)
    if args.json:
        _write(_dumps({"files": len(store.files), "errors": errors, "findings": [f.to_dict() for f in findings]}))
        return EXIT_FINDINGS if errors else EXIT_OK
    if kept.missing:
        kept.keep()  # for the next run on these very readings
    # a finding is one line, whatever the name or text it quotes (plain ones, most often all, are checked at once)
    text = inline_lines([f.as_line() for f in findings])
    if text is None:
        text = "\n".join(inline(str(f)) for f in findings)
    warnings = sum(1 for f in findings if f.severity == "warning")
    _write(text, shown=True)  # every line shown by inline already
    return _said(store, "\n\n" if text else "", len(findings), errors, warnings)


def _said(store, before: str, count: int, errors: int, warnings: int) -> int:
    """The summary written after the findings' lines (``before``: the blank line between them); the exit code."""
    summary = f"{plural(len(store.files), 'file')}: {plural(errors, 'error')}, {plural(warnings, 'warning')}, {count - errors - warnings} info"
    _write(before + summary + "\n", shown=True)
    return EXIT_FINDINGS if errors else EXIT_OK
