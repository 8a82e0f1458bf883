"""Whether a store's ``arbiter:`` names a profile a preview can use: the one settings problem that stops a preview.

``SettingsProblem`` is how every settings problem is said (lint's findings, the commands, the app); the others
are lint's (``lint.settingsproblems``), so that a preview never imports lint.
"""

from __future__ import annotations

from ..records import record
from ..store.settings import STORE_FILE

ERROR, WARNING = "error", "warning"


@record(frozen=True)
class SettingsProblem:
    """A setting that cannot be used, said the same way by lint (a finding on ``file``), the commands and the app.

    ``error``: nothing is previewed with the store's settings until it is fixed (its ``arbiter:`` names no
    profile: rawko-tui never previews another arbiter in its place); ``warning``: ignored, the default used.
    """

    file: str  # STORE_FILE, or the person's settings file as shown (``~/.config/rawko-tui/config.yaml``)
    key: str | None  # the setting it is about; None: the whole file
    severity: str
    code: str  # lint's: ``config`` (the store's file), ``person-setting`` (the person's key there), ``settings`` (the person's file)
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"

    def to_dict(self) -> dict:
        return {"file": self.file, "key": self.key, "severity": self.severity, "code": self.code, "message": self.message}


def arbiter_problem(config: dict) -> SettingsProblem | None:
    """The store's ``arbiter:`` when it names no usable profile: an error, the one that stops a preview."""
    from .profiles import ProfileError, profile_names, resolve_profile

    try:
        resolve_profile(config)
    except ProfileError as exc:
        chosen = config.get("arbiter")
        hint = did_you_mean(chosen, [n for n in profile_names(config) if n != chosen]) if isinstance(chosen, str) else ""
        return SettingsProblem(
            STORE_FILE, "arbiter", ERROR, "config",
            f"arbiter: {exc}{hint}. rawko-tui previews no other arbiter in its place: correct it, or choose one with --arbiter NAME",
        )  # fmt: skip
    return None


def did_you_mean(given: str, choices) -> str:
    by_lower = {str(choice).lower(): str(choice) for choice in choices}
    import difflib  # a suggestion is made only for a name that is no profile

    close = difflib.get_close_matches(given.lower(), list(by_lower), n=1, cutoff=0.75)
    return f" (did you mean {by_lower[close[0]]}?)" if close else ""
