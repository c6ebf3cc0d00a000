"""PDF -> canonical text with pdfplumber (pdfminer.six) and pypdfium2.

Per page: text lines in reading order (top to bottom, single column), tables
found by their ruling lines and rendered as GFM tables, headings from font
size, list items from bullet glyphs, captions kept directly before their table,
running headers/footers and page numbers removed, a `## Page N` anchor first.

Across pages: a table that ends a page and continues as the first block of
the next page (same column count and column boundaries) is stitched into ONE
table with ONE header row; a repeated header row is dropped, a first row of
data is kept as data. The whole table is emitted after the anchor of the page
where it starts (no anchors inside a table); its page range is in the report.

Pages without any vector path (so without ruled tables) are read with PDFium
(pypdfium2, ~5x faster end to end) through the same grouping rules; pages
with paths go through pdfplumber's table finder.

Pages without a text layer are listed in the report; with an OCR port their
rendered image is transcribed into a `### Page N (transcribed by OCR)` section.

This module opens the document, reads its pages, assembles, stitches and
renders them; characters become lines in `pdf_rows`, ruled tables are found in
`pdf_ruled`, and lines become headings, paragraphs and list items in `pdf_blocks`.
"""

from __future__ import annotations

import io
import itertools
import re
import time
from collections import Counter
from collections.abc import Container
from dataclasses import dataclass
from typing import Any

from chunkwise import progress
from chunkwise.canonical import escape_paragraph, page_anchor, transcribed_heading

from ..errors import CorruptDocument, EncryptedDocument, ExtractionError, LimitExceeded
from ..limits import ExtractLimits
from ..model import ExtractionReport, TableInfo
from ..ocr import OcrPort
from ..tables import caption_paragraph, is_caption
from . import pdfium
from .blocks import (
    attach_captions,
    captions_below,
    group,
    heading_levels,
    heading_rules,
    running_keys,
    strip_running,
)
from .columns import reading_order
from .decor import overlaid_spaces
from .fonts import fixed_pitch_fonts
from .hyphen import learn
from .items import Item, PageContent
from .lines import Line, is_mono_font, join_baselines, release_glyphs
from .marked import hidden_groups, names_hidden, tex_source_strings, visible_text
from .pdfium import has_paths, open_pdfium, read_page_fast
from .rows import WS, join_accents, text_lines, upright_mirrored
from .symbols import FontCache, PageSymbols
from .tables.aligned import find_aligned_tables
from .tables.banded import find_banded_tables
from .tables.frames import horizontal_rules
from .tables.image_rules import has_rule_images, with_image_rules
from .tables.ruled import find_ruled_tables
from .tables.stitch import StitchedTable, stitch_tables

_LIST_MARKER = re.compile(r"^[-*+]\s")
_CID = re.compile(r"\(cid:\d+\)")
_CID_BULLET = re.compile(r"^\(cid:\d+\)\s+(?=\S)")
# Slot 32 is the space slot: TeX's typewriter fonts draw a visible space there
# ("\abkii AB" in a verbatim example), which has no Unicode mapping; it parts words.
_CID_SPACE = re.compile(r"\(cid:32\)")
_MAX_OCR_PIXELS = 4000


def _read_page(
    page: Any, hidden: frozenset[int] = frozenset(), symbols: PageSymbols | None = None
) -> tuple[list[Line], list[Item], bool, bool]:
    """Text lines outside tables, table items, has_text, has_images."""
    page = visible_text(page, hidden)
    if symbols is not None:  # after visible_text: it makes the page's layout itself
        symbols.restore_chars(page.chars)
    upright_mirrored(page.chars)
    page = join_accents(with_image_rules(page))
    overlaid = overlaid_spaces(page.chars)
    if overlaid:  # spaces drawn over glyphs split words ("chromiu m")
        page = page.filter(lambda obj: id(obj) not in overlaid)
    ruled = find_ruled_tables(page)
    lines = text_lines(ruled.text_page)
    has_text = bool(lines) or bool(ruled.tables)
    has_images = bool(page.images)
    return lines, ruled.tables, has_text, has_images


