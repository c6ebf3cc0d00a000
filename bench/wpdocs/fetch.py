"""Fetch the word-processor / layout-tool PDF corpus into .local/wpdocs/ (never committed).

    python -m bench.wpdocs.fetch --git jsvine/pdfplumber=PATH --git camelot-dev/camelot=PATH ...

Two kinds of source, both pinned:

- PDFs from public git repositories, read with ``git show COMMIT:PATH`` from a
  local clone of each (``--git OWNER/NAME=GIT_DIR``, a bare clone or the
  ``.git`` of an ordinary one, that has the pinned commit). Nothing here knows
  where such clones live: without ``--git`` for a repository its documents are
  reported missing and the benchmark leaves them out. Each file is checked by
  its SHA-256 (the labels were written from these bytes); a file with other
  bytes is "changed" and not scored.
- PDFs LibreOffice 7.4.7 makes from pages of the pinned Debian package
  libreoffice-help-de (bench/realdocs/office.py: HTML -> Writer -> tagged PDF,
  with a running header and a page footer). LibreOffice writes the date and a
  document id into each PDF, so the PDF's bytes are not fixed: the source page is
  pinned by its SHA-256 instead, and the LibreOffice version by office.py.

bench/wpdocs/README.md lists the documents and their licences.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.debian import fetch_pinned
from bench.realdocs import fetch as realdocs_fetch
from bench.realdocs import office
from bench.realdocs.fetch import Document

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / ".local" / "wpdocs"
LOHELP_PACKAGE = "libreoffice-help-de"
# the same pinned version the realdocs corpus uses (one pin, not two)
DEBIAN = {LOHELP_PACKAGE: realdocs_fetch.PACKAGES[LOHELP_PACKAGE]}
_LOHELP = "usr/share/libreoffice/help/de/text"

# Producer families the results are summed over.
WORD_PROCESSOR = "word processor"
LAYOUT_TOOL = "layout tool"
SPREADSHEET = "spreadsheet"
LIBREOFFICE = "LibreOffice"
FAMILIES = (WORD_PROCESSOR, LAYOUT_TOOL, SPREADSHEET, LIBREOFFICE)


@dataclass(frozen=True)
class Source:
    """Where a document comes from and the SHA-256 of its bytes (for a git file: the
    PDF; for a LibreOffice export: the source HTML page)."""

    name: str  # the id the labels use
    split: str  # dev or heldout, fixed when the labels were written
    origin: str  # "git:OWNER/NAME" or "office" (made by LibreOffice from libreoffice-help-de)
    commit: str  # for git: the pinned commit
    path: str  # in the repository, or the HTML page in the unpacked package
    sha256: str
    lang: str
    producer: str  # the PDF's Producer / Creator: what laid it out
    family: str  # one of FAMILIES


PDFPLUMBER = "git:jsvine/pdfplumber"
PDFPLUMBER_COMMIT = "147f2c4c07dc1191fc1d05bb589b4f6af3aaf74a"
CAMELOT = "git:camelot-dev/camelot"
CAMELOT_COMMIT = "2b80d0bc692d1b22203c3385e77da8201675aa50"
DOCLING = "git:docling-project/docling"
DOCLING_COMMIT = "e1cb2b234c48ff29746b0f2f843d07f8e23905a0"
SAMPLE_FILES = "git:py-pdf/sample-files"
SAMPLE_FILES_COMMIT = "6921079eb3e1ed0944db5ec75016910d59da7fdb"
PDF2DOCX = "git:dothinking/pdf2docx"
PDF2DOCX_COMMIT = "6f03c754cab910d3cbb0f858daa4ac82385ee0d7"

SOURCES = (
    # dev
    Source(
        "word-milw", "dev", PDFPLUMBER, PDFPLUMBER_COMMIT,
        "tests/pdfs/150109DSP-Milw-505-90D.pdf",
        "901409e8e3d504a07ca1793e0b05d4b58e333760026dc1996d27edee9365a513",
        "en", "Acrobat PDFMaker 10.1 for Word", WORD_PROCESSOR,
    ),
    Source(
        "word-demo-table", "dev", PDF2DOCX, PDF2DOCX_COMMIT, "test/samples/demo-table.pdf",
        "701b7a8067b05cdf8f9bac8335e570047e9a43308910f003e95e5eb8f1525eba",
        "en", "Microsoft Word for Office 365", WORD_PROCESSOR,
    ),
    Source(
        "gdocs-example", "dev", SAMPLE_FILES, SAMPLE_FILES_COMMIT,
        "011-google-doc-document/google-doc-document.pdf",
        "69f6b7f493b1bc55d518942976cbeadc4ec0a36f6d8a6dc24feffc516d35b2c9",
        "en", "Skia/PDF Google Docs Renderer", WORD_PROCESSOR,
    ),
    Source(
        "indesign-amt", "dev", DOCLING, DOCLING_COMMIT,
        "tests/data/pdf/sources/amt_handbook_sample.pdf",
        "7099fe05ade36067cf66e72b23277972a1a2b7d2da1cb82c8d690efd70143fe0",
        "en", "Adobe InDesign CC 13", LAYOUT_TOOL,
    ),
    Source(
        "excel-versicherung-de", "dev", CAMELOT, CAMELOT_COMMIT, "tests/files/issue_288.pdf",
        "8c4d32863db2904d824c5ebe2c2a4f78a32e4c864c465c0cecf01a3996576d28",
        "de", "Microsoft Excel für Microsoft 365", SPREADSHEET,
    ),
    Source(
        "lo-tables-en", "dev", PDFPLUMBER, PDFPLUMBER_COMMIT, "tests/pdfs/issue-466-example.pdf",
        "da49286d9f6f985136c6a1788ca4a33f20bbdcbe4ea8153b81bb87841e95cba4",
        "en", "LibreOffice 6.0 Writer", LIBREOFFICE,
    ),
    Source(
        "lo-borders-de", "dev", "office", "", f"{_LOHELP}/swriter/guide/borders.html",
        "52d71364e07fd99a599b48f4d0cee374587f7871ca421d454b2bd7349dbabf56",
        "de", "LibreOffice 7.4 Writer", LIBREOFFICE,
    ),
    Source(
        "lo-signatures-de", "dev", "office", "", f"{_LOHELP}/shared/guide/digital_signatures.html",
        "54f1628ddb312f21cf4a39498265ecd9f8a9f41e940d22d6ddc87b24f036bd94",
        "de", "LibreOffice 7.4 Writer", LIBREOFFICE,
    ),
    Source(
        "quartz-multipage", "dev", DOCLING, DOCLING_COMMIT, "tests/data/pdf/sources/multi_page.pdf",
        "956846c28f9ed9d3b5cbe071865c082bd415f56e3e299c479aeea1f615eefa61",
        "en", "macOS Quartz PDFContext", WORD_PROCESSOR,
    ),
    # held-out: run once, at the end, by someone who did not tune on them
    Source(
        "word-sydney", "heldout", CAMELOT, CAMELOT_COMMIT,
        "tests/files/tabula/sydney_disclosure_contract.pdf",
        "18dc9dd6e472dabb16d203d9d2107c88104a8ec7f1d61f5df21131cb2e0d90ae",
        "en", "Microsoft Word 2010", WORD_PROCESSOR,
    ),
    Source(
        "gdocs-grasshopper", "heldout", PDFPLUMBER, PDFPLUMBER_COMMIT,
        "tests/pdfs/issue-463-example.pdf",
        "7337e4267970818c55692f371d1fbaeb18a6dbc2d2d58739a07df94a4e3b7999",
        "en", "Skia/PDF Google Docs Renderer", WORD_PROCESSOR,
    ),
    Source(
        "indesign-homeloan", "heldout", PDFPLUMBER, PDFPLUMBER_COMMIT,
        "tests/pdfs/pr-138-example.pdf",
        "20bd9ee89a10cc92f679085a0d6cab85baa05ca3f781543f23f19d1e5ea7409f",
        "en", "Adobe InDesign CC 14", LAYOUT_TOOL,
    ),
    Source(
        "lo-sampling-de", "heldout", "office", "",
        f"{_LOHELP}/scalc/01/statistics_sampling.html",
        "4d654941973f2680508205043bd78f603dc64bb8d7af17b5290c0721b414ac1c",
        "de", "LibreOffice 7.4 Writer", LIBREOFFICE,
    ),
    Source(
        "lo-templates-de", "heldout", "office", "", f"{_LOHELP}/shared/guide/manage_templates.html",
        "cb422d1271848ca7f826f3ef24dd423c8c8ed2fe54cf272998a5dbbfd0abfc5f",
        "de", "LibreOffice 7.4 Writer", LIBREOFFICE,
    ),
)  # fmt: skip

# The LibreOffice exports as the label writer made them: header "LibreOffice-Hilfe",
# footer "Seite N von M", tagged.
OFFICE = tuple(
    office.OfficeSource(s.name, s.path, "LibreOffice-Hilfe", "Seite {page} von {pages}", True)
    for s in SOURCES
    if s.origin == "office"
)


def lohelp_root() -> Path:
    return WORK / "debian" / "root"


def resolve(source: Source) -> Path:
    """Where the document's PDF is (or will be) under .local/wpdocs/."""
    return WORK / "pdf" / f"{source.name}.pdf"


