"""Score breakdown pane: why the highlighted memory was (not) injected, and the prompt."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.widgets import Static, TabbedContent, TabPane, TextArea, Tree

from ....core.arbiters.decision import Candidate, Preview, explain_candidate
from ....core.arbiters.explain import (
    COMPONENT,
    FAILED_MARK,
    GATE,
    INFO,
    MATCHED_MARK,
    NOT_TRIED_MARK,
    PATTERN,
    SCORE,
    UNDECIDED_MARK,
    Explanation,
)
from ...redraw import update_in_place
from ...safe import clean, literal

_MARK_STYLE = {MATCHED_MARK: "green", FAILED_MARK: "red", NOT_TRIED_MARK: "dim", UNDECIDED_MARK: "bold yellow"}


def node_label(node: Explanation) -> Text:
    label = Text(no_wrap=False)
    if node.kind in (COMPONENT, SCORE):
        label.append(f"{node.value:>4g}  ", "bold cyan" if node.value else "dim")
    elif node.kind == INFO and not node.undecided:
        label.append("· ", "dim")
    else:
        # matched, failed, not tried (a pattern after the one that matched), or undecided: neither a match nor no match
        label.append(f"{node.marker} ", _MARK_STYLE[node.marker])
    label.append_text(literal(node.description, "" if node.kind != INFO else "italic", limit=2000))
    return label


def highlighted_task(preview: Preview, candidate: Candidate) -> Text:
    """The searched text (task + agent) with the matched part of the winning pattern highlighted."""
    text = preview.search_text
    shown = Text()
    shown.append("Searched: ", "bold")
    span = None
    for result in candidate.patterns:
        if result.matched and result.span:
            span = result.span
    if span is None:
        shown.append_text(literal(text, limit=2000))
        return shown
    start, end = span
    shown.append_text(literal(text[:start], limit=1000))
    shown.append_text(literal(text[start:end] or "∅", "bold black on green", limit=1000))
    shown.append_text(literal(text[end:], limit=1000))
    return shown


class Breakdown(Vertical):
    """The explanation tree of the highlighted memory, and the injected prompt."""

    BORDER_TITLE = "4 Why"

    _shown: tuple[str, str, Explanation] | None = None  # the memory, title and explanation the tree shows
    _prompt: str | None = None  # the prompt its tab shows, written there once the tab is shown

    def compose(self) -> ComposeResult:
        with TabbedContent(id="breakdown-tabs"):
            with TabPane("Why", id="tab-why"):
                yield Static(id="why-task")
                tree: Tree[Explanation] = Tree("", id="why-tree")
                tree.show_root = True
                tree.guide_depth = 3
                yield tree
            with TabPane("Prompt", id="tab-prompt"):
                yield TextArea("", id="prompt-text", read_only=True, soft_wrap=True, show_line_numbers=False)

    def show(self, preview: Preview | None, candidate: Candidate | None) -> None:
        tree = self.query_one("#why-tree", Tree)
        task_view = self.query_one("#why-task", Static)
        if preview is None or candidate is None:
            tree.clear()
            self._shown = None
            tree.root.set_label(Text("Highlight a memory to see why it was or was not injected.", "dim"))
            update_in_place(task_view, "")
            return
        explanation = explain_candidate(preview, candidate)
        shown = (candidate.path, candidate.title or candidate.file.name, explanation)
        # a ranking shown while keys arrive often explains the highlighted memory as the last one did: the tree
        # stays, or takes its new labels in place (a rebuild lays the screen out again: a full redraw under the next key)
        if shown != self._shown:
            title = Text()
            title.append_text(literal(shown[1], "bold", limit=300))
            title.append("  ")
            title.append_text(node_label(explanation))
            if self._shown is None or self._shown[0] != candidate.path or not _relabelled(tree, title, explanation):
                tree.clear()
                tree.root.set_label(title)
                self._add(tree.root, explanation.details)
                tree.root.expand_all()
            self._shown = shown
        update_in_place(task_view, highlighted_task(preview, candidate) if candidate.loaded else Text(""))

    def _add(self, parent, details: tuple[Explanation, ...]) -> None:
        for detail in details:
            if detail.details:
                branch = parent.add(node_label(detail), data=detail, expand=True)
                self._add(branch, detail.details)
            else:
                parent.add_leaf(node_label(detail), data=detail)

    def show_prompt(self, prompt: str) -> None:
        """The injected prompt, in its tab: written there when the tab is shown (a new text lays the screen out
        again, a full redraw under the next key, for a tab no one is looking at)."""
        self._prompt = clean(prompt) if prompt else "(nothing is injected: the prompt gets no memory block)"
        if self.query_one(TabbedContent).active == "tab-prompt":
            self._write_prompt()

    def _write_prompt(self) -> None:
        area = self.query_one("#prompt-text", TextArea)
        if self._prompt is not None and area.text != self._prompt:
            area.text = self._prompt

    @on(TabbedContent.TabActivated, "#breakdown-tabs")
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-prompt":
            self._write_prompt()

    def show_tab(self, tab: str) -> None:
        if tab == "tab-prompt":
            self._write_prompt()  # before the tab is drawn
        self.query_one(TabbedContent).active = tab


def _relabelled(tree: Tree, title: Text, explanation: Explanation) -> bool:
    """Whether the tree shown took ``explanation``'s labels in place, as a rebuild would show them: it has the
    same shape and every branch open (its width becomes its widest new line's, as a rebuild measures it). Else
    nothing is changed. A rebuild lays the screen out again: a full redraw under the next key."""
    relabel: list[tuple] = [(tree.root, title, tree.root.data, 0)]

    def same_shape(node, details: tuple[Explanation, ...], depth: int) -> bool:
        children = node.children
        if len(children) != len(details):
            return False
        for child, detail in zip(children, details):
            if child.allow_expand != bool(detail.details) or (detail.details and not child.is_expanded):
                return False
            relabel.append((child, node_label(detail), detail, depth))
            if not same_shape(child, detail.details, depth + 1):
                return False
        return True

    if not tree.root.is_expanded or not same_shape(tree.root, explanation.details, 1):
        return False
    # a line's width: its guides (guide_depth cells a level, the root's own line has none) and its label; the
    # widths now must add up to the tree's width, else this is not how the tree measures them
    now = [depth * tree.guide_depth + tree.get_label_width(node) for node, _, _, depth in relabel]
    if not tree.show_root or max(now) != tree.virtual_size.width:
        return False
    after = [width - node.label.cell_len + tree.process_label(label).cell_len for width, (node, label, _, _) in zip(now, relabel)]
    for node, label, detail, _ in relabel:
        node.data = detail
        if label != node.label:
            node.set_label(label)
    if max(after) != max(now):  # what the tree's own measure would give: its scrollbars follow it
        tree.virtual_size = Size(max(after), tree.virtual_size.height)
    return True


__all__ = ["Breakdown", "GATE", "PATTERN"]
