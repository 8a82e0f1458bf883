"""Every speed figure of rawko-tui against its baseline, measured on the same data in one run.

    python bench/run.py --memories 10000 [--commits 3000] [--json]

Generates a store of N memories (all frontmatter forms, appended entries,
regex and glob patterns, subfolders) in a temporary folder and a git history
of appends, then measures:

- cold load of the store        vs  a plain loop of ``frontmatter.load`` per file
- warm load (a second load)     vs  the same loop
- preview latency per keystroke vs  a straightforward loop with Python ``re``
  (p50, p95 over typed prefixes of a few tasks)
- ``verify`` over the history   vs  ``git log --raw`` plus reading the changed blobs
- launch to the app's first frame, and peak memory of a process that loads and ranks
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from storegen import random_store  # noqa: E402
from verify_speed import build_repo, git_log_and_blobs  # noqa: E402

from rawko_tui.core.arbiter import parse_now, run_preview  # noqa: E402
from rawko_tui.core.history import verify  # noqa: E402
from rawko_tui.core.store import load_store  # noqa: E402

NOW = "2026-01-24T12:00:00Z"
TASKS = ["implement the auth middleware for login", "fix the flaky ci pipeline test", "add a redis cache to the session store"]
TARGETS_10K = {"preview_p95_ms": 5.0, "warm_load_s": 0.15, "first_frame_s": 1.0, "peak_mb": 300.0}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def frontmatter_loop(root: Path) -> int:
    import frontmatter

    count = 0
    for path in (root / ".rawko" / "memories").rglob("*.md"):
        try:
            frontmatter.load(path)
            count += 1
        except Exception:  # the baseline simply skips what it cannot read
            pass
    return count


def naive_rank(memories: list[tuple[dict, str]], task: str, agent: str) -> list[str]:
    """The straightforward loop: every pattern compiled and run with Python re, every score computed."""
    text = f"{task} {agent}".lower()
    scored = []
    for attrs, name in memories:
        when = attrs.get("whenToUse")
        patterns = when if isinstance(when, list) else [when]
        matched = False
        for pattern in patterns:
            if not isinstance(pattern, str):
                continue
            try:
                if re.search(pattern.lower().replace("*", ".*").replace("?", "."), text, re.IGNORECASE):
                    matched = True
                    break
            except re.error:
                if pattern.lower() in text:
                    matched = True
                    break
        title = str(attrs.get("title", "")).lower()
        score = {"low": 5, "medium": 15, "high": 25, "critical": 30}.get(str(attrs.get("importance")), 0)
        score += min(20, 5 * sum(1 for w in task.lower().split() if w in title))
        if matched:
            scored.append((score, name))
    scored.sort(key=lambda s: -s[0])
    return [name for _, name in scored[:5]]


def measure_preview(root: Path) -> dict:
    store = load_store(root)
    now_ms = parse_now(NOW)
    run_preview(store, "warm up", "developer", now_ms=now_ms)  # plans are built once per store
    memories = []
    for memory in store.files:
        if memory.spec is not None and isinstance(memory.attrs, dict):
            memories.append((memory.attrs, memory.name))
    ours, naive = [], []
    for task in TASKS:
        for end in range(1, len(task) + 1):
            prefix = task[:end]
            started = time.perf_counter()
            run_preview(store, prefix, "developer", now_ms=now_ms)
            ours.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            naive_rank(memories, prefix, "developer")
            naive.append((time.perf_counter() - started) * 1000)
    return {
        "keystrokes": len(ours),
        "ours_p50_ms": round(statistics.median(ours), 2),
        "ours_p95_ms": round(percentile(ours, 95), 2),
        "naive_p50_ms": round(statistics.median(naive), 2),
        "naive_p95_ms": round(percentile(naive, 95), 2),
    }


FIRST_FRAME = """
import sys, time, asyncio
started = time.perf_counter()
from pathlib import Path
from rawko_tui.tui.app import create_app
async def main():
    app = create_app(Path(sys.argv[1]), task="auth", agent="developer", now="2026-01-24T12:00:00Z", poll_seconds=None)
    async with app.run_test(size=(160, 46)) as pilot:
        print(f"FRAME {time.perf_counter() - started:.3f}", flush=True)
        await app.settled()
        import resource
        print(f"LOADED {time.perf_counter() - started:.3f}", flush=True)
        print(f"PEAK {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}", flush=True)
