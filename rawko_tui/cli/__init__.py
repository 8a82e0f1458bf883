"""The ``rawko-tui`` command line: preview, explain and lint a memory store, or open the app.

Exit codes: 0 success, 1 lint found errors (or a write was refused: nothing
changed), 2 usage errors (bad arguments, no store), 3 written but not committed
(the change is in the files: commit it, do not write it again), 4 undecided:
what the arbiter injects depends on a regex rawko-tui could not decide
(``preview``; ``check`` unless --allow-undecided; --regex-budget gives it more time).

Each group of commands is a module of this package, imported only when one of its
commands runs (``commands.GROUPS``); the parsers are built in ``parser``.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence

TYPE_CHECKING = False  # typing is not imported on a command's start (2 ms): the annotations are never evaluated
if TYPE_CHECKING:
    from typing import NoReturn

from .commands import COMMANDS, handler


def run() -> NoReturn:
    """The console entry point: ``main``, then the exit.

    A one-shot command (``preview``, ``lint``…) in a script or hook runs without
    the cyclic garbage collector (its passes over tens of thousands of parsed
    memories are wasted: nothing it makes is cyclic garbage worth collecting
    before exit) and ends without tearing its objects down one by one, which at
    10,000 memories takes longer than the ranking. The collector is off before
    the command's modules are imported too (``main`` imports them): importing
    them with it on costs a twentieth more.
    """
    argv = sys.argv[1:]
    one_shot = bool(argv) and argv[0] in COMMANDS
    if one_shot:
        gc.disable()
    code = main(argv)
    if not one_shot:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader left (… | head), or a stream is closed
        pass
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    from .output import EXIT_PIPE_CLOSED, _error, _known_failure, _reader_gone

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS or any(a in ("-h", "--help", "--version") for a in argv[:1]):
            from .parser import _command_parser, build_parser

            parser = build_parser(argv[0] if argv[0] in COMMANDS else None)
            args, extra = parser.parse_known_args(argv)
            if extra:  # said by the command's own parser: its usage line, not the top one
                _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
            return handler(args.command)(args)
        from .app import cmd_app
        from .parser import build_app_parser

        app_parser = build_app_parser()
        known, extra = app_parser.parse_known_args(argv)  # parse_args itself, with the leftovers seen first
        if extra and (known.path is None or os.path.exists(known.path)):
            app_parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return cmd_app(known)  # "apend x": a mistyped command is said as such before its arguments are
    except BrokenPipeError:  # a write outside _write: the verdict was never reached
        _reader_gone()
        return EXIT_PIPE_CLOSED
    except Exception as exc:
        known = _known_failure(exc)
        if known is None:
            raise
        message, code = known
        _error(message)
        return code
    except KeyboardInterrupt:
        return 130
