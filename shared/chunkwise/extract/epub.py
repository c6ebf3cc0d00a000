"""EPUB -> canonical text: the spine's documents in reading order, each read by the HTML rules.

The container was guarded and verified before (extract/containers.py); every
part is read from it under its caps and parsed with the safe lxml settings of
extract/odf.py (no entity expansion, no network, no DTD). Not ebooklib
(AGPL): the package format is three small XML files.

- ``META-INF/container.xml`` names the package document (OPF); its manifest
  and spine give the reading order. Every spine item that is an XHTML or HTML
  document is read, ``linear="no"`` ones too (notes and answers are content),
  in spine order; the navigation document (manifest ``properties="nav"``) and
  the NCX are the book's table of contents, not content, even when a spine
  lists the navigation document.
- Each document is read by chunkwise's HTML reader (extract/html.py), so its
  headings, tables, lists and code read as they do in HTML. XHTML is parsed as
  XML first (a self-closed ``<a id="x"/>`` stays empty), and by the HTML
  parser when it is not well-formed XML (an EPUB 2 file using ``&nbsp;``).
- A chapter is a section: one that does not start with a heading of its own
  gets one, its entry in the navigation (nav or NCX) or its ``<title>``, at
  level 1, so its text is never filed under the previous chapter's headings.
- DRM: a ``META-INF/encryption.xml`` that encrypts anything but fonts (font
  obfuscation is no DRM) is an `EncryptedDocument`.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from lxml import etree

from chunkwise.canonical import HEADING, table_headers

from .context import ReadContext
from .errors import CorruptDocument, EmptyDocument, EncryptedDocument, ExtractionError
from .html import extract_html
from .odf import PARSER, STYLES_CAP, parse
from .tables import table_infos
from .writer import one_line

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_NCX = "{http://www.daisy.org/z3986/2005/ncx/}"
_XHTML = "{http://www.w3.org/1999/xhtml}"
_OPS = "{http://www.idpf.org/2007/ops}"
_ENC = "{http://www.w3.org/2001/04/xmlenc#}"
_FONT_OBFUSCATION = frozenset(
    {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
)
_DOCUMENTS = frozenset({"application/xhtml+xml", "text/html", "application/x-dtbook+xml"})
_ENCODING = re.compile(rb"^\s*<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)", re.IGNORECASE)


@dataclass(frozen=True)
class _Item:
    path: str  # member name in the container
    media_type: str
    nav: bool


def read_epub(data: bytes, ctx: ReadContext) -> str:
    container = ctx.container
    if container is None:  # pragma: no cover - the dispatcher always opens the ZIP
        raise CorruptDocument("EPUB reader called without its container")
    _refuse_drm(container)
    opf_path = _package_path(container)
    opf = parse(container.read(opf_path, cap=STYLES_CAP), opf_path)
    items, spine = _manifest(opf, posixpath.dirname(opf_path))
    labels = _labels(container, items, opf)
    chapters: list[str] = []
    skipped = 0
    for number, idref in enumerate(spine, start=1):
        ctx.check_time(f"spine item {number}")
        item = items.get(idref)
        if item is None or item.nav or item.media_type not in _DOCUMENTS:
            skipped += item is None or not item.nav
            continue
        text = _chapter(container, item, labels.get(item.path, ""), ctx)
        if text:
            chapters.append(text)
    if skipped:
        ctx.report.warnings.append(f"{skipped} spine item(s) are no (X)HTML documents: not read")
    if not chapters:
        raise EmptyDocument("no document of the EPUB's spine holds any text")
    text = "\n\n".join(chapters) + "\n"
    ctx.report.tables = table_infos(text, table_headers(text))
    ctx.report.tables_found = len(ctx.report.tables)
    ctx.report.pages = len(chapters)
    return text


def _refuse_drm(container: Any) -> None:
    if not container.has("META-INF/encryption.xml"):
        return
    root = parse(container.read("META-INF/encryption.xml", cap=STYLES_CAP), "encryption.xml")
    locked = []
    for data in root.iter(_ENC + "EncryptedData"):
        method = data.find(_ENC + "EncryptionMethod")
        if method is None or method.get("Algorithm") not in _FONT_OBFUSCATION:
            reference = data.find(f".//{_ENC}CipherReference")
            locked.append(reference.get("URI", "?") if reference is not None else "?")
    if locked:
        raise EncryptedDocument(
            f"the EPUB is DRM-protected: {len(locked)} resource(s) encrypted "
            f"({', '.join(locked[:3])}); only the DRM-free book can be read"
        )


def _package_path(container: Any) -> str:
    if not container.has("META-INF/container.xml"):
        raise CorruptDocument("EPUB has no META-INF/container.xml: not a valid EPUB")
    root = parse(container.read("META-INF/container.xml", cap=STYLES_CAP), "container.xml")
    for rootfile in root.iter(_CONTAINER + "rootfile"):
        path = _member(rootfile.get("full-path", ""), "")
        if path and container.has(path):
            return path
    raise CorruptDocument("EPUB container.xml names no package document that exists")


def _member(href: str, folder: str) -> str:
    """A manifest href (relative to the package document, URL-encoded) as a member name."""
    path = unquote(urlsplit(href).path)
    joined = posixpath.normpath(posixpath.join(folder, path)) if path else ""
    return "" if joined.startswith("../") or joined in ("..", ".") else joined


def _manifest(opf: Any, folder: str) -> tuple[dict[str, _Item], list[str]]:
    items = {}
    for item in opf.iter(_OPF + "item"):
        properties = (item.get("properties") or "").split()
        items[item.get("id", "")] = _Item(
            _member(item.get("href", ""), folder),
            (item.get("media-type") or "").lower(),
            "nav" in properties,
        )
    spine = [ref.get("idref", "") for ref in opf.iter(_OPF + "itemref")]
    return items, spine


def _labels(container: Any, items: dict[str, _Item], opf: Any) -> dict[str, str]:
    """Document -> its first entry in the navigation (EPUB 3 nav, else the NCX)."""
    labels: dict[str, str] = {}
    for item in items.values():
        if item.nav and container.has(item.path):
            nav = _xml(container.read(item.path, cap=STYLES_CAP))
            folder = posixpath.dirname(item.path)
            for link in nav.iter(_XHTML + "a") if nav is not None else ():
                target = _member(link.get("href", ""), folder)
                labels.setdefault(target, one_line("".join(link.itertext())))
    spine = opf.find(_OPF + "spine")
    ncx = items.get(spine.get("toc", "")) if spine is not None else None
    if ncx is not None and container.has(ncx.path):
        root = _xml(container.read(ncx.path, cap=STYLES_CAP))
        folder = posixpath.dirname(ncx.path)
        for point in root.iter(_NCX + "navPoint") if root is not None else ():
            content = point.find(_NCX + "content")
            label = point.findtext(f"{_NCX}navLabel/{_NCX}text") or ""
            if content is not None:
                labels.setdefault(_member(content.get("src", ""), folder), one_line(label))
    return labels


def _xml(data: bytes) -> Any | None:
    try:
        return etree.fromstring(data, parser=PARSER)
    except etree.XMLSyntaxError:
        return None


def _chapter(container: Any, item: _Item, label: str, ctx: ReadContext) -> str:
    if not container.has(item.path):
        ctx.report.warnings.append(f"spine document {item.path} is missing: not read")
        return ""
    data = container.read(item.path, cap=ctx.limits.max_html_bytes)
    root = _xml(data)
    title = ""
    if root is not None:
        title = one_line("".join(root.findtext(f".//{_XHTML}title") or ""))
        html = _as_html(root)
    else:
        html = _decode(data, item.path)
    try:
        text, _ = extract_html(html)
    except EmptyDocument:
        return ""  # a cover or title page that is only a picture
    except ExtractionError as exc:
        raise CorruptDocument(f"EPUB document {item.path}: {exc.reason}") from None
    text = text.rstrip("\n")
    heading = label or title
    if heading and not HEADING.match(text.split("\n", 1)[0]):
        text = f"# {heading}\n\n{text}"
    return text


def _as_html(root: Any) -> str:
    """A parsed XHTML document written as HTML: namespaces dropped, empty elements
    closed (the HTML reader then sees what the XML says)."""
    for element in root.iter():
        if isinstance(element.tag, str):
            element.tag = etree.QName(element).localname
            for name in [n for n in element.attrib if n.startswith("{")]:
                element.attrib[etree.QName(name).localname] = element.attrib.pop(name)
    etree.cleanup_namespaces(root)
    return str(etree.tostring(root, method="html", encoding="unicode"))


def _decode(data: bytes, path: str) -> str:
    match = _ENCODING.match(data[:200])
    encoding = match.group(1).decode("ascii") if match else "utf-8"
    try:
        return data.decode("utf-8-sig" if encoding.lower() in ("utf-8", "utf8") else encoding)
    except (LookupError, UnicodeDecodeError):
        raise CorruptDocument(f"EPUB document {path} is not {encoding} text") from None
