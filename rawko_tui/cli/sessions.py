"""Commands on agent sessions: sessions lists them, promote turns an item into a long-term memory."""

from __future__ import annotations

from pathlib import Path

from ..core.store.reading import spec_extract
from ..core.store.loading import load_store
from .loading import _store_root
from .output import EXIT_FINDINGS, EXIT_OK, UsageError, _dumps, _report, _write
from .writing import _apply, _refuse_duplicate_title, _show_and_check, _write_closest


def cmd_sessions(args) -> int:
    from ..core.curation.sessions import load_sessions, promoted_to, promotions

    root = _store_root(args)
    sessions = load_sessions(root)
    if args.json:
        _write(_dumps({"sessions": [s.to_dict() for s in sessions]}))
        return EXIT_OK
    lines = [] if sessions else ["No sessions in .rawko/sessions/."]
    promoted = promotions(load_store(root)) if sessions else {}
    for session in sessions:
        if session.error:
            lines.append(f"{session.id}: {session.error}")
            continue
        lines.append(f"{session.id}  ({session.agent}, {session.created_at})")
        for item in session.items:
            result = f" [{item.result}]" if item.result else ""
            summary = item.summary if len(item.summary) <= 90 else item.summary[:89] + "…"
            names = promoted_to(promoted, session, item)
            lines.append(f"  {item.kind:<9} {item.id:<16} {item.importance:<8}{result} {summary}{'  (promoted: ' + ', '.join(names) + ')' if names else ''}")
    _write(_report(lines))
    return EXIT_OK


def cmd_promote(args) -> int:
    from ..core.curation.sessions import load_sessions, promoted_to, promotion_draft, promotions
    from ..core.record.writer import plan_create

    root = _store_root(args)
    session = next((s for s in load_sessions(root) if s.id == args.session or Path(s.path).parent.name == args.session), None)
    if session is None or session.error:
        raise UsageError(f"no readable session {args.session!r} in .rawko/sessions/" + (f" ({session.error.reason})" if session and session.error else ""))
    item = session.item(args.item)
    if item is None:
        raise UsageError(f"session {session.id} has no item {args.item!r}; `rawko-tui sessions` lists them")
    store = load_store(root)
    already = promoted_to(promotions(store), session, item)
    if already:
        _write(_report([f"Note: this {item.kind} was promoted before, to {', '.join(already)}."]))
    text = promotion_draft(session, item, args.when, args.title.strip() if args.title and args.title.strip() else None)
    try:
        title = spec_extract(text).attrs["title"]
    except (ValueError, TypeError, KeyError) as exc:  # never expected: the draft is written to load; said, never a traceback
        raise UsageError(f"session {session.id}, {item.kind} {item.id}: its draft does not load ({exc}); nothing was written") from None
    _refuse_duplicate_title(args, store, title, writing=args.write)
    _write_closest(store, title, item.text, None)
    plan = plan_create(root, title, text)
    if not _show_and_check(args, root, [plan]):
        return EXIT_FINDINGS
    if not args.write:
        _write("Proposed only: edit it with --title, or write it with --write.\n")
        return EXIT_OK
    return _apply(args, root, [plan], "promote", f"Promoted from session {session.id}, {item.kind} {item.id}.")
