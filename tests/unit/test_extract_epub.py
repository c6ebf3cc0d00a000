"""EPUB: spine order, chapters as sections, the navigation document not content,
the HTML rules, DRM refused, broken packages named."""

from __future__ import annotations

import pytest

from chunkwise import ChunkerConfig, chunk_text
from chunkwise.extract import (
    CorruptDocument,
    DocFormat,
    EmptyDocument,
    EncryptedDocument,
    extract,
)
from tests.odf_files import epub, xhtml, zip_of

NAV = (
    '<nav epub:type="toc"><h1>Inhaltsverzeichnis der Reise</h1><ol>'
    '<li><a href="kap1.xhtml">Kapitel 1: Der Aufbruch</a></li>'
    '<li><a href="kap2.xhtml#start">Kapitel 2: Die Reise</a></li></ol></nav>'
)
CHAPTERS = {
    # the manifest lists chapter 2 first; the spine reads chapter 1 first
    "kap2.xhtml": xhtml(
        "Kapitel 2",
        "<p>Am zweiten Tag erreichten sie die Küste bei Husum.</p><table><thead><tr><th>Etappe"
        "</th><th>Strecke</th></tr></thead><tbody><tr><td>Hamburg – Itzehoe</td><td>62 km</td>"
        "</tr></tbody></table>",
    ),
    "kap1.xhtml": xhtml(
        "Kapitel 1",
        '<h1>Kapitel 1: Der Aufbruch</h1><p>Früh am Morgen verließ die Familie das Dorf.<a id="x"/>'
        " Der Wagen war schwer beladen.</p><ul><li>Brot</li><li>Wasser</li></ul>",
    ),
}


def test_spine_order_chapters_as_sections_and_the_nav_is_not_content() -> None:
    data = epub(CHAPTERS, ["kap1.xhtml", "kap2.xhtml"], nav=NAV)
    result = extract(data, filename="reise.epub")
    assert result.report.format is DocFormat.EPUB
    assert result.text == (
        "# Kapitel 1: Der Aufbruch\n\nFrüh am Morgen verließ die Familie das Dorf. Der Wagen war"
        " schwer beladen.\n\n- Brot\n- Wasser\n\n"
        "# Kapitel 2: Die Reise\n\nAm zweiten Tag erreichten sie die Küste bei Husum.\n\n"
        "| Etappe | Strecke |\n| --- | --- |\n| Hamburg – Itzehoe | 62 km |\n"
    )
    assert "Inhaltsverzeichnis" not in result.text
    (table,) = result.report.tables
    assert result.text[table.start : table.end].startswith("| Etappe | Strecke |")
    assert result.report.pages == 2
    chunks = chunk_text(
        result.text, lang="auto", config=ChunkerConfig(max_chars=200, overlap_chars=0)
    )
    late = next(c for c in chunks if "Husum" in c.body)
    assert list(late.heading_path) == ["Kapitel 2: Die Reise"] and late.lang == "de"


def test_a_nav_document_in_the_spine_and_linear_no_items() -> None:
    """The nav is not content even when a spine lists it; a non-linear item is."""
    data = epub(
        {**CHAPTERS, "anhang.xhtml": xhtml("Anhang", "<h1>Anhang</h1><p>Nachtrag.</p>")},
        ["nav", "kap1.xhtml", "anhang.xhtml", "kap2.xhtml"],
        nav=NAV,
        linear_no=("anhang.xhtml",),
    )
    text = extract(data, filename="r.epub").text
    assert "Inhaltsverzeichnis" not in text
    assert text.index("Früh am Morgen") < text.index("Nachtrag.") < text.index("Husum")


def test_a_chapter_without_heading_or_nav_entry_takes_its_title() -> None:
    data = epub({"a.xhtml": xhtml("Vorwort", "<p>Ein kurzes Vorwort.</p>")}, ["a.xhtml"])
    assert extract(data, filename="v.epub").text == "# Vorwort\n\nEin kurzes Vorwort.\n"


def test_epub2_xhtml_with_html_entities_is_read_by_the_html_parser() -> None:
    doc = (
        '<?xml version="1.0" encoding="utf-8"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN"'
        ' "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd"><html xmlns="http://www.w3.org/1999/xhtml">'
        "<head><title>Eins</title></head><body><h2>Erstes&nbsp;Kapitel</h2><p>Text.</p></body></html>"
    )
    assert extract(epub({"c.xhtml": doc}, ["c.xhtml"]), filename="e.epub").text == (
        "## Erstes\u00a0Kapitel\n\nText.\n"
    )


def test_drm_is_refused_and_font_obfuscation_is_not_drm() -> None:
    def encryption(algorithm: str, uri: str) -> str:
        return (
            '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
            'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
            f'<enc:EncryptionMethod Algorithm="{algorithm}"/><enc:CipherData>'
            f'<enc:CipherReference URI="{uri}"/></enc:CipherData></enc:EncryptedData></encryption>'
        )

    drm = {"META-INF/encryption.xml": encryption("http://www.w3.org/2001/04/xmlenc#aes128-cbc",
                                                 "OEBPS/kap1.xhtml")}  # fmt: skip
    with pytest.raises(EncryptedDocument) as e:
        extract(epub(CHAPTERS, ["kap1.xhtml"], extra=drm), filename="drm.epub")
    assert "DRM" in e.value.reason and "OEBPS/kap1.xhtml" in e.value.reason
    fonts = {"META-INF/encryption.xml": encryption("http://www.idpf.org/2008/embedding",
                                                   "OEBPS/fonts/a.otf")}  # fmt: skip
    assert "Früh am Morgen" in extract(epub(CHAPTERS, ["kap1.xhtml"], extra=fonts)).text


def test_broken_packages_are_named() -> None:
    no_container = zip_of({"mimetype": "application/epub+zip", "OEBPS/a.xhtml": "<html/>"})
    with pytest.raises(CorruptDocument) as e:
        extract(no_container, filename="x.epub")
    assert "META-INF/container.xml" in e.value.reason
    bad_opf = epub(CHAPTERS, ["kap1.xhtml"], extra={"OEBPS/content.opf": "<package"})
    with pytest.raises(CorruptDocument):
        extract(bad_opf, filename="x.epub")
    opf = (
        '<package xmlns="http://www.idpf.org/2007/opf"><manifest><item id="a" '
        'href="../../a.xhtml" media-type="application/xhtml+xml"/></manifest>'
        '<spine><itemref idref="a"/></spine></package>'
    )
    escaping = epub({"a.xhtml": xhtml("A", "<p>a</p>")}, [], extra={"OEBPS/content.opf": opf})
    with pytest.raises(EmptyDocument) as empty:  # an href out of the package reads nothing
        extract(escaping, filename="x.epub")
    assert "spine" in empty.value.reason
