"""Commands over the saved tasks (.rawko/checks.yaml): check, impact between revisions, the agent matrix."""

from __future__ import annotations

from ..core.arbiters.ranking import few_queries
from ..core.curation.checks import impact, matrix, run_checks
from ..core.store.reading import load_store_at
from ..core.store.loading import load_store
from ..core.arbiters.request import refuse_unusable_arbiter
from .loading import _load, _now, _profile, _saved_tasks, _store_root
from .output import EXIT_FINDINGS, EXIT_OK, EXIT_UNDECIDED, _dumps, _report, _write


def cmd_check(args) -> int:
    store = _load(args)
    root = store.root
    profile = _profile(args, store)[0]  # the store's arbiter is refused here, with or without saved tasks
    tasks, errors = _saved_tasks(root)
    if not tasks and not errors:  # a new store: nothing fails (`verify && check` passes in CI)
        if args.json:
            _write(_dumps({"passed": 0, "failed": 0, "undecided": 0, "results": []}))
        else:
            _write(f"No saved tasks to check yet: add some to {root}/.rawko/checks.yaml (the app's t key saves the current one).\n")
        return EXIT_OK
    with few_queries(len(tasks)):  # a handful of saved tasks: no pattern sets compiled for them
        results = run_checks(store, tasks, profile, args.regex_budget)
    failed = [r for r in results if r.status == "fail"]
    undecided = [r for r in results if r.status == "undecided"]
    passed = len(results) - len(failed) - len(undecided)
    if args.json:
        _write(_dumps({"passed": passed, "failed": len(failed), "undecided": len(undecided), "results": [r.to_dict() for r in results]}))
    else:
        lines = []
        for result in results:
            mark = {"pass": "ok  ", "fail": "FAIL", "undecided": "??  "}[result.status]
            lines.append(f"{mark} {result.saved.label}  [{result.saved.source}]")
            if result.passed:
                continue
            for failure in result.failures:
                lines.append(f"       {'if nothing undecided matches: ' if result.undecided else ''}{failure}")
            for reason in result.undecided:
                lines.append(f"       undecided: {reason}")
            injection = result.injection
            if injection.throws:
                beside = f"; without that file: {', '.join(injection.ranked_beside)}" if injection.ranked_beside else ""
                lines.append(f"       injected: nothing (the arbiter throws{beside})")
            else:
                lines.append(f"       injected: {', '.join(result.injected) or '(nothing)'}")
        lines.append(f"{passed} passed, {len(failed)} failed" + (f", {len(undecided)} undecided" if undecided else ""))
        if undecided:
            lines.append("Undecided: a whenToUse regex rawko-tui could not decide; --regex-budget gives it more time (--allow-undecided: exit 0 anyway).")
        _write(_report(lines))
    if failed or errors:
        return EXIT_FINDINGS
    return EXIT_UNDECIDED if undecided and not args.allow_undecided else EXIT_OK


def cmd_impact(args) -> int:
    root = _store_root(args)
    tasks, _ = _saved_tasks(root)
    before = load_store_at(root, args.before)
    after = load_store(root) if args.after == "worktree" else load_store_at(root, args.after)
    if not args.arbiter:  # each side is ranked under its own store's arbiter: neither may be replaced by another
        for side in (before, after):
            refuse_unusable_arbiter(side.config)
    changes = impact(before, after, tasks, _profile(args, after)[0] if args.arbiter else None, args.regex_budget)
    if args.json:
        _write(_dumps({"before": args.before, "after": args.after, "changed": [c.to_dict() for c in changes]}))
        return EXIT_OK
    lines = [f"{len(changes)} of {len(tasks)} saved tasks change between {args.before} and {args.after}"]
    for change in changes:
        lines += [f"  {change.describe()}", f"      before: {change.before_injection.describe()}", f"      after:  {change.after_injection.describe()}"]
    _write(_report(lines))
    return EXIT_OK


def cmd_matrix(args) -> int:
    import time as _time

    root = _store_root(args)
    store = load_store(root)
    profile = _profile(args, store)[0]
    tasks, _ = _saved_tasks(root)
    if not tasks:  # a new store: nothing to build it from, nothing wrong
        if args.json:
            _write(_dumps({"agents": [], "tasks": [], "counts": {}, "dead": [], "overBroad": [], "emptyTasks": [], "failingTasks": [], "undecidedTasks": []}))
        else:
            _write(f"No saved tasks yet: the matrix is built from the tasks in {root}/.rawko/checks.yaml (the app's t key saves the current one).\n")
        return EXIT_OK
    result = matrix(store, [(t.task, t.agent) for t in tasks], _now(args, store) or _time.time() * 1000, profile, args.regex_budget)
    if args.json:
        _write(_dumps(result.to_dict()))
        return EXIT_OK
    width = max([len(m) for m in result.memories] + [6])
    lines = [f"{'memory':<{width}}  " + "  ".join(f"{a[:10]:>10}" for a in result.agents)]
    for memory in result.memories:
        lines.append(f"{memory:<{width}}  " + "  ".join(f"{result.counts[memory][a]:>10}" for a in result.agents))
    lines += ["", f"Dead (no saved task injects them): {', '.join(result.dead) or 'none'}"]
    lines.append(f"Over-broad (injected for 80% or more of {len(tasks)} tasks): {', '.join(result.over_broad()) or 'none'}")
    lines.append(f"Tasks that get nothing: {', '.join(repr(t) for t, _ in result.empty_tasks) or 'none'}")
    for task, agent, outcome in result.failing_tasks:
        lines.append(f"Task where the arbiter throws (agents get nothing): {task!r} ({agent}): {outcome.describe()}")
    for task, agent, outcome in result.undecided_tasks:
        lines.append(f"Task with an undecided match: {task!r} ({agent}): {'; '.join(outcome.uncertain)}")
    _write(_report(lines))
    return EXIT_OK
