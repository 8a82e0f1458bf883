"""Memory view pane: one file's fields, entries, lint findings and body."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Markdown, Static

from ....core.curation.entries import entry_stamp, related_of
from ....core.record.history import FileHistory
from ....core.js.values import display_value
from ....core.lint.findingcolumns import findings_on
from ....core.lint.linter import Finding
from ....core.text.markdownhidden import hidden_parts
from ....core.text.safetext import inline
from ....core.store.reading import MemoryFile
from ...keys import shown_keys
from ..rowtable import RowTable
from ...safe import cell, clean, literal

# Above this the body is shown as plain text: parsing a huge Markdown document would stall the UI.
MARKDOWN_LIMIT = 50_000
PLAIN_LIMIT = 20_000
LINE_LIMIT = 2_000
_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
MAX_HIDDEN_SHOWN = 20


def visible_markdown():
    """Textual's Markdown widget drops raw HTML (every HTML block and inline tag: comments, ``<div hidden>``,
    ``<details>``) and link reference definitions, all of which the arbiter injects into agents' prompts. This
    parser keeps every byte on screen: an HTML block is shown as an ``html`` code block, inline HTML as inline
    code, a link reference definition as the text it is."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("gfm-like")
    parser.disable("reference")

    def show_html(state) -> None:
        for token in state.tokens:
            if token.type == "html_block":
                token.type, token.info, token.markup = "fence", "html", "```"
            elif token.type == "inline" and token.children:
                for child in token.children:
                    if child.type == "html_inline":
                        child.type = "code_inline"

    parser.core.ruler.push("show_html", show_html)
    return parser


