"""Text as such, below everything: untrusted text made safe for a terminal, common English words, what a Markdown renderer hides, prompt size in tokens."""
