"""Lint findings per arbiter profile: what each loader skips, where loading stops, where a run throws.

The store's own lint rules follow SPEC-0007's code (``lint``); these say what
the other arbiters do with the same files, in their own words.  A finding is
a warning under the store's arbiter (the one whose prompts it decides) and
information under the others.
"""

from __future__ import annotations

import itertools

from ..arbiters.decision import REASON_NOT_READ, REASON_SKIPPED, REASON_STOPS
from ..js.values import UNDEFINED
from ..store.reading import Store
from ..arbiters.loaders import load_view
from ..arbiters.profiles import Profile
from ..arbiters.scoring import _verbatim_score_failure
from ..arbiters.spec0005 import _crash_for, _facts


def profile_findings(store: Store, profiles: list[Profile], active: str) -> list[tuple[str, str, str, str]]:
    """(path, severity, code, message) for each profile's skips, stops and throws. spec-0007's own are lint's."""
    found: list[tuple[str, str, str, str]] = []
    seen: set = set()
    recursive = store.config.get("recursive") is True
    scratch = store.with_own_indexes()  # the views read here are dropped with it (a ranking keeps its own)
    for profile in profiles:
        key = (profile.loader, profile.scorer, profile.matcher)
        if profile.name == "spec-0007" or key in seen and profile.name != active:
            continue
        seen.add(key)
        severity = "warning" if profile.name == active else "info"
        view = load_view(scratch, profile, recursive)
        not_read = sum(1 for _, reason, _ in view.gated if reason == REASON_NOT_READ)
        for memory, reason, why in view.gated:
            if reason == REASON_SKIPPED:
                found.append((memory.rel_path, severity, "arbiter-skips", why))
            elif reason == REASON_STOPS:
                found.append((memory.rel_path, severity, "arbiter-stops", f"{why} ({not_read} file(s) here)"))
        for memory in view.loaded:
            crash = _throws(memory, profile)
            if crash is not None:
                found.append((memory.rel_path, severity, "arbiter-throws", f"{profile.name} throws on this file ({crash}): a run that reaches it injects nothing at all"))
        scratch._indexes.clear()  # one profile's view at a time
    return found


def _throws(memory, profile: Profile) -> str | None:
    """The TypeError a profile's run throws on this file, whatever the task (None: it does not)."""
    if profile.matcher == "spec-0005":
        facts, crash = _facts(memory, kept_plans=itertools.repeat(None))  # whether it throws needs no pattern's reading
        if crash is not None:
            return crash
        return next((_crash_for(item) for item, _ in facts.plans if _crash_for(item) is not None), None)
    crash = _verbatim_score_failure(memory.spec.attrs, "", profile.scorer)
    if crash is not None and crash[1]:
        return crash[0]
    when = memory.attrs.get("whenToUse", UNDEFINED)
    items = when if isinstance(when, list) else [when]
    odd = next((item for item in items if not isinstance(item, str)), None)
    if odd is not None:  # thrown when no earlier pattern matched
        return "a whenToUse item is not text: pattern.toLowerCase is not a function, unless an earlier pattern matched"
    return None
