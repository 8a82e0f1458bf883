"""Consolidation: which memories say the same thing, which conflict, which belong together, which are stale.

- ``evidence``: what one memory says, as typed terms, paths, identifiers and stated values;
- ``similarity``: term weights learned from the store and the candidate pairs (sparse, fast at 10,000);
- ``pairs``: judging one pair (thresholds chosen on ``bench/data/consolidation.yaml``);
- ``queue``: the consolidation queue, stale memories, and the closest memories to a new one;
- ``opinion``: Claude's second opinion on a pair (optional).
"""

# The kinds of candidate, in the order a reviewer sees them: the one list the app's filter (f) and
# `rawko-tui candidates --kind` both offer (here, so that the command line reads it without the queue's imports).
KINDS = ("near-duplicate", "contradiction", "related", "stale", "unused")