def _render_ocr(text: str, number: int) -> str:
    paras = [WS.sub(" ", p).strip() for p in re.split(r"\n\s*\n", text.replace("\r", ""))]
    body = "\n\n".join(re.sub(r"^(#+)", r"\\\1", p) for p in paras if p)
    heading = transcribed_heading(number)
    return heading + ("\n\n" + body if body else "")


def _page_png(data: bytes, index: int) -> bytes:
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    pdf = pdfium.PdfDocument(data)
    try:
        page = pdf[index]
        width, height = page.get_size()
        # 144 dpi, but never more than _MAX_OCR_PIXELS on the long side: a huge
        # page box must not turn into a multi-GB bitmap.
        scale = min(2.0, _MAX_OCR_PIXELS / max(float(width), float(height), 1.0))
        image = page.render(scale=scale).to_pil()
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        return buf.getvalue()
    finally:
        pdf.close()


def _open(data: bytes) -> Any:
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfplumber.utils.exceptions import PdfminerException

    try:
        try:
            pdf = pdfplumber.open(io.BytesIO(data))
            _ = pdf.pages  # force the page tree (and decryption) now
        except PdfminerException as wrapped:  # pdfplumber wraps pdfminer's errors
            cause = wrapped.args[0] if wrapped.args else None
            if isinstance(cause, Exception):
                raise cause from None
            raise
    except PDFPasswordIncorrect:
        raise EncryptedDocument("the PDF needs a user password to be opened") from None
    except PDFEncryptionError as exc:
        raise EncryptedDocument(f"unsupported PDF encryption: {exc}") from None
    except PDFSyntaxError as exc:
        raise CorruptDocument(f"PDF syntax error: {exc}") from None
    except ExtractionError:
        raise
    except Exception as exc:  # pdfminer raises many types on broken files
        raise CorruptDocument(f"PDF could not be parsed: {type(exc).__name__}: {exc}") from None
    return pdf


def extract_pdf(
    data: bytes,
    *,
    report: ExtractionReport,
    limits: ExtractLimits,
    ocr: OcrPort | None,
    deadline: float,
    fast_text: bool = True,
) -> str:
    """`fast_text`: read pages without vector paths with PDFium (same output rules)."""
    pdf = _open(data)
    try:
        return _extract(pdf, data, report, limits, ocr, deadline, fast_text)
    except ExtractionError:
        raise
    except RecursionError:
        raise CorruptDocument("PDF structure nested too deeply") from None
    except Exception as exc:
        raise CorruptDocument(f"PDF could not be read: {type(exc).__name__}: {exc}") from None
    finally:
        pdf.close()


def _extract(
    pdf: Any,
    data: bytes,
    report: ExtractionReport,
    limits: ExtractLimits,
    ocr: OcrPort | None,
    deadline: float,
    fast_text: bool,
) -> str:
    n_pages = len(pdf.pages)
    if n_pages == 0:
        raise CorruptDocument("the PDF has no pages")
    if n_pages > limits.max_pages:
        raise LimitExceeded("max_pages", limits.max_pages, n_pages, "too many PDF pages")
    report.pages = n_pages
    if getattr(pdf.doc, "encryption", None):
        report.warnings.append("PDF is encrypted with an empty user password; read anyway")

    fast = open_pdfium(data) if fast_text else None
    report_fast: list[int] = []
    skipped: list[int] = []  # per page: glyphs the fast reader could not map
    raw: list[tuple[int, float, list[Line], list[Item], bool, bool]] = []
    hidden = hidden_groups(pdf.doc)
    fixed_pitch: set[str] = set()  # typewriter fonts by their widths, filled page by page
    try:
        readers = (fast, hidden, fixed_pitch)
        _read_all(pdf, readers, raw, (report_fast, skipped), limits, n_pages, deadline)
    finally:
        if fast is not None:
            fast.close()
    report.page_readers = {"pdfium": len(report_fast), "pdfplumber": n_pages - len(report_fast)}
    if sum(skipped):
        report.warnings.append(f"{sum(skipped)} glyphs without a Unicode mapping dropped (PDFium)")
    return _assemble(raw, data, report, limits, ocr, fixed_pitch)


