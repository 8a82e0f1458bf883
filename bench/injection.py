"""Precision and recall of lint's prompt-injection detector on a labelled set, per kind.

    python bench/injection.py SET.yaml              # the shipped detector on a set (e.g. a held-out one)
    python bench/injection.py SET.yaml --cv 5       # cross-validation: weights, regularisation and threshold
                                                    # chosen on the training folds, figures on the left-out fold
    python bench/injection.py SET.yaml --fit        # fit on the whole set and write core/data/injection_model.json
    python bench/injection.py SET.yaml --errors 0,1 # the items of those folds the cross-validated detector gets wrong
    python bench/injection.py SET.yaml --speed      # seconds per memory on a generated 10,000-memory store
    add --json for one JSON object instead of the table

A set is a YAML list of ``{id, label: injection|benign, text}`` (``note`` and other
keys are ignored); the detector sees the text only. An id's second dash-separated
part names its kind (``inj-b64-03``: ``b64``), for the per-kind figures only. The
text is read as a memory's body (``injection.read``): flagged when a passage's
score reaches the threshold.

Folds are stratified by label and kind and fixed (sha256 of each id), so a
figure can be reproduced.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rawko_tui.core.lint import injection  # noqa: E402

MODEL = ROOT / "rawko_tui" / "core" / "data" / "injection_model.json"
LAMBDAS = (0.1, 0.3, 1.0, 3.0)


def load(path: Path) -> list[dict]:
    import yaml

    items = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(items, list):
        raise SystemExit(f"{path}: expected a YAML list of items")
    rows = []
    for item in items:
        if not isinstance(item, dict) or item.get("label") not in ("injection", "benign") or not isinstance(item.get("text"), str):
            raise SystemExit(f"{path}: an item needs a label (injection or benign) and a text: {str(item)[:80]!r}")
        rows.append({"id": str(item.get("id", len(rows))), "label": item["label"], "text": item["text"]})
    return rows


def kind(item: dict) -> str:
    parts = item["id"].split("-")
    return parts[1] if len(parts) >= 3 else item["label"]


def folds(items: list[dict], k: int) -> dict[str, int]:
    """Each id's fold: every (label, kind) group spread over the folds in a fixed pseudo-random order."""
    groups = collections.defaultdict(list)
    for item in items:
        groups[(item["label"], kind(item))].append(item["id"])
    fold, offset = {}, 0
    for key in sorted(groups):
        for n, name in enumerate(sorted(groups[key], key=lambda i: hashlib.sha256(i.encode()).hexdigest())):
            fold[name] = (offset + n) % k
        offset += len(groups[key])
    return fold


# --------------------------------------------------------------------------
# What the detector reads, and the model fitted on it
# --------------------------------------------------------------------------


def item_features(text: str) -> set[str]:
    """The features of a labelled text: the union over its passages (a labelled text is one passage)."""
    found, disguises = injection.hits(text)
    return injection.features(found, disguises)


def vocabulary() -> list[str]:
    names = ["disguise:needed", "disguise:base64", "disguise:encoded", "disguise:lookalike", "disguise:invisible", "hidden", "hidden:move", "hidden:addressed", "destination:suspicious"]
    return names + [move.name for move in injection.MOVES] + [f"mention:{context}" for context in injection.CONTEXTS]


def matrix(rows: list[set[str]], names: list[str]):
    import numpy as np

    index = {name: i for i, name in enumerate(names)}
    x = np.zeros((len(rows), len(names)))
    for r, present in enumerate(rows):
        for name in present:
            if name in index:
                x[r, index[name]] = 1.0
    return x


def fit(x, y, strength: float, nonpositive=()):
    """L2-regularised logistic regression (bias not penalised), by Newton's method; the columns in
    ``nonpositive`` may only lower the score (a positive weight is set to 0 and the rest fitted again)."""
    import numpy as np

    keep = list(range(x.shape[1]))
    while True:
        bias, weights = _fit(x[:, keep], y, strength)
        positive = [keep[i] for i, w in enumerate(weights) if keep[i] in nonpositive and w > 0]
        if not positive:
            full = np.zeros(x.shape[1])
            full[keep] = weights
            return bias, full
        keep = [k for k in keep if k not in positive]


def _fit(x, y, strength: float):
    import numpy as np

    n, d = x.shape
    design = np.hstack([np.ones((n, 1)), x])
    w = np.zeros(d + 1)
    penalty = np.full(d + 1, strength)
    penalty[0] = 0.0
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(design @ w, -50, 50)))
        gradient = design.T @ (p - y) + penalty * w
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w[0], w[1:]


def scores(x, bias, weights):
    return bias + x @ weights


