"""Fetch the real-document corpus: pinned Debian 12 packages, unpacked into .local/realdocs/.

    python -m bench.realdocs.fetch

Each package is downloaded with ``apt-get download NAME=VERSION`` (a pinned
version: another version is refused instead of silently measuring other
files) and unpacked with ``dpkg-deb -x``. Only the documents listed in
``DOCUMENTS`` are used; they are free documentation (GPL, GFDL, LPPL, MPL-2.0;
see the copyright files under ``root/usr/share/doc``). Nothing of them is
committed: only the labels under ``bench/realdocs/labels`` and the results.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.debian import fetch_pinned
from bench.realdocs import office

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / ".local" / "realdocs"

PACKAGES = {
    "debian-reference-en": "2.100",
    "debian-reference-de": "2.100",
    "texlive-lang-german": "2022.20230122-1",
    "texlive-latex-base-doc": "2022.20230122-3",
    "texlive-latex-recommended-doc": "2022.20230122-3",
    "libreoffice-help-de": "4:7.4.7-1+deb12u14",
    # Manuals from two more tool chains (Sphinx -> LaTeX, DocBook -> dblatex),
    # in English and German, for the independent check.
    "developers-reference": "12.18",
    "developers-reference-de": "12.18",
    "maint-guide": "1.2.53",
    "maint-guide-de": "1.2.53",
    # Two more tool chains for development: Texinfo (plain TeX with texinfo.tex,
    # the R manuals) and groff -> Ghostscript (bash's manual page).
    "r-doc-pdf": "4.2.2.20221110-2",
    "bash-doc": "5.2.15-2",
}


@dataclass(frozen=True)
class Document:
    name: str  # the id the labels use
    path: str  # below the unpacked root, or "repo:" + a path in this repository
    lang: str
    producer: str  # what made it: the layouts differ by tool chain


DOCUMENTS = (
    Document(
        "debian-reference-en",
        "usr/share/debian-reference/debian-reference.en.pdf",
        "en",
        "DocBook -> dblatex (XeTeX)",
    ),
    Document(
        "debian-reference-de",
        "usr/share/debian-reference/debian-reference.de.pdf",
        "de",
        "DocBook -> dblatex (XeTeX)",
    ),
    Document(
        "l2kurz", "usr/share/doc/texlive-doc/latex/lshort-german/l2kurz.pdf", "de", "LaTeX (pdfTeX)"
    ),
    Document(
        "booktabs-de",
        "usr/share/doc/texlive-doc/latex/booktabs-de/booktabs-de.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "longtable", "usr/share/doc/texlive-doc/latex/tools/longtable.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "colortbl-DE",
        "usr/share/doc/texlive-doc/latex/colortbl/colortbl-DE.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "colortbl", "usr/share/doc/texlive-doc/latex/colortbl/colortbl.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "encguide", "usr/share/doc/texlive-doc/latex/base/encguide.pdf", "en", "LaTeX (pdfTeX)"
    ),
    # Documents used only for development (labels in dev.jsonl only): more
    # table styles of the LaTeX tool chain (rules between row groups, p{}
    # columns, closely set columns).
    # German prose and headings in two more layouts of texlive-lang-german
    # (already pinned): a package manual with command names in the margin and
    # shaded example boxes, a class manual with option names in the margin.
    Document(
        "bibleref-german",
        "usr/share/doc/texlive-doc/latex/bibleref-german/de-bibleref-german.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "hausarbeit-jura",
        "usr/share/doc/texlive-doc/latex/hausarbeit-jura/hausarbeit-jura.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    # English table styles of the LaTeX tools manuals (texlive-latex-base-doc,
    # texlive-latex-recommended-doc): summary tables, p{} columns, slot tables.
    Document("array", "usr/share/doc/texlive-doc/latex/tools/array.pdf", "en", "LaTeX (pdfTeX)"),
    Document(
        "tabularx", "usr/share/doc/texlive-doc/latex/tools/tabularx.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "fntguide", "usr/share/doc/texlive-doc/latex/base/fntguide.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "ctable", "usr/share/doc/texlive-doc/latex/ctable/ctable.pdf", "en", "LaTeX (pdfTeX)"
    ),
    # First held-out, then moved to development after their held-out run of
    # 2026-12-01 showed a regression (xcolor) and failures (l2tabu).
    Document("xcolor", "usr/share/doc/texlive-doc/latex/xcolor/xcolor.pdf", "en", "LaTeX (pdfTeX)"),
    Document("l2tabu", "usr/share/doc/texlive-doc/latex/l2tabu/l2tabu.pdf", "de", "LaTeX (pdfTeX)"),
    # Two-column pages (LaTeX News: twocolumn; the German cheat sheet: three
    # columns of whitespace-aligned tables), from a package already pinned.
    Document(
        "ltnews35", "usr/share/doc/texlive-doc/latex/base/ltnews35.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "ltnews36", "usr/share/doc/texlive-doc/latex/base/ltnews36.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "latexsheet-de",
        "usr/share/doc/texlive-doc/latex/latexcheat-de/latexsheet-de.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    # German package documentation with German notes in an English text
    # (pdfTeX, OT1 fonts: accents are separate glyphs over their letter).
    Document("dhua", "usr/share/doc/texlive-doc/latex/dhua/dhua.pdf", "de", "LaTeX (pdfTeX)"),
    Document(
        "debian-reference-en-html",
        "usr/share/debian-reference/ch02.en.html",
        "en",
        "DocBook -> HTML",
    ),
    Document(
        "debian-reference-de-html",
        "usr/share/debian-reference/ch02.de.html",
        "de",
        "DocBook -> HTML",
    ),
    Document(
        "libreoffice-help-de-html",
        "usr/share/libreoffice/help/de/text/swriter/01/04090001.html",
        "de",
        "LibreOffice help (XHP -> HTML)",
    ),
    Document(
        "merged-header-de-docx",
        "repo:tests/data/merged_header_de.docx",
        "de",
        "python-docx fixture",
    ),
    # Office-suite PDFs made from the pinned HTML by LibreOffice Writer
    # (bench/realdocs/office.py; "office:" = .local/realdocs/office/).
    *(
        Document(name, f"office:{name}.pdf", name.rsplit("-", 1)[1], "LibreOffice Writer 7.4.7")
        for name in ("office-debref-ch03-en", "office-debref-ch08-en")
    ),
    *(
        Document(name, f"office:{name}.pdf", name.rsplit("-", 1)[1], "LibreOffice Writer 7.4.7")
        for name in ("office-debref-ch06-de", "office-lohelp-start-de")
    ),
    # The first and second independent sets (labelled from the rendered pages
    # before chunkwise ran on them, each run once on 2026-12-01), then moved
    # to development with their labels: a set that has been run against no
    # longer checks anything.
    *(
        Document(name, f"office:{name}.pdf", name.rsplit("-", 1)[1], "LibreOffice Writer 7.4.7")
        for name in (
            "office-debref-ch05-en",
            "office-debref-ch11-en",
            "office-debref-ch10-de",
            "office-lohelp-formula-de",
        )
    ),
    # Shaded and ruled tables with p{} columns, header-rule-only option lists,
    # a table continued on the next page, side-by-side column pairs, a
    # two-row header, a LuaTeX-made manual, lists and numbered headings.
    Document(
        "caption", "usr/share/doc/texlive-doc/latex/caption/caption.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "fancyvrb",
        "usr/share/doc/texlive-doc/latex/fancyvrb/fancyvrb-doc.pdf",
        "en",
        "LaTeX (LuaTeX)",
    ),
    Document(
        "usrguide", "usr/share/doc/texlive-doc/latex/base/usrguide.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "csquotes-DE",
        "usr/share/doc/texlive-doc/latex/csquotes-de/csquotes-DE.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "etoolbox-DE",
        "usr/share/doc/texlive-doc/latex/etoolbox-de/etoolbox-DE.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    # (second set)
    *(
        Document(name, f"office:{name}.pdf", name.rsplit("-", 1)[1], "LibreOffice Writer 7.4.7")
        for name in ("office-debref-ch04-en", "office-debref-ch09-de")
    ),
    Document(
        "listings", "usr/share/doc/texlive-doc/latex/listings/listings.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "microtype",
        "usr/share/doc/texlive-doc/latex/microtype/microtype.pdf",
        "en",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "fontspec", "usr/share/doc/texlive-doc/latex/fontspec/fontspec.pdf", "en", "LaTeX (XeTeX)"
    ),
    Document(
        "texlive-de",
        "usr/share/doc/texlive-doc/texlive/texlive-de/texlive-de.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "enumitem-de",
        "usr/share/doc/texlive-doc/latex/translation-enumitem-de/enumitem-de.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "microtype-DE",
        "usr/share/doc/texlive-doc/latex/microtype-de/microtype-DE.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    # (third round) the implementation manual of microtype: hidden optional
    # content, ActualText logos, expanded fonts, as microtype.pdf sets them.
    Document(
        "microtype-code",
        "usr/share/doc/texlive-doc/latex/microtype/microtype-code.pdf",
        "en",
        "LaTeX (pdfTeX)",
    ),
    # The third independent set (labelled from the rendered pages before
    # chunkwise ran on them, run once on 2026-12-01 evening), then moved to
    # development like the first two.
    # Third set, English: four engines and layouts of the LaTeX tool chain
    # (ruled font tables in Times; dvips + Distiller with command names in the
    # margin and ligature glyphs; XeTeX with microtype protrusion, booktabs
    # tables continued over pages and version notes in the margin; LuaTeX
    # with key/value lists and margin notes), and the office PDF of ch07.
    Document(
        "psnfss2e", "usr/share/doc/texlive-doc/latex/psnfss/psnfss2e.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "mdwtab",
        "usr/share/doc/texlive-doc/latex/mdwtools/mdwtab.pdf",
        "en",
        "LaTeX (dvips, Acrobat Distiller)",
    ),
    Document(
        "polyglossia",
        "usr/share/doc/texlive-doc/latex/polyglossia/polyglossia.pdf",
        "en",
        "LaTeX (XeTeX)",
    ),
    Document(
        "hyperref-doc",
        "usr/share/doc/texlive-doc/latex/hyperref/hyperref-doc.pdf",
        "en",
        "LaTeX (LuaTeX)",
    ),
    Document(
        "office-debref-ch07-en",
        "office:office-debref-ch07-en.pdf",
        "en",
        "LibreOffice Writer 7.4.7",
    ),
    # Third set, German: a XeTeX manual with booktabs tables (multi-row
    # headers, a page-long table), option names in the margin and framed
    # listings; a LuaTeX-made introduction with a two-line-cell table; two
    # pdfTeX documents with microtype's font expansion (a classicthesis
    # layout with margin notes and small-caps headings, a ltxdoc class manual
    # with margin notes and code listings); and a LibreOffice-made chapter.
    Document(
        "biblatex-de",
        "usr/share/doc/texlive-doc/latex/translation-biblatex-de/biblatex-de-Benutzerhandbuch.pdf",
        "de",
        "LaTeX (XeTeX)",
    ),
    Document(
        "lualatex-doc-DE",
        "usr/share/doc/texlive-doc/latex/lualatex-doc-de/lualatex-doc-DE.pdf",
        "de",
        "LaTeX (LuaTeX)",
    ),
    Document(
        "ArsClassica-de",
        "usr/share/doc/texlive-doc/latex/translation-arsclassica-de/ArsClassica-de.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document("milog", "usr/share/doc/texlive-doc/latex/milog/milog.pdf", "de", "LaTeX (pdfTeX)"),
    Document(
        "office-debref-ch12-de",
        "office:office-debref-ch12-de.pdf",
        "de",
        "LibreOffice Writer 7.4.7",
    ),
    # The fourth independent set (labelled from the rendered pages before
    # chunkwise ran on them, run once on 2026-12-01 evening), then moved to
    # development like the first three.
    # Fourth independent set, English: command names in the margin beside the
    # text (fancyhdr), a citation manual from an older pdfTeX with example
    # lists (natbib), the class guide's prose and code lines (clsguide), the
    # graphics guide's key list with dated margin notes (grfguide), three
    # debian-reference-en pages no dev label uses (see heldout.jsonl), and an
    # office PDF of the programming chapter (package and make tables).
    Document(
        "fancyhdr", "usr/share/doc/texlive-doc/latex/fancyhdr/fancyhdr.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "natbib", "usr/share/doc/texlive-doc/latex/natbib/natbib.pdf", "en", "TeX (pdfTeX 1.40.10)"
    ),
    Document(
        "clsguide", "usr/share/doc/texlive-doc/latex/base/clsguide.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "grfguide", "usr/share/doc/texlive-doc/latex/graphics/grfguide.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "office-debref-ch12-en",
        "office:office-debref-ch12-en.pdf",
        "en",
        "LibreOffice Writer 7.4.7",
    ),
    # fourth independent set, German: a CV class manual (margin labels, two
    # CEFR grids, plain and booktabs), a Distiller-made package manual (lists,
    # command tables), a XeTeX class manual (option lists, code boxes), the
    # TIPA manual (symbol tables, input/output examples); the office PDF of
    # debian-reference ch07 (de) and three debian-reference-de pages
    Document(
        "europecv-de",
        "usr/share/doc/texlive-doc/latex/translation-europecv-de/europecv-de.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "gerdoc",
        "usr/share/doc/texlive-doc/generic/german/gerdoc.pdf",
        "de",
        "LaTeX (dvips, Acrobat Distiller)",
    ),
    Document(
        "schulmathematik",
        "usr/share/doc/texlive-doc/latex/schulmathematik/schulmathematik.pdf",
        "de",
        "LaTeX (XeTeX)",
    ),
    Document(
        "tipaman-de",
        "usr/share/doc/texlive-doc/latex/tipa-de/tipaman-de.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "office-debref-ch07-de",
        "office:office-debref-ch07-de.pdf",
        "de",
        "LibreOffice Writer 7.4.7",
    ),
    # Dev-pool documents added to check that the rules generalise (labelled
    # from the rendered pages before chunkwise ran on them): a booktabs table
    # with a two-row header beside its ruled twin, a table set beside its
    # source code, decimal-aligned columns, a Distiller-made manual with
    # ruled floats (en); a Ghostscript-made manual with a two-row-header
    # ruled table and command names in the margin, an older pdfTeX manual
    # with margin labels and quoted blocks, and a long option manual (de).
    Document(
        "booktabs", "usr/share/doc/texlive-doc/latex/booktabs/booktabs.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document("hhline", "usr/share/doc/texlive-doc/latex/tools/hhline.pdf", "en", "LaTeX (pdfTeX)"),
    Document(
        "dcolumn", "usr/share/doc/texlive-doc/latex/tools/dcolumn.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "float",
        "usr/share/doc/texlive-doc/latex/float/float.pdf",
        "en",
        "LaTeX (dvips, Acrobat Distiller)",
    ),
    Document(
        "chemsym-de",
        "usr/share/doc/texlive-doc/latex/translation-chemsym-de/chemsym-de.pdf",
        "de",
        "LaTeX (dvips, Ghostscript)",
    ),
    Document(
        "filecontents-de",
        "usr/share/doc/texlive-doc/latex/translation-filecontents-de/filecontents-de.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "geometry-de",
        "usr/share/doc/texlive-doc/latex/geometry/geometry-de.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    # Two more tool chains (dev only): Texinfo manuals of R (@multitable
    # tables, @table definition lists, numbered sections and unnumbered
    # subheadings) and the groff-made bash manual page (bold section heads,
    # indented subsection heads and tagged paragraphs, no tables).
    Document("R-intro", "usr/share/R/doc/manual/R-intro.pdf", "en", "Texinfo (pdfTeX)"),
    Document("R-data", "usr/share/R/doc/manual/R-data.pdf", "en", "Texinfo (pdfTeX)"),
    Document("bash", "usr/share/doc/bash/bash.pdf", "en", "groff -> Ghostscript"),
    # Documents used only for the independent check (labels in heldout.jsonl
    # only, written from the rendered pages before chunkwise ran on them).
    # Fifth independent set, German: a Sphinx manual (small ruled tables with an
    # empty corner cell, numbered subsections), a dblatex manual made with
    # xdvipdfmx (ruled three- and four-column tables, footnotes, code blocks), a
    # university thesis class manual (term/description option list, code
    # listings); the office PDF of debian-reference ch01 (de) and three
    # debian-reference-de pages with five-column and ditto-mark tables
    Document(
        "developers-reference-de",
        "usr/share/developers-reference/de/developers-reference.pdf",
        "de",
        "Sphinx -> LaTeX (pdfTeX)",
    ),
    Document(
        "maint-guide-de",
        "usr/share/doc/maint-guide-de/maint-guide.de.pdf",
        "de",
        "DocBook -> dblatex (xdvipdfmx)",
    ),
    Document(
        "udesoftec-doc",
        "usr/share/doc/texlive-doc/latex/udesoftec/udesoftec-doc.pdf",
        "de",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "office-debref-ch01-de",
        "office:office-debref-ch01-de.pdf",
        "de",
        "LibreOffice Writer 7.4.7",
    ),
    # Fifth independent set, English: the Sphinx-made developers-reference
    # (ruled tables with an empty corner cell, numbered lists, changelog
    # examples), the dblatex/xdvipdfmx-made maint-guide (ruled multiarch
    # tables, nested lists, code listings, footnotes), two short pdfTeX guides
    # of the LaTeX base and l3kernel docs (narrow text with hyphenation, a list
    # and a code listing), three debian-reference-en pages no dev label uses
    # (a package table continued from the page before, wrapped cells; see
    # heldout.jsonl), and the office PDF of the tutorial chapter (tables with
    # two-line header cells and wrapped cells).
    Document(
        "developers-reference-en",
        "usr/share/developers-reference/developers-reference.pdf",
        "en",
        "Sphinx -> LaTeX (pdfTeX)",
    ),
    Document(
        "maint-guide-en",
        "usr/share/doc/maint-guide/maint-guide.en.pdf",
        "en",
        "DocBook -> dblatex (xdvipdfmx)",
    ),
    Document(
        "cyrguide", "usr/share/doc/texlive-doc/latex/base/cyrguide.pdf", "en", "LaTeX (pdfTeX)"
    ),
    Document(
        "l3styleguide",
        "usr/share/doc/texlive-doc/latex/l3kernel/l3styleguide.pdf",
        "en",
        "LaTeX (pdfTeX)",
    ),
    Document(
        "office-debref-ch01-en",
        "office:office-debref-ch01-en.pdf",
        "en",
        "LibreOffice Writer 7.4.7",
    ),
)


PYMUPDF_VENV = ROOT / ".local" / "pymupdf-venv"
PYMUPDF4LLM = "pymupdf4llm==1.28.2"


def pymupdf_python() -> Path | None:
    """The comparison tool's own venv (AGPL: kept apart from chunkwise and its deps)."""
    python = PYMUPDF_VENV / "bin" / "python"
    if python.exists():
        return python
    try:
        subprocess.run([sys.executable, "-m", "venv", str(PYMUPDF_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PYMUPDF4LLM], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"[realdocs] pymupdf4llm venv could not be made: {exc}", file=sys.stderr)
        return None
    return python


def resolve(doc: Document) -> Path:
    if doc.path.startswith("repo:"):
        return ROOT / doc.path.removeprefix("repo:")
    if doc.path.startswith("office:"):
        return WORK / "office" / doc.path.removeprefix("office:")
    return WORK / "root" / doc.path


def fetch() -> Path:
    """Download (once) and unpack the pinned packages; returns the unpacked root."""
    return fetch_pinned(PACKAGES, WORK)


def main() -> int:
    try:
        root = fetch()
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"[realdocs] fetch failed: {exc}", file=sys.stderr)
        return 1
    office.build(root, WORK / "office")
    missing = [d.name for d in DOCUMENTS if not resolve(d).exists()]
    for name in missing:
        print(f"[realdocs] missing: {name}", file=sys.stderr)
    print(f"[realdocs] {len(DOCUMENTS) - len(missing)} of {len(DOCUMENTS)} documents in {WORK}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
