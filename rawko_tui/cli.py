"""The ``rawko-tui`` command line: preview, explain and lint a memory store, or open the app.

Exit codes: 0 success, 1 lint found errors (or a write was refused: nothing
changed), 2 usage errors (bad arguments, no store), 3 written but not committed
(the change is in the files: commit it, do not write it again), 4 undecided:
what the arbiter injects depends on a regex rawko-tui could not decide
(``preview``; ``check`` unless --allow-undecided; --regex-budget gives it more time).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
from pathlib import Path
import sys
import dataclasses
from typing import NoReturn, Sequence

from . import __version__
from .core.arbiters.decision import (
    COMPONENT_KEYS,
    IMPORTANCE_ORDER,
    Preview,
    explain_candidate,
    fate_if_matched,
    iso_from_ms,
    parse_now,
    resolve_options,
)
from .core.arbiters.profiles import ProfileError, defined_profiles, resolve_profile
from .core.arbiters.ranking import run_preview_deciding
from .core.js.regexp import DEFAULT_REGEX_BUDGET_SECONDS
from .core.js.values import js_to_string, replace_lone_surrogates
from .core.text.safetext import clean, escape_json_controls, inline, plural
from .core.curation.consolidation import KINDS as CANDIDATE_KINDS
from .core.curation.checks import budget_for, impact, load_checks, matrix, prompt_shares, run_checks
from .core.store.settings import person_model
from .core.text.tokens import DEFAULT_MODEL
from .core.curation.entries import (
    confirm_entry,
    effective_store,
    link_writes,
    now_iso,
    parse_assignments,
    read_body,
    reason_problem,
    retire_entry,
    status_of,
    supersede_writes,
)
from .core.js.dates import parse_iso_date
from .core.js.values import display_value
from .core.store.reading import StoreNotFound, find_store_root, load_store, load_store_at, pinned_now, spec_extract

COMMANDS = ("init", "preview", "compare", "arbiters", "explain", "lint", "verify", "hook", "new", "append", "retire", "link", "confirm", "torn", "candidates", "opinion", "extract", "sessions", "promote", "check", "impact", "matrix")
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_NOT_COMMITTED, EXIT_UNDECIDED = 0, 1, 2, 3, 4
EXIT_PIPE_CLOSED = 141  # as a shell reports a command killed by SIGPIPE
DEFAULT_AGENT = "developer"  # the app's default too


class UsageError(Exception):
    pass


def _add_memory_path(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("memory", metavar="MEMORY_PATH", help="the memory file: its path (from anywhere: it names its store), or its name in .rawko/memories/")


def _add_store_path(parser: argparse.ArgumentParser, memory_path: bool = False) -> None:
    where = "the store of the memory path given, else searched upward from here" if memory_path else "searched upward from here"
    parser.add_argument("path", nargs="?", metavar="PATH", help=f"the folder holding .rawko/ (default: {where})")


def _add_context(parser: argparse.ArgumentParser, required: bool) -> None:
    parser.add_argument("--task", required=required, help="the task text, as the agent receives it")
    parser.add_argument(
        "--agent", default=DEFAULT_AGENT, help=f"the agent name (planner, developer, tester, reviewer, or one in .rawko/agents/; default: {DEFAULT_AGENT}, as in the app)"
    )
    parser.add_argument("--now", help="the time to score recency against, ISO 8601 (default: now)")
    parser.add_argument("--max", type=_count, dest="max_memories", metavar="N", help="memories to inject at most, 1 or more (default: agent config, else 5)")
    parser.add_argument("--min-importance", choices=list(IMPORTANCE_ORDER), help="lowest importance injected (default: agent config, else low)")
    parser.add_argument("--recursive", action="store_true", default=None, help="also load memories in subfolders (for arbiters that read them)")
    parser.add_argument("--at", metavar="REV", help="the store as it was at this git revision (default: the working tree)")
    _add_arbiter(parser)
    _add_regex_budget(parser)
    parser.add_argument(
        "--order",
        choices=("name", "directory"),
        help="the order files are loaded in: name (the default), or directory (as the folder lists them, which the real loaders use); it decides ties",
    )


def _add_arbiter(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--arbiter",
        metavar="NAME",
        help="the arbiter profile: spec-0007, rawko-sdk, spec-0005, or one defined in .rawko/rawko-tui.yaml (default: its `arbiter:`, else spec-0007)",
    )


def _add_regex_budget(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--regex-budget",
        type=_duration,
        default=DEFAULT_REGEX_BUDGET_SECONDS,
        metavar="TIME",
        help=f"time for the regexes only a backtracking engine runs (backreferences, lookaround), per ranking in total, e.g. 10s or 500ms "
        f"(default: {DEFAULT_REGEX_BUDGET_SECONDS:g}s); one not decided in it is reported as undecided, never as no match",
    )


def _count(text: str) -> int:
    """A number of memories: a whole number, 1 or more (0 or fewer would be read as a cut from the end, not a cap)."""
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a number of memories to inject: give 1 or more (leave --max out for the agent's own)")
    return value


def _duration(text: str) -> float:
    """``10s``, ``500ms``, ``2m`` or plain seconds."""
    value = text.strip().lower()
    scale = 1.0
    for unit, factor in (("ms", 0.001), ("s", 1.0), ("m", 60.0)):
        if value.endswith(unit):
            value, scale = value[: -len(unit)], factor
            break
    try:
        seconds = float(value) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a time (e.g. 10s, 500ms)") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a time (e.g. 10s, 500ms)")
    return seconds


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rawko-tui",
        usage="rawko-tui [PATH] [--task TEXT] [--agent NAME] [--now ISO] [--at REV] [--arbiter NAME]\n       rawko-tui COMMAND [PATH] [options]",
        description="Review, debug and preview the long-term memories rawko agents inject.",
        epilog=APP_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"rawko-tui {__version__}")
    # prog: "usage: rawko-tui append [-h] …", not the top usage
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="rawko-tui", help="`rawko-tui COMMAND --help` explains one")
    init = sub.add_parser("init", help="start a memory store: .rawko/memories/ and a commented .rawko/rawko-tui.yaml")
    init.add_argument("path", nargs="?", metavar="PATH", help="the folder to start the store in: .rawko/ is made there (default: here; made if missing)")
    init.add_argument(
        "--nested", action="store_true", help="start a store inside a folder a store above already covers (a second store: commands run below PATH use it)"
    )
    init.add_argument(
        "--hook", action="store_true", help="also install the git pre-commit hook that refuses a commit rewriting a memory file (`rawko-tui hook install`)"
    )

    preview = sub.add_parser("preview", help="what the arbiter injects for a task, ranked, with every candidate's reason")
    _add_store_path(preview)
    _add_context(preview, required=True)
    output = preview.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="machine-readable output")
    output.add_argument("--prompt", action="store_true", help="print exactly the text the arbiter injects")
    output.add_argument("--plan-prompt", action="store_true", help="rawko-sdk: print exactly the memory section of its planning prompt (every loaded memory)")
    preview.add_argument("--compare", metavar="REV", help="also rank at this revision and show what changed between the two")
    preview.add_argument(
        "--view",
        choices=("spec", "effective"),
        default="spec",
        help="spec: what SPEC-0007's arbiter does (first frontmatter only; the default); effective: the fold of every entry, retired and superseded memories left out",
    )

    compare = sub.add_parser("compare", help="where the arbiter profiles disagree for a task: each memory whose fate differs, and why")
    _add_store_path(compare)
    compare.add_argument("--task", required=True, help="the task text, as the agent receives it")
    compare.add_argument("--agent", default=DEFAULT_AGENT, help=f"the agent name (default: {DEFAULT_AGENT})")
    compare.add_argument("--now", help="the time to score recency against, ISO 8601 (default: now)")
    compare.add_argument("--arbiters", metavar="A,B,…", help="the profiles to compare (default: every one defined)")
    compare.add_argument("--recursive", action="store_true", default=None, help="also load memories in subfolders")
    compare.add_argument("--json", action="store_true", help="machine-readable output")
    _add_regex_budget(compare)

    arbiters = sub.add_parser("arbiters", help="the arbiter profiles this store can use, and how each one loads, matches, scores and selects")
    _add_store_path(arbiters)
    arbiters.add_argument("--json", action="store_true", help="machine-readable output")

    explain = sub.add_parser("explain", help="the full score and gate tree for one memory")
    _add_memory_path(explain)
    _add_store_path(explain, memory_path=True)
    _add_context(explain, required=True)
    explain.add_argument("--json", action="store_true", help="machine-readable output")

    lint = sub.add_parser("lint", help="check every memory file; exit 1 on errors")
    _add_store_path(lint)
    lint.add_argument("--json", action="store_true", help="machine-readable output")
    lint.add_argument("--now", help="the time to judge future dates against, ISO 8601 (default: now)")
    lint.add_argument("--at", metavar="REV", help="lint the store as it was at this git revision")
    _add_arbiter(lint)

    verify = sub.add_parser("verify", help="check that git history only ever appended to memory files; exit 1 on a violation")
    verify.add_argument("path", nargs="?", metavar="PATH", help="a folder in the repository (default: here); every store in it is checked")
    verify.add_argument("--since", metavar="REV", help="only commits after REV")
    verify.add_argument("--staged", action="store_true", help="only the staged changes (what a pre-commit hook checks)")
    verify.add_argument("--remember", action="store_true", help="record HEAD as verified; later runs report a history rewritten under it")
    verify.add_argument("--rev", default="HEAD", help="verify history up to this commit (default: HEAD)")
    verify.add_argument("--history-only", action="store_true", help="commits only, not the index or working tree (implied in a bare repository)")
    verify.add_argument("--push", nargs=2, metavar=("OLD", "NEW"), help="what a push from OLD to NEW does (all zeros: a new or deleted ref), as a server checks it")
    verify.add_argument("--ref", help="with --push: the ref pushed (refs/heads/main)")
    verify.add_argument("--pre-receive", action="store_true", help="read a pre-receive hook's input (old new ref, one line per ref) from stdin and check each push")
    verify.add_argument("--json", action="store_true", help="machine-readable output")

    new = sub.add_parser("new", help="create a memory file named after its title, and commit it")
    _add_store_path(new)
    new.add_argument("--title", required=True, help="the memory's title; the file is named after it (kebab-case), and a title another memory has is refused")
    new.add_argument("--when", action="append", required=True, metavar="PATTERN", help="a whenToUse pattern (repeat for more)")
    new.add_argument("--importance", choices=list(IMPORTANCE_ORDER), required=True, help="how much it matters: the threshold agents filter on, and part of its score")
    new.add_argument("--tags", default="", help="comma-separated tags")
    new.add_argument("--by", required=True, help="discoveredBy: the agent (or person) it comes from")
    new.add_argument("--discovered-in", help="discoveredIn: the task that led to it")
    new.add_argument("--discovered-at", help="discoveredAt, ISO 8601 (default: now)")
    _add_allow_duplicate_title(new)
    _add_write_options(new)

    append = sub.add_parser("append", help="append an update or correction to a memory, and commit it")
    _add_memory_path(append)
    _add_store_path(append, memory_path=True)
    append.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="a field the new entry sets (YAML value; repeat)")
    _add_write_options(append)

    retire = sub.add_parser("retire", help="retire a memory by appending `status: retired`, and commit it")
    _add_memory_path(retire)
    _add_store_path(retire, memory_path=True)
    retire.add_argument("--reason", required=True, help="why it no longer holds (written in the entry and the commit message)")
    retire.add_argument("--superseded-by", metavar="MEMORY", help="the memory that replaces it")
    retire.add_argument("--by", help="who retires it")
    retire.add_argument("--dry-run", action="store_true", help="show the exact text that would be appended; write nothing")
    retire.add_argument("--no-commit", action="store_true", help="write the file but do not commit")
    _add_include_uncommitted(retire)

    link = sub.add_parser("link", help="append relatedMemories to two memories, each naming the other (one commit)")
    _add_memory_path(link)
    link.add_argument("other", metavar="OTHER_MEMORY_PATH", help="the memory to link it to (path or name)")
    _add_store_path(link, memory_path=True)
    link.add_argument("--by", help="who links them")
    _add_write_options(link, body=False)

    confirm = sub.add_parser("confirm", help="append a dated confirmation: the memory still holds (it is no longer stale)")
    _add_memory_path(confirm)
    _add_store_path(confirm, memory_path=True)
    confirm.add_argument("--note", help="what was checked (default: 'Checked: this still holds.')")
    confirm.add_argument("--by", help="who confirms it")
    _add_write_options(confirm, body=False)

    torn = sub.add_parser("torn", help="an interrupted write in a memory: show it, take back rawko-tui's own torn bytes, or acknowledge it")
    _add_memory_path(torn)
    _add_store_path(torn, memory_path=True)
    resolve = torn.add_mutually_exclusive_group()
    resolve.add_argument(
        "--take-back", action="store_true", help="remove the torn bytes (shown first) when they are rawko-tui's own, uncommitted, and end the file"
    )
    resolve.add_argument("--acknowledge", action="store_true", help="keep the torn bytes and record that you have seen them")
    resolve.add_argument(
        "--commit", action="store_true", help="commit rawko-tui's own entry that a write stopped before its commit left in the file (shown first)"
    )
    torn.add_argument("--by", help="who acknowledges it (default: the author git would record)")
    torn.add_argument("--dry-run", action="store_true", help="show what --take-back would remove or --commit would commit; change nothing")
    torn.add_argument("--force", action="store_true", help="--commit even when lint finds errors in the file")
    _add_include_uncommitted(torn)

    opinion = sub.add_parser("opinion", help="ask Claude whether two memories are a duplicate, a contradiction, related or unrelated")
    _add_memory_path(opinion)
    opinion.add_argument("other", metavar="OTHER_MEMORY_PATH", help="the memory to compare it with (path or name)")
    _add_store_path(opinion, memory_path=True)
    opinion.add_argument("--model", help="the Claude model (default: `model:` in your own settings file, else the built-in one)")
    opinion.add_argument("--json", action="store_true", help="machine-readable output")

    candidates = sub.add_parser(
        "candidates",
        help="memories worth consolidating: near-duplicates, contradictions, related pairs to link, stale ones, ones no saved task injects",
    )
    _add_store_path(candidates)
    candidates.add_argument("--now", help="ISO 8601 (default: now)")
    candidates.add_argument(
        "--kind", action="append", metavar="KIND", help=f"only this kind ({', '.join(CANDIDATE_KINDS)}); repeat for more"
    )
    candidates.add_argument(
        "--arbiter", metavar="PROFILE", help="the arbiter whose injections a contradiction and the unused kind show (default: the store's)"
    )
    candidates.add_argument("--json", action="store_true", help="machine-readable output")

    extract = sub.add_parser("extract", help="ask Claude (SPEC-0005's extraction prompt) for a memory from an agent's output")
    _add_store_path(extract)
    extract.add_argument("--from", dest="source", required=True, metavar="FILE", help="the agent's output")
    extract.add_argument("--agent", required=True, help="the agent that produced it")
    extract.add_argument("--task", required=True, help="the agent's task")
    extract.add_argument("--result", choices=("success", "failure", "partial"), default="success", help="how the agent's task ended (default: success)")
    extract.add_argument("--model", help="the Claude model (default: `model:` in your own settings file, else a current Sonnet)")
    extract.add_argument("--write", action="store_true", help="write the proposed memory (after showing it) and commit it")
    extract.add_argument("--no-commit", action="store_true", help="with --write: do not commit")
    extract.add_argument("--force", action="store_true", help="with --write: write even when lint finds errors or warnings (without a terminal to ask)")

    sessions = sub.add_parser("sessions", help="list the agent sessions (.rawko/sessions/*/agent-memory.yaml) and what they hold")
    _add_store_path(sessions)
    sessions.add_argument("--json", action="store_true", help="machine-readable output")

    promote = sub.add_parser("promote", help="turn a session's discovery, attempt or decision into a long-term memory")
    promote.add_argument("session", metavar="SESSION_ID", help="the session (`rawko-tui sessions` lists them)")
    promote.add_argument("item", metavar="ITEM_ID", help="the discovery, attempt or decision id")
    _add_store_path(promote)
    promote.add_argument("--title", help="the memory's title, as written (default: the item's first sentence, cut to at most 60 characters where a clause ends)")
    promote.add_argument("--when", action="append", metavar="PATTERN", help="a whenToUse pattern (repeat for more; default: the item's most distinctive words)")
    promote.add_argument("--write", action="store_true", help="write the memory (after showing it) and commit it")
    promote.add_argument("--no-commit", action="store_true", help="with --write: do not commit")
    promote.add_argument("--force", action="store_true", help="with --write: write even when lint finds errors")
    _add_allow_duplicate_title(promote)

    check = sub.add_parser("check", help="run the saved tasks (.rawko/checks.yaml) and their expectations; exit 1 on a failure")
    _add_store_path(check)
    check.add_argument("--at", metavar="REV", help="check the store as it was at this git revision")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    _add_arbiter(check)
    _add_regex_budget(check)
    check.add_argument(
        "--allow-undecided",
        action="store_true",
        help="exit 0 when no task fails even if some are undecided (a regex rawko-tui could not decide); by default they exit 4",
    )

    impact = sub.add_parser("impact", help="saved tasks whose injection changes between two revisions")
    impact.add_argument("before", metavar="REV1", help="the revision to compare from")
    impact.add_argument("after", metavar="REV2", help="a revision, or `worktree` for the files on disk")
    _add_store_path(impact)
    impact.add_argument("--json", action="store_true", help="machine-readable output")
    _add_arbiter(impact)
    _add_regex_budget(impact)

    matrix_parser = sub.add_parser("matrix", help="which memories each agent gets for the saved tasks; dead and over-broad memories")
    _add_store_path(matrix_parser)
    matrix_parser.add_argument("--now", help="ISO 8601 (default: now)")
    matrix_parser.add_argument("--json", action="store_true", help="machine-readable output")
    _add_arbiter(matrix_parser)
    _add_regex_budget(matrix_parser)

    hook = sub.add_parser("hook", help="git hooks that enforce the append-only rule")
    hook_sub = hook.add_subparsers(dest="hook_command", metavar="ACTION", required=True, help="`rawko-tui hook ACTION --help` explains one")
    install = hook_sub.add_parser("install", help="install a pre-commit hook running `verify --staged` where git runs hooks (core.hooksPath honoured)")
    install.add_argument("path", nargs="?", metavar="PATH", help="a folder in the repository (default: here)")
    install.add_argument("--force", action="store_true", help="replace an existing hook, or install into a core.hooksPath outside the repository")
    install.add_argument("--server", action="store_true", help="install the pre-receive hook of a server's (bare) repository, running `verify --pre-receive`")
    uninstall = hook_sub.add_parser("uninstall", help="remove the hooks `hook install` wrote (never a hook of your own, nor one with lines added)")
    uninstall.add_argument("path", nargs="?", metavar="PATH", help="a folder in the repository (default: here)")
    uninstall.add_argument("--server", action="store_true", help="remove the pre-receive hook instead (a server's repository)")
    return parser


def _add_allow_duplicate_title(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-duplicate-title", action="store_true", help="create it even though another memory has the same title (lint then warns: duplicate-title)"
    )


def _add_write_options(parser: argparse.ArgumentParser, body: bool = True) -> None:
    if body:
        given = parser.add_mutually_exclusive_group()
        given.add_argument("--body", help="the Markdown body")
        given.add_argument("--body-file", metavar="FILE", help="read the Markdown body from a file")
    parser.add_argument("--dry-run", action="store_true", help="show the exact text that would be written; write nothing")
    parser.add_argument("--no-commit", action="store_true", help="write the file but do not commit")
    parser.add_argument("--force", action="store_true", help="write even when lint finds errors in the result")
    _add_include_uncommitted(parser)


def _add_include_uncommitted(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--include-uncommitted",
        action="store_true",
        help="commit bytes another writer appended since the last commit together with this entry (shown first; the message names them)",
    )


APP_HELP = """Without a COMMAND, rawko-tui opens the app on the store at PATH (default: the
nearest folder at or above this one that holds .rawko/):
  --task TEXT   open the injection preview with this task
  --agent NAME  the agent for the preview (default: developer)
  --now ISO     the time to score recency against (default: `now:` in
                .rawko/rawko-tui.yaml, else the clock)
  --at REV      the store as it was at this git revision (read-only)
  --arbiter NAME  the arbiter profile to preview (default: `arbiter:` in
                .rawko/rawko-tui.yaml, else spec-0007; b switches in the app)

