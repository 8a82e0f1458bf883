"""The arbiters rawko-tui reproduces, one profile each, and how each decides.

Modules: ``profiles`` (the dimensions and the built-ins), ``loaders`` (each
loader's reading of the store), ``patterns`` (``matchPattern`` step by step),
``scoring`` (``scoreMemoryRelevance``), ``decision`` (the decision model and
each memory's decision), ``rankindex`` and ``rankcache`` (the arbiter at
scale), ``spec0005`` (the unscored selector), ``planprompt`` (rawko-sdk's
planning prompt), ``formatters`` (the injected prompt), ``ranking`` (the
entry point), ``compare`` (where profiles disagree) and ``explain`` (the one
tree every decision is explained with).  This file imports none of them.
"""
