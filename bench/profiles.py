"""The arbiter profiles at scale: ranking per keystroke, and typing in the app, under each profile.

    python bench/profiles.py --memories 10000            # add --json for machine-readable figures

For each built-in profile (spec-0007, rawko-sdk, spec-0005), on the team-like
store of bench/teamstore.py: the first ranking (the profile's loader view and
index built), then every prefix of the tasks ranked as typed, p50 and p95;
then the app, typing one task with that profile as the store's `arbiter:`
(bench/typing_latency.py's measurement: key to text, key to screen), while the
other profiles' rankings follow each pause for the "Others:" line.
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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import teamstore  # noqa: E402
from typing_latency import measure, percentile  # noqa: E402

from rawko_tui.core.arbiters.decision import ArbiterOptions, parse_now  # noqa: E402
from rawko_tui.core.arbiters.profiles import BUILT_IN  # noqa: E402
from rawko_tui.core.arbiters.ranking import run_preview  # noqa: E402
from rawko_tui.core.store.loading import load_store  # noqa: E402

NOW = "2026-01-24T12:00:00Z"


def rank_per_keystroke(root: Path, tasks: list[str], name: str) -> dict:
    store = load_store(root)
    now_ms = parse_now(NOW)
    options = ArbiterOptions(profile=BUILT_IN[name])
    started = time.perf_counter()
    run_preview(store, "warm up", "developer", options, now_ms)  # the loader view and the index, once per store
    first = time.perf_counter() - started
    times, injected = [], []
    for task in tasks:
        for end in range(1, len(task) + 1):
            started = time.perf_counter()
            preview = run_preview(store, task[:end], "developer", options, now_ms)
            times.append((time.perf_counter() - started) * 1000)
        injected.append(len(preview.injected))
    return {
        "first_ranking_s": round(first, 3),
        "keystrokes": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(percentile(times, 95), 2),
        "injected_per_task": {"min": min(injected), "max": max(injected)},
    }


def run(memories: int, typing: bool, gap_ms: float = 60) -> dict:
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        root, tasks = teamstore.build(Path(folder) / "store", memories, 10)
        for name in BUILT_IN:
            results[name] = {"ranking": rank_per_keystroke(root, tasks, name)}
        if typing:
            config = root / ".rawko" / "rawko-tui.yaml"
            for name in BUILT_IN:
                config.write_text(f"arbiter: {name}\n")
                results[name]["typing"] = asyncio.run(measure(root, gap_ms))
    return {"memories": memories, "profiles": results}


def report(result: dict) -> str:
    lines = [f"{result['memories']:,} memories"]
    for name, figures in result["profiles"].items():
        ranking = figures["ranking"]
        lines.append(
            f"  {name:<10} first ranking {ranking['first_ranking_s']:.2f} s · per keystroke p50 {ranking['p50_ms']:.2f} ms, p95 {ranking['p95_ms']:.2f} ms "
            f"· injected {ranking['injected_per_task']['min']}-{ranking['injected_per_task']['max']} per task"
        )
        typing = figures.get("typing")
        if typing:
            lines.append(
                f"  {'':<10} typing: key -> text p50 {typing['key_to_text_ms']['p50']} / p95 {typing['key_to_text_ms']['p95']} ms, "
                f"key -> painted p50 {typing['key_to_screen_ms']['p50']} / p95 {typing['key_to_screen_ms']['p95']} ms"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--no-typing", action="store_true", help="only the ranking figures (no app)")
    parser.add_argument("--gap-ms", type=float, default=60, help="pause between typed keys (60 ms: a fast typist)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.memories, not args.no_typing, args.gap_ms)
    print(json.dumps(result, indent=2) if args.json else report(result))


if __name__ == "__main__":
    main()
