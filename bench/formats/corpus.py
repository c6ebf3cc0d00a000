"""The real-file corpus of the format benchmark: pinned sources and the documents in them.

Every document is named by the labels (labels/dev.jsonl, labels/heldout.jsonl)
and pinned by its SHA-256: the labels were written from these bytes, before
chunkwise ran on any of them. ``split`` was decided before labelling, by
document (about 2:1, both languages in both where a German file exists).
Translations of one document sit on both sides in two cases (A Brief History of
Debian, the calibre Quick Start Guide): the held-out side then shares the tool
chain with a development document, never its text.

``fetch.py`` brings the files into .local/formats/; nothing here is committed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

# Debian 12 packages, ``apt-get download NAME=VERSION`` (another version is refused).
DEBIAN = {
    "r-base-core": "4.2.2.20221110-2",
    "homebank-data": "5.6.2-1",
    "texlive-lang-german": "2022.20230122-1",
    "r-cran-readxl": "1.4.2-1",
    "r-cran-gdata": "2.18.0.1-1",
    "r-cran-officer": "0.6.0+dfsg-1",
    "libmapsforge-java-doc": "0.17.0+dfsg.1-2",
    "live-manual-odf": "2:20151217.2",
    "libreoffice-dmaths": "4.4.0.0+dfsg1-2",
    "whitedune-docs": "0.30.10-2.2",
    "libreoffice-help-de": "4:7.4.7-1+deb12u14",
    "python-odf-doc": "1.4.2-2",
    "calibre": "6.13.0+repack-2+deb12u10",
    "debian-history": "2.28",
}
# PyPI source distributions: name -> (version, the sdist's top folder).
PYPI = {
    "csv2ofx": ("0.34.2", "csv2ofx-0.34.2"),
    "python-pptx": ("1.0.2", "python_pptx-1.0.2"),
}
# Docling's test data (MIT), read from a local clone of the public repository.
DOCLING_REPO = "docling-project/docling"
DOCLING_COMMIT = "e1cb2b234c48ff29746b0f2f843d07f8e23905a0"

FORMATS = ("csv", "tsv", "xlsx", "xls", "ods", "pptx", "odp", "odt", "epub")


@dataclass(frozen=True)
class Document:
    name: str  # the id the labels use
    fmt: str  # one of FORMATS
    lang: str  # en or de
    split: str  # dev or heldout, fixed before labelling
    origin: str  # "debian:PACKAGE", "pypi:NAME" or "docling"
    path: str  # inside the unpacked package, the sdist or the repository
    licence: str
    producer: str  # what made it, and what is hard about it
    sha256: str

    @property
    def groundtruth(self) -> str | None:
        """Docling's own Markdown output for this file, in its repository (Docling only)."""
        if self.origin != "docling":
            return None
        path = PurePosixPath(self.path)
        return str(path.parent.parent / "groundtruth" / f"{path.name}.md")


