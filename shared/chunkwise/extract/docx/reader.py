"""DOCX -> canonical text with python-docx, behind zip-bomb checks.

Before python-docx sees the bytes, the ZIP central directory is inspected:
member count, declared uncompressed size per member and in total, and the
compression ratio of each member are bounded (ExtractLimits). Declared sizes
are not trusted beyond that: ``ZipFile.read`` inflates a member's whole
compressed stream in one call and only then cuts it to the declared size, so a
member that declares 2 KB can still take gigabytes on the way. Every member is
therefore inflated here as a stream in small steps, its real size counted
against the same limits (a hard cap), and python-docx gets a stored (not
compressed) copy of the verified members. python-docx parses XML with entity
resolution off (no billion-laughs expansion).

Output: headings from the paragraph style (Title = level 1; Heading N or
outline level N-1 = N+1 when the document has a Title, else N; Subtitle is a
paragraph), with their number when the heading is numbered ("2.1 Auswahl");
paragraphs; list items (List styles or numbering: "-" for bullets, "N." for
numbered levels, two spaces per level); tables as GFM with every leading
w:tblHeader row combined into the header line (else the first row) and every
merged cell filled in each row and column it covers; a Caption paragraph
kept directly before its table (moved up when Word put it below).
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from chunkwise.canonical import escape_paragraph

from ..errors import (
    CorruptDocument,
    EmptyDocument,
    ExtractionError,
    LimitExceeded,
    UnsupportedFormat,
)
from ..limits import ExtractLimits
from ..model import ExtractionReport, TableInfo
from ..tables import (
    LAYOUT_SPACE,
    MAX_TABLE_COLUMNS,
    caption_paragraph,
    combine_header_rows,
    render_gfm,
)

_HEADING = re.compile(r"^(?:heading|überschrift)\s*(\d)$", re.IGNORECASE)
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MAX_LIST_DEPTH = 6  # two spaces per level: the chunker reads up to 12 as one list


#: Bytes inflated per step: zlib is never asked for more than this at once.
INFLATE_STEP = 64 * 1024


def check_container(data: bytes, limits: ExtractLimits) -> None:
    """Reject non-DOCX ZIPs and zip bombs from the central directory alone."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise CorruptDocument(f"not a readable ZIP container: {exc}") from None
    with zf:
        _check_directory(zf.infolist(), limits)


def inflate_container(data: bytes, limits: ExtractLimits) -> bytes:
    """The DOCX's members inflated as streams under a hard cap, re-packed stored.

    The central directory checks come first (cheap); then each member's real
    inflated size counts against ``max_member_bytes`` and, summed, against
    ``max_decompressed_bytes``: memory stays within the limits whatever the
    directory claims. A member whose stream does not match its declared size
    or CRC is a corrupt document.
    """
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise CorruptDocument(f"not a readable ZIP container: {exc}") from None
    out = io.BytesIO()
    total = 0
    with zf, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as repacked:
        infos = zf.infolist()
        _check_directory(infos, limits)
        for info in infos:
            if info.is_dir():
                continue
            content = _inflate_member(zf, info, limits, limits.max_decompressed_bytes - total)
            total += len(content)
            repacked.writestr(info.filename, content)
    return out.getvalue()


def _inflate_member(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: ExtractLimits, room: int
) -> bytes:
    buf = bytearray()
    try:
        with zf.open(info) as member:
            while step := member.read(INFLATE_STEP):
                buf += step
                if len(buf) > limits.max_member_bytes:
                    raise LimitExceeded(
                        "max_member_bytes",
                        limits.max_member_bytes,
                        len(buf),
                        f"{info.filename} inflates past the limit (zip bomb?)",
                    )
                if len(buf) > room:
                    raise LimitExceeded(
                        "max_decompressed_bytes",
                        limits.max_decompressed_bytes,
                        limits.max_decompressed_bytes - room + len(buf),
                        "DOCX members inflate too much (zip bomb?)",
                    )
    except ExtractionError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        # zipfile raises BadZipFile for a CRC or size mismatch, RuntimeError when encrypted
        raise CorruptDocument(
            f"DOCX member {info.filename} does not inflate as declared: {type(exc).__name__}"
        ) from None
    return bytes(buf)


