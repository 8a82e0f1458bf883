"""How fast `rawko-tui verify` checks a long history, against plain git on the same repository.

    python bench/verify_speed.py --commits 3000

Builds a repository (git fast-import) whose commits append to ~200 memory
files, then times, on that same repository:

- baseline 1: ``git log --raw`` over the memories folder;
- baseline 2: that, plus reading every changed blob (old and new) with one
  ``git cat-file --batch`` -- the least any exact check must do;
- ``verify``: the whole append-only check (history, index, working tree).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rawko_tui.core.record.history import verify  # noqa: E402

WORDS = "auth token session cache redis schema migration test flaky deploy middleware handler error review".split()


def build_repo(folder: Path, commits: int, files: int = 200, seed: int = 1) -> Path:
    rng = random.Random(seed)
    repo = folder / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    contents: dict[str, bytes] = {}
    stream: list[bytes] = []
    mark = 0
    for index in range(commits):
        name = f".rawko/memories/memory-{rng.randrange(files):03d}.md"
        if name not in contents:
            contents[name] = (f"---\ntitle: \"{name}\"\nwhenToUse: \"{rng.choice(WORDS)}\"\nimportance: high\n---\n\n").encode()
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 120)))
        contents[name] += f"\n\n---\nimportance: {rng.choice(['low', 'medium', 'high'])}\n---\n\n{body}\n".encode()
        mark += 1
        blob = mark
        stream.append(b"blob\nmark :%d\ndata %d\n%s\n" % (blob, len(contents[name]), contents[name]))
        mark += 1
        message = f"append to {name}".encode()
        stream.append(b"commit refs/heads/main\nmark :%d\ncommitter Bench <b@example.com> %d +0000\ndata %d\n%s\n" % (mark, 1_700_000_000 + index, len(message), message))
        if mark > 2:
            stream.append(b"from :%d\n" % (mark - 2))
        stream.append(b"M 100644 :%d %s\n\n" % (blob, name.encode()))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=repo, check=True)
    return repo


def timed(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def git_log_raw(repo: Path) -> bytes:
    return subprocess.run(["git", "log", "--raw", "--no-abbrev", "--format=%H", "--", ".rawko/memories"], cwd=repo, capture_output=True, check=True).stdout


def git_log_and_blobs(repo: Path) -> None:
    out = git_log_raw(repo).decode()
    shas = []
    for line in out.splitlines():
        if line.startswith(":"):
            parts = line.split()
            shas += [s for s in (parts[2], parts[3]) if set(s) != {"0"}]
    subprocess.run(["git", "cat-file", "--batch"], cwd=repo, input=("\n".join(shas) + "\n").encode(), capture_output=True, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        repo = build_repo(Path(folder), args.commits)
        report = verify(repo)
        assert report.ok, report.violations[:3]
        log = timed(lambda: git_log_raw(repo))
        log_blobs = timed(lambda: git_log_and_blobs(repo))
        ours = timed(lambda: verify(repo))
    result = {
        "commits": report.commits_checked,
        "changes": report.changes_checked,
        "git_log_raw_s": round(log, 3),
        "git_log_raw_and_blobs_s": round(log_blobs, 3),
        "verify_s": round(ours, 3),
        "verify_vs_log": round(ours / log, 2),
        "verify_vs_log_and_blobs": round(ours / log_blobs, 2),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['commits']:,} commits, {result['changes']:,} memory changes checked (best of 3)")
    print(f"  git log --raw                      {result['git_log_raw_s']:>7.3f} s")
    print(f"  git log --raw + reading the blobs  {result['git_log_raw_and_blobs_s']:>7.3f} s")
    print(f"  rawko-tui verify                   {result['verify_s']:>7.3f} s   ({result['verify_vs_log']}x log, {result['verify_vs_log_and_blobs']}x log + blobs)")


if __name__ == "__main__":
    main()
