"""Commands that add to the memories and consolidate them: new, append, retire, link, confirm, candidates, opinion, extract."""

from __future__ import annotations

import math

from ..core.curation.consolidation import KINDS as CANDIDATE_KINDS
from ..core.curation.entries import confirm_entry, link_writes, now_iso, parse_assignments, reason_problem, retire_entry, supersede_writes
from ..core.js.dates import parse_iso_date
from ..core.store.loading import load_store
from ..core.store.settings import person_model
from ..core.text.safetext import plural
from ..core.text.tokens import DEFAULT_MODEL
from .loading import _memory_name, _now, _profile, _saved_tasks, _store_root
from .output import EXIT_FINDINGS, EXIT_OK, UsageError, _dumps, _report, _write
from .writing import _apply, _body, _refuse_duplicate_title, _show_and_check, _write_closest, _write_planned


def cmd_new(args) -> int:
    from ..core.record.writer import format_entry, plan_create

    root = _store_root(args)
    fields = {
        "title": args.title,
        "whenToUse": args.when if len(args.when) > 1 else args.when[0],
        "tags": [t.strip() for t in args.tags.split(",") if t.strip()],
        "importance": args.importance,
        "discoveredAt": args.discovered_at or now_iso(),
        "discoveredBy": args.by,
    }
    if args.discovered_at and math.isnan(parse_iso_date(args.discovered_at)):
        raise UsageError(f"--discovered-at: {args.discovered_at!r} is not an ISO 8601 date")
    if args.discovered_in:
        fields["discoveredIn"] = args.discovered_in
    body = _body(args)
    store = load_store(root)
    _refuse_duplicate_title(args, store, args.title)
    _write_closest(store, args.title, body, fields["whenToUse"])
    return _write_planned(args, root, lambda: [plan_create(root, args.title, format_entry(fields, body))], "create", f"New memory: {args.title}")


def _append(args, root, name: str, fields: dict, body: str, action: str, summary: str) -> int:
    from ..core.record.writer import format_entry, plan_append

    return _write_planned(args, root, lambda: [plan_append(root, name, format_entry(fields, body))], action, summary)


def cmd_append(args) -> int:
    from ..core.record.writer import person_name

    root = _store_root(args)
    name = _memory_name(root, args.memory)
    try:
        fields = parse_assignments(args.set)
    except ValueError as exc:
        raise UsageError(f"--set: {exc}") from None
    fields.setdefault("updatedAt", now_iso())
    fields.setdefault("updatedBy", person_name(root))
    return _append(args, root, name, fields, _body(args), "append", "")


def cmd_retire(args) -> int:
    from ..core.record.writer import person_name

    problem = reason_problem(args.reason)
    if problem:
        raise UsageError(f"--reason: {problem}")
    root = _store_root(args)
    name = _memory_name(root, args.memory)
    by = args.by or person_name(root)
    if args.superseded_by:
        new = _memory_name(root, args.superseded_by)
        # both sides: supersededBy and supersedes
        plan = lambda: supersede_writes(root, name, new, args.reason, by)  # noqa: E731
        return _write_planned(args, root, plan, "supersede", f"{name} superseded by {new}. Reason: {args.reason}")
    return _append(args, root, name, retire_entry(args.reason, by), f"Retired: {args.reason}", "retire", f"Reason: {args.reason}")


def cmd_link(args) -> int:
    from ..core.record.writer import person_name

    root = _store_root(args)
    name, other = _memory_name(root, args.memory), _memory_name(root, args.other)
    if name == other:
        raise UsageError("a memory cannot be linked to itself")
    by = args.by or person_name(root)
    plan = lambda: link_writes(root, load_store(root), name, other, by)  # noqa: E731
    if not plan():
        _write(f"{name} and {other} are linked already: each lists the other in relatedMemories. Nothing was written.\n")
        return EXIT_OK
    return _write_planned(args, root, plan, "link", f"Linked {name} and {other} (relatedMemories).")


def cmd_confirm(args) -> int:
    from ..core.record.writer import person_name, plan_append

    root = _store_root(args)
    name = _memory_name(root, args.memory)
    entry = confirm_entry(args.by or person_name(root), args.note)
    return _write_planned(args, root, lambda: [plan_append(root, name, entry)], "confirm", f"Confirmed {name}: it still holds.")