def pinned_path(source: Source) -> Path:
    """The file whose SHA-256 is pinned: the PDF, or a LibreOffice export's HTML page."""
    return lohelp_root() / source.path if source.origin == "office" else resolve(source)


def document(source: Source) -> Document:
    """The document as bench/realdocs's runner takes it ("wpdocs:" paths, see resolve)."""
    return Document(source.name, f"wpdocs:{source.name}.pdf", source.lang, source.producer)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def state(source: Source) -> str:
    """The state of its file: "ok", "missing" or "changed" (not the pinned bytes)."""
    pinned = pinned_path(source)
    if not pinned.exists() or not resolve(source).exists():
        return "missing"
    return "ok" if sha256_file(pinned) == source.sha256 else "changed"


def fetch_git(clones: dict[str, Path]) -> None:
    """Copy each missing git-pinned PDF out of the clone given for its repository."""
    for source in SOURCES:
        repo = source.origin.removeprefix("git:")
        target = resolve(source)
        if source.origin == "office" or target.exists() or repo not in clones:
            continue
        proc = subprocess.run(
            ["git", "--git-dir", str(clones[repo]), "show", f"{source.commit}:{source.path}"],
            capture_output=True,
            check=False,
        )
        if proc.returncode != 0:
            print(
                f"[wpdocs] {source.name}: {repo} @ {source.commit[:8]} has no {source.path} "
                f"in {clones[repo]}: {proc.stderr.decode(errors='replace').strip()}",
                file=sys.stderr,
            )
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(proc.stdout)


