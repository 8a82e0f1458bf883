"""Opening the app (``rawko-tui`` without a command): its arguments checked first, then rawko_tui.tui imported."""

from __future__ import annotations

import os
import sys

from ..core.arbiters.profiles import resolve_profile
from ..core.store.reading import StoreNotFound, find_store_root
from .commands import COMMANDS
from .loading import _now
from .output import UsageError


def cmd_app(args) -> int:
    if args.path is not None and not os.path.exists(args.path):
        raise UsageError(f"{args.path!r} is neither a command nor a folder{_closest_command(args.path)} (`rawko-tui --help` lists the commands)")
    _now(args)  # validate early: a clear message, not a traceback in the app
    try:
        root, problem = find_store_root(args.path), None
    except StoreNotFound as exc:
        root, problem = None, f"{exc}."
    if args.at and root is not None:
        from ..core.record.history import files_at

        files_at(root, args.at)  # a bad revision is a clear message here, not an empty app
    if args.arbiter and root is not None:
        from ..core.store.reading import load_config

        resolve_profile(load_config(root), args.arbiter)  # an unknown name is a clear message, not a silent default
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        # without a terminal the app can neither read keys nor draw: it would wait for ever (a CI job)
        raise UsageError("the app needs a terminal, and standard input or output is not one here; in a script, run a command (`rawko-tui --help` lists them)")
    from ..tui.app import run_app

    return run_app(root, task=args.task, agent=args.agent, now=args.now, problem=problem, at=args.at, arbiter=args.arbiter)


def _closest_command(given: str) -> str:
    import difflib

    close = difflib.get_close_matches(given.lower(), COMMANDS, n=3, cutoff=0.6)
    return f": did you mean {' or '.join(close)}?" if close else ""
