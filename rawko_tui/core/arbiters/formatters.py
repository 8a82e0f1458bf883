"""How an arbiter writes the memories it injects into the prompt (``formatMemoriesForPrompt``).

SPEC-0007's and rawko-sdk's: title, importance, discoverer and each body up to
its first ``\\n# `` before 500 UTF-16 units, else 500 units and ``...``.
SPEC-0005's: title, discoverer and the whole body.
"""

from __future__ import annotations

from ..js.values import UNDEFINED, from_utf16_units, js_to_string, utf16_units

PREVIEW_CHARS = 500


def content_preview(body: str) -> str:
    """The content cut: up to the first ``\\n# `` if it is before 500, else 500 UTF-16 units + "..."."""
    # Only the first 500 units decide the cut; 503 characters always hold at least that many units,
    # and a body longer than 500 characters is longer than 500 units.
    head = utf16_units(body[: PREVIEW_CHARS + 3])
    heading = head.find("\n# ")
    if 0 < heading < PREVIEW_CHARS:
        return from_utf16_units(head[:heading])
    if len(body) > PREVIEW_CHARS or len(head) > PREVIEW_CHARS:
        return from_utf16_units(head[:PREVIEW_CHARS]) + "..."
    return body


WHOLE_PROMPT_HEADER = "## Background Knowledge from Previous Runs\n\n"
PROMPT_HEADER = WHOLE_PROMPT_HEADER + "The following information was learned from prior runs and may be relevant:\n\n"


def prompt_header(formatter: str) -> str:
    return WHOLE_PROMPT_HEADER if formatter == "spec-0005" else PROMPT_HEADER


def format_memories_for_prompt(memories: list, formatter: str = "spec-0007") -> str:
    """formatMemoriesForPrompt: SPEC-0007's (and rawko-sdk's) importance line and 500-character
    previews, or SPEC-0005's (``formatter="spec-0005"``) title, discoverer and whole body."""
    if not memories:
        return ""
    whole = formatter == "spec-0005"
    out = [prompt_header(formatter)]
    for candidate in memories:
        attrs = candidate.file.attrs
        out.append(f"### {js_to_string(attrs.get('title', UNDEFINED))}\n")
        if not whole:
            out.append(f"*Importance: {js_to_string(attrs.get('importance', UNDEFINED)).upper()}*\n")
        out.append(f"*Discovered by: {js_to_string(attrs.get('discoveredBy', UNDEFINED))}*\n\n")
        body = candidate.file.spec.body
        out.append((body if whole else content_preview(body)) + "\n\n")
    return "".join(out)


def prompt_shares(preview) -> list[tuple[str, int, float]]:
    """Each injected memory's block in a ``decision.Preview``'s prompt: (file, characters, share of the whole prompt)."""
    total = len(preview.prompt) or 1
    formatter = preview.profile.formatter
    header = len(prompt_header(formatter))
    return [(c.file.name, block, block / total) for c in preview.injected for block in [len(format_memories_for_prompt([c], formatter)) - header]]
