"""Every command's name, and the module of commands that runs it (imported only when it runs)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

COMMANDS = ("init", "preview", "compare", "arbiters", "explain", "lint", "verify", "hook", "new", "append", "retire", "link", "confirm", "torn", "candidates", "opinion", "extract", "sessions", "promote", "check", "impact", "matrix")

# each module's commands: a preview never imports what writes, lints, asks Claude or reads sessions
GROUPS = {
    "preview": ("preview", "compare", "arbiters", "explain"),
    "lint": ("lint",),
    "record": ("init", "verify", "hook", "torn"),
    "curation": ("new", "append", "retire", "link", "confirm", "candidates", "opinion", "extract"),
    "sessions": ("sessions", "promote"),
    "checks": ("check", "impact", "matrix"),
}


def handler(command: str) -> Callable[..., int]:
    """The function that runs ``command`` (``cmd_<command>`` in its group's module), that module imported now."""
    group = next(module for module, commands in GROUPS.items() if command in commands)
    return getattr(importlib.import_module(f"{__package__}.{group}"), f"cmd_{command}")