DOCUMENTS: tuple[Document, ...] = (
    # development documents (labels in labels/dev.jsonl)
    Document(
        "docling-csv-comma",
        "csv",
        "en",
        "dev",
        "docling",
        "tests/data/csv/sources/csv-comma.csv",
        "MIT",
        "Docling test data (generated customer list)",
        "0f3643115a0a1d4b748b93ad9ab2a02ad1fde6a7a9506ce90422792e17244824",
    ),
    Document(
        "docling-csv-tab",
        "tsv",
        "en",
        "dev",
        "docling",
        "tests/data/csv/sources/csv-tab.csv",
        "MIT",
        "Docling test data (the same list, tab-separated)",
        "8071cda34f80e7690b00f4bbef6af7a96a86175c4d4ba1fb7f8d0f28593c3487",
    ),
    Document(
        "csv2ofx-amazon",
        "csv",
        "en",
        "dev",
        "pypi:csv2ofx",
        "data/test/amazon.csv",
        "MIT",
        "csv2ofx test data (Amazon order export)",
        "baec1b8298a4662ea67380c828b966ac779d465f48708a4ddbff396b56962194",
    ),
    Document(
        "csv2ofx-gls",
        "csv",
        "de",
        "dev",
        "pypi:csv2ofx",
        "data/test/gls.csv",
        "MIT",
        "csv2ofx test data (GLS Bank export: cp1252, ';', decimal commas)",
        "9f5b31643baa63eb15efb8be6c4bcd54888985f92a3c4b8fc5c592ee5035d83b",
    ),
    Document(
        "homebank-categories-de",
        "csv",
        "de",
        "dev",
        "debian:homebank-data",
        "usr/share/homebank/datas/hb-categories-de.csv",
        "GPL-2+",
        "HomeBank category list (';', no header row)",
        "a4936be5b71d867b5c6e716f435a65964c61bab0ac253bc4639175d4e6860383",
    ),
    Document(
        "docling-xlsx-01",
        "xlsx",
        "en",
        "dev",
        "docling",
        "tests/data/xlsx/sources/xlsx_01.xlsx",
        "MIT",
        "Docling test data (several tables per sheet, merged cells, a hidden sheet)",
        "fd4e67c4474e6d8308b1e9a9006500bd8e055c1aa2a337d54e641c3b1f506cf2",
    ),
    Document(
        "docling-xlsx-02-xlsm",
        "xlsx",
        "en",
        "dev",
        "docling",
        "tests/data/xlsx/sources/xlsx_02_sample_sales_data.xlsm",
        "MIT",
        "Docling test data (XLSM, date format)",
        "1626628446cc565c9f2e9ec6f77e1339bb5dbcf1090562a0cd7b342c717910d4",
    ),
    Document(
        "docling-xlsx-03-chartsheet",
        "xlsx",
        "en",
        "dev",
        "docling",
        "tests/data/xlsx/sources/xlsx_03_chartsheet.xlsx",
        "MIT",
        "Docling test data (a chart sheet)",
        "2b40c7e15aebc41f6677b8479e0ae655130f0daf503d20b3068d9179d2559002",
    ),
    Document(
        "docling-xlsx-05-table-with-title",
        "xlsx",
        "en",
        "dev",
        "docling",
        "tests/data/xlsx/sources/xlsx_05_table_with_title.xlsx",
        "MIT",
        "Docling test data (a title row above the table)",
        "30afc0d53b0db289a45786ce4e9dc8f68bb91f256441cb55fb8e747fae104dbe",
    ),
    Document(
        "readxl-datasets",
        "xlsx",
        "en",
        "dev",
        "debian:r-cran-readxl",
        "usr/lib/R/site-library/readxl/extdata/datasets.xlsx",
        "GPL-3 (R package readxl; data: R datasets)",
        "R readxl example (four sheets, 1,000-row sheet; a drawing part is missing)",
        "26547bbe8b4087518ba98279f8bda031fe12b47b8d2877f12ac76f41190c5783",
    ),
    Document(
        "docling-xls-legacy",
        "xls",
        "en",
        "dev",
        "docling",
        "tests/data/xls/sources/legacy_sample.xls",
        "MIT",
        "Docling test data (BIFF8 .xls)",
        "dc9ddd5d964c360bcb7400427c2b8d004b9a73a5b716997b2981aadcf33f4306",
    ),
    Document(
        "lohelp-functions-ifs",
        "ods",
        "en",
        "dev",
        "debian:libreoffice-help-de",
        "usr/share/libreoffice/help/media/files/scalc/de/functions_ifs.ods",
        "MPL-2.0",
        "LibreOffice help example (English content in the German help package)",
        "2be3f3e2c2dd20ca444030188ad6d64e88f6d8d51df14fec758a57783ee4d43f",
    ),
    Document(
        "lohelp-pivot",
        "ods",
        "en",
        "dev",
        "debian:libreoffice-help-de",
        "usr/share/libreoffice/help/media/files/scalc/de/pivot.ods",
        "MPL-2.0",
        "LibreOffice help example (a pivot table beside its source)",
        "0ad928950a48c687579bfa4eac2e849616cf5dab95680e1fab57e92a5a5a73b1",
    ),
    Document(
        "docling-ods-table-with-title",
        "ods",
        "en",
        "dev",
        "docling",
        "tests/data/odf/sources/odf_table_with_title_01.ods",
        "MIT",
        "Docling test data",
        "89411ac41620285463bd6b63ea94c57d6b2a5b4ff267707fef494058c6af8469",
    ),
    Document(
        "docling-pptx-sample",
        "pptx",
        "en",
        "dev",
        "docling",
        "tests/data/pptx/sources/powerpoint_sample.pptx",
        "MIT",
        "Docling test data (a two-row-header table, notes, text boxes)",
        "24191d47fda511e11984e875f8676506da5ae1fbcaefcc63d81be377d3a3950c",
    ),
    Document(
        "docling-pptx-with-image",
        "pptx",
        "en",
        "dev",
        "docling",
        "tests/data/pptx/sources/powerpoint_with_image.pptx",
        "MIT",
        "Docling test data (pictures)",
        "69e1dd67f1965cfc93781fa8c96e9f448a6776abe5ca9b56738d39701dd38fe8",
    ),
    Document(
        "docling-pptx-comments",
        "pptx",
        "en",
        "dev",
        "docling",
        "tests/data/pptx/sources/powerpoint_comments.pptx",
        "MIT",
        "Docling test data (comments)",
        "c7529fc61412a1a1faf8888157c7c4f08a5c7aa4a948a13c024e05db8aa2c693",
    ),
    Document(
        "docling-odp-01",
        "odp",
        "en",
        "dev",
        "docling",
        "tests/data/odf/sources/odf_presentation_01.odp",
        "MIT",
        "Docling test data (the PowerPoint sample as ODP)",
        "e226795c33f589c234d81f5adb414fb75d46a3d10e6fae09877f7a7645a8adb7",
    ),
    Document(
        "mapsforge-cbase-2011",
        "odp",
        "en",
        "dev",
        "debian:libmapsforge-java-doc",
        "usr/share/doc/libmapsforge-java/docs/presentations/2011-06-29 c-base.odp",
        "LGPL-3+",
        "mapsforge talk (OpenOffice.org Impress, line breaks in titles, notes)",
        "5acef608bcc6c9704d2f9a26ed398d48668421516b05e16e26880f7d48078907",
    ),
    Document(
        "docling-odt-01",
        "odt",
        "en",
        "dev",
        "docling",
        "tests/data/odf/sources/text_document_01.odt",
        "MIT",
        "Docling test data (headings, nested lists)",
        "a681a271d64393d1f04aed74ddc2ea30455b98b5fbd892ec949d05e1d92ff746",
    ),
    Document(
        "live-manual-en-odt",
        "odt",
        "en",
        "dev",
        "debian:live-manual-odf",
        "usr/share/doc/live-manual/odt/live-manual.en.odt",
        "GPL-3+",
        "Live Systems Manual (SiSU -> ODT, numbered headings, paragraph numbers)",
        "cf017a3584740048751fc23969a6798d600d9a52a7a5d7db8b2d5a5c74b0027b",
    ),
    Document(
        "dmaths-faq-de",
        "odt",
        "de",
        "dev",
        "debian:libreoffice-dmaths",
        "usr/lib/libreoffice/share/extensions/dmaths/Fichiers/Faq/FAQ_de.odt",
        "GPL-2+",
        "Dmaths FAQ (no heading styles: headings are formatted paragraphs)",
        "14b841a1fd985a2862344b165d4be6ed79fc8bfba44bcefe39fb3587f772be2b",
    ),
    Document(
        "whitedune-3dmodelling-de",
        "odt",
        "de",
        "dev",
        "debian:whitedune-docs",
        "usr/share/doc/whitedune-docs/docs/german_workshop_documents/animation_3dmodelling_workshop_description.odt",
        "GPL-2+",
        "white_dune workshop plan (layout table)",
        "cf77f22f1dba80f0a8848ac2beb82abb52c8b92df0b268dd5527d42b097db69f",
    ),
    Document(
        "docling-epub-purvis",
        "epub",
        "en",
        "dev",
        "docling",
        "tests/data/epub/sources/epub_purvis_poetry.epub",
        "MIT (Docling); text: public domain (Standard Ebooks)",
        "Standard Ebooks EPUB 3",
        "7986346ed2e7bb29fe2611712641feb13136c1acb65f0f591aacc2a503f264f2",
    ),
    Document(
        "calibre-quick-start-en",
        "epub",
        "en",
        "dev",
        "debian:calibre",
        "usr/share/calibre/quick_start/eng.epub",
        "CC-BY-SA-4.0 (text), GPL-3 (package)",
        "calibre Quick Start Guide (calibre-made EPUB)",
        "4963b48a75612d19b78b07558f5fc5c1706f22b9b6c1608be84dbb03bf6a912f",
    ),
    Document(
        "debian-history-de-epub",
        "epub",
        "de",
        "dev",
        "debian:debian-history",
        "usr/share/doc/debian-history/docs/project-history.de.epub",
        "GPL-2+",
        "A Brief History of Debian, German (DocBook -> EPUB)",
        "60f571694a0dfaf8eb3fb90d2f98b6ab5af6145aeeb0126054409dc031ec6570",
    ),
    # held-out documents (labels in labels/heldout.jsonl)
    Document(
        "r-cran-mirrors",
        "csv",
        "en",
        "heldout",
        "debian:r-base-core",
        "usr/share/R/doc/CRAN_mirrors.csv",
        "GPL-2+",
        "R's CRAN mirror list (quoted cells with commas, UTF-8)",
        "614cdb4f07236153a5b8eef921bf7567c3b57e3327d0950b105b9bd1410d1685",
    ),
    Document(
        "milog-201605",
        "csv",
        "de",
        "heldout",
        "debian:texlive-lang-german",
        "usr/share/doc/texlive-doc/latex/milog/201605.csv",
        "LPPL-1.3c",
        "milog example (space-separated, '{}' for empty cells)",
        "87520f58ae9dc179f63192501c76d14daee96e804eb74f349d1a28cd03ad930f",
    ),
    Document(
        "csv2ofx-outbank",
        "csv",
        "de",
        "heldout",
        "pypi:csv2ofx",
        "data/test/outbank.csv",
        "MIT",
        "csv2ofx test data (Outbank export: ';', decimal commas, German posting texts)",
        "671ae6aa683276fe737032c36689e146998e0b9bacdf93bc84b54f4a3db746ed",
    ),
    Document(
        "gdata-example-excel",
        "xlsx",
        "en",
        "heldout",
        "debian:r-cran-gdata",
        "usr/lib/R/site-library/gdata/xls/ExampleExcelFile.xlsx",
        "GPL-2",
        "R gdata example (text rows above a table, date/time formats, errors, a long sheet name)",
        "7085186a8ed5feab0e82212bd6e8a7e750164fe0beff1cbcb1540dc738bb86f0",
    ),
    Document(
        "odfpy-countrystatistics",
        "ods",
        "en",
        "heldout",
        "debian:python-odf-doc",
        "usr/share/doc/python-odf-doc/examples/countrystatistics.ods",
        "Apache-2.0 / GPL-2+",
        "odfpy example (thousands separators, two-line header cells)",
        "223c5108d947b6afce313b8af1c1794bdbe13e065d1aa99078d6a3ae02526ab6",
    ),
    Document(
        "docling-pptx-chart",
        "pptx",
        "en",
        "heldout",
        "docling",
        "tests/data/pptx/sources/pptx_chart.pptx",
        "MIT",
        "Docling test data (charts)",
        "c0bd75bbf8ac10380bc2c3bedd752564ef82030a587f85ca5235060edaf918dd",
    ),
    Document(
        "officer-example",
        "pptx",
        "en",
        "heldout",
        "debian:r-cran-officer",
        "usr/lib/R/site-library/officer/doc_examples/example.pptx",
        "GPL-3",
        "R officer example (French layouts, a table, nested list levels)",
        "9113453408f2556ac191c581cdf1d302f354f01955241d8a9b9eedcc1e63bb5f",
    ),
    Document(
        "python-pptx-test-slides",
        "pptx",
        "en",
        "heldout",
        "pypi:python-pptx",
        "tests/test_files/test_slides.pptx",
        "MIT",
        "python-pptx test file (a group shape, a table, connectors)",
        "8442cac5daafd3211a6a1fff393640cbe5f01faed54d4e00d9aa4fdcba23f7e0",
    ),
    Document(
        "mapsforge-droidcon-2010",
        "odp",
        "en",
        "heldout",
        "debian:libmapsforge-java-doc",
        "usr/share/doc/libmapsforge-java/docs/presentations/barcamp droidcon 2010.odp",
        "LGPL-3+",
        "mapsforge talk (OpenOffice.org Impress)",
        "ae5cd9c47dd8e59b2c29da3720d23991d461c6acb18d5ee13b530271dab70c46",
    ),
    Document(
        "docling-odt-03",
        "odt",
        "en",
        "heldout",
        "docling",
        "tests/data/odf/sources/text_document_03.odt",
        "MIT",
        "Docling test data (rich and nested table cells)",
        "fa288f3fe401787f9433c1705795ddbd59c338d1ec1e93901ac751672e3ff19d",
    ),
    Document(
        "dmaths-user-guide-de",
        "odt",
        "de",
        "heldout",
        "debian:libreoffice-dmaths",
        "usr/lib/libreoffice/share/extensions/dmaths/Fichiers/userguides/user_guide_de.odt",
        "GPL-2+",
        "Dmaths Benutzerhandbuch (side-by-side column pairs, symbols)",
        "b8f1bbd5c790369944b9442c8d2ea37d3a6974ff8718cfcd59f51a7e6c73bcb6",
    ),
    Document(
        "debian-history-en-epub",
        "epub",
        "en",
        "heldout",
        "debian:debian-history",
        "usr/share/doc/debian-history/docs/project-history.en.epub",
        "GPL-2+",
        "A Brief History of Debian (DocBook -> EPUB)",
        "253d1c779be3d3969f85910b39d838f9a86f7a1e36a447d897559a31d41a176a",
    ),
    Document(
        "calibre-quick-start-de",
        "epub",
        "de",
        "heldout",
        "debian:calibre",
        "usr/share/calibre/quick_start/deu.epub",
        "CC-BY-SA-4.0 (text), GPL-3 (package)",
        "calibre Kurzanleitung (calibre-made EPUB)",
        "0f822a02940dedd84940db7667c47eb374d1971d6f520519924bd67e97921b87",
    ),
)


def by_name(name: str) -> Document:
    for doc in DOCUMENTS:
        if doc.name == name:
            return doc
    raise KeyError(name)
