"""The core never imports Textual or anthropic (start-up speed, and a UI-free library)."""

from __future__ import annotations

import subprocess
import sys

CORE_MODULES = [
    "rawko_tui.core.jsregex",
    "rawko_tui.core.jsvalue",
    "rawko_tui.core.yamljs",
    "rawko_tui.core.store",
    "rawko_tui.core.patterns",
    "rawko_tui.core.explain",
    "rawko_tui.core.arbiter",
    "rawko_tui.core.lint",
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
        "sys.stderr.write('LEAK:' + ','.join(bad))\n"
    )
    from conftest import REPO_ROOT

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().endswith("LEAK:")
