"""The consolidation queue measured: precision and recall per kind on a labelled store, and its speed.

    python bench/consolidation.py [--memories 10000] [--json]
    python bench/consolidation.py --store DIR [DIR ...]   # labelled stores: DIR/memories/ and DIR/labels.yaml

The labelled store (``bench/data/consolidation.yaml``) holds paraphrased
duplicates, contradictions, related-but-distinct pairs and distractors, each
written as a memory file of its own. The queue runs on it exactly as
``rawko-tui candidates`` does. A pair it proposes is right when its kind is
the label's; a pair the labels do not name is a false positive (except that a
``related`` proposal is right for a pair listed under ``also_related``).

Speed: ``rawko-tui candidates`` as a whole process on a generated store of
``--memories`` memories (``bench/teamstore.py``), warm parse and term caches,
median of 3; and the first run, which fills them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

DATA = HERE / "data" / "consolidation.yaml"
NOW_MS = 1_790_000_000_000  # 2026-09-21: recent enough that nothing labelled is stale
LABELLED_KINDS = {"duplicate": "near-duplicate", "contradiction": "contradiction", "related": "related"}


def write_labelled_store(root: Path) -> tuple[dict[frozenset[str], str], set[frozenset[str]]]:
    """The labelled store as memory files; returns the labels (pair of paths -> kind) and the also-related pairs."""
    import yaml

    from rawko_tui.core.record.writer import format_entry, slugify

    data = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    memories = root / ".rawko" / "memories"
    memories.mkdir(parents=True)
    labels: dict[frozenset[str], str] = {}
    by_title: dict[str, str] = {}
    for number, group in enumerate(data["groups"]):
        paths = []
        for side in ("a", "b"):
            if side not in group:
                continue
            memory = group[side]
            name = f"{number:03d}{side}-{slugify(memory['title'])}.md"
            fields = {
                "title": memory["title"],
                "whenToUse": memory["when"],
                "tags": memory["tags"],
                "importance": "high",
                "discoveredAt": "2026-09-01T10:00:00Z",
                "discoveredBy": "developer",
            }
            (memories / name).write_text(format_entry(fields, memory["body"]), encoding="utf-8")
            paths.append(f".rawko/memories/{name}")
            by_title[memory["title"]] = paths[-1]
        if group["kind"] in LABELLED_KINDS:
            labels[frozenset(paths)] = LABELLED_KINDS[group["kind"]]
    also = {frozenset(by_title[t] for t in pair) for pair in data.get("also_related", [])}
    return labels, also


def measure_quality() -> dict:
    from rawko_tui.core.curation.consolidation.queue import consolidation_candidates
    from rawko_tui.core.store.loading import load_store

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        labels, also = write_labelled_store(root)
        store = load_store(root)
        groups = consolidation_candidates(store, NOW_MS)
        margins = similarity_margins(store, labels, also)
    proposed = {frozenset(g.paths): g.kind for g in groups if len(g.paths) == 2}
    result: dict = {"memories": sum(len(p) for p in labels), "kinds": {}}
    for kind in ("near-duplicate", "contradiction", "related"):
        labelled = {pair for pair, k in labels.items() if k == kind}
        mine = {pair for pair, k in proposed.items() if k == kind}
        right = {pair for pair in mine if labels.get(pair) == kind or (kind == "related" and pair in also)}
        wrong = sorted(sorted(pair) for pair in mine - right)
        missed = sorted(sorted(pair) for pair in labelled - mine)
        result["kinds"][kind] = {
            "labelled": len(labelled),
            "proposed": len(mine),
            "right": len(right),
            "precision": round(len(right) / len(mine), 3) if mine else None,
            "recall": round(len(labelled & mine) / len(labelled), 3) if labelled else None,
            "wrong": wrong,
            "missed": missed,
        }
    merges = {pair: k for pair, k in proposed.items() if k in ("near-duplicate", "contradiction")}
    result["mergePrecision"] = round(sum(labels.get(p) == k for p, k in merges.items()) / len(merges), 3) if merges else None
    result["margins"] = margins
    result["relatedProposedAsDuplicate"] = sum(
        1 for p, k in proposed.items() if k == "near-duplicate" and (labels.get(p) == "related" or p in also)
    )
    return result


STORE_KINDS = {"duplicate": "near-duplicate", "contradiction": "contradiction", "related": "related"}
STORE_NOW_MS = 1_793_577_600_000  # 2026-11-01: after every labelled store's last memory


def measure_labelled_store(folder: Path) -> dict:
    """The queue on a labelled store written as files (``memories/``, ``labels.yaml``: pairs {a, b, kind}); a
    group of more than two memories proposes each of its pairs. A ``trap`` pair is unrelated: proposing it is
    a false positive, counted apart so it can be read."""
    import shutil

    import yaml

    from rawko_tui.core.curation.consolidation.queue import consolidation_candidates
    from rawko_tui.core.store.loading import load_store

    labels_data = yaml.safe_load((folder / "labels.yaml").read_text(encoding="utf-8"))
    labels: dict[frozenset[str], str] = {}
    traps: set[frozenset[str]] = set()
    for pair in labels_data["pairs"]:
        key = frozenset((f".rawko/memories/{pair['a']}", f".rawko/memories/{pair['b']}"))
        if pair["kind"] == "trap":
            traps.add(key)
        else:
            labels[key] = STORE_KINDS[pair["kind"]]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(folder / "memories", root / ".rawko" / "memories")
        store = load_store(root)
        groups = consolidation_candidates(store, STORE_NOW_MS)
        count = len(store.files)
    proposed: dict[frozenset[str], str] = {}
    for group in groups:
        paths = list(group.paths)
        for i in range(len(paths)):
            for j in range(i + 1, len(paths)):
                proposed.setdefault(frozenset((paths[i], paths[j])), group.kind)
    result: dict = {"store": folder.name, "memories": count, "kinds": {}}
    for kind in STORE_KINDS.values():
        labelled = {pair for pair, k in labels.items() if k == kind}
        mine = {pair for pair, k in proposed.items() if k == kind}
        right = mine & labelled
        result["kinds"][kind] = {
            "labelled": len(labelled),
            "proposed": len(mine),
            "right": len(right),
            "precision": round(len(right) / len(mine), 3) if mine else None,
            "recall": round(len(right) / len(labelled), 3) if labelled else None,
            "traps": len(mine & traps),
            "relatedAsThis": len({p for p in mine if labels.get(p) == "related"}) if kind != "related" else 0,
        }
    return result


def similarity_margins(store, labels: dict, also: set) -> dict:
    """Where the duplicate threshold sits: the similarities of the labelled duplicates and the strongest other pairs."""
    from rawko_tui.core.curation.consolidation.pairs import DUPLICATE
    from rawko_tui.core.curation.consolidation.queue import active_memories, evidence_of
    from rawko_tui.core.curation.consolidation.similarity import StoreTerms

    memories = active_memories(store)
    terms = StoreTerms.of([evidence_of(m) for m in memories])
    duplicates, others = [], []
    for i, j, cosine in terms.candidate_pairs():
        pair = frozenset((memories[i].rel_path, memories[j].rel_path))
        (duplicates if labels.get(pair) == "near-duplicate" else others if labels.get(pair) != "contradiction" else []).append(round(cosine, 3))
    found = sorted(c for c in duplicates if c >= DUPLICATE)
    return {
        "threshold": DUPLICATE,
        "weakestDuplicateFound": found[0] if found else None,
        "duplicatesBelow": sorted(c for c in duplicates if c < DUPLICATE),
        "strongestOtherPairs": sorted(others, reverse=True)[:3],
    }


def measure_speed(memories: int) -> dict:
    import teamstore

    with tempfile.TemporaryDirectory() as tmp:
        root, _ = teamstore.build(Path(tmp) / "store", memories, commits=10)
        timings = {}
        for mode in ([], ["--json"]):
            command = [sys.executable, "-m", "rawko_tui", "candidates", str(root), "--now", "2026-01-24T12:00:00Z", *mode]
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, check=True)  # the first run fills the parse and term caches
            if not mode:
                timings["cold"] = round(time.perf_counter() - start, 3)
            runs = []
            for _ in range(3):
                start = time.perf_counter()
                done = subprocess.run(command, capture_output=True, check=True)
                runs.append(time.perf_counter() - start)
            timings["json" if mode else "text"] = round(statistics.median(runs), 3)
            if mode:
                timings["groups"] = len(json.loads(done.stdout)["candidates"])
        return {"memories": memories, "seconds": timings}


def report(result: dict) -> str:
    lines = ["kind            labelled  proposed  right  precision  recall"]
    for kind, row in result["quality"]["kinds"].items():
        percent = lambda v: "   -" if v is None else f"{v * 100:5.1f} %"
        lines.append(
            f"{kind:<15} {row['labelled']:>8}  {row['proposed']:>8}  {row['right']:>5}  {percent(row['precision']):>9}  {percent(row['recall']):>6}"
        )
        for pair in row["wrong"]:
            lines.append(f"    wrong:  {' + '.join(p.rsplit('/', 1)[-1] for p in pair)}")
        for pair in row["missed"]:
            lines.append(f"    missed: {' + '.join(p.rsplit('/', 1)[-1] for p in pair)}")
    quality = result["quality"]
    lines.append(f"precision among proposed merges (near-duplicate + contradiction): {quality['mergePrecision'] * 100:.1f} %")
    lines.append(f"related pairs proposed as duplicates: {quality['relatedProposedAsDuplicate']}")
    margins = quality["margins"]
    lines.append(
        f"duplicate threshold {margins['threshold']}: weakest duplicate found {margins['weakestDuplicateFound']}, "
        f"labelled duplicates below it {margins['duplicatesBelow']}, strongest pairs that are not duplicates {margins['strongestOtherPairs']}"
    )
    if "speed" in result:
        speed = result["speed"]
        lines.append(
            f"candidates on {speed['memories']:,} memories (whole process, warm): text {speed['seconds']['text']} s, "
            f"--json {speed['seconds']['json']} s ({speed['seconds']['groups']} groups); the first run, filling the caches, {speed['seconds']['cold']} s"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--memories", type=int, default=10_000, help="size of the generated store for the speed figure (0: no speed figure)"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--store", type=Path, nargs="+", help="labelled store folders (memories/ and labels.yaml) to measure instead")
    args = parser.parse_args()
    if args.store:
        results = [measure_labelled_store(folder) for folder in args.store]
        if args.json:
            print(json.dumps(results, indent=2))
            return
        for result in results:
            print(f"{result['store']} ({result['memories']} memories)")
            for kind, row in result["kinds"].items():
                percent = lambda v: "    -" if v is None else f"{v * 100:5.1f} %"  # noqa: E731
                print(f"  {kind:<15} labelled {row['labelled']:>3}  proposed {row['proposed']:>3}  right {row['right']:>3}  "
                      f"precision {percent(row['precision'])}  recall {percent(row['recall'])}  traps {row['traps']}  related as this {row['relatedAsThis']}")
        return
    result = {"quality": measure_quality()}
    if args.memories:
        result["speed"] = measure_speed(args.memories)
    print(json.dumps(result, indent=2) if args.json else report(result))


if __name__ == "__main__":
    main()
