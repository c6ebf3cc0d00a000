"""The declared size of a table document, read before it is extracted.

The ingest pipeline refuses a document whose chunks would exceed its per-document
budget (``max_chunks_per_document``), but a spreadsheet or CSV only shows how many
chunks it makes after it was read and chunked: a 100,000-row x 10-column XLSX
took a minute and 1 GB to be refused. `table_extent` reads what the file declares
about its size without reading its rows:

- XLSX/XLSM: the rows and the cells with a value of each visible worksheet,
  counted in its XML as one stream of blocks through the ZIP guard (nothing
  kept; the sheet list and its hidden states from ``xl/workbook.xml`` and its
  relationships). A declared ``<dimension>`` is not used: openpyxl's write-only
  mode writes none, and a styled empty range inflates it;
- CSV/TSV: the line count and the widest of the first lines, and the bytes.

`estimated_chunks` turns that into chunks with deliberately low figures (at
least `MIN_CHARS_PER_CELL` characters of table text a cell, the caller's
characters per chunk high), so an estimate over the budget means the real count
is further over it; a document estimated under the budget is still checked
exactly after chunking. Pure functions of the bytes; the guard's caps hold.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .containers import ZipContainer, is_zip
from .errors import ExtractionError
from .formats import REGISTRY
from .limits import ExtractLimits
from .model import DocFormat
from .sniff import extension

#: Table text a non-empty cell costs at the least: its value and the " | " around it.
MIN_CHARS_PER_CELL = 6
_BLOCK = 1 << 20
_SHEET_TAGS = (b"<row ", b"</v>", b"</is>")
_SHEET = re.compile(rb"<(?:\w+:)?sheet\b[^>]*>")
_RELATIONSHIP = re.compile(rb"<(?:\w+:)?Relationship\b[^>]*>")
_DELIMITERS = (b";", b",", b"\t", b"|")
_SAMPLE_LINES = 20


@dataclass(frozen=True)
class TableExtent:
    """What a table file declares about its size."""

    rows: int
    columns: int
    cells: int  # cells taken to hold a value (declared, capped as above)
    chars: int  # table text it makes at the least
    basis: str  # where the figures come from, for the refusal's message


def _attr(tag: bytes, name: bytes) -> str:
    m = re.search(rb"\b" + name + rb'="([^"]*)"', tag)
    return m.group(1).decode("utf-8", "replace") if m else ""


def visible_sheets(workbook_xml: bytes, rels_xml: bytes) -> list[tuple[str, str]]:
    """(name, part path) of the visible sheets a workbook lists, in its order."""
    targets = {}
    for tag in _RELATIONSHIP.findall(rels_xml):
        target = _attr(tag, b"Target")
        path = target.lstrip("/") if target.startswith("/") else "xl/" + target
        targets[_attr(tag, b"Id")] = path
    out = []
    for tag in _SHEET.findall(workbook_xml):
        if _attr(tag, b"state") in ("hidden", "veryHidden"):
            continue
        rid = _attr(tag, b"r:id") or _attr(tag, b"id")
        if rid in targets:
            out.append((_attr(tag, b"name"), targets[rid]))
    return out


def count_tags(blocks: Iterable[bytes], patterns: tuple[bytes, ...]) -> list[int]:
    """Occurrences of each pattern in a stream of blocks (a match may span two blocks)."""
    counts = [0] * len(patterns)
    keep = max(len(p) for p in patterns) - 1
    tail = b""
    for block in blocks:
        buf = tail + block
        for i, pattern in enumerate(patterns):
            counts[i] += buf.count(pattern) - tail.count(pattern)
        tail = buf[-keep:] if keep else b""
    return counts


def _blocks(container: ZipContainer, path: str) -> Iterator[bytes]:
    info = container.archive.NameToInfo[path]
    left = info.file_size  # the guard checked the declared size; read no more than it
    with container.archive.open(info) as member:
        while left > 0 and (block := member.read(min(_BLOCK, left))):
            left -= len(block)
            yield block


def xlsx_extent(container: ZipContainer) -> TableExtent | None:
    """Rows and cells with a value of the visible sheets, counted in their XML: the
    ``<row`` elements and the values (``</v>``, inline ``</is>``), one pass each,
    nothing kept (about 0.25 s for a 50 MB sheet part)."""
    sheets = visible_sheets(
        container.read_head("xl/workbook.xml", 1 << 20),
        container.read_head("xl/_rels/workbook.xml.rels", 1 << 20),
    )
    rows = cells = 0
    largest = ""
    for name, path in sheets:
        if not container.has(path):
            continue
        sheet_rows, values, inline = count_tags(_blocks(container, path), _SHEET_TAGS)
        if sheet_rows > rows:
            largest = f"sheet {name!r}: {sheet_rows:,} rows, {values + inline:,} cells"
        rows = max(rows, sheet_rows)
        cells += values + inline
    if not cells:
        return None
    columns = -(-cells // max(rows, 1))
    return TableExtent(rows, columns, cells, cells * MIN_CHARS_PER_CELL, largest)


def delimited_extent(data: bytes) -> TableExtent:
    """Lines, the widest of the first lines by its most frequent delimiter, and the text's
    size (a UTF-16/32 file has two or four bytes a character)."""
    width = 4 if data[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff") else 1
    if width == 1 and data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        width = 2
    sample = data[: 64 * 1024]
    if width > 1:
        sample = sample.replace(b"\x00", b"")
    lines = sample.split(b"\n")[:_SAMPLE_LINES]
    columns = max(
        (max(line.count(d) for d in _DELIMITERS) + 1 for line in lines if line.strip()),
        default=1,
    )
    rows = data.count(b"\n" if width == 1 else "\n".encode("utf-16-le")) + 1
    chars = (len(data) - (width if width > 1 else 0)) // width  # without the BOM
    return TableExtent(rows, columns, rows * columns, chars, f"{rows:,} lines of {columns} columns")


def table_extent(data: bytes, filename: str | None, limits: ExtractLimits) -> TableExtent | None:
    """The declared size of an XLSX/XLSM or CSV/TSV file, or None (another format, or
    nothing declared). Never raises for a file it cannot read: extraction will say why."""
    try:
        if is_zip(data[:4]):
            container = ZipContainer.open(data, limits)
            if not container.has("xl/workbook.xml"):
                return None
            return xlsx_extent(container)
        spec = REGISTRY.by_extension(extension(filename))
        if spec is not None and spec.format in (DocFormat.CSV, DocFormat.TSV):
            return delimited_extent(data)
    except (ExtractionError, zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError):
        return None  # damaged: extraction refuses it with its own typed error
    return None


def estimated_chunks(extent: TableExtent, chars_per_chunk: int) -> int:
    """Chunks the table makes at the least, by the low figures above."""
    return extent.chars // max(chars_per_chunk, 1)
