from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import threading
from http.server import HTTPServer
from pathlib import Path
from typing import Callable

import pytest
from fakeapi import KEY, FakeMessages
from storegen import write_store  # noqa: F401 - the tests import it from here

ORACLE_DIR = Path(__file__).parent / "oracle"
REPO_ROOT = Path(__file__).parent.parent
FIXED_NOW = "2026-01-24T12:00:00Z"


def pytest_collection_modifyitems(items):
    """The scale tests (the longest) first, in their own order: on two workers (-n 2) they start at once instead
    of one of them ending the run alone."""
    items.sort(key=lambda item: item.get_closest_marker("scale") is None)


def _resident_mb(pid: int | str = "self") -> int:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20
    except OSError:  # no /proc: nothing to measure, nothing given back
        return 0


def _glibc():
    """glibc, to tune and trim this process's heap (None where there is none: nothing is tuned there)."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_M_MMAP_THRESHOLD, _M_ARENA_MAX = -3, -8  # mallopt's parameters (malloc.h)
_RESIDENT_SLACK_MB = 64
_resident_after_release = {"mb": 0}


def pytest_configure(config):
    """Blocks of 256 KB and more are mapped on their own, so freeing them gives them back at once (glibc otherwise
    raises that threshold to 32 MB after the first large free, and a 30 MB text's blocks stay in the heap), and
    threads share two heaps instead of one each: a worker's size follows its current test, not every test it ran."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(_M_MMAP_THRESHOLD, 256 << 10)
        libc.mallopt(_M_ARENA_MAX, 2)
    _wait_for_idle_in_finer_steps()


# Textual's pilot waits for an app to be idle after every key and pause: it sleeps 20 ms at a time until a step's
# CPU time is under a twentieth of it. The app tests spent most of their wall time in those steps (10 of 12 s in
# one test, each key at least 40 ms): the same rule in steps of 5 ms answers as soon as the app is idle.
_IDLE_STEP_SECONDS = 0.005


def _wait_for_idle_in_finer_steps() -> None:
    from textual import _wait

    _wait.SLEEP_GRANULARITY = _IDLE_STEP_SECONDS
    _wait.SLEEP_IDLE = _IDLE_STEP_SECONDS / 20.0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a test that grew this process (a hostile store loaded, an app run), collect its cycles and give the
    memory back: a worker would otherwise keep the high-water mark of every test it ran (900 MB after
    test_columnar's hostile stores, 110 MB once given back), and two workers' marks add up."""
    yield
    styles_cache = sys.modules.get("textual._styles_cache")
    if styles_cache is not None:
        # Textual caches a method of StylesCache with functools.lru_cache, keyed by the instance: it keeps the last
        # 1,024 widgets' style caches alive, with every line they rendered (0.3 GB in a worker after the app tests)
        styles_cache.StylesCache.get_inner_outer.cache_clear()
    if _resident_mb() > _resident_after_release["mb"] + _RESIDENT_SLACK_MB:
        import gc

        _forget_memos()
        _forget_rendering_caches()
        gc.collect()
        libc = _glibc()
        if libc is not None:
            libc.malloc_trim(0)
        _resident_after_release["mb"] = _resident_mb()


def _forget_memos() -> None:
    """Empty rawko-tui's memos of earlier tests' inputs: its functools caches that take arguments (compiled
    patterns, RE2 programs, plans, dates, stems; the loaders of fixed data, which take none, keep their one
    entry), the regex answers and the consolidation evidence kept by text. A later test computes what it needs
    again; the memos otherwise pin every pattern and text a worker has seen (test_v8_limits' patterns of 40,000
    units, the realworld corpus's plans), and freed only together do their pages go back. re's and re2's own caches
    of compiled patterns go too."""
    import inspect

    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("rawko_tui."):
            continue
        for value in list(vars(module).values()):
            wrapped = getattr(value, "__wrapped__", None)
            if hasattr(value, "cache_clear") and getattr(value, "__module__", None) == name and wrapped is not None:
                try:
                    takes_arguments = bool(inspect.signature(wrapped).parameters)
                except (TypeError, ValueError):
                    takes_arguments = True
                if takes_arguments:
                    value.cache_clear()
    regexp = sys.modules.get("rawko_tui.core.js.regexp")
    if regexp is not None:
        regexp.ANSWERS.clear()
    queue = sys.modules.get("rawko_tui.core.curation.consolidation.queue")
    if queue is not None:
        queue._EVIDENCE.clear()
    # the regex modules' own caches of compiled patterns: re2's keeps its last 128 programs, whatever their size (80 MB
    # of RE2 programs after test_v8_limits' patterns of 40,000 units), re's its last 512 patterns
    re2 = sys.modules.get("re2")
    if re2 is not None and hasattr(re2, "purge"):
        re2.purge()
    import re

    re.purge()


def _forget_rendering_caches() -> None:
    """Empty Textual's and Rich's bounded functools caches (rendered strips and segments, regions, styles, colours;
    DataTable's cell styles, keyed by the table): thousands of entries made at any moment of an app test each keep
    the heap pages they were made on, so the pages the app's own objects used cannot go back when the app is gone.
    The unbounded ones (a class's CSS bases) hold what a class is, not what an app drew, and stay."""
    import functools

    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(("textual.", "rich.")):
            continue
        for value in list(vars(module).values()):
            owners = [value]
            if isinstance(value, type) and value.__module__ == name:
                # methods, class and static methods, properties
                owners = [getattr(member, "fget", None) or getattr(member, "__func__", member) for member in vars(value).values()]
            for owner in owners:
                if isinstance(owner, functools._lru_cache_wrapper) and owner.cache_parameters()["maxsize"] is not None:
                    owner.cache_clear()


PRLIMIT = shutil.which("prlimit")
_PRLIMIT_OPTIONS = {"address_space": "--as", "cpu": "--cpu", "file_size": "--fsize"}


def with_limits(command: list[str], **limits: tuple[int, int]) -> tuple[list[str], Callable[[], None] | None]:
    """``command`` under resource limits (``address_space``, ``cpu``, ``file_size``: (soft, hard)), and the preexec_fn still needed to
    set them. prlimit sets them and becomes the command, so Python starts the child with vfork; a preexec_fn makes it
    fork the worker first (copying its page tables: 40 ms for a worker of 600 MB, and until the exec its memory counts
    twice in what the test processes hold). Without prlimit, the preexec_fn."""
    if PRLIMIT is not None:
        return [PRLIMIT, *(f"{_PRLIMIT_OPTIONS[name]}={soft}:{hard}" for name, (soft, hard) in limits.items()), "--", *command], None
    import resource

    kinds = {"address_space": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "file_size": resource.RLIMIT_FSIZE}

    def set_limits() -> None:
        for name, pair in limits.items():
            resource.setrlimit(kinds[name], pair)

    return command, set_limits


@pytest.fixture
def gigabyte_at_a_time(tmp_path_factory):
    """For a test whose command holds close to a gigabyte (test_limits' stores of gigabytes), or that holds most of
    one in its worker and node (the hostile catalogue's comparison): it waits until no such test runs on another
    worker of this test run (-n 2), so two of them never add up."""
    if "PYTEST_XDIST_WORKER" not in os.environ:  # one process: one test at a time already
        yield
        return
    import fcntl

    # the workers' temporary folders (popen-gw0, popen-gw1) share this run's own folder
    with open(tmp_path_factory.getbasetemp().parent / "gigabyte.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _end_nodes()  # this worker's node (60 MB and more) is not needed beside the command
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session", autouse=True)
def _ruamel_imported_outside_an_app():
    """ruamel.yaml's ``dump_comments`` keeps ``sys.stdout`` as a default argument: imported first while an app runs,
    it keeps that app's print capture, and through it the app, its widgets and their rendered lines, for the rest
    of the run. Imported before any test, it keeps the real stdout."""
    import ruamel.yaml  # noqa: F401


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    """JavaScript reads offset-less date-times in local time; pin the zone for both sides."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    time.tzset()


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, tmp_path_factory):
    """Each test gets its own parse cache, never the user's."""
    monkeypatch.setenv("RAWKO_TUI_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(autouse=True)
def _no_person_settings(monkeypatch):
    """Each test runs without the developer's own settings file (keymap, theme, author, model);
    a test that needs one writes it and points RAWKO_TUI_CONFIG at it. The path is fixed, so
    screens that name it look the same in every run."""
    monkeypatch.setenv("RAWKO_TUI_CONFIG", "/nonexistent/rawko-tui/config.yaml")


def memory(title="A memory", when='"auth"', importance="high", at="2026-01-23T10:30:00Z", by="developer", tags="[auth]", body=None, extra="") -> str:
    """A memory file in the convention's shape; pass None to leave a field out."""
    lines = ["---"]
    for key, value in (("title", title), ("whenToUse", when), ("tags", tags), ("importance", importance), ("discoveredAt", at), ("discoveredBy", by)):
        if value is not None:
            lines.append(f"{key}: {value}")
    if extra:
        lines.append(extra)
    lines.append("---")
    lines.append("")
    lines.append(body if body is not None else "Body text " * 30)
    return "\n".join(lines) + "\n"


class Oracle:
    """The arbiters' own JavaScript (tests/oracle/), run on node. One node serves the whole test run
    (tests/oracle/serve.js runs each script afresh per call, as its own process would): a process per call
    cost more than most comparisons."""

    TIMEOUT = 120
    KEEP_MB = 160  # a node larger than this after an answer is ended (one of 225 MB sat beside the suite's peak)

    def __init__(self, node: str):
        self.node = node
        self._server: subprocess.Popen | None = None

    def run(self, requests: list[dict], script: str = "spec_arbiter.js", at_a_time: int | None = None) -> list[dict]:
        """Run one of the oracles (spec_arbiter.js, sdk_arbiter.js, spec0005_arbiter.js, the probes) on the requests,
        ``at_a_time`` of them per run of the script (None: all): each request to an arbiter reads its store afresh,
        and node keeps what every request of a run read until the run ends (the hostile catalogue's six requests
        at once grew it to 0.85 GB, one at a time to 0.33 GB, in the same CPU time)."""
        if at_a_time is not None and len(requests) > at_a_time:
            return [answer for at in range(0, len(requests), at_a_time) for answer in self.run(requests[at : at + at_a_time], script)]
        if self._server is None or self._server.poll() is not None:
            self._server = subprocess.Popen(
                # V8 sizes its heap by the machine's memory: uncapped, the hostile catalogue grew this process to
                # 1.4 GB; with a gigabyte it collects sooner and peaks at 0.5 GB (what the arbiters' code holds)
                [self.node, "--max-old-space-size=1024", str(ORACLE_DIR / "serve.js")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8", env={**os.environ, "TZ": "UTC"}
            )
        self._server.stdin.write(json.dumps({"script": script, "input": json.dumps(requests)}) + "\n")
        self._server.stdin.flush()
        ready, _, _ = select.select([self._server.stdout], [], [], self.TIMEOUT)
        line = self._server.stdout.readline() if ready else ""
        if not line:
            self.close()
            pytest.fail(f"node ended, or gave no answer within {self.TIMEOUT} s, running the oracle {script}")
        answer = json.loads(line)
        if _resident_mb(self._server.pid) > self.KEEP_MB:
            self.close()  # V8 keeps the heap a large store grew (0.5 GB after the hostile catalogue): the next call starts afresh
        assert "error" not in answer, answer["error"]
        return json.loads(answer["stdout"])

    def close(self) -> None:
        if self._server is not None:
            self._server.kill()
            self._server.wait()
            self._server = None


_ORACLES: list[Oracle] = []  # this process's oracle (the session's), whose node a module ends


def _end_nodes() -> None:
    for served in _ORACLES:
        served.close()


@pytest.fixture(scope="module", autouse=True)
def _node_ended_after_each_module():
    """A module's oracle comparisons start the worker's node; the modules after it mostly never ask it again, and each
    worker's idle node held 60 to 70 MB for the rest of the run. A module that compares starts it afresh (~0.1 s)."""
    yield
    _end_nodes()


@pytest.fixture(scope="session")
def oracle():
    node = shutil.which("node")
    ready = node is not None and all((ORACLE_DIR / "node_modules" / package).is_dir() for package in ("js-yaml", "yaml"))
    if not ready:
        if os.environ.get("CI"):
            pytest.fail("the JavaScript oracle needs node and `npm ci` in tests/oracle (CI installs both)")
        pytest.skip("node or tests/oracle/node_modules missing: run `npm ci --prefix tests/oracle`")
    served = Oracle(node)
    _ORACLES.append(served)
    yield served
    served.close()


@pytest.fixture
def fake(monkeypatch):
    server = HTTPServer(("127.0.0.1", 0), FakeMessages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    FakeMessages.answers, FakeMessages.seen = [], []
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    yield FakeMessages
    server.shutdown()