asyncio.run(main())
"""


def measure_app(root: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", FIRST_FRAME, str(root)], capture_output=True, text=True, timeout=900, cwd=ROOT).stdout
    values = dict(line.split() for line in out.splitlines() if line.split() and line.split()[0] in ("FRAME", "LOADED", "PEAK"))
    return {"first_frame_s": float(values["FRAME"]), "loaded_s": float(values["LOADED"]), "peak_mb": float(values["PEAK"])}


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def run(memories: int, commits: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        root = random_store(Path(folder) / "store", seed=11, now_ms=parse_now(NOW), size=memories)
        baseline = timed(lambda: frontmatter_loop(root))
        cold = timed(lambda: load_store(root))
        warm = timed(lambda: load_store(root))
        preview = measure_preview(root)
        app = measure_app(root)
        repo = build_repo(Path(folder) / "history", commits)
        git_s = min(timed(lambda: git_log_and_blobs(repo)) for _ in range(3))
        verify_s = min(timed(lambda: verify(repo)) for _ in range(3))
    return {
        "memories": memories,
        "commits": commits,
        "load": {"frontmatter_loop_s": round(baseline, 3), "cold_s": round(cold, 3), "warm_s": round(warm, 3)},
        "preview": preview,
        "verify": {"git_log_raw_and_blobs_s": round(git_s, 3), "verify_s": round(verify_s, 3)},
        "app": app,
    }


def report(result: dict) -> str:
    load, preview, ver, app = result["load"], result["preview"], result["verify"], result["app"]
    rows = [
        ("cold load", f"{load['cold_s']:.3f} s", f"frontmatter.load loop {load['frontmatter_loop_s']:.3f} s", load["cold_s"] / load["frontmatter_loop_s"]),
        ("warm load (second load)", f"{load['warm_s']:.3f} s", f"frontmatter.load loop {load['frontmatter_loop_s']:.3f} s", load["warm_s"] / load["frontmatter_loop_s"]),
        ("preview per keystroke, p50", f"{preview['ours_p50_ms']:.2f} ms", f"Python re loop {preview['naive_p50_ms']:.2f} ms", preview["ours_p50_ms"] / preview["naive_p50_ms"]),
        ("preview per keystroke, p95", f"{preview['ours_p95_ms']:.2f} ms", f"Python re loop {preview['naive_p95_ms']:.2f} ms", preview["ours_p95_ms"] / preview["naive_p95_ms"]),
        ("verify", f"{ver['verify_s']:.3f} s", f"git log --raw + blobs {ver['git_log_raw_and_blobs_s']:.3f} s", ver["verify_s"] / ver["git_log_raw_and_blobs_s"]),
    ]
    lines = [f"{result['memories']:,} memories, {result['commits']:,} commits, {preview['keystrokes']} keystrokes"]
    lines += [f"  {name:<28} {ours:>12}   vs {base:<40} ratio {ratio:5.2f}" for name, ours, base, ratio in rows]
    lines.append(f"  {'app: first frame':<28} {app['first_frame_s']:>10.2f} s   (store loaded and ranked at {app['loaded_s']:.2f} s)")
    lines.append(f"  {'peak memory':<28} {app['peak_mb']:>9.0f} MB")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=3_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.memories, args.commits)
    print(json.dumps(result, indent=2) if args.json else report(result))


if __name__ == "__main__":
    main()