`rawko-tui COMMAND --help` explains each command."""


def build_app_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rawko-tui", description="Open the rawko-tui app on a memory store.", epilog=APP_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_store_path(parser)
    parser.add_argument("--task", help="open the injection preview with this task")
    parser.add_argument("--agent", help="the agent for the preview")
    parser.add_argument("--now", help="the time to score recency against, ISO 8601")
    parser.add_argument("--at", metavar="REV", help="open the store as it was at this git revision (read-only)")
    _add_arbiter(parser)
    return parser


def run() -> NoReturn:
    """The console entry point: ``main``, then the exit.

    A one-shot command (``preview``, ``lint``…) in a script or hook runs without
    the cyclic garbage collector (its passes over tens of thousands of parsed
    memories are wasted: nothing it makes is cyclic garbage worth collecting
    before exit) and ends without tearing its objects down one by one, which at
    10,000 memories takes longer than the ranking.
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
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS or any(a in ("-h", "--help", "--version") for a in argv[:1]):
            parser = build_parser()
            args, extra = parser.parse_known_args(argv)
            if extra:  # said by the command's own parser: its usage line, not the top one
                _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
            handlers = {
                "init": cmd_init,
                "preview": cmd_preview,
                "compare": cmd_compare,
                "arbiters": cmd_arbiters,
                "explain": cmd_explain,
                "lint": cmd_lint,
                "verify": cmd_verify,
                "hook": cmd_hook,
                "new": cmd_new,
                "append": cmd_append,
                "retire": cmd_retire,
                "link": cmd_link,
                "confirm": cmd_confirm,
                "torn": cmd_torn,
                "candidates": cmd_candidates,
                "opinion": cmd_opinion,
                "extract": cmd_extract,
                "sessions": cmd_sessions,
                "promote": cmd_promote,
                "check": cmd_check,
                "impact": cmd_impact,
                "matrix": cmd_matrix,
            }
            return handlers[args.command](args)
        app_parser = build_app_parser()
        known, extra = app_parser.parse_known_args(argv)  # parse_args itself, with the leftovers seen first
        if extra and (known.path is None or os.path.exists(known.path)):
            app_parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return cmd_app(known)  # "apend x": a mistyped command is said as such before its arguments are
    except ProfileError as exc:
        _error(str(exc))
        return EXIT_USAGE
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


