"""The benchmarks run (on a tiny store): their numbers are for docs/speed.md, never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO_ROOT

pytestmark = pytest.mark.scale


def run_bench(script: str, *arguments: str) -> dict:
    """A benchmark's --json figures on a tiny store."""
    proc = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / script), *arguments, "--json"], capture_output=True, text=True, timeout=600, cwd=REPO_ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_benchmark_runs_and_reports_every_figure_with_its_baseline():
    result = run_bench("run.py", "--memories", "30", "--commits", "20")
    assert set(result["load"]) == {"frontmatter_loop_s", "cold_s", "warm_s"}
    for preview in (result["preview"], result["preview_adversarial"]):
        assert preview["keystrokes"] > 50 and preview["naive_p95_ms"] > 0 and preview["ours_p95_ms"] > 0
    assert result["verify"]["ok"] and result["verify"]["verify_s"] > 0 and result["verify"]["git_log_raw_and_blobs_s"] > 0
    assert result["commits"] >= 20
    app = result["app"]
    assert 0 < app["first_frame_s"] <= app["ranked_s"] <= app["settled_s"] and app["peak_mb"] > 0


def test_the_profiles_benchmark_runs_for_every_profile():
    result = run_bench("profiles.py", "--memories", "30", "--gap-ms", "5")  # keys 5 ms apart: 9 s less of waiting
    assert set(result["profiles"]) == {"spec-0007", "rawko-sdk", "spec-0005"}
    for figures in result["profiles"].values():
        assert figures["ranking"]["keystrokes"] > 50 and figures["ranking"]["p95_ms"] > 0
        assert figures["typing"]["key_to_text_ms"]["p95"] > 0 and figures["typing"]["key_to_screen_ms"]["p95"] > 0


@pytest.fixture(scope="module")
def speed_run() -> dict:
    """bench/speed.py's figures on tiny stores, taken once: they hold bench/cli_speed.py's own run (its ``run``,
    the same sizes as the command line's benchmark would take), which cost as much again when run apart."""
    return run_bench("speed.py", "--small", "30", "--large", "40", "--runs", "1")


def test_the_command_line_benchmark_times_every_profile_and_mode_beside_node(speed_run):
    result = speed_run["cli"]  # cli_speed.run(30 memories, 1 run), as `cli_speed.py --memories 30 --runs 1 --json` prints it
    assert {(row["profile"], row["mode"]) for row in result["preview"]} == {
        (profile, mode) for profile in ("spec-0007", "rawko-sdk", "spec-0005") for mode in ("text", "--prompt", "--json")
    }
    for row in result["preview"]:
        assert row["rawko"] > 0 and row["node"] > 0 and row["ratio"] > 0
    assert result["lint"] > 0 and result["check"] > 0 and result["verifyStaged"] > 0
    assert {row["command"] for row in result["commands"]} == {"explain", "compare", "lint", "check"}
    for row in result["commands"]:
        assert row["rawko"] > 0 and row["node"] > 0 and row["ratio"] > 0
    # compare beside one profile's node, and beside node running every profile's code (compare's own work)
    assert [row.get("against") for row in result["commands"] if row["command"] == "compare"] == [None, "every profile"]
    assert 0 < result["floor"]["interpreter"] and 0 < result["floor"]["walkAndStat"] and 0 < result["floor"]["readStore"]
    # the script itself still starts and takes its options
    usage = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "cli_speed.py"), "--help"], capture_output=True, text=True, timeout=60, cwd=REPO_ROOT)
    assert usage.returncode == 0 and all(option in usage.stdout for option in ("--memories", "--runs", "--json")), usage.stderr


def test_the_speed_targets_are_reported_in_one_run_beside_baselines_and_targets(speed_run):
    sys.path.insert(0, str(REPO_ROOT / "bench"))
    try:
        from speed import TARGETS, table
    finally:
        sys.path.remove(str(REPO_ROOT / "bench"))
    result = speed_run
    for key, *_ in TARGETS:
        assert result[key] > 0, key
    text = table(result)
    assert text.count("| spec-0007,") == 3 and "warm load, 40 memories" in text and "app: peak memory" in text
    assert "| 0.165 s |" not in text  # the recorded "before" figures belong to 10,000 and 100,000 memories only


def test_the_consolidation_bench_reads_every_labelled_store():
    """Each labelled store loads whole and its labels name its files: the figures are the queue's, not asserted."""
    import yaml

    stores = sorted(p for p in (REPO_ROOT / "bench" / "data" / "stores").iterdir() if p.is_dir())
    assert len(stores) >= 3
    proc = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "consolidation.py"), "--store", *map(str, stores), "--json"], capture_output=True, text=True, timeout=900, cwd=REPO_ROOT
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    for store, result in zip(stores, results, strict=True):
        pairs = yaml.safe_load((store / "labels.yaml").read_text(encoding="utf-8"))["pairs"]
        for pair in pairs:
            assert (store / "memories" / pair["a"]).is_file() and (store / "memories" / pair["b"]).is_file(), pair
        assert result["memories"] == len(list((store / "memories").rglob("*.md")))
        assert result["kinds"]["near-duplicate"]["labelled"] == sum(p["kind"] == "duplicate" for p in pairs)
