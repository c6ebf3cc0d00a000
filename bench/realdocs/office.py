"""PDFs as an office suite writes them: pinned HTML sources saved as PDF by LibreOffice Writer.

    python -m bench.realdocs.fetch     (its main calls `build` after the fetch)

Most PDFs users upload are "Save as PDF" from LibreOffice or Word, a tool chain
of its own (cell borders drawn as rectangles, bullets as glyphs, headings only
by font size and weight, running headers and footers, tagged or untagged). The
corpus makes them from real documents of the pinned packages (debian-reference
chapters with tables, headings and lists; LibreOffice help pages with tables):

1. ``soffice --headless --infilter="HTML (StarWriter)" --convert-to odt``: the
   HTML is opened as an ordinary Writer text document (not a Writer/Web page);
2. a running header (the document's title) and a page-number footer ("Page 3
   of 12", "Seite 3 von 12") are added to its page styles, as an office user's
   document has them, for the documents that list them;
3. ``--convert-to pdf`` with the ``writer_pdf_Export`` filter, tagged PDF for
   the documents that ask for it (Word's default), untagged otherwise.

The output goes to .local/realdocs/office/ and is never committed. The PDFs
depend on the LibreOffice build (fonts, layout): only LibreOffice 7.4.7 (the
Debian 12 package libreoffice-writer-nogui 4:7.4.7-1+deb12u*) is accepted; with
another version or without ``soffice`` the documents are skipped with a message
rather than measured as other files.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

LIBREOFFICE_VERSION = "7.4.7"
_TEXT_NS = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_MASTER_PAGE = re.compile(r"<style:master-page ([^>]*?)(/>|>.*?</style:master-page>)", re.S)
_SECONDS = 300


@dataclass(frozen=True)
class OfficeSource:
    name: str  # the PDF is office/<name>.pdf
    html: str  # below the unpacked root
    header: str  # running header text ("" for none)
    footer: str  # "{page}" and "{pages}" become page fields ("" for none)
    tagged: bool  # tagged PDF (structure tree), as Word writes by default


_DEBREF = "usr/share/debian-reference"
_LOHELP = "usr/share/libreoffice/help/de/text"
_PAGE_EN = "Page {page} of {pages}"
_PAGE_DE = "Seite {page} von {pages}"

SOURCES = (
    # dev (labels in dev.jsonl)
    OfficeSource(
        "office-debref-ch03-en",
        f"{_DEBREF}/ch03.en.html",
        "Debian Reference: The system initialization",
        _PAGE_EN,
        True,
    ),
    OfficeSource("office-debref-ch08-en", f"{_DEBREF}/ch08.en.html", "", _PAGE_EN, False),
    OfficeSource(
        "office-debref-ch06-de",
        f"{_DEBREF}/ch06.de.html",
        "Debian-Referenz: Netzwerkapplikationen",
        _PAGE_DE,
        True,
    ),
    OfficeSource(
        "office-lohelp-start-de", f"{_LOHELP}/shared/guide/start_parameters.html", "", "", False
    ),
    # held out in the first and second independent sets, then moved to
    # development (bench/realdocs/fetch.py says why)
    OfficeSource(
        "office-debref-ch05-en",
        f"{_DEBREF}/ch05.en.html",
        "Debian Reference: Network setup",
        _PAGE_EN,
        True,
    ),
    OfficeSource("office-debref-ch11-en", f"{_DEBREF}/ch11.en.html", "", _PAGE_EN, False),
    OfficeSource(
        "office-debref-ch10-de",
        f"{_DEBREF}/ch10.de.html",
        "Debian-Referenz: Datenmanagement",
        _PAGE_DE,
        True,
    ),
    OfficeSource(
        "office-lohelp-formula-de", f"{_LOHELP}/swriter/02/14020000.html", "", _PAGE_DE, False
    ),
    OfficeSource(
        "office-debref-ch04-en",
        f"{_DEBREF}/ch04.en.html",
        "Debian Reference: Authentication and access controls",
        _PAGE_EN,
        True,
    ),
    OfficeSource("office-debref-ch09-de", f"{_DEBREF}/ch09.de.html", "", _PAGE_DE, False),
    # the third independent set, then moved to development
    # third independent set: a GUI chapter with package tables, a running
    # header and page footer, untagged
    OfficeSource(
        "office-debref-ch07-en",
        f"{_DEBREF}/ch07.en.html",
        "Debian Reference: GUI System",
        _PAGE_EN,
        False,
    ),
    # third independent set, German: a running header over an untagged PDF
    OfficeSource(
        "office-debref-ch12-de",
        f"{_DEBREF}/ch12.de.html",
        "Debian-Referenz: Programmierung",
        _PAGE_DE,
        False,
    ),
    # the fourth independent set, then moved to development
    # fourth independent set, English: the programming chapter (code listings,
    # package tables) with a running header over a tagged PDF
    OfficeSource(
        "office-debref-ch12-en",
        f"{_DEBREF}/ch12.en.html",
        "Debian Reference: Programming",
        _PAGE_EN,
        True,
    ),
    # fourth independent set, German: the GUI chapter (package tables) with a running
    # header, tagged
    OfficeSource(
        "office-debref-ch07-de",
        f"{_DEBREF}/ch07.de.html",
        "Debian-Referenz: GUI-System",
        _PAGE_DE,
        True,
    ),
    # held-out (labels in heldout.jsonl only, written from the rendered pages
    # before chunkwise ran on them)
    # Fifth independent set, German: the tutorial chapter (command tables, shell
    # listings, nested lists) with a running header and page footer, untagged
    OfficeSource(
        "office-debref-ch01-de",
        f"{_DEBREF}/ch01.de.html",
        "Debian-Referenz: GNU/Linux-Lehrstunde",
        _PAGE_DE,
        False,
    ),
    # Fifth independent set, English: the introductory chapter (tutorial
    # prose, command and package tables, lists) with a running header over a
    # tagged PDF
    OfficeSource(
        "office-debref-ch01-en",
        f"{_DEBREF}/ch01.en.html",
        "Debian Reference: GNU/Linux tutorials",
        _PAGE_EN,
        True,
    ),
)


def soffice_version() -> str | None:
    """LibreOffice's version ("7.4.7.2"), or None without a usable soffice."""
    soffice = shutil.which("soffice")
    if soffice is None:
        return None
    try:
        proc = subprocess.run(
            [soffice, "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"LibreOffice (\d+(?:\.\d+)+)", proc.stdout)
    return match.group(1) if match else None


def _paragraph(template: str) -> str:
    fields = template.replace("{page}", "<text:page-number/>")
    fields = fields.replace("{pages}", "<text:page-count/>")
    return f'<text:p text:style-name="Standard">{fields}</text:p>'


def with_running_lines(styles_xml: str, header: str, footer: str) -> str:
    """styles.xml with every master page given the header and footer paragraphs.

    A master page's content is replaced: the HTML import writes empty ones
    (``<style:master-page .../>``)."""
    parts = ""
    if header:
        parts += f"<style:header>{_paragraph(header)}</style:header>"
    if footer:
        parts += f"<style:footer>{_paragraph(footer)}</style:footer>"
    if not parts:
        return styles_xml
    if f'xmlns:text="{_TEXT_NS}"' not in styles_xml:
        raise ValueError("styles.xml without the ODF text namespace")
    return _MASTER_PAGE.sub(
        lambda m: f"<style:master-page {m.group(1)}>{parts}</style:master-page>", styles_xml
    )


def _rewrite_styles(odt: Path, header: str, footer: str) -> None:
    out = odt.with_suffix(".tmp")
    with zipfile.ZipFile(odt) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "styles.xml":
                data = with_running_lines(data.decode("utf-8"), header, footer).encode("utf-8")
            # the mimetype member must stay first and stored (ODF packaging rule)
            dst.writestr(info, data, compress_type=info.compress_type)
    out.replace(odt)


def _soffice(args: list[str], profile: Path, outdir: Path) -> None:
    command = [
        "soffice",
        f"-env:UserInstallation={profile.as_uri()}",
        "--headless",
        *args,
        "--outdir",
        str(outdir),
    ]
    subprocess.run(command, check=True, capture_output=True, timeout=_SECONDS)


def _pdf_filter(tagged: bool) -> str:
    options = {"UseTaggedPDF": {"type": "boolean", "value": "true" if tagged else "false"}}
    return "pdf:writer_pdf_Export:" + json.dumps(options, separators=(",", ":"))


def convert(source: OfficeSource, root: Path, outdir: Path) -> Path:
    """One source HTML page -> Writer document -> office/<name>.pdf."""
    html = root / source.html
    target = outdir / f"{source.name}.pdf"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        staged = work / f"{source.name}.html"
        shutil.copyfile(html, staged)  # the output is named after the input
        profile = work / "profile"  # a private profile: runs in parallel do not collide
        _soffice(
            ["--infilter=HTML (StarWriter)", "--convert-to", "odt", str(staged)], profile, work
        )
        odt = work / f"{source.name}.odt"
        _rewrite_styles(odt, source.header, source.footer)
        _soffice(["--convert-to", _pdf_filter(source.tagged), str(odt)], profile, work)
        outdir.mkdir(parents=True, exist_ok=True)
        shutil.move(str(work / f"{source.name}.pdf"), target)
    return target


def build(root: Path, outdir: Path, sources: tuple[OfficeSource, ...] = SOURCES) -> int:
    """Make the missing office PDFs (by default this corpus's; bench/wpdocs passes its
    own); returns how many could not be made."""
    missing = [s for s in sources if not (outdir / f"{s.name}.pdf").exists()]
    if not missing:
        return 0
    version = soffice_version()
    if version is None or not version.startswith(LIBREOFFICE_VERSION):
        found = f"LibreOffice {version}" if version else "no soffice"
        print(
            f"[realdocs] office PDFs skipped: they need LibreOffice {LIBREOFFICE_VERSION} "
            f"(Debian 12 package libreoffice-writer-nogui), found {found}",
            file=sys.stderr,
        )
        return len(missing)
    failed = 0
    for source in missing:
        try:
            convert(source, root, outdir)
        except (OSError, subprocess.SubprocessError, ValueError) as exc:
            print(f"[realdocs] office PDF {source.name} not made: {exc}", file=sys.stderr)
            failed += 1
    return failed