# Failures said in one line, with their exit code. A class is looked up only if its module was
# imported (nothing else can have raised it): a command imports only what it uses.
_FAILURES = (
    ("rawko_tui.cli", "UsageError", "{}", EXIT_USAGE),
    ("rawko_tui.core.store.reading", "StoreNotFound", "{}. Give the folder that holds .rawko/ as PATH.", EXIT_USAGE),
    ("rawko_tui.core.disk.gitrepo", "GitError", "{}", EXIT_USAGE),  # defined there; history re-exports it
    ("rawko_tui.core.record.writer", "NotCommitted", "{}", EXIT_NOT_COMMITTED),  # before WriteError: it is one, but the bytes are written
    ("rawko_tui.core.record.writer", "WriteError", "{}", EXIT_FINDINGS),  # refused to write: nothing changed
    ("rawko_tui.core.curation.claude", "ClaudeError", "no answer from Claude: {}", EXIT_FINDINGS),
)


def _command_parser(parser: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    """The parser of the command ``args`` ran (``hook install``'s own), for an error said with its usage."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            return parser if chosen is None else _command_parser(chosen, args)
    return parser


def _known_failure(exc: Exception) -> tuple[str, int] | None:
    for module, name, text, code in _FAILURES:
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(exc, getattr(loaded, name)):
            return text.format(exc), code
    return None


def _now(args, store=None) -> float | None:
    """--now, else ``now:`` pinned in the store's rawko-tui.yaml, else None (the clock)."""
    if getattr(args, "now", None):
        try:
            return parse_now(args.now)
        except ValueError as exc:
            raise UsageError(f"--now: {exc}") from None
    return pinned_now(store.config) if store is not None else None


def _load(args, rev: str | None = None):
    root = _store_root(args)
    rev = rev if rev is not None else getattr(args, "at", None)
    return load_store_at(root, rev) if rev else load_store(root)


def _profile(args, store):
    """``--arbiter`` (and ``--order``) over the store's ``arbiter:``. Raises ProfileError for an unknown name, and
    UsageError for a store whose ``arbiter:`` names no profile (never another arbiter in its place)."""
    name = getattr(args, "arbiter", None)
    if name is None:
        _refuse_unusable_arbiter(store.config)
    profile, source = resolve_profile(store.config, name)
    order = getattr(args, "order", None)
    if order is not None and order != profile.loader.order:
        profile = dataclasses.replace(profile, loader=dataclasses.replace(profile.loader, order=order))
    return profile, source


def _refuse_unusable_arbiter(config: dict) -> None:
    """A store whose ``arbiter:`` names no usable profile: said as lint says it, exit 2 (``--arbiter`` overrides it)."""
    from .core.arbiters.settingscheck import arbiter_problem

    problem = arbiter_problem(config)
    if problem is not None:
        raise UsageError(str(problem))


def _store_root(args) -> Path:
    """PATH; else the store a memory's path names (``explain /work/proj/.rawko/memories/x.md`` from anywhere);
    else the nearest store at or above here."""
    from .core.store.reading import store_root_of

    memory = getattr(args, "memory", None)
    if args.path is None and memory:
        root = store_root_of(memory)
        if root is not None:
            return root
    return find_store_root(args.path)


def _preview(args, rev: str | None = None):
    store = _load(args, rev)
    if getattr(args, "view", "spec") == "effective":
        store = effective_store(store)
    profile, source = _profile(args, store)
    options = resolve_options(store, args.agent, args.max_memories, args.min_importance, args.recursive, profile)
    options = dataclasses.replace(options, regex_budget=args.regex_budget)
    options.sources["arbiter"] = source
    return store, run_preview_deciding(store, args.task, args.agent, options, _now(args, store))


def _write(text: str, exact: bool = False) -> None:
    """Print a report. Control characters in it (a memory's escape sequences, a file
    name's newline) are shown as visible stand-ins, never sent to the terminal;
    ``exact`` keeps every character (the prompt text, piped to another program)."""
    try:
        sys.stdout.write(replace_lone_surrogates(text) if exact else clean(text))
        sys.stdout.flush()
    except BrokenPipeError:
        _reader_gone()


def _reader_gone() -> None:
    """The reader of standard output left (``… | head``): the rest of the report goes nowhere, and the command
    still ends with its own verdict's exit code (a ``verify | head`` that found a violation exits 1, not 0)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the buffered bytes, and every later write, are dropped
    os.close(devnull)


def _error(message: str) -> None:
    print("rawko-tui: " + inline(message), file=sys.stderr)  # one line, whatever a store's name in it holds


def _report(lines: list[str]) -> str:
    """A text report, one entry of ``lines`` per line. A store's text enters a report inside a line,
    so every line break in it (a title's newline, a file name's carriage return, U+2028) is shown
    as a visible stand-in here: it can never start a line of its own, a fake ranking or an "OK"."""
    return "".join(inline(line) + "\n" for line in lines)


def _dumps(data: object) -> str:
    """JSON, one line per top-level field and one per item of a top-level list (a memory per line).

    Deeper values are written compactly: that is what Python's C encoder does, and
    a listing of 10,000 memories then costs a fraction of what indenting it does.
    """
    compact = lambda value: json.dumps(value, ensure_ascii=False, default=_json_default)  # noqa: E731
    if isinstance(data, dict) and data:
        fields = []
        for key, value in data.items():
            if isinstance(value, list) and value:
                items = ",\n".join("    " + compact(item) for item in value)
                fields.append(f"  {compact(key)}: [\n{items}\n  ]")
            else:
                fields.append(f"  {compact(key)}: {compact(value)}")
        text = "{\n" + ",\n".join(fields) + "\n}"
    else:
        text = compact(data)
    # a lone surrogate (a 500-unit cut through an emoji) is escaped, as JSON.stringify does;
    # so are C1 controls and bidi overrides, which json.dumps leaves raw
    return escape_json_controls(text) + "\n"


def _json_default(value: object):
    return js_to_string(value)


def preview_to_dict(preview: Preview) -> dict:
    from datetime import datetime, timezone

    scored = preview.profile.scored  # spec-0005 scores nothing: its scores are null, not 0
    return {
        "task": preview.task,
        "agent": preview.agent,
        "now": datetime.fromtimestamp(preview.now_ms / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z"),
        "options": {
            "maxMemories": preview.max_memories,
            "minImportance": preview.min_importance,
            "recursive": preview.recursive,
            "sources": preview.option_sources,
        },
        "injected": [
            {"rank": c.rank, "path": c.path, "title": c.title, "score": c.score if scored else None, "components": c.components} for c in preview.injected
        ],
        "candidates": [{**c.to_dict(), "status": _status(c), **({} if scored else {"score": None})} for c in preview.candidates],
        "prompt": preview.prompt,
        "errors": [e.to_dict() for e in preview.errors],
        "arbiterFailure": preview.arbiter_failure.to_dict() if preview.arbiter_failure else None,
        "notes": preview.notes,
        "view": preview.view,
        "arbiter": {"name": preview.profile.name, "summary": preview.profile.summary, "source": preview.option_sources.get("arbiter", "default"), "order": preview.order_note},
        "planPrompt": _plan_prompt_dict(preview),
        # a memory whose whenToUse regex rawko-tui could not decide: ranked as unmatched, never called "no match"
        "certain": preview.certain,
        "uncertainReasons": preview.uncertain_reasons,
        "regexBudgetSeconds": preview.regex_budget,
        "undecided": [_undecided_dict(c, preview) for c in preview.undecided],
    }


def _undecided_dict(candidate, preview: Preview) -> dict:
    fate = fate_if_matched(candidate, preview)
    patterns = [u.to_dict() for u in candidate.undecided.values()]
    return {"path": candidate.path, "title": candidate.title, "ifMatched": fate.words, "changesInjection": fate.changes, "patterns": patterns}


def _plan_prompt_dict(preview: Preview) -> dict | None:
    text = preview.plan_prompt
    if text is None:
        return None
    return {"characters": len(text), "estimatedTokens": (len(text) + 3) // 4, "memories": text.count("\n### "), "text": text}


def _status(candidate) -> str:
    status = status_of(candidate.file)
    return "active" if status.active else status.why


def cmd_preview(args) -> int:
    store, preview = _preview(args)
    budget = budget_for(store, args.agent)
    if args.compare:
        _, other = _preview(args, rev=args.compare)
        return _compare(args, preview, other)
    estimate = (len(preview.prompt) + 3) // 4
    if args.json:
        data = preview_to_dict(preview)
        data["budget"] = {
            "tokens": budget,
            "estimatedTokens": estimate,
            "over": budget is not None and estimate > budget,
            "shares": [{"path": f".rawko/memories/{n}", "characters": b, "share": round(sh, 4)} for n, b, sh in prompt_shares(preview)],
        }
        _write(_dumps(data))
    elif args.prompt:
        if not preview.certain:  # the prompt is written as if nothing undecided matched; the caller must know it may be wrong
            _error("the prompt is uncertain: " + "; ".join(preview.uncertain_reasons) + " (undecided; --regex-budget gives it more time)")
        _write(preview.prompt, exact=not sys.stdout.isatty())
    elif args.plan_prompt:
        if preview.plan_prompt is None:
            raise UsageError(f"{preview.profile.name} has no planning prompt (rawko-sdk's generatePlan is the one arbiter that gives every memory to a planner)")
        _write(preview.plan_prompt, exact=not sys.stdout.isatty())
    else:
        text = render_preview_text(preview, now_pinned=not args.now and pinned_now(store.config) is not None)
        if budget is not None:
            verdict = "over" if estimate > budget else "within"
            text += _report([f"Token budget for {args.agent}: {budget}; the block is about {estimate} tokens: {verdict} budget."])
        _write(text)
    return EXIT_OK if preview.certain else EXIT_UNDECIDED


def cmd_compare(args) -> int:
    import time

    from .core.arbiters.compare import compare_profiles

    store = _load(args)
    if not args.arbiters:
        _refuse_unusable_arbiter(store.config)
    profiles, problems = defined_profiles(store.config)
    if args.arbiters:
        names = [n.strip() for n in args.arbiters.split(",") if n.strip()]
        unknown = [n for n in names if n not in profiles]
        if unknown:
            raise UsageError(f"--arbiters: unknown profile {', '.join(repr(n) for n in unknown)}: choose from {', '.join(profiles)}")
        if len(names) < 2:
            raise UsageError("--arbiters: name at least two profiles to compare")
        chosen = [profiles[n] for n in names]
    else:
        chosen = list(profiles.values())
    now_ms = _now(args, store)
    now_ms = now_ms if now_ms is not None else float(time.time_ns() // 1_000_000)  # one "now" for every profile
    comparison = compare_profiles(store, args.task, args.agent, chosen, now_ms, args.recursive, args.regex_budget)
    if args.json:
        _write(_dumps({**comparison.to_dict(), "now": iso_from_ms(now_ms), "problems": problems}))
        return EXIT_OK
    lines = [f"Task:  {args.task}", f"Agent: {args.agent}", ""]
    for name, preview in comparison.previews.items():
        if preview.arbiter_failure is not None:
            lines.append(f"  {name:<10} injects nothing: {preview.arbiter_failure.describe()}")
        else:
            shown = ", ".join(c.file.name for c in preview.injected[:8]) + (", …" if len(preview.injected) > 8 else "")
            lines.append(f"  {name:<10} {plural(len(preview.injected), 'memory', 'memories')} injected: {shown or '(none)'}")
    lines.append("")
    if not comparison.differences:
        lines.append("Every profile injects the same memories in the same order.")
    else:
        lines.append(f"Memories whose fate differs ({len(comparison.differences)}):")
        width = max(len(n) for n in comparison.previews)
        for difference in comparison.differences:
            lines.append(f"  {difference.path.removeprefix('.rawko/memories/')}  {difference.title or ''}")
            for decision in difference.decisions:
                lines.append(f"    {decision.profile:<{width}}  {decision.short()}")
            lines.append(f"    first difference: {difference.rule}")
    lines += [f"Note: {p}" for p in problems]
    _write(_report(lines))
    return EXIT_OK


def cmd_arbiters(args) -> int:
    from .core.arbiters.settingscheck import arbiter_problem

    store = _load(args)
    profiles, problems = defined_profiles(store.config)
    unusable = arbiter_problem(store.config)
    active = None if unusable else resolve_profile(store.config)[0].name
    problems = problems + ([str(unusable)] if unusable else [])
    if args.json:
        data = [{"name": p.name, "base": p.base, "active": p.name == active, "summary": p.summary, "dimensions": dict(p.describe())} for p in profiles.values()]
        _write(_dumps({"profiles": data, "problems": problems}))
        return EXIT_OK
    lines = []
    for profile in profiles.values():
        mark = "  (this store's arbiter)" if profile.name == active else ""
        lines.append(f"{profile.name}{mark}: {profile.summary}")
        lines += [f"  {key:<15} {value}" for key, value in profile.describe()]
        lines.append("")
    lines += [f"Problem: {p}" for p in problems]
    lines.append("Choose one with `arbiter: NAME` in .rawko/rawko-tui.yaml, or --arbiter NAME on any command.")
    _write(_report(lines))
    return EXIT_FINDINGS if problems else EXIT_OK


def injection_diff(before: Preview, after: Preview) -> dict:
    """What changed in what the arbiter injects between two previews: a run that throws injects nothing."""
    from .core.curation.checks import Injection

    old_injection, new_injection = Injection.of(before), Injection.of(after)
    old = [] if old_injection.throws else [c.path for c in before.injected]
    new = [] if new_injection.throws else [c.path for c in after.injected]
    old_rank = {c.path: (c.rank, c.score) for c in before.injected if c.path in old}
    new_rank = {c.path: (c.rank, c.score) for c in after.injected if c.path in new}
    return {
        "added": [p for p in new if p not in old_rank],
        "removed": [p for p in old if p not in new_rank],
        "moved": [{"path": p, "before": old_rank[p], "after": new_rank[p]} for p in new if p in old_rank and old_rank[p] != new_rank[p]],
        "failure": {"before": _failure_dict(old_injection), "after": _failure_dict(new_injection)},
        "undecided": {"before": list(old_injection.uncertain), "after": list(new_injection.uncertain)},
        "same": old == new and all(old_rank[p] == new_rank[p] for p in old) and old_injection.same_as(new_injection),
    }


def _failure_dict(injection) -> dict | None:
    return injection.failure.to_dict() if injection.failure else None


def _compare(args, preview: Preview, other: Preview) -> int:
    from .core.curation.checks import Injection

    here = args.at or "working tree"
    diff = injection_diff(other, preview)
    undecided = bool(diff["undecided"]["before"] or diff["undecided"]["after"])
    if args.json:
        _write(_dumps({"at": here, "compare": args.compare, "diff": diff, "before": preview_to_dict(other), "after": preview_to_dict(preview)}))
        return EXIT_UNDECIDED if undecided else EXIT_OK
    lines = [f"Injected at {args.compare} -> at {here}, task {preview.task!r}, agent {preview.agent}:"]
    if diff["same"]:
        throws = Injection.of(preview).throws
        lines.append("  the same: the arbiter throws the same way on both sides and injects nothing" if throws else "  the same memories, in the same order, with the same scores")
    for name, shown in ((args.compare, other), (here, preview)):
        injection = Injection.of(shown)
        if injection.throws and not diff["same"]:
            lines.append(f"  ! at {name}: {injection.describe()}")
    for path in diff["added"]:
        lines.append(f"  + {path}  (rank {preview.candidate(path).rank}, score {preview.candidate(path).score:g})")
    for path in diff["removed"]:
        why = preview.candidate(path)
        if Injection.of(preview).throws:
            lines.append(f"  - {path}  (the arbiter throws and injects nothing)")
        else:
            lines.append(f"  - {path}  ({why.explanation.description if why else 'no longer in the store'})")
    for move in diff["moved"]:
        (r0, s0), (r1, s1) = move["before"], move["after"]
        lines.append(f"  ~ {move['path']}  rank {r0} -> {r1}, score {s0:g} -> {s1:g}")
    for side, name in (("before", args.compare), ("after", here)):
        for reason in diff["undecided"][side]:
            lines.append(f"  ? at {name}: undecided: {reason}")
    _write(_report(lines))
    return EXIT_UNDECIDED if undecided else EXIT_OK


def render_preview_text(preview: Preview, now_pinned: bool = False) -> str:
    """The preview as text; ``now_pinned``: the now came from rawko-tui.yaml, and the header says so."""
    lines: list[str] = []
    lines.append(f"Task:  {preview.task}")
    cap = "no cap" if preview.max_memories is None else f"max {js_to_string(preview.max_memories)}"
    threshold = f"min importance {js_to_string(preview.min_importance)}" if preview.profile.scored else "no threshold"
    lines.append(f"Agent: {preview.agent}   {cap}   {threshold}" + ("   recursive" if preview.recursive else ""))
    source = preview.option_sources.get("arbiter", "default")
    lines.append(f"Arbiter: {preview.profile.name} ({_ARBITER_SOURCES.get(source, source)}): {preview.profile.summary}; {preview.order_note}")
    if now_pinned:
        lines.append(f"Now:   {iso_from_ms(preview.now_ms)} (pinned by `now:` in .rawko/rawko-tui.yaml; --now overrides it)")
    if preview.view == "effective":
        lines.append("View:  effective (the fold of every entry; not what SPEC-0007's arbiter does)")
    if preview.arbiter_failure:
        lines += ["", "!! " + preview.failure_banner()]
    if not preview.certain:
        lines += ["", "?? Undecided: what is injected may differ from what is shown below:"]
        lines += [f"   {reason}" for reason in preview.uncertain_reasons]
        lines.append("   (a whenToUse regex rawko-tui could not decide is shown as undecided, never as no match; --regex-budget gives it more time)")
    lines += ["", f"Injected ({len(preview.injected)}):"]
    if not preview.injected:
        lines.append("  (none)")
    for c in preview.injected:
        if not preview.profile.scored:  # spec-0005: every match, by importance only
            lines.append(f"  {c.rank:>2}. {js_to_string(c.file.attrs.get('importance')):<8}  {c.title}  [{c.path}]")
            continue
        parts = " ".join(f"{k}={c.components[k]:g}" for k in COMPONENT_KEYS)
        lines.append(f"  {c.rank:>2}. {c.score:>3g}  {c.title}  [{c.path}]")
        lines.append(f"         {parts}")
    cut = sorted((c for c in preview.candidates if c.rank is not None and not c.injected), key=lambda c: c.rank)
    if cut:
        lines += ["", f"Matched but not injected ({len(cut)}):"]
        for c in cut:
            lines.append(f"  {c.rank:>2}. {c.score:>3g}  {c.title}  [{c.path}]  -- {c.why}")
    if preview.undecided:
        lines += ["", f"Undecided ({len(preview.undecided)}):"]
        for c in preview.undecided:
            lines.append(f"     ? {c.title or c.file.name}  [{c.path}]  -- {c.why}")
    other = [c for c in preview.candidates if c.rank is None and not c.match_undecided]
    if other:
        lines += ["", f"Not injected ({len(other)}):"]
        for c in other:
            lines.append(f"       {c.title or c.file.name}  [{c.path}]  -- {c.why}")
    if preview.errors:
        lines += ["", f"Files that failed to load ({len(preview.errors)}):"]
        lines += [f"  {e}" for e in preview.errors]
    hidden = [(c, status_of(c.file)) for c in preview.injected]
    hidden = [(c, st) for c, st in hidden if not st.active]
    if hidden:
        lines += [""] + [
            f"Note: {c.path} is {st.why} in its entry {st.entry + 1}, which SPEC-0007's arbiter never reads; --view effective leaves it out."
            for c, st in hidden
        ]
    if preview.notes:
        lines += [""] + [f"Note: {n}" for n in preview.notes]
    chars = len(preview.prompt)
    lines += ["", f"Prompt block: {chars} characters, about {(chars + 3) // 4} tokens (rawko-tui preview --prompt prints it)."]
    for name, block, share in prompt_shares(preview):
        lines.append(f"  {share * 100:5.1f}%  {'█' * max(1, round(share * 30)) if block else ''}  {name} ({block} characters)")
    plan = _plan_prompt_dict(preview)
    if plan is not None:
        lines.append(
            f"Plan prompt: {preview.profile.name} also gives the planner every loaded memory ({plural(plan['memories'], 'memory', 'memories')}, "
            f"{plan['characters']} characters, about {plan['estimatedTokens']} tokens; it grows with the store; preview --plan-prompt prints it)."
        )
    return _report(lines)


_ARBITER_SOURCES = {"default": "the default", "option": "--arbiter", "rawko-tui.yaml": "from rawko-tui.yaml"}


def cmd_explain(args) -> int:
    store, preview = _preview(args)
    wanted = args.memory.replace("\\", "/")
    candidate = _named(preview.candidate, wanted, store.root)
    if candidate is None:
        raise UsageError(f"no memory file {args.memory!r} in {store.root}/.rawko/memories" + _did_you_mean(store, wanted))
    tree = explain_candidate(preview, candidate)
    entries = entry_log(candidate.file)
    if args.json:
        _write(
            _dumps(
                {
                    "path": candidate.path,
                    "title": candidate.title,
                    "injected": candidate.injected,
                    "reason": candidate.reason,
                    "score": candidate.score,
                    "explanation": tree.to_dict(),
                    "entries": entries,
                }
            )
        )
        return EXIT_OK
    header = [f"{candidate.title or candidate.file.name}  [{candidate.path}]", f"task {preview.task!r}, agent {preview.agent}"]
    if preview.arbiter_failure:
        header.append("!! " + preview.arbiter_failure.describe())
    text = _report(header) + "\n" + tree.render() + "\n"  # the tree puts each description on its line
    if candidate.file.differs_from_entries:
        text += "\n" + render_entry_log(candidate.file, entries)
    _write(text)
    return EXIT_OK


def entry_log(memory) -> list[dict]:
    """The append-only entries of a file, each with the fields it sets."""
    return [
        {"entry": e.index + 1, "line": e.line, "fields": {k: display_value(v) for k, v in (e.frontmatter or {}).items()}, "bodyWords": len(e.body.split())}
        for e in memory.entries
    ]


def render_entry_log(memory, entries: list[dict]) -> str:
    effective, origin = memory.effective()
    lines = [f"Entry log ({len(entries)} entries). The spec's arbiter reads only entry 1's frontmatter; the rest is body text to it."]
    for entry in entries:
        fields = ", ".join(f"{k}: {v}" for k, v in entry["fields"].items()) or "(no frontmatter)"
        lines.append(f"  entry {entry['entry']} (line {entry['line']}): {fields}; {entry['bodyWords']} words of body")
    differing = [k for k in effective if origin[k] > 0 and memory.attrs.get(k) != effective[k]]
    if differing:
        lines.append("  Folded, the entries say " + ", ".join(f"{k}: {display_value(effective[k])} (entry {origin[k] + 1})" for k in differing))
        spec_view = [f"{k}: {display_value(memory.attrs[k])}" if k in memory.attrs else f"{k}: (not set)" for k in differing]
        lines.append("  where the spec's view says " + ", ".join(spec_view) + ".")
    return _report(lines)


def cmd_lint(args) -> int:
    from .core.lint.linter import ERROR, lint_store
    from .core.store.settings import load_person_settings

    store = _load(args)
    if args.arbiter:
        resolve_profile(store.config, args.arbiter)  # an unknown --arbiter is a usage error, not a finding
    # the person's own settings file too: what the app would ignore there is said here, on that file
    findings = lint_store(store, _now(args, store), arbiter=args.arbiter, person=load_person_settings())
    errors = sum(1 for f in findings if f.severity == ERROR)
    if args.json:
        _write(_dumps({"files": len(store.files), "errors": errors, "findings": [f.to_dict() for f in findings]}))
    else:
        text = "\n".join(inline(str(f)) for f in findings)  # a finding is one line, whatever the name or text it quotes
        warnings = sum(1 for f in findings if f.severity == "warning")
        summary = f"{plural(len(store.files), 'file')}: {plural(errors, 'error')}, {plural(warnings, 'warning')}, {len(findings) - errors - warnings} info"
        _write((text + "\n\n" if text else "") + summary + "\n")
    return EXIT_FINDINGS if errors else EXIT_OK


def cmd_verify(args) -> int:
    from .core.record.history import verify, verify_pre_receive, verify_push
    from .core.text.safetext import clean_name

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
    from .core.record.hooks import install_hook
    from .core.text.safetext import clean_name

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
    from .core.record.hooks import uninstall_hook
    from .core.text.safetext import clean_name

    result = uninstall_hook(path, server=server)
    lines = [f"Removed {clean_name(str(hook))}: rawko-tui's own {hook.name} hook." for hook in result.removed]
    lines += [f"Left {clean_name(str(hook))} as it is: {why}." for hook, why in result.kept]
    if not result.removed and not result.kept:
        lines.append(f"No {'pre-receive' if server else 'pre-commit or pre-merge-commit'} hook in {clean_name(str(result.folder))}: nothing to remove.")
    _write(_report(lines))
    return EXIT_FINDINGS if result.edited else EXIT_OK  # rawko-tui's check is still in force there


def _apply(args, root, writes, action: str, summary: str = "") -> int:
    """Write what was shown, then commit it (one commit for all the files), under the write lock."""
    from .core.record.writer import apply_writes

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

    from .core.record.writer import write_lock

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
    return [dataclasses.replace(w, include_foreign=True) if w.foreign else w for w in writes]


def _show_and_check(args, root, writes, ask_on_warnings: bool = False) -> bool:
    """Print the exact bytes of each write and the lint verdict on each result; True when they may be written.

    Bytes another writer appended since the last commit are printed as such:
    they are committed only with --include-uncommitted.  ``ask_on_warnings``
    (Claude's proposals): lint warnings are asked about on a terminal, and
    need --force without one.
    """
    from .core.lint.linter import ERROR, WARNING, lint_text
    from .core.record.writer import read_current, shown_text

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


def cmd_init(args) -> int:
    from .core.disk.gitrepo import repo_root
    from .core.record.writer import init_store

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


def cmd_new(args) -> int:
    from .core.record.writer import format_entry, plan_create

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


def _refuse_duplicate_title(args, store, title: str, writing: bool = True) -> None:
    """A title another memory has is refused (lint would warn duplicate-title on both), naming that memory;
    --allow-duplicate-title writes it all the same. Not ``writing`` (a proposal only): said, not refused."""
    from .core.curation.entries import memories_titled
    from .core.record.writer import WriteError

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


def _memory_name(root, given: str) -> str:
    from .core.disk.safeio import linked_part

    linked = linked_part(root, ".rawko/memories/x.md")
    if linked is not None:  # the store never walks a linked folder: say why no memory is found
        raise UsageError(f"{linked} is a symlink; rawko-tui never reads or writes through links (lint reports it: store-link)")
    store = load_store(root)
    wanted = given.replace("\\", "/")
    memory = _named(store.file, wanted, root)
    if memory is None:
        raise UsageError(f"no memory file {given!r} in {root}/.rawko/memories" + _did_you_mean(store, wanted))
    return memory.name


def _named(lookup, wanted: str, root=None):
    """A memory by the name given, or by that name with ``.md`` added (``explain jwt``); a path to it (``root``: its
    store) by its name in that store, wherever the path was given from."""
    if root is not None:
        inside = Path(root).resolve() / ".rawko" / "memories"
        given = Path(os.path.abspath(os.path.expanduser(wanted)))
        given = given.parent.resolve() / given.name  # the folders as the store's root is named; the file itself never followed
        if inside in given.parents:
            wanted = given.relative_to(inside).as_posix()
    return lookup(wanted) or (lookup(wanted + ".md") if not wanted.endswith(".md") else None)


def _did_you_mean(store, given: str) -> str:
    """The closest file names and titles, for a name that matches none."""
    from rapidfuzz import fuzz, process

    by_name = process.extract(given.lower(), {m.name: m.name.lower() for m in store.files}, scorer=fuzz.WRatio, limit=3, score_cutoff=60)
    by_title = process.extract(given.lower(), {m.name: str(m.attrs.get("title", "")).lower() for m in store.files}, scorer=fuzz.WRatio, limit=3, score_cutoff=60)
    best = sorted(by_name + by_title, key=lambda hit: -hit[1])
    names = list(dict.fromkeys(key for _, _, key in best))[:3]
    return f"; did you mean {' or '.join(names)}?" if names else "; `rawko-tui lint` lists the files"


def _append(args, root, name: str, fields: dict, body: str, action: str, summary: str) -> int:
    from .core.record.writer import format_entry, plan_append

    return _write_planned(args, root, lambda: [plan_append(root, name, format_entry(fields, body))], action, summary)


def _write_closest(store, title: str, body: str, when) -> None:
    """Before a memory is created: the existing memories that may hold its lesson already (append to one instead)."""
    from .core.curation.consolidation.queue import closest_memories

    for closest in closest_memories(store, title, body, when):
        _write(_report([f"Closest existing memory: {closest.describe()}"]))
        if closest.same_knowledge:
            _write(_report([f"  rawko-tui append {closest.name} --body ...  adds to it instead of creating a new memory"]))


def cmd_append(args) -> int:
    from .core.record.writer import person_name

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
    from .core.record.writer import person_name

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
    from .core.record.writer import person_name

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
    from .core.record.writer import person_name, plan_append

    root = _store_root(args)
    name = _memory_name(root, args.memory)
    entry = confirm_entry(args.by or person_name(root), args.note)
    return _write_planned(args, root, lambda: [plan_append(root, name, entry)], "confirm", f"Confirmed {name}: it still holds.")


def cmd_torn(args) -> int:
    """An interrupted write in a memory: shown, and resolved by taking its bytes back, committing rawko-tui's own
    complete entry, or acknowledging a torn one."""
    from .core.record.writer import acknowledge, journal_problems, person_name, plan_commit, shown_text, take_back, torn_hint, torn_writes

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


def cmd_candidates(args) -> int:
    import time

    from .core.curation.consolidation.queue import MIN_TASKS_FOR_UNUSED, consolidation_candidates, injected_today

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

    from .core.curation.consolidation.opinion import opinion_on

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


def _body(args) -> str:
    try:
        return read_body(args.body, args.body_file)
    except OSError as exc:
        raise UsageError(f"--body-file: cannot read {args.body_file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"--body-file: {args.body_file} is not UTF-8 text (byte {exc.start})") from None


def cmd_extract(args) -> int:
    from .core.curation.claude import ask_claude, build_extraction_prompt, extraction_file, parse_extraction
    from .core.disk.safeio import read_named
    from .core.record.writer import plan_create

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


def cmd_sessions(args) -> int:
    from .core.curation.sessions import load_sessions, promoted_to, promotions

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
    from .core.curation.sessions import load_sessions, promoted_to, promotion_draft, promotions
    from .core.record.writer import plan_create

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


def _saved_tasks(root):
    tasks, errors = load_checks(root)
    for error in errors:
        _error(str(error))
    return tasks, errors


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
            _refuse_unusable_arbiter(side.config)
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


def cmd_app(args) -> int:
    if args.path is not None and not os.path.exists(args.path):
        raise UsageError(f"{args.path!r} is neither a command nor a folder{_closest_command(args.path)} (`rawko-tui --help` lists the commands)")
    _now(args)  # validate early: a clear message, not a traceback in the app
    try:
        root, problem = find_store_root(args.path), None
    except StoreNotFound as exc:
        root, problem = None, f"{exc}."
    if args.at and root is not None:
        from .core.record.history import files_at

        files_at(root, args.at)  # a bad revision is a clear message here, not an empty app
    if args.arbiter and root is not None:
        from .core.store.reading import load_config

        resolve_profile(load_config(root), args.arbiter)  # an unknown name is a clear message, not a silent default
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        # without a terminal the app can neither read keys nor draw: it would wait for ever (a CI job)
        raise UsageError("the app needs a terminal, and standard input or output is not one here; in a script, run a command (`rawko-tui --help` lists them)")
    from .tui.app import run_app

    return run_app(root, task=args.task, agent=args.agent, now=args.now, problem=problem, at=args.at, arbiter=args.arbiter)


def _closest_command(given: str) -> str:
    import difflib

    close = difflib.get_close_matches(given.lower(), COMMANDS, n=3, cutoff=0.6)
    return f": did you mean {' or '.join(close)}?" if close else ""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