def best_threshold(values, y) -> float:
    """The score threshold with the best F1 on these scores; where several do equally well, the middle one
    (the widest margin on both sides), each candidate midway between neighbouring scores."""
    import numpy as np

    order = np.unique(values)
    candidates = [order[0] - 1.0] + [(a + b) / 2 for a, b in zip(order, order[1:])] + [order[-1] + 1.0]
    results = []
    for t in candidates:
        predicted = values >= t
        tp = float(np.sum(predicted & (y == 1)))
        results.append(2 * tp / (np.sum(predicted) + np.sum(y == 1)) if tp else 0.0)
    best = max(results)
    tied = [t for t, f1 in zip(candidates, results) if f1 >= best - 1e-12]
    return float(tied[len(tied) // 2])


def mention_columns() -> set[int]:
    """A move only mentioned (quoted, negated, described, reported) is no evidence of an instruction: it may lower a
    score, never raise it."""
    return {i for i, name in enumerate(vocabulary()) if name.startswith("mention:")}


def inner_scores(x, y, strength: float, k: int = 4):
    """Out-of-fold scores on a training set (stratified by label, in order): what the threshold is chosen on."""
    import numpy as np

    out = np.zeros(len(y))
    positions = {0: np.where(y == 0)[0], 1: np.where(y == 1)[0]}
    part = np.zeros(len(y), dtype=int)
    for label, where in positions.items():
        part[where] = np.arange(len(where)) % k
    for f in range(k):
        train, test = part != f, part == f
        bias, weights = fit(x[train], y[train], strength, mention_columns())
        out[test] = scores(x[test], bias, weights)
    return out


def choose(x, y) -> dict:
    """Regularisation by inner cross-validated log-loss, then the weights on the whole training set and the
    threshold with the best F1 on inner out-of-fold scores."""
    import numpy as np

    best = None
    for strength in LAMBDAS:
        values = inner_scores(x, y, strength)
        p = np.clip(1 / (1 + np.exp(-values)), 1e-6, 1 - 1e-6)
        loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
        if best is None or loss < best[0] - 1e-9:
            best = (loss, strength, values)
    _, strength, values = best
    bias, weights = fit(x, y, strength, mention_columns())
    return {"bias": float(bias), "weights": weights, "threshold": best_threshold(values, y), "lambda": strength}


# --------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------


def figures(items: list[dict], flagged: list[bool]) -> dict:
    tp = sum(1 for item, f in zip(items, flagged) if f and item["label"] == "injection")
    fp = sum(1 for item, f in zip(items, flagged) if f and item["label"] == "benign")
    positives = sum(1 for item in items if item["label"] == "injection")
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / positives if positives else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    kinds = {}
    for name in sorted({(item["label"], kind(item)) for item in items}):
        mine = [f for item, f in zip(items, flagged) if (item["label"], kind(item)) == name]
        kinds[f"{name[0]}/{name[1]}"] = {"items": len(mine), "flagged": sum(mine)}
    return {"items": len(items), "injections": positives, "true_positives": tp, "false_positives": fp, "precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3), "kinds": kinds}


def shipped(items: list[dict]) -> list[bool]:
    return [any(v.flagged for v in injection.read(item["text"])) for item in items]


def cross_validate(items: list[dict], k: int) -> dict:
    import numpy as np

    names = vocabulary()
    rows = [item_features(item["text"]) for item in items]
    x = matrix(rows, names)
    y = np.array([1.0 if item["label"] == "injection" else 0.0 for item in items])
    fold = folds(items, k)
    assigned = np.array([fold[item["id"]] for item in items])
    predicted = [False] * len(items)
    per_fold = []
    for f in range(k):
        train, test = assigned != f, assigned == f
        chosen = choose(x[train], y[train])
        flagged = scores(x[test], chosen["bias"], chosen["weights"]) >= chosen["threshold"]
        held = [item for item, t in zip(items, test) if t]
        for position, value in zip(np.where(test)[0], flagged):
            predicted[position] = bool(value)
        result = figures(held, [bool(v) for v in flagged])
        per_fold.append({"fold": f, "lambda": chosen["lambda"], "threshold": round(chosen["threshold"], 3), **{key: result[key] for key in ("items", "true_positives", "false_positives", "precision", "recall", "f1")}})
    mean = {key: round(sum(r[key] for r in per_fold) / k, 3) for key in ("precision", "recall", "f1")}
    return {"folds": per_fold, "mean": mean, "pooled": figures(items, predicted), "predicted": predicted}


def write_model(items: list[dict]) -> dict:
    import numpy as np

    names = vocabulary()
    x = matrix([item_features(item["text"]) for item in items], names)
    y = np.array([1.0 if item["label"] == "injection" else 0.0 for item in items])
    chosen = choose(x, y)
    digest = hashlib.sha256("\n".join(f"{i['id']}\t{i['label']}\t{i['text']}" for i in items).encode()).hexdigest()[:16]
    model = {
        "about": "Weights of lint's prompt-injection score (rawko_tui/core/injection.py), fitted by bench/injection.py --fit: "
        "L2-regularised logistic regression over which moves occur in which context; regularisation by inner cross-validation, "
        "threshold (on the score, a log-odds) with the best F1 on inner out-of-fold scores.",
        "fitted_on": f"{len(items)} labelled items ({int(y.sum())} injections), sha256 {digest}",
        "lambda": chosen["lambda"],
        "bias": round(chosen["bias"], 4),
        "threshold": round(chosen["threshold"], 4),
        "weights": {name: round(float(w), 4) for name, w in zip(names, chosen["weights"]) if abs(w) >= 1e-4},
    }
    MODEL.write_text(json.dumps(model, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return model


def speed(memories: int = 10_000) -> dict:
    """Seconds ``injection_findings`` takes over every file of a generated store (``bench/teamstore.py``), best of 3."""
    import tempfile

    sys.path.insert(0, str(ROOT / "bench"))
    import teamstore

    from rawko_tui.core.lint.linter import injection_findings
    from rawko_tui.core.store.loading import load_store

    with tempfile.TemporaryDirectory() as folder:
        root, _ = teamstore.build(Path(folder) / "store", memories, commits=10)
        texts = [m.text for m in load_store(root).files if m.text is not None]
    started = time.perf_counter()
    injection_findings("warm up: compile the patterns")
    compile_s = time.perf_counter() - started
    best = math.inf
    for _ in range(3):
        started = time.perf_counter()
        flagged = sum(1 for text in texts if injection_findings(text))
        best = min(best, time.perf_counter() - started)
    return {"memories": len(texts), "seconds": round(best, 3), "per_memory_us": round(best / len(texts) * 1e6, 1), "compile_s": round(compile_s, 3), "flagged": flagged}


def table(result: dict) -> list[str]:
    lines = [f"precision {result['precision']:.3f}  recall {result['recall']:.3f}  F1 {result['f1']:.3f}  "
             f"({result['true_positives']} of {result['injections']} injections flagged, {result['false_positives']} of {result['items'] - result['injections']} benign flagged)"]
    lines.append("per kind (flagged / items):")
    for name, counts in result["kinds"].items():
        label, _, what = name.partition("/")
        rate = counts["flagged"] / counts["items"]
        word = "recall" if label == "injection" else "flagged (false positives)"
        lines.append(f"  {name:<22} {counts['flagged']:>3} / {counts['items']:<3}  {word} {rate:.2f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("labelled", type=Path, nargs="?")
    parser.add_argument("--cv", type=int, metavar="K")
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--errors", metavar="FOLDS", help="comma-separated fold numbers (of 5) whose wrong items to print")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.speed:
        result = speed()
        print(json.dumps(result) if args.json else f"{result['memories']:,} memories: {result['seconds']} s ({result['per_memory_us']} µs each; compiling {result['compile_s']} s), {result['flagged']} flagged")
        return 0
    if args.labelled is None:
        parser.error("a labelled set is needed")
    items = load(args.labelled)
    if args.fit:
        model = write_model(items)
        print(f"wrote {MODEL.relative_to(ROOT)}: lambda {model['lambda']}, threshold {model['threshold']}, {len(model['weights'])} weights")
        return 0
    if args.cv or args.errors:
        k = args.cv or 5
        result = cross_validate(items, k)
        if args.errors:
            wanted = {int(f) for f in args.errors.split(",")}
            fold = folds(items, k)
            for item, flagged in zip(items, result["predicted"]):
                if fold[item["id"]] in wanted and flagged != (item["label"] == "injection"):
                    print(f"--- {item['id']} (fold {fold[item['id']]}) {'FALSE POSITIVE' if flagged else 'MISSED'}; features {sorted(item_features(item['text']))}")
                    print(item["text"])
            return 0
        result.pop("predicted")
        if args.json:
            print(json.dumps(result, indent=1))
            return 0
        for row in result["folds"]:
            print(f"fold {row['fold']}: precision {row['precision']:.3f} recall {row['recall']:.3f} F1 {row['f1']:.3f}  (lambda {row['lambda']}, threshold {row['threshold']}, {row['items']} items)")
        print(f"mean:   precision {result['mean']['precision']:.3f} recall {result['mean']['recall']:.3f} F1 {result['mean']['f1']:.3f}")
        print("pooled held-out predictions: " + "\n".join(table(result["pooled"])))
        return 0
    result = figures(items, shipped(items))
    print(json.dumps(result, indent=1) if args.json else "\n".join(table(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
