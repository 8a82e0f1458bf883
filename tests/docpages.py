"""The documentation's runnable examples, its links and its generated key table.

Used by tests/test_doc_examples.py (which checks them) and scripts/update_doc_examples.py
(which rewrites them from the real output). The convention (docs/CONTRIBUTING.md):

- A fenced block marked ```console is a shell session that runs. A line starting with
  ``$ `` is a command (a line ending in `` \\`` continues on the next one); the lines after
  it, up to the next ``$ `` line or the end of the block, are its output: stdout and
  stderr as a terminal shows them. A line holding only ``…`` stands for any number of
  output lines.
- Each block runs in its own throwaway folder, ``~/project``: a copy of the repository's
  demo store (``.rawko/``) committed to a fresh git repository. Its commands run in order,
  each from ``~/project``, so a block can write and then show what changed. A block
  marked ```console empty starts from an empty folder instead (no store, no git).
- ``rawko-tui`` is ``python -m rawko_tui`` from this checkout. Nothing of the person
  running the tests counts: no settings file, no API key, no colour, 100 columns, UTC,
  git's author and dates fixed ("Ada Lovelace", 2026-01-24T12:00:00Z), and the clock that
  dates rawko-tui's own entries reads 2026-01-24T12:00:00Z, the demo store's pinned now.
- Output is compared after two normalisations only: the throwaway folder's path reads
  ``~``, and trailing white space is dropped.
- Any other fence (```sh, ```text, ```yaml, ```json…) is not run: use it for what
  cannot run here (a user's own store, installing, a remote server).
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO_STORE = ROOT / ".rawko"
UPDATE_COMMAND = "python scripts/update_doc_examples.py"
ELISION = "…"
FIXED_NOW = "2026-01-24T12:00:00Z"
COMMAND_TIMEOUT = 300  # seconds: only so that a hang fails instead of stalling the suite

# Runs rawko-tui from this checkout with the clock of its own entries (updatedAt, retiredAt…) fixed.
LAUNCHER = (
    "import runpy, rawko_tui.core.curation.entries as curation; "
    f'curation.now_iso = lambda: "{FIXED_NOW}"; '
    'runpy.run_module("rawko_tui", run_name="__main__", alter_sys=True)'
)

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def pages() -> list[Path]:
    """README.md and every page under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --- the examples -------------------------------------------------------------------------


@dataclass
class Command:
    text: str  # the command as the shell gets it (continuation lines joined)
    output_start: int  # index in the page's lines of the first output line
    output_end: int  # index just after the last one
    expected: list[str]  # the output lines, the block's indentation removed


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    indent: str
    options: set[str]
    commands: list[Command] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{relative(self.page)}:{self.line}"


def console_blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").split("\n")
    blocks, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, info = opening["fence"], opening["info"].split()
        end = i + 1
        while end < len(lines) and not (lines[end].strip().startswith(fence[0] * len(fence)) and not lines[end].strip().strip(fence[0])):
            end += 1
        if info and info[0] == "console":
            blocks.append(_block(page, lines, i, end, opening["indent"], set(info[1:])))
        i = end + 1
    return blocks


def _block(page: Path, lines: list[str], opening: int, closing: int, indent: str, options: set[str]) -> Block:
    block = Block(page, opening + 1, indent, options)
    unknown = options - {"empty"}
    if unknown:
        block.problems.append(f"unknown option(s) {sorted(unknown)} after ```console (known: empty)")
    i = opening + 1
    while i < closing:
        text = _unindent(lines[i], indent)
        if not text.startswith("$ "):
            block.problems.append(f"line {i + 1}: belongs to no command (a ```console block holds `$ command` lines and their output)")
            i += 1
            continue
        parts = [text[2:]]
        while parts[-1].endswith("\\") and i + 1 < closing:
            i += 1
            parts.append(_unindent(lines[i], indent))
        i += 1
        start = i
        while i < closing and not _unindent(lines[i], indent).startswith("$ "):
            i += 1
        block.commands.append(Command("\n".join(parts), start, i, [_unindent(line, indent) for line in lines[start:i]]))
    if not block.commands:
        block.problems.append("an empty ```console block")
    return block


def _unindent(line: str, indent: str) -> str:
    return line[len(indent):] if line.startswith(indent) else line.lstrip()


def all_blocks() -> list[Block]:
    return [block for page in pages() for block in console_blocks(page)]