class MemoryView(VerticalScroll):
    """The selected memory. Everything from the file is shown literally."""

    BORDER_TITLE = "2 Memory"
    memory: MemoryFile | None = None
    findings: list[Finding] | None = None

    class RelatedChosen(Message):
        """Enter on one of the shown memory's related memories (``relatedMemories``): go to it."""

        def __init__(self, control: Widget, name: str) -> None:
            super().__init__()
            self._control = control
            self.name = name

        @property
        def control(self) -> Widget:
            return self._control

    def compose(self) -> ComposeResult:
        yield Static(id="memory-header")
        yield Static(id="memory-views", classes="note")
        fields = DataTable(id="memory-fields", cursor_type="none", show_cursor=False)
        fields.can_focus = False  # nothing to choose in it: Tab goes on to the related memories and the commits
        yield fields
        related = RowTable(id="memory-related", cursor_type="row")
        related.display = False
        yield related
        yield Static(id="memory-timeline")
        yield Static(id="memory-history")
        commits = RowTable(id="memory-commits", cursor_type="row")
        commits.display = False
        yield commits
        yield Static(id="memory-findings")
        yield Static(id="memory-hidden")
        yield Markdown(id="memory-body", open_links=False, parser_factory=visible_markdown)
        yield Static(id="memory-body-plain")

    memory: MemoryFile | None = None
    history: FileHistory | None = None  # the shown memory's git record, once it has arrived

    def show(self, memory: MemoryFile | None, findings: list[Finding]) -> None:
        if memory is not self.memory:
            self.history = None  # another file: its record is read anew
        self.memory = memory
        self.findings = findings  # the store's findings this view was drawn with
        header = self.query_one("#memory-header", Static)
        if memory is None:
            header.update(Text("No memory selected.", style="dim"))
            return
        attrs = memory.attrs
        title = attrs.get("title") if isinstance(attrs.get("title"), str) else memory.name
        head = Text()
        head.append_text(literal(title, "bold", limit=500))
        head.append("\n")
        head.append_text(literal(memory.rel_path, "dim"))
        mine = findings_on(findings, memory.rel_path)
        for finding in mine:
            # said at the top, not only among the findings: this text reaches agents' prompts
            if finding.code == "prompt-injection":
                head.append("\n⚠ possible prompt injection" + (f", line {finding.line}" if finding.line else "") + ": ", "bold white on red")
                head.append_text(literal(finding.message, "bold red", limit=300))
        header.update(head)
        self._show_views(memory)
        self._show_fields(memory)
        self._show_related(memory)
        self._show_timeline(memory, self.history)  # drawn again (new findings): the record it had stays
        self._show_findings(mine)
        self._show_hidden(memory)
        self._show_body(memory)
        self.scroll_home(animate=False)

    def show_history(self, history: FileHistory | None) -> None:
        """The file's git record: its badge, which commit added each entry, and its commits."""
        self.history = history
        text = history_text(history)
        commits = history.commits if history else []
        if commits:
            keys = " or ".join(shown_keys(self.app, type(self.app), "focus-commits") + ["Tab"])
            text.append(f"\nCommits below: {keys} reaches the list, Enter on a commit shows its diff.", "dim")
        self.query_one("#memory-history", Static).update(text)
        if self.memory is not None and history is not None:
            self._show_timeline(self.memory, history)
        table = self.query_one("#memory-commits", DataTable)
        table.clear(columns=True)
        table.display = bool(commits)
        if not commits:
            return
        table.add_column("Commit", key="sha", width=9)
        table.add_column("When (UTC)", key="when", width=17)
        table.add_column("Author", key="author", width=14)
        table.add_column("Message", key="subject", width=40)
        for commit in reversed(commits):
            table.add_row(cell(commit.sha[:8], "bold"), cell(_when(commit.timestamp)), cell(commit.author), cell(commit.subject), key=commit.sha)

    def _show_views(self, memory: MemoryFile) -> None:
        note = Text()
        if memory.symlink:
            note.append("A symlink: not read (the spec's loader skips it, and it may point outside the store).", "magenta")
        elif memory.error is not None:
            note.append("Cannot be read as a memory: ", "bold red")
            note.append_text(literal(str(memory.error)))
        elif not memory.top_level:
            note.append("In a subfolder: a SPEC-0007 arbiter does not load it (top level only).", "magenta")
        if memory.differs_from_entries:
            effective, origin = memory.effective()
            hidden = [k for k in effective if origin[k] > 0 and attrs_differ(memory.attrs, k, effective[k])]
            if note:
                note.append("\n")
            note.append(f"{len(memory.entries)} entries. ", "bold cyan")
            note.append("The spec's arbiter reads only entry 1's frontmatter and injects the rest as body text.")
            if hidden:
                note.append("\nIt never sees: ")
                note.append_text(literal(", ".join(f"{k}: {display_value(effective[k])} (entry {origin[k] + 1})" for k in hidden), "yellow", limit=500))
        self._set(self.query_one("#memory-views", Static), note)

    def _show_fields(self, memory: MemoryFile) -> None:
        table = self.query_one("#memory-fields", DataTable)
        # columns are rebuilt for each memory: an auto-width column only ever grows
        table.clear(columns=True)
        table.add_column("Field", key="field", width=14)
        table.add_column("Value", key="value", width=32)
        table.add_column("Set by", key="entry", width=8)
        effective, origin = memory.effective()
        for key, value in effective.items():
            spec_value = memory.attrs.get(key, None)
            style = "" if origin[key] == 0 else "yellow"
            table.add_row(cell(key, "bold"), cell(display_value(value), style, limit=300), cell(f"entry {origin[key] + 1}", "dim"))
            if origin[key] > 0 and key in memory.attrs and attrs_differ(memory.attrs, key, value):
                table.add_row(cell(""), cell(f"spec view: {display_value(spec_value)}", "dim", limit=300), cell("entry 1", "dim"))

    def _show_related(self, memory: MemoryFile) -> None:
        """The memories its ``relatedMemories`` names: Tab reaches the list, Enter goes to one."""
        table = self.query_one("#memory-related", DataTable)
        table.clear(columns=True)
        related = related_of(memory) if memory.error is None and memory.spec is not None else []
        table.display = bool(related)
        if not related:
            return
        table.add_column("Related memories (Enter goes to one)", key="name", width=48)
        for name in related:
            table.add_row(cell(name, limit=200), key=name)

    @on(DataTable.RowSelected, "#memory-related")
    def _related_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.RelatedChosen(self, event.row_key.value))

    def _show_timeline(self, memory: MemoryFile, history: FileHistory | None = None) -> None:
        """Each entry with its date and author: its own fields, else the commit that added it (git's author)."""
        lines = Text()
        if len(memory.entries) > 1:
            lines.append("Entries\n", "bold")
            commits = history.entry_commits if history is not None else []
            not_theirs = history.entry_not_written_by_committer if history is not None else []
            for entry in memory.entries:
                fm = entry.frontmatter or {}
                when, who = entry_stamp(fm)
                commit = commits[entry.index] if entry.index < len(commits) else None
                foreign = entry.index < len(not_theirs) and not_theirs[entry.index]
                when_text = display_value(when) if when is not None else (_when(commit.timestamp) + " (commit)" if commit else "no date")
                if who is not None:
                    who_text = display_value(who)
                elif commit is not None:
                    # another writer's bytes the committer chose to include: theirs to commit, not to sign
                    who_text = f"another writer (committed by {commit.author}, who did not write it)" if foreign else f"{commit.author} (commit)"
                else:
                    who_text = "author unknown"
                lines.append(f"  {entry.index + 1}. line {entry.line}  ", "cyan")
                lines.append_text(literal(f"{when_text} · {who_text} · sets {', '.join(fm) or 'nothing'}", limit=300))
                lines.append("\n")
        self._set(self.query_one("#memory-timeline", Static), lines)

    def _show_findings(self, mine: list[Finding]) -> None:
        """The memory's own findings (``mine``)."""
        text = Text()
        if mine:
            text.append("Lint\n", "bold")
            for finding in mine:
                text.append(f"  {finding.severity:<7} ", _SEVERITY_STYLE[finding.severity])
                if finding.line:
                    text.append(f"line {finding.line}: ", "dim")
                text.append_text(literal(finding.message, limit=1000))
                text.append(f" [{finding.code}]\n", "dim")
        self._set(self.query_one("#memory-findings", Static), text)

    def _show_hidden(self, memory: MemoryFile) -> None:
        """What a rendered Markdown view hides and the agent reads, marked above the body (which shows it in place)."""
        parts = hidden_parts(memory.text) if memory.text is not None else []
        text = Text()
        if parts:
            text.append("⚠ Hidden in a rendered Markdown view, read by agents", "bold yellow")
            text.append(" (shown in the body below as code)\n", "dim")
            for part in parts[:MAX_HIDDEN_SHOWN]:
                text.append(f"  line {part.line}: ", "yellow")
                text.append(f"{part.kind}: ", "dim")
                text.append_text(literal(inline(part.text, 300)))
                text.append("\n")
            if len(parts) > MAX_HIDDEN_SHOWN:
                text.append(f"  and {len(parts) - MAX_HIDDEN_SHOWN} more\n", "dim")
        self._set(self.query_one("#memory-hidden", Static), text)

    @staticmethod
    def _set(widget: Static, text: Text) -> None:
        widget.display = bool(text.plain)
        widget.update(text)

    def _show_body(self, memory: MemoryFile) -> None:
        markdown = self.query_one("#memory-body", Markdown)
        plain = self.query_one("#memory-body-plain", Static)
        parts = []
        for entry in memory.entries:
            if entry.index > 0:
                parts.append(f"\n\n---\n\n*Entry {entry.index + 1}*\n\n")
            parts.append(entry.body)
        body = "".join(parts)
        if memory.text is None:
            body = ""
        if len(body) <= MARKDOWN_LIMIT:
            markdown.display = True
            plain.display = False
            markdown.update(clean(body))
        else:
            markdown.display = False
            plain.display = True
            note = Text(f"The body is {len(body):,} characters; showing the first {PLAIN_LIMIT:,} as plain text.\n\n", "yellow")
            lines = (line if len(line) <= LINE_LIMIT else line[:LINE_LIMIT] + "…" for line in body[:PLAIN_LIMIT].split("\n"))
            note.append_text(literal("\n".join(lines)))
            plain.update(note)


