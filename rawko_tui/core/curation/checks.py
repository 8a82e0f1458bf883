"""Injection under test: saved tasks with expectations, the impact of a change, the agent x memory matrix.

Saved tasks live in ``.rawko/checks.yaml`` (and ``.rawko/checks/*.yaml``)::

    tasks:
      - task: "Add OAuth integration to existing auth system"
        agent: developer
        now: 2026-01-24T12:00:00Z        # optional: recency is measured against it
        view: spec                        # optional: spec (default) or effective
        expect:
          inject: [oauth2-integration-too-broad.md]
          not_inject: [project-file-structure.md]
          order: [[a.md, b.md]]           # a ranks above b

What is compared is what the real arbiter does (``Injection``): the memories
it injects, in order, or -- where its code throws (``ArbiterFailure``) --
nothing at all.  A task whose run throws fails its check; a change from
injecting something to throwing (or back, or to another throw) is an impact.
A task whose injection depends on a regex rawko-tui could not decide is
*undecided*: neither passed nor failed.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

from .. import records
from ..records import field, record
from ..arbiters.decision import (
    ArbiterFailure,
    ArbiterOptions,
    Preview,
    configured_profile,
    fate_if_matched,
    parse_now,
    possible_outcomes,
    resolve_options,
)
from ..arbiters.profiles import Profile, ProfileError, resolve_profile
from ..arbiters.ranking import run_preview, run_preview_deciding
from ..js.regexp import DEFAULT_REGEX_BUDGET_SECONDS
from ..disk.cache import KeptParses
from ..disk.safeio import CHECKS_TOTAL, SETTINGS_LIMIT, ReadBudget, linked_part, read_in_store
from ..store.reading import LoadError, Store

CHECKS_FILE = "checks.yaml"
CHECKS_DIR = "checks"
# Saved tasks read in all: each is a ranking (or two, for impact) per run; a person keeps tens of them.
MAX_SAVED_TASKS = 1_000


@record
class SavedTask:
    task: str
    agent: str
    source: str  # the file it came from
    name: str = ""
    now: str | None = None
    view: str = "spec"
    arbiter: str | None = None  # the profile this task's expectations were written for (None: the store's)
    inject: list[str] = field(default_factory=list)
    not_inject: list[str] = field(default_factory=list)
    order: list[tuple[str, str]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.name or f"{self.task[:60]!r} ({self.agent})"


@record(frozen=True)
class Injection:
    """What the real arbiter does for one task: the memories it injects, in order, or that it throws and injects nothing.

    ``uncertain``: why it may do otherwise (a regex rawko-tui could not decide); empty when decided.
    ``maybe``: the memories it injects if their undecided match does (not in ``names``).
    """

    names: tuple[str, ...]
    failure: ArbiterFailure | None = None  # the run surely throws: nothing is injected
    uncertain: tuple[str, ...] = ()
    ranked_beside: tuple[str, ...] = ()  # where it throws: what the ranking without the file at fault injects
    maybe: tuple[str, ...] = ()

    @classmethod
    def of(cls, preview: Preview) -> Injection:
        failure = preview.arbiter_failure
        names = tuple(c.file.name for c in preview.injected)
        uncertain = tuple(preview.uncertain_reasons)
        maybe = tuple(c.file.name for c in preview.undecided if fate_if_matched(c, preview).changes)
        if failure is not None and failure.certain:
            return cls((), failure, uncertain, names)
        return cls(names, None, uncertain, maybe=maybe)

    @property
    def throws(self) -> bool:
        return self.failure is not None

    def same_as(self, other: Injection) -> bool:
        """The same memories in the same order, or the same throw (the same stage, file and error)."""
        if self.throws or other.throws:
            return self.throws and other.throws and _failure_key(self.failure) == _failure_key(other.failure)
        return self.names == other.names

    def describe(self) -> str:
        if self.failure is not None:
            return f"throws while {self.failure._stage_words()} {self.failure.path} ({self.failure.error}): injects nothing"
        return "injects " + (", ".join(self.names) if self.names else "nothing")

    def to_dict(self) -> dict:
        return {"injected": list(self.names), "failure": self.failure.to_dict() if self.failure else None, "undecided": list(self.uncertain)}


def _failure_key(failure: ArbiterFailure | None) -> tuple | None:
    return None if failure is None else (failure.stage, failure.path, failure.error)


def failure_words(failure: ArbiterFailure) -> str:
    """A throw as a check reports it: where, what, and what agents get."""
    return f"the arbiter throws while {failure._stage_words()} {failure.path}: {failure.error}; agents get nothing for this task"


PASS, FAIL, UNDECIDED = "pass", "fail", "undecided"


@record
class CheckResult:
    saved: SavedTask
    preview: Preview
    failures: list[str]
    undecided: list[str] = field(default_factory=list)  # why the outcome may differ (a regex rawko-tui could not decide)

    @property
    def status(self) -> str:
        """``fail`` when an expectation fails (or the run throws), ``undecided`` when the outcome depends on an undecided regex, else ``pass``."""
        if self.undecided:
            return UNDECIDED
        return FAIL if self.failures else PASS

    @property
    def passed(self) -> bool:
        return self.status == PASS

    @property
    def injection(self) -> Injection:
        return Injection.of(self.preview)

    @property
    def injected(self) -> list[str]:
        """What the real arbiter injects: nothing where it throws."""
        return list(self.injection.names)

    def to_dict(self) -> dict:
        injection = self.injection
        return {
            "task": self.saved.task,
            "agent": self.saved.agent,
            "name": self.saved.name,
            "source": self.saved.source,
            "passed": self.passed,
            "status": self.status,
            "failures": self.failures,
            "undecided": self.undecided,
            "arbiterFailure": injection.failure.to_dict() if injection.failure else None,
            "injected": [{"memory": c.file.name, "rank": c.rank, "score": c.score} for c in self.preview.injected] if not injection.throws else [],
        }


def _names(value: object) -> list[str]:
    items = value if isinstance(value, list) else [value] if value else []
    return [str(i).rsplit("/", 1)[-1] for i in items if i]


def load_checks(root: Path) -> tuple[list[SavedTask], list[LoadError]]:
    """Every saved task, and every problem reading them (a bad file does not stop the others).

    Each file goes through the store's guarded reader: a symlink, a FIFO, a
    device or an oversized file is an error naming it, never read; nothing is
    read from a symlinked ``checks/`` (or ``.rawko``). Past ``CHECKS_TOTAL``
    bytes of files, or ``MAX_SAVED_TASKS`` tasks, the rest is an error too.
    """
    rawko = Path(root) / ".rawko"
    tasks: list[SavedTask] = []
    errors: list[LoadError] = []
    linked = linked_part(root, f".rawko/{CHECKS_DIR}")
    if linked is not None:
        errors.append(LoadError(linked, "a symlinked folder: never followed (it could point anywhere); no saved task in it is read", stage="read"))
    names = [CHECKS_FILE] if os.path.lexists(rawko / CHECKS_FILE) else []
    names += [f"{CHECKS_DIR}/{p.name}" for p in sorted((rawko / CHECKS_DIR).glob("*.yaml"))] if linked is None and (rawko / CHECKS_DIR).is_dir() else []
    budget = ReadBudget(CHECKS_TOTAL, "saved-task files")
    parses = KeptParses(Path(root), "checks")  # each file's YAML, kept by its exact bytes: a run that reads the same imports no reader
    for name in names:
        rel = f".rawko/{name}"
        if len(tasks) >= MAX_SAVED_TASKS:
            errors.append(LoadError(rel, f"not read: rawko-tui checks at most {MAX_SAVED_TASKS:,} saved tasks, and the files before it hold them", stage="read"))
            continue
        try:
            raw = budget.read_in_store(root, rel, SETTINGS_LIMIT)
        except Exception as exc:  # noqa: BLE001 - refused (a link, a device, too large) or unreadable: said as a YAML error is
            from ..js.jsyaml import plain_yaml_error

            errors.append(LoadError(rel, *plain_yaml_error(exc)))
            continue
        parsed, data = parses.value(rel, raw, _parse_saved_tasks)
        if not parsed:
            errors.append(LoadError(rel, *data))
            continue
        entries = data.get("tasks") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            errors.append(LoadError(rel, "expected a mapping with a `tasks:` list"))
            continue
        for index, entry in enumerate(entries):
            if len(tasks) >= MAX_SAVED_TASKS:
                errors.append(LoadError(rel, f"task {index + 1} and the {len(entries) - index - 1:,} after it not read: rawko-tui checks at most {MAX_SAVED_TASKS:,} saved tasks"))
                break
            if not isinstance(entry, dict) or not isinstance(entry.get("task"), str) or not isinstance(entry.get("agent"), str):
                errors.append(LoadError(rel, f"task {index + 1} needs `task:` and `agent:` as text"))
                continue
            expect = entry.get("expect") if isinstance(entry.get("expect"), dict) else {}
            order = [tuple(_names(pair)) for pair in expect.get("order") or [] if isinstance(pair, list) and len(pair) == 2]
            tasks.append(
                SavedTask(
                    task=entry["task"],
                    agent=entry["agent"],
                    source=rel,
                    name=str(entry.get("name", "")),
                    now=str(entry["now"]) if entry.get("now") is not None else None,
                    view=str(entry.get("view", "spec")),
                    arbiter=str(entry["arbiter"]) if entry.get("arbiter") is not None else None,
                    inject=_names(expect.get("inject")),
                    not_inject=_names(expect.get("not_inject")),
                    order=order,
                )
            )
    parses.keep()
    return tasks, errors


def _parse_saved_tasks(raw: bytes) -> tuple[bool, object]:
    """(True, the file's YAML) or (False, (why, line)) for bytes it cannot be read from."""
    from ..js.jsyaml import load_with_ruamel, plain_yaml_error  # the YAML readers: only for bytes not read before

    try:
        return True, load_with_ruamel(raw.decode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - ruamel raises many kinds; each is a reason to show
        return False, plain_yaml_error(exc)


def _now_ms(saved: SavedTask) -> float:
    if saved.now:
        try:
            return parse_now(saved.now)
        except ValueError:
            pass
    return time.time() * 1000


def profile_for(store: Store, saved: SavedTask, default: Profile | None = None) -> Profile:
    """The saved task's ``arbiter:``, else ``default`` (``--arbiter``), else the store's. Raises ProfileError."""
    if saved.arbiter is not None:
        return resolve_profile(store.config, saved.arbiter)[0]
    return default or configured_profile(store)


def preview_for(
    store: Store, saved: SavedTask, effective: Store | None = None, profile: Profile | None = None, regex_budget: float = DEFAULT_REGEX_BUDGET_SECONDS
) -> Preview:
    """The saved task ranked under its arbiter; what the ranking leaves undecided is decided in a worker within ``regex_budget``."""
    view_store = store
    if saved.view == "effective":
        from ..store.fold import effective_store

        view_store = effective if effective is not None else effective_store(store)
    options = resolve_options(store, saved.agent, profile=profile_for(store, saved, profile))
    options = records.replace(options, regex_budget=regex_budget)
    return run_preview_deciding(view_store, saved.task, saved.agent, options, _now_ms(saved))


def run_check(
    store: Store, saved: SavedTask, effective: Store | None = None, profile: Profile | None = None, regex_budget: float = DEFAULT_REGEX_BUDGET_SECONDS
) -> CheckResult:
    try:
        preview = preview_for(store, saved, effective, profile, regex_budget)
    except ProfileError as exc:
        empty = run_preview(Store(store.root, [], {}, store.config), saved.task, saved.agent, ArbiterOptions(), _now_ms(saved))
        return CheckResult(saved, empty, [f"arbiter: {exc}"])
    outcomes = possible_outcomes(preview)
    shown = Injection.of(preview)
    if shown.throws:  # the real arbiter injects nothing: that is the failure, whatever the expectations say
        failures = [failure_words(shown.failure)]
    else:
        failures = _unmet(saved, preview, list(shown.names))
    if outcomes is None or len(outcomes) == 1:
        return CheckResult(saved, preview, failures, list(preview.uncertain_reasons) if outcomes is None else [])
    # the outcome depends on matches rawko-tui could not decide: decided only if every possibility agrees
    verdicts = {bool(_unmet(saved, preview, list(outcome.names))) or outcome.throws for outcome in outcomes}
    return CheckResult(saved, preview, failures, list(preview.uncertain_reasons) if len(verdicts) > 1 else [])


def _unmet(saved: SavedTask, preview: Preview, injected: list[str]) -> list[str]:
    """The expectations an injection (memory file names, in order) does not meet."""
    failures = []
    for name in saved.inject:
        if name not in injected:
            candidate = preview.candidate(name)
            why = candidate.explanation.description if candidate else "no such memory in the store"
            failures.append(f"{name} must be injected, but is not: {why}")
    for name in saved.not_inject:
        if name in injected:
            failures.append(f"{name} must not be injected, but is (rank {injected.index(name) + 1})")
    for above, below in saved.order:
        if above in injected and below in injected and injected.index(above) > injected.index(below):
            failures.append(f"{above} must rank above {below}, but ranks {injected.index(above) + 1} to {injected.index(below) + 1}")
        elif above not in injected and below in injected:
            failures.append(f"{above} must rank above {below}, but is not injected")
    return failures


def run_checks(store: Store, tasks: list[SavedTask], profile: Profile | None = None, regex_budget: float = DEFAULT_REGEX_BUDGET_SECONDS) -> list[CheckResult]:
    """Each saved task's check, under its own ``arbiter:``, else ``profile``, else the store's."""
    effective = None
    if any(t.view == "effective" for t in tasks):
        from ..store.fold import effective_store

        effective = effective_store(store)
    return [run_check(store, saved, effective, profile, regex_budget) for saved in tasks]


def default_task_name(task: str) -> str:
    """A saved task's name until the person gives one: its first words."""
    words = " ".join(task.split())
    return words if len(words) <= 60 else words[:60].rsplit(" ", 1)[0] + "…"


def saved_task_write(root: Path, task: str, agent: str, now: str, injected: list[str], name: str, view: str = "spec", arbiter: str | None = None):
    """``.rawko/checks.yaml`` with one more task, today's injection as its expectation, as a planned write.

    The file is read and written round-trip (ruamel), so a person's comments,
    quotes and indentation survive; the confirmation shows the lines that change.
    """
    from ruamel.yaml import YAML

    from ..js.jsyaml import plain_yaml_error, refuse_yaml_bombs
    from ..record.writer import WriteError, plan_settings

    yaml = YAML()  # round-trip: a person's comments and layout survive
    yaml.indent(mapping=2, sequence=4, offset=2)  # "  - task:", the layout the examples use
    yaml.preserve_quotes = True
    yaml.width = 4096
    try:
        text = read_in_store(root, f".rawko/{CHECKS_FILE}", SETTINGS_LIMIT).decode("utf-8")
        refuse_yaml_bombs(text)
        data = yaml.load(text)
    except FileNotFoundError:
        data = None
    except Exception as exc:  # a link, a device, a bomb, not YAML: rewriting it would lose what it holds
        reason, line = plain_yaml_error(exc)
        raise WriteError(f".rawko/{CHECKS_FILE}{f' line {line}' if line else ''}: {reason}; nothing was written") from None
    if not isinstance(data, dict):
        data = {"tasks": []}
    if not isinstance(data.get("tasks"), list):
        data["tasks"] = []
    entry = {"name": name, "task": task, "agent": agent, "now": now}
    if view != "spec":
        entry["view"] = view
    if arbiter is not None:  # the expectation holds for this arbiter
        entry["arbiter"] = arbiter
    entry["expect"] = {"inject": list(injected)}
    data["tasks"].append(entry)
    out = io.StringIO()
    yaml.dump(data, out)
    return plan_settings(root, f".rawko/{CHECKS_FILE}", new=out.getvalue().encode("utf-8"))


def add_saved_task(root: Path, task: str, agent: str, now: str, injected: list[str], name: str = "") -> Path:
    """Save a task to .rawko/checks.yaml at once (no confirmation: for scripts and tests)."""
    from ..record.writer import replace_file

    write = saved_task_write(root, task, agent, now, injected, name or default_task_name(task))
    return replace_file(root, write)


# --------------------------------------------------------------------------
# Impact of a change between two stores
# --------------------------------------------------------------------------


@record(frozen=True)
class TaskImpact:
    saved: SavedTask
    before_injection: Injection
    after_injection: Injection

    @property
    def before(self) -> tuple[str, ...]:
        return self.before_injection.names

    @property
    def after(self) -> tuple[str, ...]:
        return self.after_injection.names

    @property
    def undecided(self) -> bool:
        return bool(self.before_injection.uncertain or self.after_injection.uncertain)

    def to_dict(self) -> dict:
        return {
            "task": self.saved.task,
            "agent": self.saved.agent,
            "before": list(self.before),
            "after": list(self.after),
            "beforeFailure": self.before_injection.failure.to_dict() if self.before_injection.failure else None,
            "afterFailure": self.after_injection.failure.to_dict() if self.after_injection.failure else None,
            "undecided": [*self.before_injection.uncertain, *self.after_injection.uncertain],
        }

    def describe(self) -> str:
        before, after = self.before_injection, self.after_injection
        if before.throws or after.throws:
            parts = [f"{before.describe()} -> {after.describe()}"]
        else:
            gained = [n for n in self.after if n not in self.before]
            lost = [n for n in self.before if n not in self.after]
            parts = [f"+{n}" for n in gained] + [f"-{n}" for n in lost]
            if not parts:
                parts = ["order: " + " > ".join(self.after)] if self.before != self.after else ["the same as far as rawko-tui could decide"]
        if self.undecided:
            parts.append("(undecided: " + "; ".join([*before.uncertain, *after.uncertain]) + ")")
        return f"{self.saved.label}: {' '.join(parts)}"


def impact(before: Store, after: Store, tasks: list[SavedTask], profile: Profile | None = None, regex_budget: float = DEFAULT_REGEX_BUDGET_SECONDS) -> list[TaskImpact]:
    """Saved tasks whose injection differs between two stores (each task under its arbiter): another set or order, or a
    run that throws (injecting nothing) on one side only, or throws otherwise. A task either side of which is undecided
    is listed too (``TaskImpact.undecided``): it may change."""
    changes = []
    for saved in tasks:
        old = Injection.of(preview_for(before, saved, profile=profile, regex_budget=regex_budget))
        new = Injection.of(preview_for(after, saved, profile=profile, regex_budget=regex_budget))
        if not old.same_as(new) or old.uncertain or new.uncertain:
            changes.append(TaskImpact(saved, old, new))
    return changes


# --------------------------------------------------------------------------
# Agent x memory matrix
# --------------------------------------------------------------------------


@record
class Matrix:
    agents: list[str]
    tasks: list[tuple[str, str]]
    counts: dict[str, dict[str, int]]  # memory -> agent -> tasks that inject it
    per_task: list[tuple[str, str, list[str]]]  # (task, agent, injected memories: none where the run throws)
    memories: list[str]
    outcomes: list[Injection] = field(default_factory=list)  # per task: what the real arbiter does

    @property
    def dead(self) -> list[str]:
        """Memories no saved task injects, nor may inject (one whose match is undecided for a task is not dead)."""
        maybe = {name for outcome in self._outcomes() for name in outcome.maybe}
        return [m for m in self.memories if not any(self.counts.get(m, {}).values()) and m not in maybe]

    def over_broad(self, share: float = 0.8) -> list[str]:
        total = len(self.tasks)
        if total < 3:
            return []
        return [m for m in self.memories if sum(self.counts.get(m, {}).values()) >= share * total]

    @property
    def empty_tasks(self) -> list[tuple[str, str]]:
        """Tasks that surely get nothing (not where an undecided match may inject something)."""
        return [(task, agent) for (task, agent, injected), outcome in zip(self.per_task, self._outcomes()) if not injected and not outcome.throws and not outcome.maybe]

    @property
    def failing_tasks(self) -> list[tuple[str, str, Injection]]:
        """Tasks where the arbiter throws: agents get nothing."""
        return [(task, agent, outcome) for (task, agent, _), outcome in zip(self.per_task, self._outcomes()) if outcome.throws]

    @property
    def undecided_tasks(self) -> list[tuple[str, str, Injection]]:
        return [(task, agent, outcome) for (task, agent, _), outcome in zip(self.per_task, self._outcomes()) if outcome.uncertain]

    def _outcomes(self) -> list[Injection]:
        return self.outcomes or [Injection(tuple(injected)) for _, _, injected in self.per_task]

    def to_dict(self) -> dict:
        return {
            "agents": self.agents,
            "tasks": [
                {"task": t, "agent": a, "injected": i, "failure": o.failure.to_dict() if o.failure else None, "undecided": list(o.uncertain), "mayInject": list(o.maybe)}
                for (t, a, i), o in zip(self.per_task, self._outcomes())
            ],
            "counts": self.counts,
            "dead": self.dead,
            "overBroad": self.over_broad(),
            "emptyTasks": [{"task": t, "agent": a} for t, a in self.empty_tasks],
            "failingTasks": [{"task": t, "agent": a, "failure": o.failure.to_dict()} for t, a, o in self.failing_tasks],
            "undecidedTasks": [{"task": t, "agent": a, "undecided": list(o.uncertain)} for t, a, o in self.undecided_tasks],
        }


def matrix(store: Store, tasks: list[tuple[str, str]], now_ms: float, profile: Profile | None = None, regex_budget: float = DEFAULT_REGEX_BUDGET_SECONDS) -> Matrix:
    """For each task (and its agent): which memories the real arbiter injects (none where it throws); who gets what, what nobody gets."""
    agents = sorted({agent for _, agent in tasks})
    memories = [m.name for m in store.files if m.spec_loadable and m.error is None]
    counts: dict[str, dict[str, int]] = {m: {a: 0 for a in agents} for m in memories}
    per_task = []
    outcomes = []
    for task, agent in tasks:
        options = records.replace(resolve_options(store, agent, profile=profile), regex_budget=regex_budget)
        outcome = Injection.of(run_preview_deciding(store, task, agent, options, now_ms))
        per_task.append((task, agent, list(outcome.names)))
        outcomes.append(outcome)
        for name in outcome.names:
            counts.setdefault(name, {a: 0 for a in agents})[agent] += 1
    return Matrix(agents, list(tasks), counts, per_task, memories, outcomes)