class Session:
    """The throwaway folder one block runs in."""

    def __init__(self, empty: bool):
        self.home = Path(tempfile.mkdtemp(prefix="rawko-doc-")).resolve()
        self.project = self.home / "project"
        self.project.mkdir()
        bin_dir = self.home / "bin"
        bin_dir.mkdir()
        shim = bin_dir / "rawko-tui"
        shim.write_text(f"#!/bin/sh\nexec '{sys.executable}' -c '{LAUNCHER}' \"$@\"\n", encoding="utf-8")
        shim.chmod(0o755)
        person = (("NAME", "Ada Lovelace"), ("EMAIL", "ada@example.com"), ("DATE", FIXED_NOW))
        identity = {f"GIT_{who}_{what}": value for who in ("AUTHOR", "COMMITTER") for what, value in person}
        self.env = {
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}",
            "HOME": str(self.home),  # no ~/.gitconfig, no ~/.config/rawko-tui of the person running this
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TZ": "UTC",
            "NO_COLOR": "1",
            "COLUMNS": "100",
            "LINES": "40",
            "TERM": "dumb",
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",  # stdout and stderr interleave as on a terminal
            "PYTHONDONTWRITEBYTECODE": "1",
            "RAWKO_TUI_CONFIG": str(self.home / ".config" / "rawko-tui" / "config.yaml"),  # no such file: no settings
            "RAWKO_TUI_CACHE_DIR": str(self.home / "cache"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            **identity,
        }
        if not empty:
            shutil.copytree(DEMO_STORE, self.project / ".rawko", symlinks=True)
            for git in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "the demo store"]):
                subprocess.run(["git", *git], cwd=self.project, env=self.env, check=True, capture_output=True)

    def run(self, command: str) -> list[str]:
        done = subprocess.run(
            ["sh", "-c", command],
            cwd=self.project,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=COMMAND_TIMEOUT,
        )
        return normalise(done.stdout.decode("utf-8", "backslashreplace"), self.home)

    def close(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)


def normalise(text: str, home: Path) -> list[str]:
    text = text.replace(str(home), "~")
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def run_block(block: Block) -> list[list[str]]:
    """Each command's real output, in order."""
    session = Session(empty="empty" in block.options)
    try:
        return [session.run(command.text) for command in block.commands]
    finally:
        session.close()


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the output shown on the page (``…`` lines standing for any lines) is the real one."""
    pattern = [line.rstrip() for line in expected]
    while pattern and not pattern[-1]:
        pattern.pop()
    segments, current = [], []
    for line in pattern:
        if line.strip() == ELISION:
            segments.append(current)
            current = []
        else:
            current.append(line)
    segments.append(current)
    if len(segments) == 1:
        return pattern == actual
    head, *middle, tail = segments
    if actual[: len(head)] != head or len(actual) < len(head) + len(tail) or (tail and actual[len(actual) - len(tail):] != tail):
        return False
    at, stop = len(head), len(actual) - len(tail)
    for segment in middle:
        found = next((k for k in range(at, stop - len(segment) + 1) if actual[k : k + len(segment)] == segment), None)
        if found is None:
            return False
        at = found + len(segment)
    return True


def rewritten_output(expected: list[str], actual: list[str]) -> list[str]:
    """The lines to show for ``actual``, abridged as the page abridged the old output (its first and last lines kept)."""
    marks = [k for k, line in enumerate(expected) if line.strip() == ELISION]
    if not marks:
        return actual
    head, tail = marks[0], len(expected) - marks[-1] - 1
    if len(actual) <= head + tail + 1:
        return actual
    mark = expected[marks[0]][: len(expected[marks[0]]) - len(expected[marks[0]].lstrip())] + ELISION
    return actual[:head] + [mark] + actual[len(actual) - tail:]


def update_page(page: Path) -> int:
    """Rewrite every example's output on the page from the real one; the number of outputs changed."""
    lines = page.read_text(encoding="utf-8").split("\n")
    changes = []
    for block in console_blocks(page):
        if block.problems:
            raise SystemExit(f"{block.name}: " + "; ".join(block.problems))
        for command, actual in zip(block.commands, run_block(block), strict=True):
            if not matches(command.expected, actual):
                new = [(block.indent + line) if line else "" for line in rewritten_output(command.expected, actual)]
                changes.append((command.output_start, command.output_end, new))
    for start, end, new in reversed(changes):
        lines[start:end] = new
    if changes:
        page.write_text("\n".join(lines), encoding="utf-8")
    return len(changes)


# --- links --------------------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.MULTILINE)


def prose(text: str) -> str:
    """The page without its fenced blocks and code spans (a link there is an example, not a link)."""
    return re.sub(r"(`+).*?\1", "", outside_fences(text))


def outside_fences(text: str) -> str:
    kept, fence = [], None
    for line in text.split("\n"):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening["fence"]
        elif fence is not None and line.strip().startswith(fence) and not line.strip().strip(fence[0]):
            fence = None
        elif fence is None:
            kept.append(line)
    return "\n".join(kept)


