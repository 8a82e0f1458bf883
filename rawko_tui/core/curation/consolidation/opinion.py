"""A second opinion from Claude on one pair: duplicate, contradiction, related or unrelated, with the deciding sentences quoted.

Optional (it needs ``ANTHROPIC_API_KEY``); the queue works without it. An
answer is kept under a digest of the two memories' texts and the model, so
asking again about an unchanged pair, in either order, costs nothing and works
offline. The pair is kept in one order (its texts sorted) with each quote
beside the text it came from, so asked the other way round the quotes change
places with the memories.
"""

from __future__ import annotations

import hashlib
import json

from ... import records
from ...records import record
from ..claude import ClaudeError

VERDICTS = ("duplicate", "contradiction", "related", "unrelated")

OPINION_PROMPT = """You review the long-term memories AI coding agents keep about a codebase.
Compare memory A and memory B and decide which ONE of these holds:

- "duplicate": they state the same knowledge (perhaps in other words); one could replace the other.
- "contradiction": they are about the same subject but state conflicting facts (a different value, a different choice).
- "related": the same area of the codebase, but different knowledge; both are worth keeping, linked.
- "unrelated": nothing to consolidate.

Quote the sentences that decide it, word for word, from A and from B.
Answer with JSON only, no prose around it:
{{"verdict": "duplicate|contradiction|related|unrelated", "quoteA": "...", "quoteB": "...", "why": "one sentence"}}

<memory_a title={title_a}>
{body_a}
</memory_a>

<memory_b title={title_b}>
{body_b}
</memory_b>
"""


@record(frozen=True)
class Opinion:
    verdict: str
    quote_a: str
    quote_b: str
    why: str
    cached: bool = False

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "quoteA": self.quote_a, "quoteB": self.quote_b, "why": self.why}


def build_opinion_prompt(title_a: str, body_a: str, title_b: str, body_b: str) -> str:
    return OPINION_PROMPT.format(title_a=json.dumps(title_a), body_a=body_a[:12000], title_b=json.dumps(title_b), body_b=body_b[:12000])


def parse_opinion(text: str) -> Opinion:
    """Claude's answer as an Opinion; a ClaudeError naming what is wrong when it is not one."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ClaudeError("the answer holds no JSON object")
    try:
        data = json.loads(text[start : end + 1])
    except json.JSONDecodeError as exc:
        raise ClaudeError(f"the answer is not valid JSON ({exc.msg} at character {exc.pos})") from None
    except RecursionError:
        raise ClaudeError("the answer's JSON is nested too deeply to read") from None
    verdict = str(data.get("verdict", "")).strip().lower() if isinstance(data, dict) else ""
    if verdict not in VERDICTS:
        raise ClaudeError(f"the answer's verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
    return Opinion(verdict, str(data.get("quoteA", "")), str(data.get("quoteB", "")), str(data.get("why", "")))


# Part of every key: records of the code that kept quotes by the position they were asked in
# (``opinion A B`` then ``B A`` showed A's quote under B) are never read.
_RECORD_FORMAT = "quotes-by-text-order/2"


def pair_key(text_a: str, text_b: str, model: str) -> tuple[str, bool]:
    """The same two texts (in either order) and model give the same key; True when ``text_a`` is kept second.

    The record keeps the quote of the text that sorts first as ``quoteA``; a
    pair asked in the other order reads it with the quotes swapped.
    """
    swapped = text_b < text_a
    first, second = (text_b, text_a) if swapped else (text_a, text_b)
    digest = hashlib.sha256()
    for part in (_RECORD_FORMAT, model, first, second):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest(), swapped


def _swapped(opinion: Opinion) -> Opinion:
    """The same opinion with A and B exchanged (the quotes stay with the texts they came from)."""
    return records.replace(opinion, quote_a=opinion.quote_b, quote_b=opinion.quote_a)


def _cache_file():
    from ...disk import cache

    return cache.cache_dir() / "opinions.json"


def cached(key: str) -> Opinion | None:
    try:
        record = json.loads(_cache_file().read_text(encoding="utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(record, dict) or record.get("verdict") not in VERDICTS:
        return None
    return Opinion(record["verdict"], str(record.get("quoteA", "")), str(record.get("quoteB", "")), str(record.get("why", "")), cached=True)


def remember(key: str, opinion: Opinion) -> None:
    """Add the opinion to the cache file (written atomically; a cache that cannot be written is skipped)."""
    import os
    import tempfile

    path = _cache_file()
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
        records = records if isinstance(records, dict) else {}
    except (OSError, ValueError):
        records = {}
    records[key] = opinion.to_dict()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".opinions-", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(records, out)
        os.replace(temporary, path)
    except OSError:
        pass


def opinion_on(a, b, api_key: str | None, model: str, base_url: str | None = None) -> Opinion:
    """Claude's verdict on two memory files (their titles and every entry's body), cached by their texts."""
    from ...store.fold import effective_body
    from ...js.values import js_to_string

    def title(memory) -> str:
        return js_to_string(memory.effective()[0].get("title", ""))

    return second_opinion(title(a), a.text or "", effective_body(a), title(b), b.text or "", effective_body(b), api_key, model, base_url)


def second_opinion(
    title_a: str,
    text_a: str,
    body_a: str,
    title_b: str,
    text_b: str,
    body_b: str,
    api_key: str | None,
    model: str,
    base_url: str | None = None,
) -> Opinion:
    """Claude's verdict on the pair (from the cache when the two texts were asked about before)."""
    from ..claude import ask_claude

    key, swapped = pair_key(text_a, text_b, model)
    found = cached(key)
    if found is not None:
        return _swapped(found) if swapped else found
    opinion = parse_opinion(ask_claude(build_opinion_prompt(title_a, body_a, title_b, body_b), api_key, model, base_url))
    remember(key, _swapped(opinion) if swapped else opinion)  # kept in the key's order
    return opinion
