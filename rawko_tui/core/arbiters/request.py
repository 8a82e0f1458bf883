"""One preview asked for in plain values, answered in one call that goes down the layers once.

A command turns its arguments into a ``PreviewRequest`` (the store's folder,
its git revision or the working tree, the spec's view or the fold of its
entries, the profile's name, the options, the now) and gets back the store
and the ``Preview``: the store is read (``store``), folded when asked
(``store.fold``), its profile and options resolved from its settings, and the
arbiter ranks it. Nothing here calls back up into a command, and a command
only renders what comes back.
"""

from __future__ import annotations

from pathlib import Path

from .. import records
from ..records import record
from ..js.regexp import DEFAULT_REGEX_BUDGET_SECONDS
from ..store.fold import effective_store
from ..store.loading import load_store
from ..store.reading import Store, load_store_at, pinned_now
from .decision import Preview, resolve_options
from .profiles import Profile, resolve_profile
from .ranking import run_preview_deciding

SPEC_VIEW, EFFECTIVE_VIEW = "spec", "effective"


class UnusableArbiter(ValueError):
    """The store's ``arbiter:`` names no usable profile and no other was asked for: never another arbiter in its place."""


@record(frozen=True)
class PreviewRequest:
    root: Path
    task: str
    agent: str
    rev: str | None = None  # the store as it was at this git revision (None: the working tree)
    view: str = SPEC_VIEW  # or EFFECTIVE_VIEW: the fold of every entry, which SPEC-0007's arbiter never reads
    arbiter: str | None = None  # a profile's name (None: the store's ``arbiter:``, else spec-0007)
    order: str | None = None  # the loader's file order ("name", "directory") over the profile's own
    max_memories: int | None = None  # None: the agent's config, else the profile's default
    min_importance: str | None = None
    recursive: bool | None = None
    regex_budget: float = DEFAULT_REGEX_BUDGET_SECONDS
    now_ms: float | None = None  # None: the ``now:`` the store pins, else the clock


def requested_store(root: Path, rev: str | None = None, view: str = SPEC_VIEW) -> Store:
    """The store at ``rev`` (None: its working tree), as ``view`` sees it."""
    store = load_store_at(root, rev) if rev else load_store(root)
    return effective_store(store) if view == EFFECTIVE_VIEW else store


def chosen_profile(config: dict, name: str | None = None, order: str | None = None) -> tuple[Profile, str]:
    """The profile ``name`` names, else the store's ``arbiter:`` (with ``order`` over its loader's), and where it came from.

    Raises ``ProfileError`` for a name that is no profile, and ``UnusableArbiter`` for a store whose
    ``arbiter:`` names none (said as lint says it).
    """
    if name is None:
        refuse_unusable_arbiter(config)
    profile, source = resolve_profile(config, name)
    if order is not None and order != profile.loader.order:
        profile = records.replace(profile, loader=records.replace(profile.loader, order=order))
    return profile, source


def refuse_unusable_arbiter(config: dict) -> None:
    """Raises ``UnusableArbiter`` when the store's ``arbiter:`` names no usable profile (said as lint says it)."""
    from .settingscheck import arbiter_problem  # the settings check: only where a store's own arbiter is used

    problem = arbiter_problem(config)
    if problem is not None:
        raise UnusableArbiter(str(problem))


def run_request(request: PreviewRequest) -> tuple[Store, Preview]:
    """The store the request names and what its arbiter injects for the task, and why."""
    store = requested_store(request.root, request.rev, request.view)
    profile, source = chosen_profile(store.config, request.arbiter, request.order)
    options = resolve_options(store, request.agent, request.max_memories, request.min_importance, request.recursive, profile)
    options = records.replace(options, regex_budget=request.regex_budget)
    options.sources["arbiter"] = source
    now_ms = request.now_ms if request.now_ms is not None else pinned_now(store.config)
    return store, run_preview_deciding(store, request.task, request.agent, options, now_ms)
