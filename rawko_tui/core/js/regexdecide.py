"""Deciding backtracking regexes away from the typing path: in a worker process that is killed at its deadline.

A ranking gives backtracking regexes a small total time (``jsregex.RegexBudget``)
and leaves the rest undecided.  ``Decider.decide`` runs those searches in a
separate Python process with a memory limit (``RLIMIT_AS``), one at a time,
and kills it when a search outlives its share of the time or the caller
cancels: neither a pathological search nor the uninterruptible compile of
a huge pattern can hold up the caller or take its memory.  Each answer is
kept in ``jsregex.ANSWERS``, so ranking the same text again uses it.

The worker is this module run as ``python -m rawko_tui.core.js.regexdecide``:
one JSON request per line on stdin (``[source, ignore_case, text]``), one
answer per line on stdout (``{"span": [start, end] | null}``, or
``{"undecided": kind, "reason": …}``).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Callable

from .regexp import MEMORY, TIMEOUT, JsRegexUndecided, compile_js, remember_answer

WORKER_MEMORY_BYTES = 2 << 30  # address space a worker may take (a 100,000-alternative pattern took 1.5 GB)
_POLL_SECONDS = 0.05  # how often a wait looks at the caller's cancel flag

Case = tuple[str, bool, str]  # (source, ignore_case, text)


class Decider:
    """One worker process, started when first needed and again after it is killed.

    Not thread-safe: one caller at a time (the app's ranking thread, a command).
    """

    def __init__(self, memory_bytes: int = WORKER_MEMORY_BYTES):
        self.memory_bytes = memory_bytes
        self._process: subprocess.Popen | None = None

    def decide(self, cases: list[Case], seconds: float, cancelled: Callable[[], bool] | None = None) -> dict[Case, tuple[int, int] | None | JsRegexUndecided]:
        """Each case's span (None: no match), or why it stays undecided; within ``seconds`` in all.

        Every search first gets an even share of the time; those that ran out
        then share what is left, in order.  ``cancelled`` is asked while
        waiting: when it says yes, the search under way is killed and the rest
        are left undecided.
        """
        cases = list(dict.fromkeys(cases))
        deadline = time.monotonic() + max(0.0, seconds)
        answers: dict[Case, tuple[int, int] | None | JsRegexUndecided] = {}
        ran_out: list[Case] = []
        for last_round, round_cases in ((False, cases), (True, ran_out)):
            for number, case in enumerate(round_cases):
                left = deadline - time.monotonic()
                if left <= 0 or (cancelled is not None and cancelled()):
                    break
                share = left if last_round else left / (len(round_cases) - number)  # an even split of what is left
                answer = self._ask(case, share, cancelled)
                answers[case] = answer
                if isinstance(answer, JsRegexUndecided):
                    if answer.kind == TIMEOUT and not last_round:
                        ran_out.append(case)
                else:
                    remember_answer(*case, answer)
        for case in cases:
            if case not in answers:
                answers[case] = JsRegexUndecided(case[0], TIMEOUT, f"not decided: the {_said(seconds)} given to deciding were spent", seconds)
            elif isinstance(answers[case], JsRegexUndecided) and answers[case].kind == TIMEOUT:
                answers[case] = JsRegexUndecided(case[0], TIMEOUT, f"did not finish in the {_said(seconds)} given to deciding (in a worker process)", seconds)
        for case, answer in answers.items():
            if isinstance(answer, JsRegexUndecided):
                remember_answer(*case, answer)  # not tried again with less time
        return answers

    def close(self) -> None:
        """Stop the worker (it is started again when needed)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        if process is not None:
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()

    def _ask(self, case: Case, seconds: float, cancelled: Callable[[], bool] | None) -> tuple[int, int] | None | JsRegexUndecided:
        started = time.monotonic()
        try:
            process = self._worker()
            process.stdin.write(json.dumps(list(case)) + "\n")
            process.stdin.flush()
        except OSError:
            self.close()
            return JsRegexUndecided(case[0], MEMORY, "the worker process could not be started or ended at once")
        line = self._read_line(process, started + seconds, cancelled)
        if line is None:  # too slow or cancelled: the search (or compile) cannot be interrupted, the process can
            self.close()
            return JsRegexUndecided(case[0], TIMEOUT, f"did not finish in {_said(seconds)} (in a worker process)", seconds)
        try:
            reply = json.loads(line)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            self.close()  # it ended (its memory limit) or said something unreadable: a fresh one for the next case
            return JsRegexUndecided(case[0], MEMORY, f"the worker process ended without an answer (it may take at most {self.memory_bytes >> 20} MB)")
        if "span" in reply:
            span = reply["span"]
            return None if span is None else (int(span[0]), int(span[1]))
        return JsRegexUndecided(case[0], str(reply.get("undecided", MEMORY)), str(reply.get("reason", "the worker could not decide it")))

    def _worker(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            self.close()
            env = {**os.environ, "RAWKO_TUI_WORKER_MEMORY": str(self.memory_bytes)}
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                errors="surrogatepass",
                env=env,
                start_new_session=True,  # a Ctrl+C meant for the app is not the worker's
            )
        return self._process

    @staticmethod
    def _read_line(process: subprocess.Popen, deadline: float, cancelled: Callable[[], bool] | None) -> str | None:
        """The worker's next line, or None when the deadline passes or the caller cancels first."""
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or (cancelled is not None and cancelled()):
                    return None
                if selector.select(min(left, _POLL_SECONDS)):
                    return process.stdout.readline()


def _said(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:g} s"


def _serve() -> None:
    """The worker: answer searches until stdin ends, within the memory limit it was given."""
    import resource

    limit = int(os.environ.get("RAWKO_TUI_WORKER_MEMORY", WORKER_MEMORY_BYTES))
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):  # a lower hard limit is already in force: that one holds
        pass
    for line in sys.stdin:
        try:
            source, ignore_case, text = json.loads(line)
            span = compile_js(source, bool(ignore_case)).search(text, timeout=None, in_process_cap=False)
            reply: dict = {"span": None if span is None else list(span)}
        except JsRegexUndecided as exc:
            reply = {"undecided": exc.kind, "reason": exc.reason}
        except MemoryError:
            reply = {"undecided": MEMORY, "reason": f"it needs more than the {limit >> 20} MB a worker may take"}
        except Exception as exc:  # noqa: BLE001 - a search that fails here is undecided, never a wrong answer
            reply = {"undecided": MEMORY, "reason": f"the worker failed: {type(exc).__name__}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve()
