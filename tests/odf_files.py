"""OpenDocument and EPUB files for tests, written with zipfile from XML strings."""

from __future__ import annotations

import io
import zipfile

ODF = "application/vnd.oasis.opendocument."
NAMESPACES = " ".join(
    f'xmlns:{prefix}="urn:oasis:names:tc:opendocument:xmlns:{name}:1.0"'
    for prefix, name in (
        ("office", "office"), ("style", "style"), ("text", "text"), ("table", "table"),
        ("draw", "drawing"), ("fo", "xsl-fo-compatible"), ("svg", "svg-compatible"),
        ("presentation", "presentation"),
    )
) + ' xmlns:xlink="http://www.w3.org/1999/xlink"'  # fmt: skip
_MANIFEST = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"


def zip_of(members: dict[str, bytes | str]) -> bytes:
    """A ZIP with a stored ``mimetype`` first (as ODF and EPUB want), the rest deflated."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            data = content.encode() if isinstance(content, str) else content
            method = zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED
            zf.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return out.getvalue()


def odf(
    kind: str,
    body: str,
    *,
    automatic: str = "",
    styles: str = "",
    manifest: str = "",
    doctype: str = "",
) -> bytes:
    """An ODF package: ``kind`` is text, spreadsheet or presentation."""
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?>{doctype}'
        f"<office:document-content {NAMESPACES}>"
        f"<office:automatic-styles>{automatic}</office:automatic-styles>"
        f"<office:body><office:{kind}>{body}</office:{kind}></office:body>"
        "</office:document-content>"
    )
    members: dict[str, bytes | str] = {"mimetype": ODF + kind, "content.xml": content}
    if styles:
        members["styles.xml"] = (
            f"<office:document-styles {NAMESPACES}><office:styles>{styles}</office:styles>"
            "</office:document-styles>"
        )
    members["META-INF/manifest.xml"] = (
        f'<manifest:manifest xmlns:manifest="{_MANIFEST}">'
        f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{ODF + kind}"/>'
        f"{manifest}</manifest:manifest>"
    )
    return zip_of(members)


def xhtml(title: str, body: str, lang: str = "de") -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"'
        f' xml:lang="{lang}"><head><title>{title}</title></head><body>{body}</body></html>'
    )


def epub(
    documents: dict[str, str],
    spine: list[str],
    *,
    nav: str | None = None,
    extra: dict[str, bytes | str] | None = None,
    linear_no: tuple[str, ...] = (),
) -> bytes:
    """An EPUB 3: documents (name -> XHTML) under OEBPS/, read in ``spine`` order; ``nav``
    the navigation document's body (its own manifest item, not in the spine)."""
    items = [
        f'<item id="{name}" href="{name}" media-type="application/xhtml+xml"/>'
        for name in documents
    ]
    members: dict[str, bytes | str] = {
        "mimetype": "application/epub+zip",
        "META-INF/container.xml": (
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>"
        ),
    }
    if nav is not None:
        items.append('<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" '
                     'properties="nav"/>')  # fmt: skip
        members["OEBPS/nav.xhtml"] = xhtml("Inhalt", nav)
    no = ' linear="no"'
    refs = "".join(f'<itemref idref="{n}"{no if n in linear_no else ""}/>' for n in spine)
    members["OEBPS/content.opf"] = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        f"<manifest>{''.join(items)}</manifest><spine>{refs}</spine></package>"
    )
    members.update({f"OEBPS/{name}": text for name, text in documents.items()})
    members.update(extra or {})
    return zip_of(members)