def _read_all(
    pdf: Any,
    readers: tuple[Any, frozenset[int], set[str]],
    raw: list[tuple[int, float, list[Line], list[Item], bool, bool]],
    counts: tuple[list[int], list[int]],
    limits: ExtractLimits,
    n_pages: int,
    deadline: float,
) -> None:
    fast, hidden, fixed_pitch = readers  # PDFium's document (or None); hidden layers; fonts
    fonts_seen: dict[int, str | None] = {}
    fonts = FontCache()
    for index, page in enumerate(pdf.pages):
        if time.monotonic() > deadline:
            raise LimitExceeded(
                "max_seconds",
                limits.max_seconds,
                round(limits.max_seconds + time.monotonic() - deadline, 1),
                f"stopped at page {index + 1} of {n_pages}",
            )
        fast_page = fast[index] if fast is not None else None
        read = _read_one(page, fast_page, hidden, fonts.page_symbols(page.page_obj))
        fixed_pitch |= fixed_pitch_fonts(page.page_obj.resources, fonts_seen)
        lines, tables, rules, has_images = read.lines, read.tables, read.rules, read.has_images
        report_fast, skipped = counts
        if read.fast:
            report_fast.append(index + 1)
        skipped.append(read.unmapped)
        lines = join_baselines(reading_order(lines, float(page.width)))
        tables = _aligned_tables(lines, tables, index + 1, rules)
        release_glyphs(lines)  # after the tables: a row may be cut at a glyph
        raw.append((index + 1, float(page.height), lines, tables, bool(lines), has_images))
        page.close()  # drop pdfplumber's per-page caches: bounded memory
        if fast_page is not None:
            fast_page.close()
        progress.advance("extract: pages", index + 1, n_pages)


@dataclass
class _PageRead:
    lines: list[Line]
    tables: list[Item]
    rules: list[tuple[float, float, float]]
    has_images: bool
    fast: bool  # read by PDFium
    unmapped: int  # glyphs PDFium could not map and left out


def _read_one(page: Any, fast_page: Any, hidden: frozenset[int], symbols: PageSymbols) -> _PageRead:
    """One page through PDFium when it has no vector paths, else through pdfplumber.

    No vector paths = no ruled table, and PDFium reads the text ~40x faster.
    A page naming a hidden optional content group goes through pdfplumber,
    which leaves that content out (PDFium's text page would keep it), and so
    does a page with an ActualText of TeX source (PDFium would put it in place
    of the glyphs, which are the text).
    Where PDFium cannot map some glyphs, pdfminer reads the page too and wins
    when it leaves fewer unmapped ("(cid:NN)"): it maps more glyph names
    (TeX ligatures: "o cial" -> "official"), PDFium more math fonts. Both
    readers get the symbols the page's fonts name but cannot map (pdf_symbols).
    """
    hides = bool(hidden) and names_hidden(page.page_obj.resources, hidden)
    ruled = fast_page is not None and (has_paths(fast_page) or has_rule_images(fast_page))
    if fast_page is not None and not hides and not ruled and not tex_source_strings(page.page_obj):
        fast_lines, unmapped = read_page_fast(fast_page, symbols)
        has_images = pdfium.has_images(fast_page)
        if unmapped:
            lines, tables, _has_text, slow_images = _read_page(page, hidden, symbols)
            if _count_unmapped(lines, tables) < unmapped:
                rules = horizontal_rules(page)
                return _PageRead(lines, tables, rules, slow_images, False, 0)
        return _PageRead(fast_lines, [], [], has_images, True, unmapped)
    lines, tables, _has_text, has_images = _read_page(page, hidden, symbols)
    return _PageRead(lines, tables, horizontal_rules(with_image_rules(page)), has_images, False, 0)


