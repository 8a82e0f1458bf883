"""How fast typed characters appear in the task box while the ranking runs, on a large store.

    python bench/typing_latency.py --memories 10000

Generates a store of N memories (all frontmatter forms, appended entries,
regex and glob patterns) in a temporary folder, opens the app headless, types
a task one key at a time and reports, per keystroke:

- key -> in the task box: from the key event entering the app's queue (as the
  terminal driver sends it) until the task box holds the character;
- key -> painted: until the task box has been drawn with it;
- last key -> final ranking: how far the ranking trails the typing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from storegen import random_store  # noqa: E402

from rawko_tui.core.arbiters.decision import parse_now  # noqa: E402
from rawko_tui.core.store.loading import bound_decoded  # noqa: E402
from rawko_tui.tui.app import create_app  # noqa: E402

NOW = "2026-01-24T12:00:00Z"
TASK = "implement the auth middleware for login and session tokens"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def measure(root: Path, gap_ms: float) -> dict:
    from textual import events
    from textual.widgets import TextArea

    painted: dict[str, float] = {}
    original_render_line = TextArea.render_line

    def render_line(self, y):  # note when the task box first paints each typed prefix
        strip = original_render_line(self, y)
        if self.id == "task":
            painted.setdefault(self.text, time.perf_counter())
        return strip

    TextArea.render_line = render_line
    from rawko_tui.tui.widgets.preview.preview_pane import PreviewPane

    shown_rankings: dict[str, float] = {}
    original_show = PreviewPane.show

    def show(self, preview, now_source=None):  # note when each task's ranking is first on screen
        original_show(self, preview, now_source)
        shown_rankings.setdefault(preview.task, time.perf_counter())

    PreviewPane.show = show
    bound_decoded()  # as the app runs (``run_app``): what stays decoded of the store is bounded
    app = create_app(root, task="", agent="developer", now=NOW, poll_seconds=None)
    visible: list[float] = []
    shown: list[float] = []
    ranking: list[float] = []
    try:
        async with app.run_test(size=(160, 46)) as pilot:
            load_started = time.perf_counter()
            await app.settled()
            load_seconds = time.perf_counter() - load_started
            area = app.query_one("#task", TextArea)
            area.focus()
            await pilot.pause()
            typed = ""
            pressed_at: dict[str, float] = {}
            for ch in TASK:
                typed += ch
                started = time.perf_counter()
                pressed_at[typed] = started
                # as the terminal driver does: the key goes into the app's queue
                event = events.Key("space" if ch == " " else ch, ch)
                event.set_sender(app)
                app._driver.send_message(event)
                while area.text != typed:
                    await asyncio.sleep(0.0005)
                visible.append((time.perf_counter() - started) * 1000)
                while typed not in painted:
                    await asyncio.sleep(0.0005)
                shown.append((painted[typed] - started) * 1000)
                await asyncio.sleep(gap_ms / 1000)
            await app.settled()
            # the ranking trails: how long until the ranking of the whole task was on screen
            # (the other arbiters' line follows once typing pauses; it is not counted here)
            ranking.append((shown_rankings[typed] - pressed_at[typed]) * 1000)
            matched = len(app.preview.ranked)
    finally:
        TextArea.render_line = original_render_line
        PreviewPane.show = original_show
    return {
        "memories": len(app.store.files),
        "keystrokes": len(TASK),
        "gap_ms": gap_ms,
        "load_seconds": round(load_seconds, 2),
        "key_to_text_ms": {"p50": round(statistics.median(visible), 1), "p95": round(percentile(visible, 95), 1), "max": round(max(visible), 1)},
        "key_to_screen_ms": {"p50": round(statistics.median(shown), 1), "p95": round(percentile(shown, 95), 1), "max": round(max(shown), 1)},
        "last_key_to_final_ranking_ms": round(ranking[0], 1),
        "ranking_seconds_last": round(app.last_preview_seconds, 3),
        "matched_at_end": matched,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--gap-ms", type=float, default=60, help="pause between keys (60 ms: a fast typist)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = random_store(Path(folder), seed=7, now_ms=parse_now(NOW), size=args.memories)
        result = asyncio.run(measure(root, args.gap_ms))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['memories']:,} memories, {result['keystrokes']} keystrokes {args.gap_ms:g} ms apart; store loaded in {result['load_seconds']} s")
    for name, label in (("key_to_text_ms", "key -> in the task box"), ("key_to_screen_ms", "key -> painted")):
        figures = result[name]
        print(f"  {label:<23} p50 {figures['p50']:>7} ms   p95 {figures['p95']:>7} ms   max {figures['max']:>7} ms")
    print(f"  last key -> final ranking on screen: {result['last_key_to_final_ranking_ms']} ms (one ranking: {result['ranking_seconds_last'] * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
