"""A real-text EN/DE corpus for the throughput benchmark, from Debian's documentation.

The generated corpus of ``bench.throughput`` reuses a small vocabulary, which
flatters anything that caches per word (the token counter's word memo). This
builds a corpus of real technical documentation in English and German instead:
the HTML manuals shipped in Debian packages (the Debian Reference, the
Developer's Reference, the New Maintainers' Guide, the Debian FAQ, the Debian
installation guide, the Debian Edu manuals, the history of the Debian project,
and the GIMP, LibreOffice and KiCad user manuals, each in English and German),
downloaded with
``apt-get download`` at pinned versions and turned into canonical text by
chunkwise's own HTML extractor, as the ingest pipeline would.

    python -m bench.realtext.build --out .local/realtext/corpus.jsonl

The packages are free documentation (GPL, GFDL, CC-BY-SA, MPL-2.0; see their
copyright files after unpacking); nothing of them is committed, only aggregate
measurements.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

from bench.debian import fetch_pinned
from chunkwise.extract import ExtractionError, extract
from chunkwise.text.lang import detect_language

# Pinned to Debian 12 (bookworm); `apt-get download` refuses other versions
# rather than silently measuring different text.
PACKAGES = {
    "debian-reference-en": "2.100",
    "debian-reference-de": "2.100",
    "developers-reference": "12.18",
    "developers-reference-de": "12.18",
    "maint-guide": "1.2.53",
    "maint-guide-de": "1.2.53",
    "debian-faq": "11.1",
    "debian-faq-de": "11.1",
    "gimp-help-en": "2.10.34-2",
    "gimp-help-de": "2.10.34-2",
    "libreoffice-help-en-us": "4:7.4.7-1+deb12u14",
    "libreoffice-help-de": "4:7.4.7-1+deb12u14",
    "kicad-doc-en": "6.0.11+dfsg-1",
    "kicad-doc-de": "6.0.11+dfsg-1",
    "installation-guide-amd64": "20230508+deb12u1",
    "debian-edu-doc-en": "2.12.23~deb12u1",
    "debian-edu-doc-de": "2.12.23~deb12u1",
    "debian-history": "2.28",
}
# Several packages ship many translations, in locale folders (`de-DE/`, `fr/`)
# or file names (`ch01.fr.html`): only English and German pages are wanted.
_LOCALE = re.compile(r"^[a-z]{2}(?:[-_][A-Za-z]{2})?$")
_WANTED_LOCALES = {"en", "de", "en-us", "de-de", "en_us", "de_de"}


def download(workdir: Path) -> Path:
    """Fetch and unpack the pinned packages; returns the unpacked root."""
    return fetch_pinned(PACKAGES, workdir)


def _wanted_language(path: Path) -> bool:
    suffix_lang = path.suffixes[-2][1:] if len(path.suffixes) >= 2 else ""
    tagged = [part for part in path.parts[:-1] if _LOCALE.match(part)]
    if _LOCALE.match(suffix_lang):
        tagged.append(suffix_lang)
    return all(tag.lower() in _WANTED_LOCALES for tag in tagged)


def html_files(root: Path) -> list[Path]:
    """Every HTML page once (symlinks and copies removed), English and German pages only."""
    seen: set[str] = set()
    out = []
    for path in sorted(root.rglob("*.html")):
        if not _wanted_language(path):
            continue
        if path.is_symlink():
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        out.append(path)
    return out


def build(root: Path, out: Path) -> dict[str, int]:
    """Extract every page; keep English and German documents (detected)."""
    counts = {"en": 0, "de": 0, "skipped": 0, "chars": 0}
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for path in html_files(root):
            try:
                text = extract(path.read_bytes(), filename=path.name).text
            except ExtractionError:
                counts["skipped"] += 1
                continue
            lang = detect_language(text)
            if lang not in ("en", "de") or len(text) < 500:
                counts["skipped"] += 1
                continue
            counts[lang] += 1
            counts["chars"] += len(text)
            fh.write(json.dumps({"lang": lang, "text": text}, ensure_ascii=False) + "\n")
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", default=".local/realtext", help="downloads and unpacked files")
    ap.add_argument("--out", default=".local/realtext/corpus.jsonl")
    args = ap.parse_args(argv)
    root = download(Path(args.workdir))
    counts = build(root, Path(args.out))
    print(json.dumps(counts), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
