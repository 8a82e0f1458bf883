"""Random but reproducible memory stores and tasks, for comparing with the oracle."""

from __future__ import annotations

import random
from pathlib import Path


WORDS = (
    "auth authentication login oauth token jwt session password hash bcrypt middleware express route "
    "error exception handler database schema migration test flaky ci pipeline deploy cache redis "
    "review standards quality structure planning code patterns implementation validation api user"
).split()
AGENTS = ["planner", "developer", "tester", "reviewer", "memory-extractor", "Developer"]
TAG_POOL = ["planning", "structure", "analysis", "implementation", "code", "patterns", "testing", "validation", "quality", "review", "standards", "auth", "failures"]


def write_store(root: Path, files: dict[str, str | bytes], agents: dict[str, str] | None = None) -> Path:
    """Make ``root/.rawko/memories/<name>`` for each file (str is written as UTF-8, bytes as is)."""
    memories = root / ".rawko" / "memories"
    memories.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = memories / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8", "surrogatepass"))
    for name, content in (agents or {}).items():
        agent_dir = root / ".rawko" / "agents"
        agent_dir.mkdir(parents=True, exist_ok=True)
        (agent_dir / f"{name}.md").write_text(content, encoding="utf-8")
    return root


def _pattern(rng: random.Random) -> str:
    w = lambda: rng.choice(WORDS)  # noqa: E731
    kind = rng.randrange(14)
    if kind == 0:
        return w()
    if kind == 1:
        return "|".join(w() for _ in range(rng.randint(2, 4)))
    if kind == 2:
        return f"{w()}|{w()}.*{w()}"
    if kind == 3:
        return f"{w()}*{w()}"
    if kind == 4:
        return f"{w()[:3]}?{w()[3:5]}"
    if kind == 5:
        return f"{w()}.{{0,{rng.randint(1, 20)}}}{w()}"
    if kind == 6:
        return f"({w()}.{{1"  # invalid regex: falls through to substring
    if kind == 7:
        return f"When working on {w()}"
    if kind == 8:
        return f"  {w().upper()}|{w().title()}  "
    if kind == 9:
        return rng.choice([r"\d{2}.{0,3}" + w(), "[a-f]{2}.x", r"\bauth.{0,4}", "^add.{0,30}" + w(), w() + ".{0,9}$", r"(\w+).{0,3}\1"])
    if kind == 10:
        return f"*{w()}"
    if kind == 11:
        return rng.choice(["impl*(", "a[*b", "x?(?:y", "te?t*", "?"])
    if kind == 12:
        return f"{w()} {w()}"
    return f"{w()}|"  if rng.random() < 0.15 else w()


def _when(rng: random.Random) -> str:
    patterns = [_pattern(rng) for _ in range(rng.randint(1, 3))]
    quoted = [_yaml_str(p) for p in patterns]
    style = rng.randrange(3)
    if style == 0 and len(patterns) == 1:
        return quoted[0]
    if style == 1:
        return "[" + ", ".join(quoted) + "]"
    return "\n" + "\n".join(f"  - {q}" for q in quoted)


def _yaml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _date(rng: random.Random, now_ms: float) -> str | None:
    from datetime import datetime, timezone

    kind = rng.randrange(9)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice(['"yesterday"', "2026-13-45", '"2026-02-30"', "not a date", "42"])
    hours = rng.choice([0.5, 10, 23.99, 24, 25, 48, 71.9, 72, 100, 24 * 30, -5])
    stamp = datetime.fromtimestamp(now_ms / 1000 - hours * 3600, tz=timezone.utc)
    if kind == 2:
        return '"' + stamp.strftime("%Y-%m-%dT%H:%M:%S") + '"'  # no offset: local time
    if kind == 3:
        return stamp.strftime("%Y-%m-%d")
    if kind == 4:
        return '"' + stamp.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + 'Z"'
    if kind == 5:
        return stamp.strftime("%Y-%m-%d %H:%M:%S")
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def _body(rng: random.Random) -> str:
    paragraphs = []
    for _ in range(rng.randint(1, 8)):
        paragraphs.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40))))
    kind = rng.randrange(6)
    if kind == 0:
        paragraphs.insert(rng.randint(0, len(paragraphs)), "# A first-level heading")
    elif kind == 1:
        paragraphs.append("emoji 😀🎉 at the end " * rng.randint(10, 40))
    elif kind == 2:
        paragraphs.insert(0, "# Title heading first")
    elif kind == 3:
        paragraphs.append("```yaml\n---\nkey: value\n---\n```")
    body = "\n\n".join(paragraphs)
    if rng.random() < 0.2:
        body = "\n  \n" + body  # blank lines right after the closing delimiter
    return body + "\n"


