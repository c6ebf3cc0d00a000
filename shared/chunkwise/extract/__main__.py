"""``python -m chunkwise.extract``: print the blocks the docs take from the format registry.

Paste each between its markers in samdocs/extraction.md and README.md; a unit
test fails while they differ.
"""

from __future__ import annotations

from .formats import REGISTRY

BLOCKS = {"formats-table": REGISTRY.docs_table, "formats-list": REGISTRY.readme_list}

if __name__ == "__main__":  # pragma: no cover - a developer's command
    for name, render in BLOCKS.items():
        print(f"<!-- {name}:begin -->\n{render()}\n<!-- {name}:end -->\n")
