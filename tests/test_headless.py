"""The core never imports Textual or anthropic (start-up speed, and a UI-free library)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CORE_MODULES = [
    "rawko_tui.core.js.regexp",
    "rawko_tui.core.js.values",
    "rawko_tui.core.js.jsyaml",
    "rawko_tui.core.store.reading",
    "rawko_tui.core.arbiters.patterns",
    "rawko_tui.core.arbiters.explain",
    "rawko_tui.core.arbiters.decision",
    "rawko_tui.core.lint.linter",
    "rawko_tui.core.disk.gitrepo",
    "rawko_tui.core.text.commonwords",
    "rawko_tui.cli",
    # every group of commands: the app's imports Textual only when it opens the app
    *(f"rawko_tui.cli.{group}" for group in ("parser", "preview", "lint", "record", "curation", "sessions", "checks", "app")),
]


def test_core_imports_neither_textual_nor_anthropic():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in CORE_MODULES)
        + "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'anthropic', 'git', 'rich'))\n"
        + "print(','.join(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_a_preview_imports_neither():
    code = (
        "import sys\n"
        "from rawko_tui.cli import main\n"
        "main(['preview', '--task', 'auth', '--agent', 'developer', '--json'])\n"
        # numpy ranks the app's keystrokes; its import would cost a preview most of its time
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'anthropic', 'git', 'numpy'))\n"
        # a script's preview pays only for what it uses: no writing, history, lint, Claude or sessions
        "bad += sorted(m for m in sys.modules if m.rsplit('.', 1)[-1] in ('writer', 'history', 'lint', 'claude', 'sessions', 'hooks'))\n"
        "sys.stderr.write('LEAK:' + ','.join(bad))\n"
    )
    from conftest import REPO_ROOT

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().endswith("LEAK:")


@pytest.mark.parametrize(
    ("argv", "group"),
    [
        (["--help"], None),
        (["preview", "--task", "auth", "--agent", "developer", "--json"], "preview"),
        (["lint", "--json"], "lint"),
        (["verify", "--staged"], "record"),
    ],
)
def test_a_command_imports_only_its_own_group_of_commands(argv, group):
    """The command line's modules: each group of commands is imported only when one of its commands runs."""
    from rawko_tui.cli.commands import GROUPS

    code = (
        "import sys, contextlib, io\n"
        "from rawko_tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print(','.join(sorted(g for g in {sorted(GROUPS)!r} if 'rawko_tui.cli.' + g in sys.modules)))\n"
    )
    from conftest import REPO_ROOT

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (group or "")


def _core_imports() -> dict[str, set[str]]:
    """Which core modules each core module imports, at module level or inside a function (dotted names under core)."""
    import ast

    core = Path(__file__).parent.parent / "rawko_tui" / "core"
    modules = {_dotted(core, path): path for path in core.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level == 0:
                if not (node.module or "").startswith("rawko_tui.core."):
                    continue
                base = node.module.split(".")[2:]
            else:
                base = package[: len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            for alias in node.names:
                target = ".".join(base + [alias.name])
                names.add(target if target in modules else ".".join(base))
        graph[name] = names - {name}
    return graph


def _dotted(core: Path, path: Path) -> str:
    parts = list(path.relative_to(core).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


KNOWN_CYCLES: set = set()  # none: the arbiter package made the last one (arbiter <-> rankindex) go away


def test_no_two_core_modules_import_each_other():
    graph = _core_imports()
    cycles = set()

    def visit(module: str, path: list[str]) -> None:
        for target in graph.get(module, ()):
            if target in path:
                cycles.add(frozenset(path[path.index(target) :]))
            elif target in graph:
                visit(target, path + [target])

    for module in graph:
        visit(module, [module])
    assert cycles == KNOWN_CYCLES


def test_parsing_a_command_leaves_the_terminal_width_unasked_and_help_asks_it():
    """argparse asks shutil (and its three compression modules) for the terminal's width on every argument it
    adds; the width is asked only when help is written, and help is written at the width it always was."""
    code = (
        "import os, sys\n"
        "from rawko_tui.cli.parser import build_parser\n"
        "from rawko_tui.cli.commands import COMMANDS\n"
        "for command in sorted(set(COMMANDS) - {'hook'}):  # hook's actions are named in a usage line, at the width\n"
        "    build_parser(command)\n"
        "build_parser('lint').parse_known_args(['lint', '--json'])\n"
        "print('shutil' in sys.modules)\n"
        "print(build_parser('preview').format_help())\n"
    )
    from conftest import REPO_ROOT

    def run(columns: str) -> list[str]:
        env = {**os.environ, "COLUMNS": columns}
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO_ROOT, env=env)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.splitlines()

    narrow, wide = run("40"), run("200")
    assert narrow[0] == wide[0] == "False"
    assert len(narrow) > len(wide)  # the help is wrapped at the terminal's width