def random_memory(rng: random.Random, now_ms: float) -> str:
    title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
    if rng.random() < 0.2:
        title = title.title() + rng.choice(["", " — ünïcode", " (v2)", " 😀"])
    fields = [f"title: {_yaml_str(title)}", f"whenToUse: {_when(rng)}"]
    tags = rng.randrange(5)
    if tags == 0:
        fields.append("tags: [" + ", ".join(rng.choice(TAG_POOL) for _ in range(rng.randint(1, 5))) + "]")
    elif tags == 1:
        fields.append("tags: []")
    elif tags == 2:
        fields.append("tags:")
    elif tags == 3:
        fields.append("tags: [code, code, code, code]")
    importance = rng.choice(["low", "medium", "high", "critical", "high", "medium", "High", "urgent", None])
    if importance:
        fields.append(f"importance: {importance}")
    date = _date(rng, now_ms)
    if date is not None:
        fields.append(f"discoveredAt: {date}")
    by = rng.choice(AGENTS + [None, "42"])
    if by is not None:
        fields.append(f"discoveredBy: {by}")
    rng.shuffle(fields)
    text = "---\n" + "\n".join(fields) + "\n---\n\n" + _body(rng)
    if rng.random() < 0.2:  # SPEC-0005 append
        text += "\n\n---\ntitle: " + _yaml_str(title) + "\nimportance: critical\n---\n\n" + _body(rng)
    if rng.random() < 0.08:
        text = text.replace("\n", "\r\n")
    if rng.random() < 0.05:
        text = "\ufeff" + text
    return text


def random_store(root: Path, seed: int, now_ms: float, size: int | None = None) -> Path:
    rng = random.Random(seed)
    files = {}
    for i in range(size or rng.randint(3, 25)):
        name = rng.choice(["", "A-", "z-", "0", "é-", "_"]) + f"{rng.choice(WORDS)}-{i}.md"
        files[name] = random_memory(rng, now_ms)
    return write_store(root, files)


def random_task(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(0, 9))]
    if rng.random() < 0.3:
        words = [w.upper() if rng.random() < 0.3 else w for w in words]
    task = " ".join(words)
    if rng.random() < 0.2:
        task = "  " + task
    if rng.random() < 0.2:
        task += " \n"
    if rng.random() < 0.1:
        task += " implement the auth flow: ID 12 ünïcode"
    return task


SDK_TAG_POOL = ["Testing", "QUALITY", "Validation", "architecture", "Development", "tests", "Code-Review", "API", "auth", "Code", "Patterns", "planning"]
SHORT_WORDS = ["add", "api", "jwt", "fix", "db", "ci", "the", "for", "an", "use", "new"]


def sdk_entry(rng: random.Random, now_ms: float, title: str | None = None) -> dict:
    """One memory as rawko-sdk's extraction produces it (frontmatter values, then formatMemoryFile writes it)."""
    from datetime import datetime, timezone

    words = WORDS + SHORT_WORDS
    title = title or " ".join(rng.choice(words) for _ in range(rng.randint(2, 6))).capitalize()
    hours = rng.choice([0.5, 10, 23.99, 25, 48, 71.9, 80, 24 * 30, -5])
    stamp = datetime.fromtimestamp(now_ms / 1000 - hours * 3600, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    frontmatter = {
        "title": title,
        "whenToUse": [_pattern(rng) for _ in range(rng.randint(1, 3))] if rng.random() < 0.8 else _pattern(rng),
        "tags": [rng.choice(SDK_TAG_POOL) for _ in range(rng.randint(0, 4))],
        "importance": rng.choice(["low", "medium", "high", "critical"]),
        "discoveredAt": stamp,
        "discoveredBy": rng.choice(AGENTS[:4]),
    }
    if rng.random() < 0.3:
        frontmatter["discoveredIn"] = f"run-{rng.randrange(1000)}"
    content = _body(rng)
    if rng.random() < 0.3:
        content = "  " + content + "\n\n  "  # white space the loader trims
    return {"frontmatter": frontmatter, "content": content}


def sdk_style_files(rng: random.Random, now_ms: float, count: int) -> list[dict]:
    """Files as rawko-sdk writes them: each one entry, or several joined by appendMemory's separator."""
    files = []
    for _ in range(count):
        first = sdk_entry(rng, now_ms)
        entries = [first] + [sdk_entry(rng, now_ms, first["frontmatter"]["title"]) for _ in range(rng.choice([0, 0, 0, 1, 2]))]
        files.append({"entries": entries})
    return files


def sdk_task(rng: random.Random) -> str:
    """A task with short words (which rawko-sdk never counts) and, at times, white space around it."""
    words = [rng.choice(WORDS + SHORT_WORDS * 2) for _ in range(rng.randint(0, 8))]
    task = " ".join(w.capitalize() if rng.random() < 0.2 else w for w in words)
    if rng.random() < 0.3:
        task = " " + task
    if rng.random() < 0.2:
        task += "  "
    return task


def disagreeing_memories() -> dict[str, str]:
    """Five memories on which the three arbiter profiles disagree for "add an api to find the login" (tester)."""
    from conftest import memory

    return {
        "adding-api.md": memory(title="Adding an API for the Login handler", when='"login"', tags="[code]", importance="high"),
        "tester-tags.md": memory(title="Flaky login tests", when='"login"', tags="[Testing, QUALITY, Validation]", importance="medium"),
        "capital.md": memory(title="Login rate limits", when='"login"', tags="[auth]", importance="High"),
        "regex.md": memory(title="Finder", when='"find.*login|locate.*module"', tags="[code]", importance="low"),
        "no-tags.md": memory(title="Login session cookie", when='"login"', tags=None, importance="critical"),
    }
