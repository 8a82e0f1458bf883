"""Score breakdown pane: why the highlighted memory was (not) injected, and the prompt."""