def _count_unmapped(lines: list[Line], tables: list[Item]) -> int:
    cells = (
        cell for item in tables if item.table is not None for row in item.table.rows for cell in row
    )
    return sum(
        len(_CID.findall(text)) for text in itertools.chain((ln.text for ln in lines), cells)
    )


def _aligned_tables(
    lines: list[Line], tables: list[Item], page: int, rules: list[tuple[float, float, float]]
) -> list[Item]:
    """Tables found by alignment join the ruled ones; their lines leave `lines` (in place).

    Every line gets its place in the reading order (`seq`); a table sits where
    its first line was, a ruled table before the first line below its top.
    """
    for i, ln in enumerate(lines):
        ln.seq = float(i)
    for item in tables:
        below = [ln.seq for ln in lines if ln.top > item.top]
        item.order = min(below) - 0.5 if below else float(len(lines))
    rest, banded = find_banded_tables(lines, page, rules)
    text, aligned = find_aligned_tables(rest, page, rules)
    lines[:] = text
    found = [
        Item("table", t.top, t.bottom, table=t.fragment, order=t.lines[0].seq)
        for t in banded + aligned
    ]
    return tables + found


def _drop_unmapped_glyphs(lines: list[Line], tables: list[Item]) -> int:
    """Remove pdfminer's "(cid:NN)" stand-ins for glyphs that have no Unicode text.

    They are not characters of the document (a font's internal glyph number),
    so they must not reach the canonical text; returns how many were dropped.
    """
    dropped = 0

    def clean(text: str) -> str:
        nonlocal dropped
        # A lone unmapped glyph before a line's text is how TeX fonts set a
        # list bullet: it stays a bullet.
        text = _CID_BULLET.sub("\u2022 ", text)
        text = _CID_SPACE.sub(" ", text)
        out, n = _CID.subn("", text)
        dropped += n
        return WS.sub(" ", out).strip() if n else text

    for ln in lines:
        ln.text = clean(ln.text)
    lines[:] = [ln for ln in lines if ln.text]
    for item in tables:
        if item.table is not None:
            item.table.rows = [[clean(cell) for cell in row] for row in item.table.rows]
    return dropped


def _body_size(pages: list[list[Line]], fixed_pitch: Container[str] = ()) -> float:
    """The size the document's prose is set in: on most pages, the size most of the
    page's characters outside typewriter fonts have.

    By characters over the whole document, a package manual with its source
    code appended took the code's size (microtype-DE: 150,000 characters of
    8 pt code, 136,000 of 10 pt prose), and microtype-code its small back
    matter's (change history, index and licence: 150,000 characters of 8 pt
    on 28 of 266 pages); every prose line, 25 % larger, became a heading.
    Typewriter fonts are known by name or by their widths (`fixed_pitch`).
    """
    votes: Counter[float] = Counter()
    everything: Counter[float] = Counter()
    for lines in pages:
        sizes: Counter[float] = Counter()
        for ln in lines:
            everything[ln.size] += len(ln.text)
            if not (is_mono_font(ln.font) or ln.font in fixed_pitch):
                sizes[ln.size] += len(ln.text)
        if sizes:
            votes[sizes.most_common(1)[0][0]] += 1
    counted = votes or everything
    return counted.most_common(1)[0][0] if counted else 10.0


