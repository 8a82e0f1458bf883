"""Memory view pane: one file's fields, entries, lint findings and body."""
