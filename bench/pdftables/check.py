"""Score the generated PDFs (generate.py): every expected row line present, every table
headed by the real header.

    python -m bench.pdftables.check [DIR]   # default .local/pdftables/
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from chunkwise.extract import extract

PATHS = [
    "/usr/lib/x86_64-linux-gnu/pkgconfig/",
    "/usr/share/doc/libreoffice-common/README",
    "/etc/systemd/system/multi-user.target.wants/",
    "~/.config/autostart/org.example-agent.desktop",
]


def expected(name: str) -> tuple[list[str], str]:
    """The row lines a case must yield, and how its header line starts."""
    if name.startswith(("continued", "stranded")):
        n = 90 if "no-repeat" in name else 120 if "repeat" in name else 12
        rows = [f"| pkg{i:03d} | {i}.{i % 7} | {i * 13} kB | sec{i % 5} |" for i in range(1, n + 1)]
        return rows, "| Package |"
    if name.startswith("doubled"):
        rows = [
            f"| E{i:03d} | meaning of E{i:03d} | E{i + 100:03d} | meaning of E{i + 100:03d} |"
            for i in range(1, 81)
        ]
        return rows, "| Code |"
    return [], "| Variable |"


def check(path: Path) -> tuple[int, int, bool]:
    text = extract(path.read_bytes(), filename=path.name).text
    tables = [t.strip().split("\n") for t in re.findall(r"((?:^\|.*\|\n?)+)", text, re.M)]
    lines = {ln for t in tables for ln in t}
    rows, head = expected(path.stem)
    if rows:
        found = sum(1 for r in rows if r in lines)
    else:
        rows = PATHS
        found = sum(1 for p in PATHS if p in text)
    return found, len(rows), all(t[0].startswith(head) for t in tables) and bool(tables)


def main(argv: list[str]) -> None:
    folder = Path(argv[0]) if argv else Path(".local/pdftables")
    total = got = 0
    for path in sorted(folder.glob("*.pdf")):
        found, want, headed = check(path)
        got, total = got + found, total + want
        print(f"{path.stem:32} {found:4}/{want:<4} headers {'ok' if headed else 'WRONG'}")
    print(f"all {got}/{total}")


if __name__ == "__main__":
    main(sys.argv[1:])
