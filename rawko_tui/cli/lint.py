"""The lint command: every file of a store checked, findings said one per line."""

from __future__ import annotations

from ..core.arbiters.profiles import resolve_profile
from ..core.text.safetext import inline, inline_lines, plural
from .loading import _load, _now
from .output import EXIT_FINDINGS, EXIT_OK, _dumps, _write


def cmd_lint(args) -> int:
    from ..core.lint.linter import ERROR, lint_store
    from ..core.store.settings import load_person_settings

    store = _load(args)
    if args.arbiter:
        resolve_profile(store.config, args.arbiter)  # an unknown --arbiter is a usage error, not a finding
    # the person's own settings file too: what the app would ignore there is said here, on that file
    findings = lint_store(store, _now(args, store), arbiter=args.arbiter, person=load_person_settings())
    errors = sum(1 for f in findings if f.severity == ERROR)
    if args.json:
        _write(_dumps({"files": len(store.files), "errors": errors, "findings": [f.to_dict() for f in findings]}))
    else:
        # a finding is one line, whatever the name or text it quotes (plain ones, most often all, are checked at once)
        text = inline_lines([f.as_line() for f in findings])
        if text is None:
            text = "\n".join(inline(str(f)) for f in findings)
        warnings = sum(1 for f in findings if f.severity == "warning")
        summary = f"{plural(len(store.files), 'file')}: {plural(errors, 'error')}, {plural(warnings, 'warning')}, {len(findings) - errors - warnings} info"
        _write((text + "\n\n" if text else "") + summary + "\n", shown=True)  # every line shown by inline already
    return EXIT_FINDINGS if errors else EXIT_OK