def _check_directory(infos: list[zipfile.ZipInfo], limits: ExtractLimits) -> None:
    """Member count, DOCX-ness, declared sizes and ratios (cheap, before inflating)."""
    if len(infos) > limits.max_zip_members:
        raise LimitExceeded(
            "max_zip_members", limits.max_zip_members, len(infos), "too many ZIP entries"
        )
    names = {i.filename for i in infos}
    if "word/document.xml" not in names:
        kind = (
            "XLSX"
            if "xl/workbook.xml" in names
            else "PPTX"
            if "ppt/presentation.xml" in names
            else "ODF"
            if "mimetype" in names
            else "ZIP archive"
        )
        raise UnsupportedFormat(f"ZIP container is a {kind}, not a DOCX (no word/document.xml)")
    total = 0
    for info in infos:
        total += info.file_size
        if info.file_size > limits.max_member_bytes:
            raise LimitExceeded(
                "max_member_bytes",
                limits.max_member_bytes,
                info.file_size,
                f"{info.filename} would inflate to {info.file_size} bytes (zip bomb?)",
            )
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > 1_000_000 and ratio > limits.max_compression_ratio:
            raise LimitExceeded(
                "max_compression_ratio",
                limits.max_compression_ratio,
                round(ratio),
                f"{info.filename} compresses {ratio:.0f}:1 (zip bomb?)",
            )
    if total > limits.max_decompressed_bytes:
        raise LimitExceeded(
            "max_decompressed_bytes",
            limits.max_decompressed_bytes,
            total,
            "DOCX members inflate too much (zip bomb?)",
        )


def _text(value: str) -> str:
    return LAYOUT_SPACE.sub(" ", value).strip()


def _w(tag: str) -> str:
    return f"{_W}{tag}"


def _is_on(element: Any) -> bool:
    """An OOXML on/off property: present and not switched off by its value."""
    value = element.get(_w("val"))
    return value is None or value.lower() not in ("0", "false", "off")


def _int_property(parent: Any, tag: str, default: int) -> int:
    element = parent.find(_w(tag)) if parent is not None else None
    if element is None:
        return default
    try:
        return int(element.get(_w("val"), str(default)))
    except ValueError:
        return default


# --- headings and lists ------------------------------------------------------


class _StyleChains:
    """A paragraph's style and those it is based on (nearest first), per style id.

    python-docx looks a paragraph's style up anew on every access (scanning all
    styles for the default one); resolving each style id once keeps a long
    document linear.
    """

    def __init__(self) -> None:
        self._chains: dict[str | None, list[Any]] = {}

    def of(self, paragraph: Any) -> list[Any]:
        key = paragraph._p.style
        if key not in self._chains:
            style = paragraph.style
            chain: list[Any] = []
            while style is not None and len(chain) < 5:
                chain.append(style)
                style = style.base_style
            self._chains[key] = chain
        return self._chains[key]


def _style_names(chain: list[Any]) -> list[str]:
    return [str(style.name or "").strip() for style in chain]


def _is_subtitle(names: list[str]) -> bool:
    return bool(names) and names[0].lower() in ("subtitle", "untertitel")


def _is_title(chain: list[Any]) -> bool:
    names = _style_names(chain)
    return not _is_subtitle(names) and any(name.lower() == "title" for name in names)


def _heading_level(paragraph: Any, chain: list[Any], shift: int) -> int | None:
    """Title is level 1; Heading N (or outline level N-1) is N + shift, at most 6.

    `shift` is 1 when the document has a Title paragraph, so that Heading 1
    sections sit below the title in the heading path; without a Title,
    Heading 1 stays at level 1.
    """
    names = _style_names(chain)
    if _is_subtitle(names):
        return None  # a paragraph under the title, even where its style is based on Title
    for name in names:
        if name.lower() == "title":
            return 1
        m = _HEADING.match(name)
        if m:
            return min(6, max(1, int(m.group(1))) + shift)
    ppr = paragraph._p.pPr
    if ppr is not None:
        lvl = ppr.find(_w("outlineLvl"))
        if lvl is not None:
            try:
                outline = int(lvl.get(_w("val"), "9"))
            except ValueError:
                return None
            # outline level 9 is "body text" in OOXML
            return min(6, outline + 1 + shift) if 0 <= outline < 9 else None
    return None


