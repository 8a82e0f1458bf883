"""The layers written in docs/ARCHITECTURE.md hold: import-linter's contracts (pyproject.toml), function-level imports included."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT


def _lint_imports(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess:
    command = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert command, "import-linter is not installed (pip install -e '.[dev]')"
    return subprocess.run([command, "--no-cache", "--no-logo", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_every_import_contract_is_kept():
    done = _lint_imports()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("where", "line", "contract"),
    [
        # a store module reaching up into the arbiters, inside a function
        ("rawko_tui/core/store/reading.py", "def _climbs_up():\n    from ..arbiters import ranking\n", "layers"),
        # the core importing the UI toolkit
        ("rawko_tui/core/js/values.py", "def _paints():\n    import textual\n", "headless-core"),
        # one pane importing another
        ("rawko_tui/tui/widgets/preview/preview_pane.py", "def _peeks():\n    from ..memories import memory_list\n", "panes"),
        # one group of commands importing another's, and what they share importing a command
        ("rawko_tui/cli/lint.py", "def _borrows():\n    from .preview import render_preview_text\n", "cli-commands"),
        ("rawko_tui/cli/output.py", "def _reaches_up():\n    from . import record\n", "cli-commands"),
        # one screen importing another, and a confirmation reaching up to the editor that opens it
        ("rawko_tui/tui/screens/help.py", "def _peeks():\n    from . import checks\n", "screens"),
        ("rawko_tui/tui/screens/confirm_write.py", "def _climbs_up():\n    from . import memory_editor\n", "screens"),
    ],
)
def test_a_broken_contract_is_caught(tmp_path, where, line, contract):
    """The contracts can fail: the same check on a copy of the package with one import that breaks each."""
    copy = tmp_path / "repo"
    shutil.copytree(REPO_ROOT / "rawko_tui", copy / "rawko_tui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO_ROOT / "pyproject.toml", copy / "pyproject.toml")
    with open(copy / where, "a", encoding="utf-8") as module:
        module.write("\n\n" + line)
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
         "--no-cache", "--no-logo", "--contract", contract],
        cwd=copy, capture_output=True, text=True, timeout=300, env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 broken" in done.stdout
