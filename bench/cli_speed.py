"""The command line as scripts and hooks pay for it: whole processes on a 10,000-memory store, beside node running each arbiter's own code.

    python bench/cli_speed.py [--memories 10000] [--runs 5] [--json]

For each arbiter profile and output mode, ``rawko-tui preview`` as a whole
process (warm parse cache, median of ``--runs``) beside node running that
profile's code (``tests/oracle/``: SPEC-0007's, rawko-sdk's and SPEC-0005's,
the same store and task, also a whole process, also the median); ``explain``
(one memory's tree) and ``compare`` (every profile) beside node running the
store's default profile, the closest node process, and ``compare`` also beside
node doing its work: each profile's code run on the store, one after another; ``lint``, ``check`` and
``verify --staged`` on the same store; and the floor: a Python process that
only starts, walks the store and stats every file. Baseline and rawko-tui are
interleaved, so the machine's drift touches both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

NOW = "2026-01-24T12:00:00Z"
ORACLES = {"spec-0007": "spec_arbiter.js", "rawko-sdk": "sdk_arbiter.js", "spec-0005": "spec0005_arbiter.js"}
MODES = {"text": [], "--prompt": ["--prompt"], "--json": ["--json"]}
TARGET_RATIO = 0.5


def compiled_environment(folder: Path) -> dict[str, str]:
    """The environment Python runs in here: from compiled bytecode, as an installed package does (pip compiles it).

    Without this a process where ``PYTHONDONTWRITEBYTECODE`` is set compiles every module on every start
    (about 0.1 s of a command's time), which no installed ``rawko-tui`` pays. The warm-up run writes the bytecode.
    """
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environment["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    return environment


def installed_python(folder: Path) -> str:
    """A Python that starts as an installed ``rawko-tui`` does: a virtual environment whose site finds the package
    and its dependencies by plain paths.

    A development checkout installed with ``pip install -e .`` starts through setuptools' editable finder, which
    imports ``pathlib``, ``re`` and ``urllib`` at every start (about 0.02 s, more than the interpreter itself); an
    installed tool (``pipx install``, ``uv tool install``) has no such hook. The dependencies are this
    environment's own (the same versions), listed on a ``.pth`` line, whose folder's own ``.pth`` files are not run.
    """
    import site
    import sysconfig
    import venv

    environment = folder / "installed"
    venv.EnvBuilder(with_pip=False).create(environment)
    package = folder / "package"
    package.mkdir()
    (package / "rawko_tui").symlink_to(ROOT / "rawko_tui", target_is_directory=True)
    python = environment / "bin" / "python"
    own_site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True).stdout.strip()
    dependencies = [path for path in site.getsitepackages() if Path(path).is_dir()] or [sysconfig.get_paths()["purelib"]]
    Path(own_site, "rawko-tui.pth").write_text("\n".join([str(package), *dependencies]) + "\n", encoding="utf-8")
    return str(python)


def installed_command(python: str) -> list[str]:
    """The ``rawko-tui`` command as an installer writes it beside that Python (pip's console-script launcher, for
    pyproject's ``rawko-tui = "rawko_tui.cli:run"``): what a user runs. ``python -m rawko_tui`` would also import
    ``runpy`` and ``importlib.util`` on every start."""
    script = Path(python).parent / "rawko-tui"
    script.write_text(
        f"#!{python}\n# -*- coding: utf-8 -*-\nimport re\nimport sys\nfrom rawko_tui.cli import run\n"
        "if __name__ == '__main__':\n    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n    sys.exit(run())\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return [str(script)]


ENVIRONMENT: dict[str, str] | None = None


def timed(command: list[str], stdin: bytes | None = None) -> float:
    """Seconds for the whole process; a command that fails to run (exit 2 and up: lint's findings exit 1) stops the bench."""
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, check=False, env=ENVIRONMENT)
    seconds = time.perf_counter() - start
    if done.returncode > 1:
        raise SystemExit(f"{' '.join(command[:4])} … failed ({done.returncode}): {done.stderr.decode(errors='replace')[-500:]}")
    return seconds


def median_of(runs: int, *commands: tuple[list[str], bytes | None]) -> list[float]:
    """Each command's median, the commands interleaved run by run."""
    times: list[list[float]] = [[] for _ in commands]
    for command, stdin in commands:  # warm every cache first
        timed(command, stdin)
    for _ in range(runs):
        for index, (command, stdin) in enumerate(commands):
            times[index].append(timed(command, stdin))
    return [round(statistics.median(t), 3) for t in times]


def run(memories: int, runs: int) -> dict:
    import teamstore

    node = "node"
    global ENVIRONMENT
    with tempfile.TemporaryDirectory() as folder:
        ENVIRONMENT = compiled_environment(Path(folder))
        python = installed_python(Path(folder))
        rawko = installed_command(python)
        root, tasks = teamstore.build(Path(folder) / "store", memories, commits=200)
        task = tasks[0]
        (root / ".rawko" / "checks.yaml").write_text(
            "tasks:\n" + "".join(f"  - task: {json.dumps(t)}\n    agent: developer\n    now: {NOW}\n" for t in tasks[:3]), encoding="utf-8"
        )
        preview = []
        for profile, script in ORACLES.items():
            request = json.dumps([{"root": str(root), "task": task, "agentName": "developer", "now": NOW}]).encode()
            for mode, flags in MODES.items():
                ours, reference = median_of(
                    runs,
                    ([*rawko, "preview", str(root), "--task", task, "--agent", "developer", "--now", NOW, "--arbiter", profile, *flags], None),
                    ([node, str(ROOT / "tests" / "oracle" / script)], request),
                )
                preview.append({"profile": profile, "mode": mode, "rawko": ours, "node": reference, "ratio": round(ours / reference, 2)})
        context = ["--task", task, "--agent", "developer", "--now", NOW]
        spec_request = json.dumps([{"root": str(root), "task": task, "agentName": "developer", "now": NOW}]).encode()
        node_spec = ([node, str(ROOT / "tests" / "oracle" / ORACLES["spec-0007"])], spec_request)
        memory = sorted((root / ".rawko" / "memories").glob("*.md"))[0].name
        # compare's own work in node: each profile's code run on the store, one process after another
        request_file = Path(folder) / "request.json"
        request_file.write_bytes(spec_request)
        every_profile = "; ".join(f"{node} {ROOT / 'tests' / 'oracle' / script} < {request_file}" for script in ORACLES.values())
        explain, compare, spec_node, every_node = median_of(
            runs,
            ([*rawko, "explain", memory, str(root), *context], None),
            ([*rawko, "compare", str(root), *context], None),
            node_spec,
            (["sh", "-c", every_profile], None),
        )
        commands = [
            {"command": "explain", "rawko": explain, "node": spec_node, "ratio": round(explain / spec_node, 2)},
            {"command": "compare", "rawko": compare, "node": spec_node, "ratio": round(compare / spec_node, 2)},
            {"command": "compare", "against": "every profile", "rawko": compare, "node": every_node, "ratio": round(compare / every_node, 2)},
        ]
        lint, check, spec_node = median_of(runs, ([*rawko, "lint", str(root)], None), ([*rawko, "check", str(root)], None), node_spec)
        commands += [
            {"command": "lint", "rawko": lint, "node": spec_node, "ratio": round(lint / spec_node, 2)},
            {"command": "check", "rawko": check, "node": spec_node, "ratio": round(check / spec_node, 2)},
        ]
        # what any command pays before it works: the interpreter; the physical floor (start, walk, stat every
        # file); and reading the store as rawko-tui does (warm: the parse cache)
        interpreter, walking, reading = median_of(
            runs,
            ([python, "-c", "pass"], None),
            ([python, "-c", WALK_AND_STAT, str(root)], None),
            ([python, "-c", READ_ONLY, str(root)], None),
        )
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, capture_output=True)
        (verify,) = median_of(runs, ([*rawko, "verify", str(root), "--staged"], None))
    ENVIRONMENT = None  # its bytecode folder went with the store
    return {
        "memories": memories,
        "task": task,
        "preview": preview,
        "commands": commands,
        "lint": lint,
        "check": check,
        "verifyStaged": verify,
        "floor": {"interpreter": interpreter, "walkAndStat": walking, "readStore": reading},
    }


# A process that only starts, imports the loader and reads the store (no ranking, no output).
READ_ONLY = "import gc, sys; gc.disable(); from rawko_tui.core.store.loading import load_store; load_store(sys.argv[1])"
# The simplest process that could do any command's job: start, walk the memories folder, stat every file.
WALK_AND_STAT = "import os, sys\nfor top, _, names in os.walk(os.path.join(sys.argv[1], '.rawko', 'memories')):\n    for n in names: os.stat(os.path.join(top, n))"



def report(result: dict) -> str:
    lines = [f"whole processes on {result['memories']:,} memories, warm, medians (task {result['task']!r})", ""]
    lines.append("| preview | rawko-tui | node (the arbiter's own code) | ratio | target ≤ 0.5× |")
    lines.append("|---|---|---|---|---|")
    for row in result["preview"]:
        met = "met" if row["ratio"] <= TARGET_RATIO else "not met"
        lines.append(f"| {row['profile']} {row['mode']} | {row['rawko']} s | {row['node']} s | {row['ratio']}× | {met} |")
    lines.append("")
    lines.append("| command | rawko-tui | node (spec-0007's own code) | ratio | target ≤ 0.5× |")
    lines.append("|---|---|---|---|---|")
    for row in result["commands"]:
        met = "met" if row["ratio"] <= TARGET_RATIO else "not met"
        name = row["command"] + (f" (node: {row['against']})" if "against" in row else "")
        lines.append(f"| {name} | {row['rawko']} s | {row['node']} s | {row['ratio']}× | {met} |")
    lines.append("")
    lines.append(f"verify --staged {result['verifyStaged']} s (target ≤ 0.3 s)")
    floor = result["floor"]
    lines.append(
        f"floor: the interpreter alone {floor['interpreter']} s; starting, walking the store and statting every file {floor['walkAndStat']} s; "
        f"starting and reading the store as rawko-tui does, nothing else {floor['readStore']} s"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.memories, args.runs)
    print(json.dumps(result, indent=2) if args.json else report(result))


if __name__ == "__main__":
    main()