def fetch_office() -> None:
    """The LibreOffice exports, made from the pinned help pages (when soffice is 7.4.7)."""
    if all(resolve(s).exists() for s in SOURCES if s.origin == "office"):
        return
    root = fetch_pinned(DEBIAN, WORK / "debian")
    office.build(root, WORK / "pdf", OFFICE)


def parse_clones(values: list[str]) -> dict[str, Path]:
    clones: dict[str, Path] = {}
    for value in values:
        repo, sep, path = value.partition("=")
        if not sep or "/" not in repo:
            raise SystemExit(f"--git wants OWNER/NAME=GIT_DIR, got {value!r}")
        clones[repo] = Path(path)
    return clones


def fetch(clones: dict[str, Path]) -> dict[str, str]:
    """Fetch what is missing; returns each document's state."""
    fetch_git(clones)
    try:
        fetch_office()
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"[wpdocs] LibreOffice documents not made: {exc}", file=sys.stderr)
    return {s.name: state(s) for s in SOURCES}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.wpdocs.fetch")
    repos = sorted({s.origin.removeprefix("git:") for s in SOURCES if s.origin != "office"})
    parser.add_argument(
        "--git",
        action="append",
        default=[],
        metavar="OWNER/NAME=GIT_DIR",
        help="a local clone of a source repository (" + ", ".join(repos) + ")",
    )
    args = parser.parse_args(argv)
    states = fetch(parse_clones(args.git))
    for name, found in states.items():
        if found != "ok":
            print(f"[wpdocs] {found}: {name}", file=sys.stderr)
    ok = sum(1 for s in states.values() if s == "ok")
    print(f"[wpdocs] {ok} of {len(SOURCES)} documents in {WORK / 'pdf'}")
    return 1 if "changed" in states.values() else 0


if __name__ == "__main__":
    raise SystemExit(main())
