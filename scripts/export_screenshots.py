"""Regenerate the pictures in screenshots/ (shown by README.md and docs/) from the demo store.

    python scripts/export_screenshots.py

Each picture is the app driven headless at a fixed size and a fixed "now",
saved with ``save_screenshot`` as SVG.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from rawko_tui.tui.app import create_app
from rawko_tui.tui.widgets.memories.memory_list import MemoryList
from rawko_tui.tui.widgets.preview.preview_pane import PreviewPane

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots"
SIZE = (160, 46)
NOW = "2026-01-24T12:00:00Z"


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.settled()
    await pilot.pause()


async def select(pilot, path: str) -> None:
    pilot.app.query_one(MemoryList).select_path(path)
    await settle(pilot)


async def preview(pilot) -> None:
    await settle(pilot)


async def memories(pilot) -> None:
    await settle(pilot)
    pilot.app.query_one("#memory-table").focus()
    await pilot.press("slash", *"auth")
    await settle(pilot)


async def memory(pilot) -> None:
    await settle(pilot)
    await select(pilot, ".rawko/memories/password-hashing-approach.md")
    pilot.app.query_one("#memory").focus()
    await settle(pilot)


async def why_not(pilot) -> None:
    await settle(pilot)
    pilot.app.query_one(PreviewPane).action_toggle_unmatched()
    await select(pilot, ".rawko/memories/oauth2-integration-too-broad.md")
    pilot.app.query_one("#why-tree").focus()
    await settle(pilot)


async def key_from_memories(pilot, key: str) -> None:
    """A key pressed in the Memories pane, once the store is shown."""
    await settle(pilot)
    pilot.app.query_one("#memory-table").focus()
    await pilot.press(key)
    await settle(pilot)


async def prompt(pilot) -> None:
    await key_from_memories(pilot, "p")


async def help_screen(pilot) -> None:
    await key_from_memories(pilot, "question_mark")


async def checks(pilot) -> None:
    await key_from_memories(pilot, "k")


async def matrix(pilot) -> None:
    await checks(pilot)
    pilot.app.screen.query_one("#checks-tabs").active = "tab-matrix"
    await settle(pilot)


async def confirm_write(pilot) -> None:
    """An update appended to the selected memory, at the confirmation that asks once."""
    from textual.widgets import TextArea

    await select(pilot, ".rawko/memories/password-hashing-approach.md")
    pilot.app.query_one("#memory-table").focus()
    await pilot.press("a")
    await settle(pilot)
    area = pilot.app.screen.query_one("#merge-text", TextArea)
    area.text = area.text.rstrip("\n") + "\nThe cost factor is now 12: 10 was too fast on the new servers.\n"
    await settle(pilot)
    await pilot.press("ctrl+s")
    await settle(pilot)


async def as_tester(pilot) -> None:
    from rawko_tui.tui.widgets.preview.preview_pane import PreviewPane

    await settle(pilot)
    pilot.app.query_one(PreviewPane).set_agent("tester")
    await settle(pilot)
    pilot.app.query_one("#memory-table").focus()


async def arbiters(pilot) -> None:
    """The preview switched to rawko-sdk with b, the other arbiters summed up in one line."""
    await as_tester(pilot)
    await pilot.press("b")
    await settle(pilot)


async def compare(pilot) -> None:
    """v: the arbiters side by side, with the first rule that parts them."""
    await as_tester(pilot)
    await pilot.press("v")
    await settle(pilot)


async def consolidation(pilot) -> None:
    """c: the consolidation queue on the demo store, a related pair and the evidence it shares."""
    await key_from_memories(pilot, "c")
    await pilot.pause(0.5)
    await settle(pilot)


SHOTS = [
    ("preview", "Add OAuth integration to existing auth system", preview),
    ("memories", "Add OAuth integration to existing auth system", memories),
    ("memory", "Implement password reset with bcrypt", memory),
    ("why-not-injected", "Add social auth via GitHub", why_not),
    ("prompt", "Implement password reset with bcrypt and follow the middleware pattern", prompt),
    ("help", "Add OAuth integration to existing auth system", help_screen),
    ("checks", "Add OAuth integration to existing auth system", checks),
    ("matrix", "Add OAuth integration to existing auth system", matrix),
    ("confirm", "Implement password reset with bcrypt", confirm_write),
    ("arbiters", "fix the flaky login test for jwt expiry", arbiters),
    ("compare", "fix the flaky login test for jwt expiry", compare),
    ("consolidation", "Add OAuth integration to existing auth system", consolidation),
]


def demo_copy(folder: Path) -> Path:
    """The demo store in a repository of its own, with a fixed author and dates, so the pictures
    show the same history whatever happens to this repository."""
    store = folder / "demo"
    shutil.copytree(ROOT / ".rawko", store / ".rawko")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada Lovelace",
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "Ada Lovelace",
        "GIT_COMMITTER_EMAIL": "ada@example.com",
        "GIT_AUTHOR_DATE": "2026-01-23T18:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-23T18:00:00Z",
    }
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "Memories from the authentication task"]):
        subprocess.run(["git", *args], cwd=store, check=True, env=env)
    return store


async def shoot(store: Path, name: str, task: str, steps) -> Path:
    app = create_app(store, task=task, agent="developer", now=NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        await steps(pilot)
        path = OUT / f"{name}.svg"
        app.save_screenshot(filename=path.name, path=str(OUT))
    return path


async def main() -> None:
    OUT.mkdir(exist_ok=True)
    os.environ["GIT_AUTHOR_NAME"] = "Ada Lovelace"  # entries the pictures show are signed by the same person
    os.environ["GIT_AUTHOR_EMAIL"] = "ada@example.com"  # (git names no author without one, and HOME's settings are left out below)
    with tempfile.TemporaryDirectory() as folder:
        store = demo_copy(Path(folder))
        # nobody's own settings (keymap, theme, author) in the pictures: a home without a settings file
        os.environ["HOME"] = folder
        for name in ("XDG_CONFIG_HOME", "RAWKO_TUI_CONFIG"):
            os.environ.pop(name, None)
        for name, task, steps in SHOTS:
            print(await shoot(store, name, task, steps))


if __name__ == "__main__":
    asyncio.run(main())
