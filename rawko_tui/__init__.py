"""rawko-tui: review, debug and preview the long-term memories of rawko agents."""

__version__ = "0.1.0"
