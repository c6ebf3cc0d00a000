"""DOCX extraction time on a generated long document (CPU seconds, best of N).

The document (python-docx, deterministic): 300 headings on three levels, each
followed by ten paragraphs and a bullet item, and a 300 x 6 table; about 3,600
paragraphs and 450,000 characters of canonical text. CPU time of
``chunkwise.extract`` in this process (``time.process_time``), so other load on
the shared machine affects it less than wall time.

    python -m bench.extract_docx [--repeat 3] [--out bench/results/extract_docx.md]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

from chunkwise.extract import extract


def long_document() -> bytes:
    import docx

    d = docx.Document()
    for i in range(300):
        d.add_heading(f"Abschnitt {i}", level=1 + i % 3)
        for j in range(10):
            d.add_paragraph(f"Absatz {j} mit etwas Text über Pumpen und Filter " * 3)
        d.add_paragraph("Punkt", style="List Bullet")
    table = d.add_table(rows=300, cols=6)
    for row in table.rows:
        for cell in row.cells:
            cell.text = "Zelle"
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", help="also write the result line to this Markdown file")
    args = ap.parse_args(argv)
    data = long_document()
    best = float("inf")
    chars = 0
    for _ in range(args.repeat):
        t0 = time.process_time()
        result = extract(data, filename="long.docx")
        best = min(best, time.process_time() - t0)
        chars = len(result.text)
    line = f"| long.docx | {len(data) // 1024} KiB | {chars} | {best:.2f} |"
    head = "| document | size | canonical chars | CPU s (best) |\n| --- | --- | --- | --- |\n"
    table = head + line
    print(table)
    if args.out:
        Path(args.out).write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