def _is_caption(chain: list[Any]) -> bool:
    return bool(chain) and str(chain[0].name or "").lower() in ("caption", "beschriftung")


@dataclass(frozen=True)
class _Level:
    fmt: str  # w:numFmt: bullet, decimal, lowerLetter, upperRoman, none, ...
    start: int
    text: str  # w:lvlText: "%1.%2." for a second-level number


_ROMAN = (
    (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip


def _format_number(value: int, fmt: str) -> str:
    if fmt in ("lowerLetter", "upperLetter") and value > 0:
        letters = chr(ord("a") + (value - 1) % 26) * ((value - 1) // 26 + 1)
        return letters.upper() if fmt == "upperLetter" else letters
    if fmt in ("lowerRoman", "upperRoman") and 0 < value < 4000:
        out = ""
        for amount, digits in _ROMAN:
            while value >= amount:
                out, value = out + digits, value - amount
        return out.upper() if fmt == "upperRoman" else out
    if fmt == "decimalZero":
        return f"{value:02d}"
    return str(value)


class _Numbering:
    """Numbers of list items and headings from word/numbering.xml.

    Word keeps the numbers out of the text; they are counted here per list
    (w:num) and level, a deeper level restarting under each new parent item.
    """

    def __init__(self, document: Any) -> None:
        self._levels: dict[tuple[str, int], _Level] = {}
        self._counters: dict[tuple[str, int], int] = {}
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            return  # no numbering part: every list item is a bullet
        abstract: dict[str, dict[int, _Level]] = {}
        for an in root.iterchildren(_w("abstractNum")):
            levels: dict[int, _Level] = {}
            for lvl in an.iterchildren(_w("lvl")):
                fmt = lvl.find(_w("numFmt"))
                text = lvl.find(_w("lvlText"))
                levels[_int_attr(lvl, "ilvl")] = _Level(
                    fmt.get(_w("val"), "bullet") if fmt is not None else "bullet",
                    _int_property(lvl, "start", 1),
                    text.get(_w("val"), "") if text is not None else "",
                )
            abstract[an.get(_w("abstractNumId"), "")] = levels
        for num in root.iterchildren(_w("num")):
            ref = num.find(_w("abstractNumId"))
            levels = abstract.get(ref.get(_w("val"), "") if ref is not None else "", {})
            for ilvl, level in levels.items():
                self._levels[(num.get(_w("numId"), ""), ilvl)] = level

    def _level(self, num_id: str, ilvl: int) -> _Level:
        return self._levels.get((num_id, ilvl), _Level("bullet", 1, ""))

    def _advance(self, num_id: str, ilvl: int) -> None:
        for key in [k for k in self._counters if k[0] == num_id and k[1] > ilvl]:
            del self._counters[key]  # a deeper level restarts under a new parent item
        start = self._level(num_id, ilvl).start
        self._counters[(num_id, ilvl)] = self._counters.get((num_id, ilvl), start - 1) + 1

    def _value(self, num_id: str, ilvl: int) -> int:
        return self._counters.get((num_id, ilvl), self._level(num_id, ilvl).start)

    def marker(self, num_id: str, ilvl: int) -> str:
        """A list item's marker: "-" for bullets, "N." for any numbered level."""
        if self._level(num_id, ilvl).fmt in ("bullet", "none"):
            return "-"
        self._advance(num_id, ilvl)
        return f"{self._value(num_id, ilvl)}."

    def label(self, num_id: str, ilvl: int) -> str:
        """A numbered heading's number as Word shows it ("2.6."), or ""."""
        level = self._level(num_id, ilvl)
        if level.fmt in ("bullet", "none") or not level.text:
            return ""
        self._advance(num_id, ilvl)

        def number(m: re.Match[str]) -> str:
            k = int(m.group(1)) - 1
            return _format_number(self._value(num_id, k), self._level(num_id, k).fmt)

        return _LVL_PLACEHOLDER.sub(number, level.text).strip()


_LVL_PLACEHOLDER = re.compile(r"%([1-9])")


def _int_attr(element: Any, name: str) -> int:
    try:
        return int(element.get(_w(name), "0"))
    except ValueError:
        return 0


# "List Bullet 2", "Liste 2", "Listenabsatz", "Aufzählungszeichen"; not "Listing" (code)
_LIST_STYLE = re.compile(r"^(?:list(?!ing)|aufzählung).*?(\d)?$", re.IGNORECASE)


def _list_item(paragraph: Any, chain: list[Any]) -> tuple[str, int, int] | None:
    """(numbering id, numbering level, depth) of a list paragraph, or None.

    Numbering comes from the paragraph (w:numPr) or its style; numId 0 switches
    numbering off. Word's "List Bullet 2"-style names give the depth where the
    numbering level does not (they use their own list at level 0).
    """
    names = _style_names(chain)
    num_id, ilvl = _numbering_of(paragraph._p.pPr)
    for style in chain:
        if num_id is not None:
            break
        num_id, style_ilvl = _numbering_of(style.element.pPr)
        ilvl = ilvl if ilvl is not None else style_ilvl
    if num_id == "0":
        return None
    depth = ilvl or 0
    style_match = _LIST_STYLE.match(names[0]) if names else None
    if style_match and style_match.group(1):
        depth = max(depth, int(style_match.group(1)) - 1)
    if num_id is None and style_match is None:
        return None
    return num_id or "", ilvl or 0, min(depth, _MAX_LIST_DEPTH)


def _numbering_of(ppr: Any) -> tuple[str | None, int | None]:
    numpr = ppr.find(_w("numPr")) if ppr is not None else None
    if numpr is None:
        return None, None
    num = numpr.find(_w("numId"))
    lvl = numpr.find(_w("ilvl"))
    num_id = num.get(_w("val")) if num is not None else None
    return num_id, (_int_attr(lvl, "val") if lvl is not None else None)


# --- tables --------------------------------------------------------------------


@dataclass
class _GridRow:
    cells: list[str]  # one entry per grid column, merged cells filled
    repeats_as_header: bool  # w:trPr/w:tblHeader
    single_spanning_cell: bool  # one cell over several columns (a group label row)


def _row_cells(tr: Any) -> Iterator[Any]:
    """The w:tc of a row, also those wrapped in content controls or custom XML."""
    for child in tr.iterchildren():
        if child.tag == _w("tc"):
            yield child
        elif child.tag in (_w("sdt"), _w("customXml")):
            content = child.find(_w("sdtContent")) if child.tag == _w("sdt") else child
            if content is not None:
                yield from _row_cells(content)


def _table_rows_xml(tbl: Any) -> Iterator[Any]:
    for child in tbl.iterchildren():
        if child.tag == _w("tr"):
            yield child
        elif child.tag in (_w("sdt"), _w("customXml")):
            content = child.find(_w("sdtContent")) if child.tag == _w("sdt") else child
            if content is not None:
                yield from _table_rows_xml(content)


def _cell_text(tc: Any, parent: Any) -> str:
    """Every paragraph of the cell (nested tables included), one line."""
    from docx.text.paragraph import Paragraph

    parts: list[str] = []
    for p in tc.iter(_w("p")):
        if any(a.tag == _w("txbxContent") for a in p.iterancestors()):
            continue  # text boxes are stored twice (drawing and VML fallback)
        parts.append(Paragraph(p, parent).text)
    return _text(" ".join(parts))


def _grid_rows(table: Any) -> list[_GridRow]:
    """The table on its layout grid, every merged cell filled with its value.

    A cell spanning columns (w:gridSpan) gives its text to each column it
    covers; a cell continuing a vertical merge (w:vMerge without "restart")
    takes the value of the cell above. So every row reads alone: "10 GB" is in
    both rows of a storage cell merged over two plans.
    """
    rows: list[_GridRow] = []
    above: list[str] = []
    for tr in _table_rows_xml(table._tbl):
        trpr = tr.find(_w("trPr"))
        header = trpr is not None and any(_is_on(e) for e in trpr.iterchildren(_w("tblHeader")))
        cells = [""] * min(max(0, _int_property(trpr, "gridBefore", 0)), MAX_TABLE_COLUMNS)
        tcs = list(_row_cells(tr))
        span = 1
        for tc in tcs:
            if len(cells) >= MAX_TABLE_COLUMNS:
                break
            tcpr = tc.find(_w("tcPr"))
            span = max(1, min(_int_property(tcpr, "gridSpan", 1), MAX_TABLE_COLUMNS))
            vmerge = tcpr.find(_w("vMerge")) if tcpr is not None else None
            col = len(cells)
            if vmerge is not None and vmerge.get(_w("val"), "continue") != "restart":
                cells += [above[c] if c < len(above) else "" for c in range(col, col + span)]
            else:
                cells += [_cell_text(tc, table)] * span
        cells = cells[:MAX_TABLE_COLUMNS]
        rows.append(_GridRow(cells, header, len(tcs) == 1 and span > 1))
        above = cells
    return rows


def _table_grid(table: Any) -> tuple[list[str], list[list[str]], int] | None:
    """(header, data rows, number of source header rows), or None if empty.

    The header is every leading row marked to repeat as header (w:tblHeader),
    combined column by column into one header line; without such rows it is
    the first row. A row that is one cell across the whole width (a group
    label, or a title as the only header row) is written once, in its first
    column; above further header rows it names every column.
    """
    grid = [r for r in _grid_rows(table) if any(r.cells)]
    if not grid:
        return None
    width = max(len(r.cells) for r in grid)
    marked = 0
    while marked < len(grid) and grid[marked].repeats_as_header:
        marked += 1
    count = max(1, marked)
    lines: list[list[str]] = []
    for i, row in enumerate(grid):
        cells = row.cells + [""] * (width - len(row.cells))
        spans_all = row.single_spanning_cell and len(set(cells)) == 1 and width > 1
        if spans_all and (i >= count or count == 1):
            cells = [cells[0]] + [""] * (width - 1)
        lines.append(cells)
    return combine_header_rows(lines[:count]), lines[count:], count


class _Body:
    """Blocks of the canonical text, each with its kind, in document order."""

    def __init__(self, numbering: _Numbering, styles: _StyleChains, heading_shift: int) -> None:
        self.blocks: list[str] = []
        self.kinds: list[str] = []
        self.header_rows: list[int] = []  # per table block, in order
        self.numbering = numbering
        self.styles = styles
        self.heading_shift = heading_shift
        self.pending_caption: str | None = None

    def add(self, block: str, kind: str) -> None:
        self.blocks.append(block)
        self.kinds.append(kind)

    def flush_caption(self, kind: str = "para") -> None:
        if self.pending_caption is not None:
            text = self.pending_caption
            self.add(caption_paragraph(text) if kind == "caption" else text, kind)
            self.pending_caption = None

    def paragraph(self, paragraph: Any) -> None:
        text = _text(paragraph.text)
        if not text:
            return
        chain = self.styles.of(paragraph)
        if _is_caption(chain):
            if self.kinds and self.kinds[-1] == "table":
                # Word put the caption below the table: move it above.
                table_block = self.blocks.pop()
                self.kinds.pop()
                self.add(caption_paragraph(text), "caption")
                self.add(table_block, "table")
            else:
                self.pending_caption = text
            return
        self.flush_caption()
        level = _heading_level(paragraph, chain, self.heading_shift)
        item = _list_item(paragraph, chain)
        if level is not None:
            number = self.numbering.label(item[0], item[1]) if item is not None else ""
            self.add("#" * level + " " + (f"{number} {text}" if number else text), "heading")
        elif item is not None:
            num_id, ilvl, depth = item
            line = f"{'  ' * depth}{self.numbering.marker(num_id, ilvl)} {text}"
            if self.kinds and self.kinds[-1] == "list":
                self.blocks[-1] += "\n" + line
            else:
                self.add(line, "list")
        else:
            self.add(escape_paragraph(text), "para")

    def table(self, table: Any) -> None:
        grid = _table_grid(table)
        self.flush_caption("caption")
        if grid is not None:
            header, rows, header_rows = grid
            self.add(render_gfm(header, rows), "table")
            self.header_rows.append(header_rows)


def _is_toc_part(sdt: Any) -> bool:
    """A content control holding Word's table of contents (docPartGallery)."""
    gallery = sdt.find(f"{_w('sdtPr')}/{_w('docPartObj')}/{_w('docPartGallery')}")
    return gallery is not None and "contents" in (gallery.get(_w("val")) or "").lower()


def _body_content(document: Any, styles: _StyleChains) -> Iterator[Any]:
    """Paragraphs and tables of the body in order, also those inside content
    controls (w:sdt: Word's cover pages put Title and Subtitle there) and custom
    XML, but not a table of contents (it repeats the headings as entries)."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    body = document._body

    def walk(parent: Any) -> Iterator[Any]:
        for child in parent.iterchildren():
            if child.tag == _w("p"):
                paragraph = Paragraph(child, body)
                names = _style_names(styles.of(paragraph))
                if not (names and _TOC_STYLE.match(names[0])):
                    yield paragraph
            elif child.tag == _w("tbl"):
                yield Table(child, body)
            elif child.tag == _w("sdt") and not _is_toc_part(child):
                content = child.find(_w("sdtContent"))
                if content is not None:
                    yield from walk(content)
            elif child.tag == _w("customXml"):
                yield from walk(child)

    yield from walk(body._element)


# Entries of a table of contents (Word "TOC 1", LibreOffice "Contents 1",
# German "Verzeichnis 1") and its heading ("TOC Heading", "Contents Heading").
_TOC_STYLE = re.compile(
    r"^(?:toc|contents|verzeichnis|inhaltsverzeichnis)\s*(?:\d|heading|überschrift)",
    re.IGNORECASE,
)


def _open(data: bytes) -> Any:
    import docx

    try:
        return docx.Document(io.BytesIO(data))
    except ExtractionError:
        raise
    except Exception as exc:  # python-docx/lxml/zipfile raise many types
        raise CorruptDocument(f"DOCX could not be opened: {type(exc).__name__}: {exc}") from None


def extract_docx(data: bytes, *, report: ExtractionReport, limits: ExtractLimits) -> str:
    data = inflate_container(data, limits)
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = _open(data)
    try:
        styles = _StyleChains()
        content = list(_body_content(document, styles))
    except Exception as exc:
        raise CorruptDocument(f"DOCX body could not be read: {type(exc).__name__}: {exc}") from None
    has_title = any(isinstance(e, Paragraph) and _is_title(styles.of(e)) for e in content)
    body = _Body(_Numbering(document), styles, heading_shift=1 if has_title else 0)
    for element in content:
        if isinstance(element, Paragraph):
            body.paragraph(element)
        elif isinstance(element, Table):
            body.table(element)
    body.flush_caption()

    text = "\n\n".join(body.blocks)
    if not text.strip():
        raise EmptyDocument("the DOCX has no text in its body")
    _report_tables(body, report)
    return text + "\n"


def _report_tables(body: _Body, report: ExtractionReport) -> None:
    offset = 0
    header_rows = iter(body.header_rows)
    for idx, (block, kind) in enumerate(zip(body.blocks, body.kinds, strict=True)):
        if kind == "table":
            first = block.split("\n", 1)[0]
            caption = ""
            if idx > 0 and body.kinds[idx - 1] == "caption":
                caption = body.blocks[idx - 1]
            report.tables.append(
                TableInfo(
                    index=len(report.tables),
                    header=first,
                    header_rows=next(header_rows),
                    columns=max(1, first.count(" | ") + 1),
                    rows=max(0, block.count("\n") - 1),
                    caption=caption,
                    start=offset,
                    end=offset + len(block),
                )
            )
        offset += len(block) + 2
    report.tables_found = len(report.tables)
