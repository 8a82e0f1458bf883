"""The argument parsers: every command's options and help, and the app's (``rawko-tui`` without a command)."""

from __future__ import annotations

import argparse
import math

from .. import __version__
from ..core.arbiters.decision import IMPORTANCE_ORDER
from ..core.curation.consolidation import KINDS as CANDIDATE_KINDS
from ..core.js.regexp import DEFAULT_REGEX_BUDGET_SECONDS

DEFAULT_AGENT = "developer"  # the app's default too


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


class _OneCommand:
    """The subparsers of a run of one command: the others' parsers are never built (each costs argparse's
    translation lookups and help formatters: milliseconds that every short command, in a script or a hook, pays)."""

    def __init__(self, subparsers, command: str):
        self._subparsers, self._command = subparsers, command

    def add_parser(self, name: str, **kwargs):
        return self._subparsers.add_parser(name, **kwargs) if name == self._command else _NOT_BUILT


class _WidthWhenWritten:
    """An argparse formatter that asks the terminal's width only when help is written. ``add_argument`` makes a
    formatter to check each argument it adds, and argparse asks ``shutil`` for the width, whose import loads three
    compression modules: milliseconds of every one-shot command's start, for help it does not write."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        super().__init__(prog, indent_increment, max_help_position, 80 if width is None else width)
        self._width_asked = (indent_increment, max_help_position) if width is None else None

    def format_help(self):
        if self._width_asked is not None:  # what argparse's own __init__ works out from the width
            import shutil

            indent_increment, max_help_position = self._width_asked
            self._width = shutil.get_terminal_size().columns - 2
            self._max_help_position = min(max_help_position, max(self._width - 20, indent_increment * 2))
            self._width_asked = None
        return super().format_help()


class _HelpFormatter(_WidthWhenWritten, argparse.HelpFormatter):
    pass


class _RawDescriptionHelpFormatter(_WidthWhenWritten, argparse.RawDescriptionHelpFormatter):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with a formatter that asks the terminal's width only when help is written (its commands'
    parsers too: ``add_subparsers`` makes them of the parent's class)."""

    def __init__(self, *args, formatter_class=_HelpFormatter, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)


class _NotBuilt:
    """The parser of a command that is not running: whatever is added to it is dropped."""

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: self


_NOT_BUILT = _NotBuilt()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser; with ``command``, the top parser holding that command's alone (what running it needs)."""
    parser = _Parser(
        prog="rawko-tui",
        usage="rawko-tui [PATH] [--task TEXT] [--agent NAME] [--now ISO] [--at REV] [--arbiter NAME]\n       rawko-tui COMMAND [PATH] [options]",
        description="Review, debug and preview the long-term memories rawko agents inject.",
        epilog=APP_HELP,
        formatter_class=_RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"rawko-tui {__version__}")
    # prog: "usage: rawko-tui append [-h] …", not the top usage
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="rawko-tui", help="`rawko-tui COMMAND --help` explains one")
    if command is not None:
        sub = _OneCommand(sub, command)
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
    parser = _Parser(prog="rawko-tui", description="Open the rawko-tui app on a memory store.", epilog=APP_HELP, formatter_class=_RawDescriptionHelpFormatter)
    _add_store_path(parser)
    parser.add_argument("--task", help="open the injection preview with this task")
    parser.add_argument("--agent", help="the agent for the preview")
    parser.add_argument("--now", help="the time to score recency against, ISO 8601")
    parser.add_argument("--at", metavar="REV", help="open the store as it was at this git revision (read-only)")
    _add_arbiter(parser)
    return parser


def _command_parser(parser: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    """The parser of the command ``args`` ran (``hook install``'s own), for an error said with its usage."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            return parser if chosen is None else _command_parser(chosen, args)
    return parser
