"""The Textual app: a thin layer over ``rawko_tui.core``."""
