"""The package as users install it (a wheel), not as the editable checkout runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # built from the files git tracks, as in a clean clone: a local egg-info would list files the project does not declare
    source = tmp_path_factory.mktemp("source")
    tracked = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (found,) = out.glob("rawko_tui-*.whl")
    return found


def test_every_file_the_package_reads_is_in_the_wheel(wheel):
    """The stylesheet and data files are read at run time; the editable install hides their absence."""
    shipped = set(zipfile.ZipFile(wheel).namelist())
    needed = [p.relative_to(REPO).as_posix() for p in (REPO / "rawko_tui").rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert needed, "the package has data files (at least the stylesheet)"
    assert [n for n in needed if n not in shipped] == []


def test_the_app_starts_from_the_unpacked_wheel(wheel, tmp_path):
    """The app and a command run from the wheel's files alone, outside the checkout."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    store = tmp_path / "store"
    shutil.copytree(REPO / ".rawko", store / ".rawko")
    env = {**os.environ, "PYTHONPATH": str(site), "TERM": "xterm-256color"}
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "smoke_installed.py"), str(store)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"rawko_tui from {site / 'rawko_tui'}" in proc.stdout


def test_no_tracked_file_is_also_ignored():
    """A file both tracked and ignored (such as .rawko/checks.yaml) would confuse anyone who edits it."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    both = subprocess.run(["git", "ls-files", "-ci", "--exclude-standard"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert both == ""
