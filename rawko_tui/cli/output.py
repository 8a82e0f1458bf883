"""Printing a command's report and ending it: the exit codes, the failures said in one line, text and JSON written safely."""

from __future__ import annotations

import json
import os
import sys

from ..core.js.values import js_to_string, replace_lone_surrogates
from ..core.text.safetext import clean, escape_json_controls, inline, inline_lines

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_NOT_COMMITTED, EXIT_UNDECIDED = 0, 1, 2, 3, 4
EXIT_PIPE_CLOSED = 141  # as a shell reports a command killed by SIGPIPE


class UsageError(Exception):
    """Arguments a command cannot use: said in one line, exit 2."""


# Failures said in one line, with their exit code. A class is looked up only if its module was
# imported (nothing else can have raised it): a command imports only what it uses.
_FAILURES = (
    ("rawko_tui.core.arbiters.profiles", "ProfileError", "{}", EXIT_USAGE),  # --arbiter, or a store's profile, that cannot be used
    ("rawko_tui.core.arbiters.request", "UnusableArbiter", "{}", EXIT_USAGE),  # a store's arbiter: that names no profile
    ("rawko_tui.cli.output", "UsageError", "{}", EXIT_USAGE),
    ("rawko_tui.core.store.reading", "StoreNotFound", "{}. Give the folder that holds .rawko/ as PATH.", EXIT_USAGE),
    ("rawko_tui.core.disk.gitrepo", "GitError", "{}", EXIT_USAGE),  # defined there; history re-exports it
    ("rawko_tui.core.record.writer", "NotCommitted", "{}", EXIT_NOT_COMMITTED),  # before WriteError: it is one, but the bytes are written
    ("rawko_tui.core.record.writer", "WriteError", "{}", EXIT_FINDINGS),  # refused to write: nothing changed
    ("rawko_tui.core.curation.claude", "ClaudeError", "no answer from Claude: {}", EXIT_FINDINGS),
)


def _known_failure(exc: Exception) -> tuple[str, int] | None:
    for module, name, text, code in _FAILURES:
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(exc, getattr(loaded, name)):
            return text.format(exc), code
    return None


def _write(text: str, exact: bool = False, shown: bool = False) -> None:
    """Print a report. Control characters in it (a memory's escape sequences, a file
    name's newline) are shown as visible stand-ins, never sent to the terminal;
    ``exact`` keeps every character (the prompt text, piped to another program);
    ``shown``: the text is made of ``_report``'s lines, whose every character is shown already
    (``inline`` shows all that ``clean`` does): a listing of 10,000 memories is not scanned twice."""
    try:
        sys.stdout.write(replace_lone_surrogates(text) if exact else text if shown or type(text) is JsonText else clean(text))
        sys.stdout.flush()
    except BrokenPipeError:
        _reader_gone()


def _write_utf8(data: bytes) -> None:
    """``_write(data.decode(), shown=True)`` for a report kept as its UTF-8 bytes (lint's: megabytes), written as they
    are where standard output is UTF-8: no copy of them is made as text, nor encoded again."""
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    if buffer is None or str(getattr(stream, "encoding", "")).replace("_", "-").lower() not in ("utf-8", "utf8"):
        _write(data.decode("utf-8"), shown=True)
        return
    try:
        stream.flush()
        buffer.write(data)
        buffer.flush()
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
    if not lines:
        return ""
    plain = inline_lines(lines)  # most often every line is plain: checked at once
    return (plain if plain is not None else "\n".join(inline(line) for line in lines)) + "\n"


class JsonText(str):
    """``_dumps``' JSON: every character ``clean`` would show is escaped in it already (C0 controls by the encoder,
    the rest by ``escape_json_controls``), so ``_write`` does not scan it again (4 MB for a listing of 10,000)."""

    __slots__ = ()


class RawJsonItems(list):
    """A top-level list whose items are JSON text already, each exactly as ``_dumps`` would write it (a listing's
    10,000 rows are joined as they are, not wrapped one by one)."""

    __slots__ = ()


def _dumps(data: object) -> str:
    """JSON, one line per top-level field and one per item of a top-level list (a memory per line).

    Deeper values are written compactly: that is what Python's C encoder does, and
    a listing of 10,000 memories then costs a fraction of what indenting it does.
    """
    compact = json.JSONEncoder(ensure_ascii=False, default=_json_default).encode  # one encoder for every item
    if isinstance(data, dict) and data:
        parts = ["{\n"]  # joined once: a listing of 10,000 memories is megabytes, each copy of it a millisecond
        for key, value in data.items():
            parts += ["  ", compact(key), ": "]
            if isinstance(value, list) and value:
                parts += ["[\n    ", ",\n    ".join(value if type(value) is RawJsonItems else [compact(item) for item in value]), "\n  ]"]
            else:
                parts.append(compact(value))
            parts.append(",\n")
        parts[-1] = "\n}\n"
        text = "".join(parts)
    else:
        text = compact(data) + "\n"
    # a lone surrogate (a 500-unit cut through an emoji) is escaped, as JSON.stringify does;
    # so are C1 controls and bidi overrides, which json.dumps leaves raw
    return JsonText(escape_json_controls(text))


def _json_default(value: object):
    return js_to_string(value)
