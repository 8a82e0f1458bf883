"""The ``rawko-tui`` command line: preview, explain and lint a memory store, or open the app.

Exit codes: 0 success, 1 lint found errors, 2 usage errors (bad arguments, no store).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Sequence

from . import __version__
from .core.arbiter import (
    COMPONENT_KEYS,
    IMPORTANCE_ORDER,
    Preview,
    explain_candidate,
    parse_now,
    resolve_options,
    run_preview,
)
from .core.jsvalue import js_to_string, replace_lone_surrogates
from .core.lint import ERROR, lint_store
from .core.store import StoreNotFound, find_store_root, load_store

COMMANDS = ("preview", "explain", "lint")
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def _add_store_path(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", metavar="PATH", help="the folder holding .rawko/ (default: searched upward from here)")


def _add_context(parser: argparse.ArgumentParser, required: bool) -> None:
    parser.add_argument("--task", required=required, help="the task text, as the agent receives it")
    parser.add_argument("--agent", required=required, help="the agent name (planner, developer, tester, reviewer, or one in .rawko/agents/)")
    parser.add_argument("--now", help="the time to score recency against, ISO 8601 (default: now)")
    parser.add_argument("--max", type=int, dest="max_memories", metavar="N", help="memories to inject at most (default: agent config, else 5)")
    parser.add_argument("--min-importance", choices=list(IMPORTANCE_ORDER), help="lowest importance injected (default: agent config, else low)")
    parser.add_argument("--recursive", action="store_true", default=None, help="also load memories in subfolders (for arbiters that read them)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rawko-tui",
        description="Review, debug and preview the long-term memories rawko agents inject.",
    )
    parser.add_argument("--version", action="version", version=f"rawko-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    preview = sub.add_parser("preview", help="what the arbiter injects for a task, ranked, with every candidate's reason")
    _add_store_path(preview)
    _add_context(preview, required=True)
    output = preview.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="machine-readable output")
    output.add_argument("--prompt", action="store_true", help="print exactly the text the arbiter injects")

    explain = sub.add_parser("explain", help="the full score and gate tree for one memory")
    explain.add_argument("memory", metavar="MEMORY_PATH", help="the memory file (path, or name inside .rawko/memories/)")
    _add_store_path(explain)
    _add_context(explain, required=True)
    explain.add_argument("--json", action="store_true", help="machine-readable output")

    lint = sub.add_parser("lint", help="check every memory file; exit 1 on errors")
    _add_store_path(lint)
    lint.add_argument("--json", action="store_true", help="machine-readable output")
    lint.add_argument("--now", help="the time to judge future dates against, ISO 8601 (default: now)")
    return parser


def build_app_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rawko-tui", description="Open the rawko-tui app on a memory store.")
    _add_store_path(parser)
    parser.add_argument("--task", help="open the injection preview with this task")
    parser.add_argument("--agent", help="the agent for the preview")
    parser.add_argument("--now", help="the time to score recency against, ISO 8601")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS or any(a in ("-h", "--help", "--version") for a in argv[:1]):
            args = build_parser().parse_args(argv)
            return {"preview": cmd_preview, "explain": cmd_explain, "lint": cmd_lint}[args.command](args)
        return cmd_app(build_app_parser().parse_args(argv))
    except UsageError as exc:
        print(f"rawko-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except StoreNotFound as exc:
        print(f"rawko-tui: {exc}. Give the folder that holds .rawko/ as PATH.", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


def _now(args) -> float | None:
    if not getattr(args, "now", None):
        return None
    try:
        return parse_now(args.now)
    except ValueError as exc:
        raise UsageError(f"--now: {exc}") from None


def _preview(args):
    store = load_store(find_store_root(args.path))
    options = resolve_options(store, args.agent, args.max_memories, args.min_importance, args.recursive)
    return store, run_preview(store, args.task, args.agent, options, _now(args))


def _write(text: str) -> None:
    sys.stdout.write(replace_lone_surrogates(text))
    sys.stdout.flush()


def _dumps(data: object) -> str:
    text = json.dumps(data, ensure_ascii=False, indent=2, default=_json_default)
    # a lone surrogate (a 500-unit cut through an emoji) is escaped, as JSON.stringify does
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def _json_default(value: object):
    return js_to_string(value)


def preview_to_dict(preview: Preview) -> dict:
    from datetime import datetime, timezone

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
            {"rank": c.rank, "path": c.path, "title": c.title, "score": c.score, "components": c.components} for c in preview.injected
        ],
        "candidates": [c.to_dict() for c in preview.candidates],
        "prompt": preview.prompt,
        "errors": [e.to_dict() for e in preview.errors],
        "arbiterFailure": preview.arbiter_failure.to_dict() if preview.arbiter_failure else None,
        "notes": preview.notes,
    }


def cmd_preview(args) -> int:
    _, preview = _preview(args)
    if args.json:
        _write(_dumps(preview_to_dict(preview)))
    elif args.prompt:
        _write(preview.prompt)
    else:
        _write(render_preview_text(preview))
    return EXIT_OK


def render_preview_text(preview: Preview) -> str:
    lines: list[str] = []
    lines.append(f"Task:  {preview.task}")
    lines.append(f"Agent: {preview.agent}   max {js_to_string(preview.max_memories)}   min importance {js_to_string(preview.min_importance)}" + ("   recursive" if preview.recursive else ""))
    if preview.arbiter_failure:
        lines += ["", "!! " + preview.arbiter_failure.describe(), "   Below: what the arbiter would do without that file."]
    lines += ["", f"Injected ({len(preview.injected)}):"]
    if not preview.injected:
        lines.append("  (none)")
    for c in preview.injected:
        parts = " ".join(f"{k}={c.components[k]:g}" for k in COMPONENT_KEYS)
        lines.append(f"  {c.rank:>2}. {c.score:>3g}  {c.title}  [{c.path}]")
        lines.append(f"         {parts}")
    cut = [c for c in preview.candidates if c.rank is not None and not c.injected]
    if cut:
        lines += ["", f"Matched but not injected ({len(cut)}):"]
        for c in cut:
            lines.append(f"  {c.rank:>2}. {c.score:>3g}  {c.title}  [{c.path}]  -- {c.explanation.description}")
    other = [c for c in preview.candidates if c.rank is None]
    if other:
        lines += ["", f"Not injected ({len(other)}):"]
        for c in other:
            lines.append(f"       {c.title or c.file.name}  [{c.path}]  -- {c.explanation.description}")
    if preview.errors:
        lines += ["", f"Files that failed to load ({len(preview.errors)}):"]
        lines += [f"  {e}" for e in preview.errors]
    if preview.notes:
        lines += [""] + [f"Note: {n}" for n in preview.notes]
    chars = len(preview.prompt)
    lines += ["", f"Prompt block: {chars} characters, about {(chars + 3) // 4} tokens (rawko-tui preview --prompt prints it)."]
    return "\n".join(lines) + "\n"


def cmd_explain(args) -> int:
    store, preview = _preview(args)
    candidate = preview.candidate(args.memory.replace("\\", "/"))
    if candidate is None:
        raise UsageError(f"no memory file {args.memory!r} in {store.root}/.rawko/memories")
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
    text = "\n".join(header) + "\n\n" + tree.render() + "\n"
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
    return "\n".join(lines) + "\n"


def display_value(value: object) -> str:
    from .core.jsvalue import JsDate

    if isinstance(value, JsDate):
        return value.iso()
    if isinstance(value, list):
        return "[" + ", ".join(display_value(v) for v in value) + "]"
    return js_to_string(value)


def cmd_lint(args) -> int:
    store = load_store(find_store_root(args.path))
    findings = lint_store(store, _now(args))
    errors = sum(1 for f in findings if f.severity == ERROR)
    if args.json:
        _write(_dumps({"files": len(store.files), "errors": errors, "findings": [f.to_dict() for f in findings]}))
    else:
        text = "\n".join(str(f) for f in findings)
        warnings = sum(1 for f in findings if f.severity == "warning")
        summary = f"{len(store.files)} files: {errors} errors, {warnings} warnings, {len(findings) - errors - warnings} notes"
        _write((text + "\n\n" if text else "") + summary + "\n")
    return EXIT_FINDINGS if errors else EXIT_OK


def cmd_app(args) -> int:
    if (args.task is None) != (args.agent is None):
        raise UsageError("--task and --agent go together")
    _now(args)  # validate early: a clear message, not a traceback in the app
    try:
        root, problem = find_store_root(args.path), None
    except StoreNotFound as exc:
        root, problem = None, f"{exc}."
    from .tui.app import run_app

    return run_app(root, task=args.task, agent=args.agent, now=args.now, problem=problem)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
