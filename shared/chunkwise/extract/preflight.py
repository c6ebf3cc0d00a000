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
- ODS: the rows and cells with a value of each visible table in ``content.xml``,
  streamed through the ZIP guard (lxml iterparse, each row cleared when read):
  repeated rows and cells (``number-rows-repeated``, ``number-columns-repeated``)
  count as often as they repeat when they hold a value, and a table whose style
  says ``table:display="false"`` is hidden and not counted;
- XLS (BIFF8): the cell records (NUMBER, RK, MULRK, LABEL, LABELSST, FORMULA,
  BOOLERR) of each visible worksheet in the OLE2 ``Workbook`` stream, found by the
  BOUNDSHEET records, and the distinct rows they are on; nothing is decoded;
- CSV/TSV: the line count and the widest of the first lines, and the bytes.

`estimated_chunks` turns that into chunks with deliberately low figures (at
least `MIN_CHARS_PER_CELL` characters of table text a cell, the caller's
characters per chunk high), so an estimate over the budget means the real count
is further over it; a document estimated under the budget is still checked
exactly after chunking. Pure functions of the bytes; the guard's caps hold.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from lxml.etree import XMLSyntaxError
from xlrd.compdoc import CompDocError

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


_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


def _repeat(element: object, name: str) -> int:
    try:
        return max(1, int(element.get(f"{{{_TABLE}}}{name}", "1")))  # type: ignore[attr-defined]
    except ValueError:
        return 1


def ods_extent(container: ZipContainer) -> TableExtent | None:
    """Rows and cells with a value of the visible tables of ``content.xml`` (see above)."""
    from lxml import etree

    class _Stream:
        def __init__(self) -> None:
            self.blocks = _blocks(container, "content.xml")

        def read(self, size: int = -1) -> bytes:
            return next(self.blocks, b"")

    hidden: set[str] = set()
    rows = cells = 0
    largest = ""
    table_rows = table_cells = 0
    skip = False
    events = ("start", "end")
    for event, el in etree.iterparse(_Stream(), events=events, huge_tree=False):
        tag = el.tag
        if event == "end" and tag == f"{{{_STYLE}}}table-properties":
            if el.get(f"{{{_TABLE}}}display") == "false":
                parent = el.getparent()
                if parent is not None:
                    hidden.add(parent.get(f"{{{_STYLE}}}name", ""))
        elif event == "start" and tag == f"{{{_TABLE}}}table":
            skip = el.get(f"{{{_TABLE}}}style-name", "") in hidden
            table_rows = table_cells = 0
        elif event == "end" and tag == f"{{{_TABLE}}}table-row":
            valued = 0
            for cell in el:
                if cell.get(f"{{{_OFFICE}}}value-type") is not None or len(cell):
                    valued += _repeat(cell, "number-columns-repeated")
            if valued and not skip:
                repeated = _repeat(el, "number-rows-repeated")
                table_rows += repeated
                table_cells += valued * repeated
            el.clear()
        elif event == "end" and tag == f"{{{_TABLE}}}table":
            if not skip:
                if table_rows > rows:
                    name = el.get(f"{{{_TABLE}}}name", "")
                    largest = f"sheet {name!r}: {table_rows:,} rows, {table_cells:,} cells"
                rows = max(rows, table_rows)
                cells += table_cells
            el.clear()
    if not cells:
        return None
    columns = -(-cells // max(rows, 1))
    return TableExtent(rows, columns, cells, cells * MIN_CHARS_PER_CELL, largest)


_BIFF_CELLS = {0x0203, 0x027E, 0x0204, 0x00FD, 0x0006, 0x0205}  # one cell each
_BIFF_MULRK = 0x00BD  # several RK cells: (length - 6) // 6
_BIFF_BOUNDSHEET = 0x0085
_BIFF_EOF = 0x000A


def xls_extent(data: bytes) -> TableExtent | None:
    """Cell records and their rows in the visible worksheets of a BIFF8 workbook."""
    import struct

    from xlrd.compdoc import CompDoc

    doc = CompDoc(data, logfile=io.StringIO())
    stream = doc.get_named_stream("Workbook") or doc.get_named_stream("Book")
    if not stream:
        return None
    sheets: list[tuple[str, int]] = []
    pos = 0
    while pos + 4 <= len(stream):  # the workbook globals, up to their EOF
        code, length = struct.unpack_from("<HH", stream, pos)
        body = stream[pos + 4 : pos + 4 + length]
        if code == _BIFF_BOUNDSHEET and len(body) >= 8:
            offset, visibility, kind = struct.unpack_from("<IBB", body, 0)
            if visibility == 0 and kind == 0:  # a visible worksheet
                sheets.append((_biff_name(body[6:]), offset))
        pos += 4 + length
        if code == _BIFF_EOF:
            break
    rows = cells = 0
    largest = ""
    for name, offset in sheets:
        seen: set[int] = set()
        count = 0
        pos = offset
        while pos + 4 <= len(stream):
            code, length = struct.unpack_from("<HH", stream, pos)
            if code in _BIFF_CELLS or code == _BIFF_MULRK:
                if length >= 2:
                    seen.add(struct.unpack_from("<H", stream, pos + 4)[0])
                count += 1 if code != _BIFF_MULRK else max(0, (length - 6) // 6)
            pos += 4 + length
            if code == _BIFF_EOF:
                break
        if len(seen) > rows:
            largest = f"sheet {name!r}: {len(seen):,} rows, {count:,} cells"
        rows = max(rows, len(seen))
        cells += count
    if not cells:
        return None
    columns = -(-cells // max(rows, 1))
    return TableExtent(rows, columns, cells, cells * MIN_CHARS_PER_CELL, largest)


def _biff_name(body: bytes) -> str:
    """A BOUNDSHEET's sheet name: its length, a flags byte (UTF-16 or Latin-1), the name."""
    if len(body) < 2:
        return ""
    size, flags = body[0], body[1]
    raw = body[2 : 2 + size * (2 if flags & 1 else 1)]
    return raw.decode("utf-16-le" if flags & 1 else "latin-1", "replace")


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
    """The declared size of an XLSX/XLSM, ODS, XLS or CSV/TSV file, or None (another format, or
    nothing declared). Never raises for a file it cannot read: extraction will say why."""
    try:
        if is_zip(data[:4]):
            container = ZipContainer.open(data, limits)
            if container.has("xl/workbook.xml"):
                return xlsx_extent(container)
            if container.has("content.xml") and _is_spreadsheet(container):
                return ods_extent(container)
            return None
        if data[:8] == _OLE2:
            return xls_extent(data)
        spec = REGISTRY.by_extension(extension(filename))
        if spec is not None and spec.format in (DocFormat.CSV, DocFormat.TSV):
            return delimited_extent(data)
    except (ExtractionError, zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
            struct.error, IndexError, XMLSyntaxError, CompDocError):  # fmt: skip
        return None  # damaged: extraction refuses it with its own typed error
    return None


_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"


def _is_spreadsheet(container: ZipContainer) -> bool:
    return container.has("mimetype") and container.read_head("mimetype", 128).startswith(
        _ODS_MIMETYPE
    )


def estimated_chunks(extent: TableExtent, chars_per_chunk: int) -> int:
    """Chunks the table makes at the least, by the low figures above."""
    return extent.chars // max(chars_per_chunk, 1)
