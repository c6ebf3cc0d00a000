"""One measured extraction, run in a fresh process: `python child.py TOOL PATH OUT`.

Writes {"text", "pages", "seconds", "rss_mib"} as JSON to OUT. The peak RSS
(VmHWM) is this process's, so each tool is measured alone. pymupdf4llm is
run by its own venv's python (it is AGPL: never imported by chunkwise, only
compared against here); that venv has nothing of chunkwise, so this file
imports chunkwise, pypdf and python-docx lazily, per tool.
"""

from __future__ import annotations

import io
import json
import resource
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

_SKIP = {"script", "style", "head"}
_BREAKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table"}


class _PlainHTML(HTMLParser):
    """Text of an HTML page as a plain tag stripper would give it (the baseline)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif tag in _BREAKS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append("\t")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _baseline(data: bytes, suffix: str) -> tuple[str, int]:
    if suffix == ".pdf":
        import pypdf

        reader = pypdf.PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
        return "\n\n".join(pages), len(pages)
    if suffix == ".docx":
        import docx

        document = docx.Document(io.BytesIO(data))
        parts = [p.text for p in document.paragraphs]
        for table in document.tables:
            parts.extend("\t".join(cell.text for cell in row.cells) for row in table.rows)
        return "\n".join(parts), 0
    parser = _PlainHTML()
    parser.feed(data.decode("utf-8", "replace"))
    return "".join(parser.parts), 0


def _chunkwise(data: bytes, name: str) -> tuple[str, int]:
    from chunkwise.extract import extract

    result = extract(data, filename=name)
    return result.text, int(result.report.pages or 0)


def _pymupdf4llm(path: Path) -> tuple[str, int]:
    import pymupdf  # type: ignore[import-not-found]
    import pymupdf4llm  # type: ignore[import-not-found]

    with pymupdf.open(path) as doc:
        pages = doc.page_count
    return str(pymupdf4llm.to_markdown(str(path), show_progress=False)), pages


def peak_rss_mib() -> float:
    """This program's peak RSS. VmHWM is reset by exec; ru_maxrss is not (on Linux it
    keeps the forking parent's peak, here the benchmark runner's)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    tool, path, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    data = path.read_bytes()
    start = time.perf_counter()
    if tool == "chunkwise":
        text, pages = _chunkwise(data, path.name)
    elif tool == "baseline":
        text, pages = _baseline(data, path.suffix.lower())
    elif tool == "pymupdf4llm":
        text, pages = _pymupdf4llm(path)
    else:
        raise SystemExit(f"unknown tool {tool}")
    seconds = time.perf_counter() - start
    rss_mib = peak_rss_mib()
    record = {"text": text, "pages": pages, "seconds": seconds, "rss_mib": rss_mib}
    out.write_text(json.dumps(record), encoding="ascii")  # escapes lone surrogates too
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
