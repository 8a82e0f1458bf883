"""The core never imports Textual or anthropic (start-up speed, and a UI-free library)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CORE_MODULES = [
    "rawko_tui.core.jsregex",
    "rawko_tui.core.jsvalue",
    "rawko_tui.core.yamljs",
    "rawko_tui.core.store",
    "rawko_tui.core.patterns",
    "rawko_tui.core.explain",
    "rawko_tui.core.arbiter",
    "rawko_tui.core.lint",
    "rawko_tui.core.gitrepo",
    "rawko_tui.core.commonwords",
    "rawko_tui.cli",
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
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'anthropic', 'git'))\n"
        # a script's preview pays only for what it uses: no writing, history, lint, Claude or sessions
        "bad += sorted(m for m in sys.modules if m.rsplit('.', 1)[-1] in ('writer', 'history', 'lint', 'claude', 'sessions', 'hooks'))\n"
        "sys.stderr.write('LEAK:' + ','.join(bad))\n"
    )
    from conftest import REPO_ROOT

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().endswith("LEAK:")


def _core_imports() -> dict[str, set[str]]:
    """Which core modules each core module imports, at module level or inside a function."""
    import ast

    core = Path(__file__).parent.parent / "rawko_tui" / "core"
    graph = {}
    for path in [*core.glob("*.py"), *core.glob("*/*.py")]:
        package = "" if path.parent == core else path.parent.name + "."
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            # resolve the relative import to a module of the core ("arbiter", "arbiters.loaders", …)
            base = package if node.level == 1 else ""
            if node.module:
                names.add(base + node.module)
            else:
                names |= {base + alias.name for alias in node.names}
        graph[package + path.stem] = {n if n in {p for p in _module_names(core)} else n.split(".")[0] for n in names}
    return graph


def _module_names(core: Path) -> set[str]:
    return {path.stem for path in core.glob("*.py")} | {f"{path.parent.name}.{path.stem}" for path in core.glob("*/*.py")}


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
