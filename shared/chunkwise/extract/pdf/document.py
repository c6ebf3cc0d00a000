"""PDF -> canonical text with pdfplumber (pdfminer.six) and pypdfium2: the entry point.

`extract_pdf` opens the document (typed errors for encrypted, broken and
oversized PDFs), reads its pages one by one within the time budget
(`pages.read_page`: each page's text lines in reading order and its tables,
`tables.find_tables`), and assembles the document:

- the "(cid:NN)" stand-ins of unmapped glyphs dropped; running headers,
  footers and page numbers found across pages and removed (`blocks`);
- the body size (the prose's font size on most pages), the heading rules and
  the document's own hyphenated words learnt (`blocks`, `hyphen`);
- each page's lines grouped into headings, paragraphs and list items among its
  tables (`blocks.group`), captions attached to their table;
- a paragraph running on at the top of the next page gets its page's footnotes
  out of its way (`breaks`), so the chunker joins it over the page anchor;
- pages without a text layer listed in the report, and with an OCR port their
  rendered image transcribed;
- tables continued on the next page stitched into one (`tables.stitch`), and
  everything written as canonical text (`render`).
"""

from __future__ import annotations

import io
import time
from collections import Counter
from collections.abc import Container
from typing import Any

from chunkwise import progress

from ..errors import CorruptDocument, EncryptedDocument, ExtractionError, LimitExceeded
from ..limits import ExtractLimits
from ..model import ExtractionReport
from ..ocr import OcrPort
from .blocks import (
    attach_captions,
    captions_below,
    group,
    heading_levels,
    heading_rules,
    running_keys,
    strip_running,
)
from .breaks import footnotes_before_run_on
from .fonts import fixed_pitch_fonts
from .hyphen import learn
from .items import Item, PageContent
from .lines import Line, is_mono_font
from .marked import hidden_groups
from .pages import drop_unmapped_glyphs, read_page
from .pdfium import open_pdfium
from .render import render_pages
from .structure import Counts, Role, TaggedRules, Tree, is_artifact, read_tree, tag_lines, verdict
from .symbols import FontCache
from .tables.stitch import stitch_tables

_MAX_OCR_PIXELS = 4000


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
    structure: bool = True,
) -> str:
    """`fast_text`: read pages without vector paths with PDFium (same output rules);
    `structure`: use a tagged PDF's structure tree where it is sound (`structure`)."""
    pdf = _open(data)
    try:
        return _extract(pdf, data, report, limits, ocr, deadline, fast_text, structure)
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
    structure: bool = True,
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
    tagging = _Tagging(read_tree(pdf) if structure else None)
    try:
        readers = (fast, hidden, fixed_pitch)
        _read_all(pdf, readers, raw, (report_fast, skipped), limits, n_pages, deadline, tagging)
    finally:
        if fast is not None:
            fast.close()
    found = verdict(tagging.tree, tagging.counts)
    report.structure = found.text
    report.page_readers = {"pdfium": len(report_fast), "pdfplumber": n_pages - len(report_fast)}
    if sum(skipped):
        report.warnings.append(f"{sum(skipped)} glyphs without a Unicode mapping dropped (PDFium)")
    tags = tagging.roles if found.trusted else {}
    levels = tagging.counts.levels()
    return _assemble(raw, data, report, limits, ocr, fixed_pitch, (tags, levels))


class _Tagging:
    """A tagged PDF's tree, and what it says of the lines of the pages read so far."""

    def __init__(self, tree: Tree | None) -> None:
        self.tree = tree
        self.counts = Counts()
        self.roles: dict[int, Role] = {}  # by id of the line (the lines live in `raw`)

    def page(self, page: Any, lines: list[Line], number: int) -> None:
        if self.tree is not None:
            # pdfplumber's characters carry their MCID (read here also when PDFium
            # made the lines: only a tagged document pays for it)
            self.roles.update(tag_lines(lines, page.chars, self.tree, number, self.counts))


def _read_all(
    pdf: Any,
    readers: tuple[Any, frozenset[int], set[str]],
    raw: list[tuple[int, float, list[Line], list[Item], bool, bool]],
    counts: tuple[list[int], list[int]],
    limits: ExtractLimits,
    n_pages: int,
    deadline: float,
    tagging: _Tagging | None = None,
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
        symbols = fonts.page_symbols(page.page_obj)
        read = read_page(page, fast_page, hidden, symbols, index + 1)
        fixed_pitch |= fixed_pitch_fonts(page.page_obj.resources, fonts_seen)
        report_fast, skipped = counts
        if read.fast:
            report_fast.append(index + 1)
        skipped.append(read.unmapped)
        lines, tables = read.lines, read.tables
        if tagging is not None:
            tagging.page(page, lines, index + 1)
        raw.append((index + 1, float(page.height), lines, tables, bool(lines), read.has_images))
        page.close()  # drop pdfplumber's per-page caches: bounded memory
        if fast_page is not None:
            fast_page.close()
        progress.advance("extract: pages", index + 1, n_pages)


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
    tagged: tuple[dict[int, Role], dict[int, int]] | None = None,
) -> str:
    tags, tag_levels = tagged or ({}, {})
    unmapped = sum(drop_unmapped_glyphs(lines, tables) for _n, _h, lines, tables, _x, _i in raw)
    if unmapped:
        report.warnings.append(f"{unmapped} glyphs without a Unicode mapping (cid) dropped")
    if tags:  # page furniture the writer marked as such
        for _n, _h, lines, _t, _x, _i in raw:
            kept_lines = [ln for ln in lines if not is_artifact(tags, ln)]
            report.headers_footers_removed += len(lines) - len(kept_lines)
            lines[:] = kept_lines
    keys = running_keys([(r[1], r[2]) for r in raw])
    stripped: list[list[Line]] = []
    for _n, height, lines, _t, _x, _i in raw:
        kept, removed = strip_running(lines, keys, height)
        report.headers_footers_removed += removed
        stripped.append(kept)
    body = _body_size(stripped, fixed_pitch)

    rules = heading_rules(stripped, body)
    if tags:
        rules = TaggedRules.over(rules, tags, tag_levels)
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
    footnotes_before_run_on(pages)
    levels = heading_levels(pages, body)
    stitched = stitch_tables(pages, report)
    return render_pages(pages, levels, stitched, report)