_BADGES = {
    "verified": ("✓ append-only, verified", "bold green"),
    "violated": ("✗ append-only rule broken", "bold red"),
    "uncommitted-append": ("● uncommitted append", "yellow"),
    "uncommitted-rewrite": ("✗ uncommitted rewrite", "bold red"),
    "untracked": ("○ not committed yet", "yellow"),
    "not-a-repo": ("not a git repository: history unavailable", "magenta"),
}


def _when(timestamp: int) -> str:
    import time as _time

    return _time.strftime("%Y-%m-%d %H:%M", _time.gmtime(timestamp))


def history_text(history: FileHistory | None) -> Text:
    text = Text()
    if history is None:
        text.append("History: reading git…", "dim")
        return text
    label, style = _BADGES.get(history.badge, (history.badge, ""))
    text.append("History  ", "bold")
    text.append(label, style)
    text.append("  ")
    text.append_text(literal(history.detail, "dim", limit=300))
    for index, commit in enumerate(history.entry_commits):
        text.append(f"\n  entry {index + 1}: ", "cyan")
        if commit is None:
            text.append("not committed yet", "yellow")
        else:
            text.append(f"added in {commit.sha[:8]} ", "bold")
            foreign = index < len(history.entry_not_written_by_committer) and history.entry_not_written_by_committer[index]
            by = f"committed by {commit.author}, not written by them," if foreign else f"by {commit.author}"
            text.append_text(literal(f"{by} on {_when(commit.timestamp)}", limit=200))
    return text


class CommitRow:
    """What a commit row of the history table refers to (the app opens its diff)."""

    def __init__(self, sha: str, path: str) -> None:
        self.sha = sha
        self.path = path


def attrs_differ(attrs: dict, key: str, value: object) -> bool:
    return key not in attrs or display_value(attrs[key]) != display_value(value)