def _assemble(
    raw: list[tuple[int, float, list[Line], list[Item], bool, bool]],
    data: bytes,
    report: ExtractionReport,
    limits: ExtractLimits,
    ocr: OcrPort | None,
    fixed_pitch: Container[str] = (),
) -> str:
    unmapped = sum(_drop_unmapped_glyphs(lines, tables) for _n, _h, lines, tables, _x, _i in raw)
    if unmapped:
        report.warnings.append(f"{unmapped} glyphs without a Unicode mapping (cid) dropped")
    keys = running_keys([(r[1], r[2]) for r in raw])
    stripped: list[list[Line]] = []
    for _n, height, lines, _t, _x, _i in raw:
        kept, removed = strip_running(lines, keys, height)
        report.headers_footers_removed += removed
        stripped.append(kept)
    body = _body_size(stripped, fixed_pitch)

    rules = heading_rules(stripped, body)
    hyphenation = learn([ln.text for ln in kept] for kept in stripped)
    pages: list[PageContent] = []
    ocr_budget = limits.max_ocr_pages
    for (number, _hgt, _l, tables, _ht, has_images), kept in zip(raw, stripped, strict=True):
        items = group(kept, body, tables, rules, number, hyphenation)
        content = PageContent(number, items, bool(items), has_images)
        if not items:
            report.pages_without_text.append(number)
            if ocr is not None and has_images and ocr_budget > 0:
                ocr_budget -= 1
                content.ocr_text = ocr.transcribe(_page_png(data, number - 1), number)
                report.ocr_pages.append(number)
                if not content.ocr_text.strip():
                    report.warnings.append(f"page {number}: OCR returned no text")
            elif ocr is not None and has_images:
                report.warnings.append(f"page {number}: not transcribed, max_ocr_pages reached")
            elif has_images:
                report.warnings.append(f"page {number}: image only, no text layer (no OCR)")
            else:
                report.warnings.append(f"page {number}: blank page")
        pages.append(content)

    below = captions_below([p.items for p in pages])
    for page in pages:
        attach_captions(page.items, below)
    levels = heading_levels(pages, body)
    stitched = stitch_tables(pages, report)
    return _render(pages, levels, stitched, report)


def _escape_list_marker(text: str) -> str:
    """A paragraph that starts like a Markdown list item ("* cell *") is not one."""
    return "\\" + text if _LIST_MARKER.match(text) else text


def _render(
    pages: list[PageContent],
    levels: dict[float, int],
    tables: dict[int, StitchedTable],
    report: ExtractionReport,
) -> str:
    blocks: list[str] = []
    offset = 0

    def add(block: str) -> int:
        nonlocal offset
        start = offset
        blocks.append(block)
        offset += len(block) + 2  # blocks are joined by "\n\n"
        return start

    for page in pages:
        add(page_anchor(page.number))
        if page.ocr_text is not None:
            add(_render_ocr(page.ocr_text, page.number))
            continue
        for i, it in enumerate(page.items):
            nxt = page.items[i + 1] if i + 1 < len(page.items) else None
            if it.kind == "heading":
                level = it.level or levels.get(round(it.size, 1), 3)
                add("#" * level + " " + it.text)
            elif it.kind == "item":
                bullet = "- " + it.text
                if blocks and blocks[-1].startswith("- ") and it.kind == "item":
                    blocks[-1] += "\n" + bullet
                    offset += len(bullet) + 1
                else:
                    add(bullet)
            elif it.kind == "para":
                if nxt is not None and nxt.kind == "table" and is_caption(it.text):
                    add(caption_paragraph(it.text))
                else:
                    add(escape_paragraph(_escape_list_marker(it.text)))
            elif it.kind == "table" and id(it) in tables:
                table = tables[id(it)]
                rendered = table.render()
                start = add(rendered)
                report.tables.append(
                    TableInfo(
                        index=len(report.tables),
                        header=table.header_line(),
                        columns=table.columns,
                        rows=len(table.rows),
                        caption=table.caption,
                        page_start=table.page_start,
                        page_end=table.page_end,
                        fragments=table.fragments,
                        repeated_headers_dropped=table.repeated_headers_dropped,
                        start=start,
                        end=start + len(rendered),
                    )
                )
    return "\n\n".join(blocks) + "\n"
