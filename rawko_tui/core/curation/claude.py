"""Claude drafts (optional): SPEC-0005's memory extraction, proposed for a person to accept.

``anthropic`` is imported only when a draft is asked for (it costs over a second
at start-up).  The API key comes from the caller (the environment); it is
never written to a file, a log or a message.  Every failure becomes a
``ClaudeError`` with a plain reason, and the work continues by hand.
"""

from __future__ import annotations

import json
import re

from ..records import field, record
from ..text.tokens import DEFAULT_MODEL

# SPEC-0005's EXTRACTION_PROMPT, verbatim.
EXTRACTION_PROMPT = """
You are extracting long-term memories from an agent's execution.

AGENT OUTPUT:
{agentOutput}

TASK:
{task}

RESULT:
{result}

EXISTING MEMORIES:
{existingMemories}

Evaluate: Is there something in this output worth remembering long-term?

Examples of worth remembering:
- Discovered codebase structure or locations
- Found code patterns or conventions
- Identified dependencies or versions
- Learned about constraints or limitations
- Identified what doesn't work (negative learning)
- Found architectural decisions or trade-offs

Examples NOT worth remembering:
- Intermediate debugging steps
- Temporary files or commands
- Verbose explanations already in code
- Things obvious from reading the code

If YES, provide:
{
  "shouldCreateMemory": true,
  "memoryTitle": "Clear, specific title",
  "frontmatter": {
    "title": "...",
    "whenToUse": ["pattern1|pattern2", "description"],
    "tags": ["tag1", "tag2"],
    "importance": "high",
    "discoveredBy": "{agent}"
  },
  "content": "Markdown content with key learnings"
}

If NO, provide:
{
  "shouldCreateMemory": false,
  "reasoning": "Why this doesn't need to be remembered"
}
"""


class ClaudeError(Exception):
    """A draft could not be had; the message says why, and never contains the key."""


@record
class Extraction:
    should_create: bool
    title: str = ""
    frontmatter: dict = field(default_factory=dict)
    content: str = ""
    reasoning: str = ""


def format_existing(titles: list[tuple[str, str]]) -> str:
    """The spec leaves formatExistingMemories open: one line per memory, its title and file."""
    return "\n".join(f"- {title} ({name})" for name, title in titles) or "(none)"


def build_extraction_prompt(agent: str, task: str, output: str, result: str, existing: list[tuple[str, str]]) -> str:
    # String.prototype.replace with a string pattern replaces the first occurrence only, as the spec does
    return (
        EXTRACTION_PROMPT.replace("{agentOutput}", output, 1)
        .replace("{task}", task, 1)
        .replace("{result}", result, 1)
        .replace("{existingMemories}", format_existing(existing), 1)
        .replace("{agent}", agent, 1)
    )


def parse_extraction(text: str) -> Extraction:
    """The model's answer as an Extraction; malformed answers are a ClaudeError."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match is None:
        raise ClaudeError("the answer held no JSON object")
    try:
        data = json.loads(match.group())
    except json.JSONDecodeError as exc:
        raise ClaudeError(f"the answer's JSON is malformed ({exc.msg} at character {exc.pos})") from None
    except RecursionError:
        raise ClaudeError("the answer's JSON is nested too deeply to read") from None
    if not isinstance(data, dict) or not isinstance(data.get("shouldCreateMemory"), bool):
        raise ClaudeError("the answer does not say shouldCreateMemory: true or false")
    if not data["shouldCreateMemory"]:
        return Extraction(False, reasoning=str(data.get("reasoning", "")))
    frontmatter = data.get("frontmatter")
    content = data.get("content")
    if not isinstance(frontmatter, dict) or not isinstance(content, str):
        raise ClaudeError("the answer proposes a memory without a frontmatter object and content text")
    title = data.get("memoryTitle") or frontmatter.get("title") or ""
    return Extraction(True, str(title), frontmatter, content, str(data.get("reasoning", "")))


def ask_claude(prompt: str, api_key: str | None, model: str = DEFAULT_MODEL, base_url: str | None = None, timeout: float = 60.0) -> str:
    """One user message to the Messages API; the text of the answer."""
    if not api_key:
        raise ClaudeError("no API key: set ANTHROPIC_API_KEY to ask Claude (everything else works without one)")
    import anthropic

    client = anthropic.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=1)
    try:
        message = client.messages.create(model=model, max_tokens=2048, messages=[{"role": "user", "content": prompt}])
    except anthropic.AuthenticationError:
        raise ClaudeError("the API key was refused") from None
    except anthropic.RateLimitError:
        raise ClaudeError("rate limited; try again shortly") from None
    except anthropic.APITimeoutError:
        raise ClaudeError(f"no answer within {timeout:g} s") from None
    except anthropic.APIConnectionError:
        raise ClaudeError("cannot reach the API") from None
    except anthropic.APIStatusError as exc:
        raise ClaudeError(f"the API answered {exc.status_code}") from None
    return "".join(block.text for block in message.content if getattr(block, "type", "") == "text")


def extraction_file(extraction: Extraction, agent: str, task: str, discovered_at: str) -> str:
    """The proposed memory as a file, with the fields the convention requires filled in."""
    from ..record.writer import format_entry

    fields = dict(extraction.frontmatter)
    fields.setdefault("title", extraction.title)
    fields["discoveredAt"] = fields.get("discoveredAt") or discovered_at
    fields["discoveredBy"] = fields.get("discoveredBy") or agent
    fields.setdefault("discoveredIn", f"Task: {task}")
    ordered = {key: fields[key] for key in ("title", "whenToUse", "tags", "importance", "discoveredAt", "discoveredBy", "discoveredIn") if key in fields}
    ordered.update({k: v for k, v in fields.items() if k not in ordered})
    body = extraction.content
    if not body.lstrip().startswith("#"):
        body = f"# {ordered['title']}\n\n{body}"
    return format_entry(ordered, body)


MERGE_PROMPT = """You are consolidating long-term memories that AI agents wrote about a codebase.
The memories below overlap. Write ONE memory file that keeps every fact that is still true,
says which of them disagree and how (do not silently pick a side), and drops repetition.

Answer with the memory file only: a YAML frontmatter block between lines of three dashes
(title, whenToUse as a list of patterns, tags, importance: low|medium|high|critical,
discoveredAt, discoveredBy, supersedes: the file names below), then the Markdown body.

{memories}
"""


def build_merge_prompt(files: list[tuple[str, str]]) -> str:
    """``files``: (file name, full text) of each memory to merge."""
    shown = "\n\n".join(f"=== {name} ===\n{text}" for name, text in files)
    return MERGE_PROMPT.replace("{memories}", shown, 1)


def parse_memory_answer(text: str) -> str:
    """The memory file in an answer (from its first '---' line on); a ClaudeError when there is none."""
    start = text.find("---\n")
    if start < 0:
        raise ClaudeError("the answer held no memory file (no '---' frontmatter)")
    answer = text[start:].rstrip()
    if answer.endswith("```"):
        answer = answer[:-3].rstrip()
    from ..store.reading import spec_extract

    try:
        view = spec_extract(answer + "\n")
    except ValueError as exc:
        raise ClaudeError(f"the answer's memory file does not parse: {exc}") from None
    if not isinstance(view.attrs, dict) or not view.attrs.get("title"):
        raise ClaudeError("the answer's memory file has no title")
    return answer + "\n"
