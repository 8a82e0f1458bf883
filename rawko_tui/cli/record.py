"""Commands that keep the record append-only: init, verify, hook install and uninstall, and torn (an interrupted write)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.text.safetext import plural
from .loading import _memory_name, _store_root
from .output import EXIT_FINDINGS, EXIT_OK, UsageError, _dumps, _error, _report, _write
from .writing import _write_planned


def cmd_verify(args) -> int:
    from ..core.record.history import verify, verify_pre_receive, verify_push
    from ..core.text.safetext import clean_name

    # the repository, not a store: every store in it is checked, and a server's bare repository has none
    root = Path(args.path or ".").resolve()
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder")
    modes = [flag for flag, given in (("--push", args.push), ("--pre-receive", args.pre_receive), ("--staged", args.staged)) if given]
    if len(modes) > 1:
        raise UsageError(f"{' and '.join(modes)} cannot be used together")
    if args.ref and not args.push:
        raise UsageError("--ref goes with --push")
    if args.pre_receive:
        report = verify_pre_receive(root, sys.stdin.read())
        scope = f"{plural(report.refs_checked, 'ref')}, {plural(report.commits_checked, 'new commit')}"
    elif args.push:
        report = verify_push(root, args.push[0], args.push[1], args.ref)
        scope = f"the push, {plural(report.commits_checked, 'new commit')}"
    else:
        report = verify(root, since=args.since, staged=args.staged, remember=args.remember, rev=args.rev, history_only=args.history_only)
        if args.staged:
            scope = "staged changes"
        elif args.history_only:
            scope = plural(report.commits_checked, "commit")
        else:
            scope = f"{plural(report.commits_checked, 'commit')}, the index and the working tree"
    if args.json:
        _write(_dumps(report.to_dict()))
    else:
        lines = [str(v) for v in report.violations]  # each says its file name on one line (Violation.__str__)
        lines += [f"Note: {clean_name(n)}" for n in report.notes]
        if report.ok:
            lines.append(f"OK: memory files were only appended to ({scope}; {plural(report.changes_checked, 'change')} checked).")
        else:
            lines.append(f"{len(report.violations)} violation(s) of the append-only rule ({scope}).")
        _write("\n".join(lines) + "\n")
    return EXIT_OK if report.ok else EXIT_FINDINGS


def cmd_hook(args) -> int:
    path = Path(args.path or ".").resolve()
    if args.hook_command == "uninstall":
        return _uninstall_hook(path, server=args.server)
    return _install_hook(path, force=args.force, server=args.server)


def _install_hook(path: Path, force: bool, server: bool) -> int:
    from ..core.record.hooks import install_hook
    from ..core.text.safetext import clean_name

    installed = install_hook(path, force=force, server=server)
    where = clean_name(str(installed.path))
    if installed.hooks_path is not None:
        where += f" (core.hooksPath is {clean_name(installed.hooks_path)})"
    if installed.server:
        _write(f"Installed {where}: a push that loses or rewrites a memory entry is refused.\n")
    else:
        also = "".join(f" and {clean_name(str(path))}" for path in installed.also)
        _write(f"Installed {where}{also}: a commit or a merge that rewrites a memory file is refused (`--no-verify` skips it; `rawko-tui hook uninstall` removes it).\n")
    return EXIT_OK


def _uninstall_hook(path: Path, server: bool) -> int:
    from ..core.record.hooks import uninstall_hook
    from ..core.text.safetext import clean_name

    result = uninstall_hook(path, server=server)
    lines = [f"Removed {clean_name(str(hook))}: rawko-tui's own {hook.name} hook." for hook in result.removed]
    lines += [f"Left {clean_name(str(hook))} as it is: {why}." for hook, why in result.kept]
    if not result.removed and not result.kept:
        lines.append(f"No {'pre-receive' if server else 'pre-commit or pre-merge-commit'} hook in {clean_name(str(result.folder))}: nothing to remove.")
    _write(_report(lines))
    return EXIT_FINDINGS if result.edited else EXIT_OK  # rawko-tui's check is still in force there


def cmd_init(args) -> int:
    from ..core.disk.gitrepo import repo_root
    from ..core.record.writer import init_store

    root = Path(args.path or ".").resolve()
    above = _store_above(root) if not (root / ".rawko" / "memories").is_dir() else None  # a store here: said below
    if above is not None and not args.nested:
        raise UsageError(
            f"{above} holds a store already, and {root} is inside it: commands run there use that store. "
            f"Open it with `rawko-tui {above}`, or use --nested to start a second store in {root}"
        )
    existing = next((folder for folder in (root, *root.parents) if folder.is_dir()), root)
    repository = repo_root(existing)
    if args.hook and repository is None:
        raise UsageError(f"--hook: {root} is not in a git repository (`git init` makes one); nothing was created")
    created = init_store(root)
    for path in created:
        _write(f"Created {path.relative_to(root).as_posix()}{'/' if path.is_dir() else ''}\n")
    if not created:
        _write(f"{root}/.rawko is already a store; nothing was changed.\n")
    opener = f"rawko-tui {args.path}" if args.path else "rawko-tui"
    _write(
        "Next: agents write memories to .rawko/memories/; a person adds one with the app's n key or\n"
        "`rawko-tui new --title … --when … --importance … --by …`. Commit .rawko/ with the project.\n"
        f"Open the app: {opener}\n"
    )
    if args.hook:
        return _install_hook(root, force=False, server=False)
    at = f" {args.path}" if args.path else ""
    if repository is not None:
        _write(f"Refuse commits that rewrite a memory file (a git hook): rawko-tui hook install{at}\n")
    else:
        _write(f"Not in a git repository yet: after `git init`, `rawko-tui hook install{at}` refuses commits that rewrite a memory file.\n")
    return EXIT_OK


def _store_above(folder: Path) -> Path | None:
    """The nearest folder above ``folder`` holding a store (``.rawko/memories/``), or None."""
    return next((above for above in folder.parents if (above / ".rawko" / "memories").is_dir()), None)


def cmd_torn(args) -> int:
    """An interrupted write in a memory: shown, and resolved by taking its bytes back, committing rawko-tui's own
    complete entry, or acknowledging a torn one."""
    from ..core.record.writer import acknowledge, journal_problems, person_name, plan_commit, shown_text, take_back, torn_hint, torn_writes

    root = _store_root(args)
    name = _memory_name(root, args.memory)
    for where, why in journal_problems(root):
        _write(_report([f"note: {where}: {why}"]))
    found = [t for t in torn_writes(root) if t.name == name]
    if not found:
        _write(f"{name} holds no interrupted write.\n")
        return EXIT_OK
    if not (args.take_back or args.acknowledge or args.commit):
        for torn in found:
            _write(_report([f"{torn.rel_path}: {torn.describe()}.", f"  {torn_hint(torn)}"]))
        return EXIT_FINDINGS
    torn = found[0]
    if args.commit:
        summary = f"Committed rawko-tui's own entry in {torn.rel_path} (line {torn.line}), written by a write that was stopped before its commit."
        return _write_planned(args, root, lambda: [plan_commit(root, torn)], "commit-interrupted", summary)
    if args.acknowledge:
        where = acknowledge(root, torn, args.by or person_name(root))
        _write(
            f"Acknowledged {torn.describe()} in {torn.rel_path} (recorded in {where}). Its {torn.arrived:,} bytes stay in the file; "
            "the next append shows them, uncommitted, as the torn part of an interrupted rawko-tui write, and commits them only with --include-uncommitted.\n"
        )
        return EXIT_OK
    if torn.removable is None:
        _error(f"{torn.rel_path}: {torn.describe()}. {torn_hint(torn)}")
        return EXIT_FINDINGS
    what = "the file rawko-tui was creating, removed whole" if torn.create and torn.offset == 0 else f"removed from the end of {torn.rel_path}"
    part = "rawko-tui's entry, never committed" if torn.uncommitted else "the part of rawko-tui's entry that reached the file, never committed"
    _write(f"--- {what} ({len(torn.removable):,} bytes from line {torn.line}: {part}) ---\n{shown_text(torn.removable)}\n--- end ---\n")
    if args.dry_run:
        return EXIT_OK
    take_back(root, torn)
    _write(f"Took back {len(torn.removable):,} bytes from {torn.rel_path}: it is as it was before the interrupted write.\n")
    return EXIT_OK