def cmd_candidates(args) -> int:
    import time

    from ..core.curation.consolidation.queue import MIN_TASKS_FOR_UNUSED, consolidation_candidates, injected_today

    kinds = {k.strip() for given in args.kind or [] for k in given.split(",") if k.strip()}
    unknown = sorted(kinds - set(CANDIDATE_KINDS))
    if unknown:
        raise UsageError(f"--kind: {', '.join(unknown)} is not one of {', '.join(CANDIDATE_KINDS)}")
    store = load_store(_store_root(args))
    now_ms = _now(args, store) or time.time() * 1000
    profile = _profile(args, store)[0]  # the store's own, or --arbiter's; one that is no profile is refused here
    saved = [(t.task, t.agent) for t in _saved_tasks(store.root)[0]] if not kinds or kinds & {"contradiction", "unused"} else []
    groups = consolidation_candidates(store, now_ms, kinds=kinds or None, tasks=saved, profile=profile, tasks_named="saved tasks")
    injections = {g.paths: injected_today(store, g.paths, saved, now_ms, profile) for g in groups if g.kind == "contradiction"}
    if args.json:
        found = []
        for group in groups:
            item = group.to_dict()
            if group.paths in injections:
                item["evidence"]["injectedToday"] = [i.to_dict() for i in injections[group.paths]]
            found.append(item)
        _write(_dumps({"candidates": found}))
        return EXIT_OK
    lines = [] if groups else ["No consolidation candidates."]
    folded = {"stale": "not confirmed recently or past expiresAt", "unused": f"that none of the {len(saved)} saved tasks injects"}
    for group in groups:
        if group.kind in folded and group.kind not in kinds:
            continue
        lines += [f"{group.kind:<15} {group.score:>5g}  {'  +  '.join(group.paths)}", f"{'':>22}{group.reason}"]
        evidence = group.evidence
        for conflict in evidence.conflicts if evidence is not None and group.kind == "contradiction" else ():
            lines.append(f"{'':>22}  {group.paths[0].rsplit('/', 1)[-1]}: {conflict.phrase_a!r}")
            lines.append(f"{'':>22}  {group.paths[1].rsplit('/', 1)[-1]}: {conflict.phrase_b!r}")
        for injection in injections.get(group.paths, ()):
            lines.append(f"{'':>22}today: {injection.describe(group.paths)}")
    for kind, what in folded.items():  # one line each unless asked for: they would drown the pairs
        count = sum(1 for g in groups if g.kind == kind)
        if count and kind not in kinds:
            lines.append(f"{kind:<15} {'':>5}  {plural(count, 'memory', 'memories')} {what} (--kind {kind} lists them)")
    if "unused" in kinds and len(saved) < MIN_TASKS_FOR_UNUSED:
        lines.append(f"unused: needs at least {MIN_TASKS_FOR_UNUSED} saved tasks to judge by (.rawko/checks.yaml has {len(saved)})")
    _write(_report(lines))
    return EXIT_OK


def cmd_opinion(args) -> int:
    import os

    from ..core.curation.consolidation.opinion import opinion_on

    root = _store_root(args)
    store = load_store(root)
    a, b = (store.file(_memory_name(root, given)) for given in (args.memory, args.other))
    model = args.model or person_model(DEFAULT_MODEL)  # the person's key pays: never a store's choice
    opinion = opinion_on(a, b, os.environ.get("ANTHROPIC_API_KEY"), model)
    if args.json:
        _write(_dumps({"paths": [a.rel_path, b.rel_path], "model": model, "cached": opinion.cached, **opinion.to_dict()}))
        return EXIT_OK
    _write(_report([f"{opinion.verdict}{' (cached answer)' if opinion.cached else ''}: {opinion.why}", f"  {a.name}: {opinion.quote_a!r}", f"  {b.name}: {opinion.quote_b!r}"]))
    return EXIT_OK


def cmd_extract(args) -> int:
    from ..core.curation.claude import ask_claude, build_extraction_prompt, extraction_file, parse_extraction
    from ..core.disk.safeio import read_named
    from ..core.record.writer import plan_create

    import os

    root = _store_root(args)
    try:
        output = read_named(args.source).decode("utf-8", errors="replace")  # a pipe is fine; /dev/zero is not read for ever
    except OSError as exc:
        raise UsageError(f"--from: cannot read {args.source}: {exc.strerror or exc}") from None
    store = load_store(root)
    existing = [(m.name, m.attrs["title"]) for m in store.files if isinstance(m.attrs.get("title"), str)]
    prompt = build_extraction_prompt(args.agent, args.task, output, args.result, existing)
    model = args.model or person_model(DEFAULT_MODEL)  # the person's key pays: never a store's choice
    extraction = parse_extraction(ask_claude(prompt, os.environ.get("ANTHROPIC_API_KEY"), model))
    if not extraction.should_create:
        _write(_report([f"No memory proposed. Reasoning: {extraction.reasoning or '(none given)'}"]))
        return EXIT_OK
    text = extraction_file(extraction, args.agent, args.task, now_iso())
    _write_closest(store, extraction.title or "", extraction.content, extraction.frontmatter.get("whenToUse"))
    plan = plan_create(root, extraction.title or "memory", text)
    # Claude's proposal is untrusted text: what lint only warns about (a prompt injection) is asked about before it is written
    if not _show_and_check(args, root, [plan], ask_on_warnings=args.write):
        return EXIT_FINDINGS
    if not args.write:
        _write("Proposed only: --write writes it.\n")
        return EXIT_OK
    return _apply(args, root, [plan], "extract", f"Extracted by Claude from the output of {args.agent}.")
