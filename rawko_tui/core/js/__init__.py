"""JavaScript as the arbiters run it: values and ``String(x)``, ``Date.parse``, regular expressions, and both YAML dialects (js-yaml, npm ``yaml`` 2)."""
