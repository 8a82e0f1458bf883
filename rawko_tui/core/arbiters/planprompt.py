"""rawko-sdk's planning prompt: every memory its loader accepts, unmatched and uncapped.

``generatePlan`` hands all gated memories to ``formatMemoriesForPlan``
(``rawko/src/arbiter/prompts.ts``), so this section grows with the store
whatever the task.
"""

from __future__ import annotations

from ..js.values import UNDEFINED, js_to_string
from ..store.reading import MemoryFile


def js_join(items: list, separator: str) -> str:
    """``Array.prototype.join``: null and undefined items are empty."""
    return separator.join("" if item is None or item is UNDEFINED else js_to_string(item) for item in items)


def plan_prompt(memories: list[MemoryFile]) -> str:
    """``formatMemoriesForPlan`` over the loaded memories, in load order ("" when there are none)."""
    if not memories:
        return ""
    lines = ["## Relevant Memories", ""]
    for memory in memories:
        attrs = memory.attrs
        lines.append(f"### {js_to_string(attrs.get('title', UNDEFINED))}")
        lines.append(f"- **File:** {memory.name}")
        lines.append(f"- **Importance:** {js_to_string(attrs.get('importance', UNDEFINED))}")
        tags = attrs.get("tags", UNDEFINED)
        lines.append(f"- **Tags:** {js_join(tags, ', ') if isinstance(tags, list) else js_to_string(tags)}")
        when = attrs.get("whenToUse", UNDEFINED)
        lines.append(f"- **When to use:** {js_join(when, '; ') if isinstance(when, list) else js_to_string(when)}")
        lines.append("")
    return "\n".join(lines)