def links(page: Path) -> list[str]:
    text = prose(page.read_text(encoding="utf-8"))
    return LINK.findall(text) + REFERENCE.findall(text)


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the page's headings."""
    found, seen = set(), {}
    for line in outside_fences(page.read_text(encoding="utf-8")).split("\n"):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        text = re.sub(r"[*_`]|<[^>]+>", "", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading[1]))
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # https:, mailto:: not checked offline
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading with the anchor #{anchor} in {relative(resolved)}")
    return broken


def linked_pages(page: Path) -> set[Path]:
    paths = [target.partition("#")[0] for target in links(page) if ":" not in target]
    return {(page.parent / path).resolve() for path in paths if path.endswith(".md")}


# --- the key table ------------------------------------------------------------------------

KEYS_PAGE = ROOT / "docs" / "reference" / "keys.md"
KEYS_BEGIN, KEYS_END = "<!-- keys:begin (made by scripts/update_doc_examples.py) -->", "<!-- keys:end -->"
# what each class with keys is, in the app's words; a class not named here is listed under its own name
WHERE = {
    "RawkoApp": "Everywhere in the main screen (single letters outside text boxes)",
    "MemoryList": "1 Memories pane",
    "ConsolidationScreen": "Consolidation queue (`c`)",
    "SessionsScreen": "Agent sessions (`o`)",
    "ChecksScreen": "Saved tasks and the matrix (`k`)",
    "CompareScreen": "The arbiters side by side (`v`)",
    "MemoryEditor": "Memory editor (`n`, `a`, promoting)",
    "MergeScreen": "Merge editor (`m` in the queue)",
    "ConfirmWrite": "Confirmation of a write",
    "ConfirmDiscard": "Discarding typed text",
    "TornWriteScreen": "An interrupted write (`a` on a memory holding one)",
    "DiffScreen": "A commit's diff",
    "HelpScreen": "Keys (`?`)",
    "NoStoreScreen": "No store",
}


def classes_with_keys() -> list[type]:
    """Every class under rawko_tui/tui that declares BINDINGS, in file and line order."""
    from textual.binding import Binding

    tui = ROOT / "rawko_tui" / "tui"
    found = []
    for source in sorted(tui.rglob("*.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        declared = [node.name for node in tree.body if isinstance(node, ast.ClassDef) and _declares_bindings(node)]
        if not declared:
            continue
        module = importlib.import_module(".".join(source.relative_to(ROOT).with_suffix("").parts))
        for name in declared:
            cls = getattr(module, name)
            if any(isinstance(binding, Binding) for binding in cls.__dict__["BINDINGS"]):
                found.append(cls)
    return found


def _declares_bindings(node: ast.ClassDef) -> bool:
    assigned = [target for statement in node.body if isinstance(statement, ast.Assign) for target in statement.targets]
    return any(getattr(target, "id", None) == "BINDINGS" for target in assigned)


def keys_table() -> str:
    from textual.binding import Binding

    from rawko_tui.tui.keys import display, key_list

    sections = []
    for cls in classes_with_keys():
        summary = (cls.__doc__ or "").strip().split("\n")[0] if cls.__doc__ else ""
        rows = ["| key | action | binding id |", "|---|---|---|"]
        for binding in cls.__dict__["BINDINGS"]:
            if isinstance(binding, Binding):
                keys = ", ".join(f"`{display(key)}`" for key in key_list(binding.key))
                action = (binding.description or binding.action).replace("|", "\\|")
                rows.append(f"| {keys} | {action} | `{binding.id}` |" if binding.id else f"| {keys} | {action} | |")
        heading = f"## {WHERE.get(cls.__name__, cls.__name__)}"
        sections.append("\n".join([heading, "", f"`{cls.__module__}.{cls.__name__}`" + (f": {summary}" if summary else ""), "", *rows]))
    return "\n\n".join(sections)


def keys_page_current() -> bool:
    text = KEYS_PAGE.read_text(encoding="utf-8")
    return _keys_region(text) == keys_table()


def update_keys_page() -> bool:
    text = KEYS_PAGE.read_text(encoding="utf-8")
    table = keys_table()
    if _keys_region(text) == table:
        return False
    start, end = text.index(KEYS_BEGIN) + len(KEYS_BEGIN), text.index(KEYS_END)
    KEYS_PAGE.write_text(text[:start] + "\n\n" + table + "\n\n" + text[end:], encoding="utf-8")
    return True


def _keys_region(text: str) -> str:
    start, end = text.index(KEYS_BEGIN) + len(KEYS_BEGIN), text.index(KEYS_END)
    return text[start:end].strip()
