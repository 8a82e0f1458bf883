"""Start the app and one command from an installed rawko-tui, as a user's install would.

Run with the interpreter of the environment under test, from outside the
checkout, on a copy of a store::

    /tmp/env/bin/python scripts/smoke_installed.py /tmp/store

It fails (exit 1) when rawko_tui is imported from the checkout instead of the
installation, when the app cannot start (a missing stylesheet is a
StylesheetError), or when it shows no memories.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path


async def start_app(store: Path) -> int:
    from rawko_tui.tui.app import create_app
    from textual.widgets import DataTable

    app = create_app(store, poll_seconds=None)
    async with app.run_test(size=(160, 48)) as pilot:
        await app.settled()
        await pilot.pause()
        return app.main.query_one("#memory-table", DataTable).row_count


def main() -> int:
    store = Path(sys.argv[1]).resolve()
    import rawko_tui

    where = Path(rawko_tui.__file__).resolve()
    checkout = Path(__file__).resolve().parent.parent
    if checkout in where.parents:
        print(f"smoke: rawko_tui was imported from the checkout ({where}), not from an installation")
        return 1
    rows = asyncio.run(start_app(store))
    if rows == 0:
        print("smoke: the app started but shows no memories")
        return 1
    cli = Path(sys.executable).with_name("rawko-tui")
    command = [str(cli)] if cli.exists() else [sys.executable, "-m", "rawko_tui"]
    lint = subprocess.run([*command, "lint", str(store)], capture_output=True, text=True)
    if lint.returncode not in (0, 1) or "files:" not in lint.stdout:
        print(f"smoke: `rawko-tui lint` failed ({lint.returncode}): {lint.stderr.strip()}")
        return 1
    print(f"smoke: rawko_tui from {where.parent}; the app showed {rows} memories; lint: {lint.stdout.strip().splitlines()[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
