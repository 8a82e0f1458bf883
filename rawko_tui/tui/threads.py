"""Results of worker threads reach the UI only while the screen they belong to is still there.

A ranking, a history or a lint result can finish after its screen was closed
(or while the app shuts down, its screens already gone); showing it then would
raise in the UI thread. Timers set on a screen stop with it; results sent
through ``deliver`` are dropped with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.dom import DOMNode


def deliver(owner: DOMNode, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """From a worker thread: run ``callback(*args, **kwargs)`` on the UI thread if ``owner`` is still mounted then."""

    def if_still_there() -> None:
        if owner.is_attached:
            callback(*args, **kwargs)

    try:
        owner.app.call_from_thread(if_still_there)
    except RuntimeError:  # the app has stopped: nothing is left to show it on
        pass
