"""Memories pane: every memory file, filterable and sortable."""
