"""Seeded generator of English and German Markdown documents for the scale benchmark.

Each document is a title, three or four sections of real encyclopaedic paragraphs and
one pipe table, about ten chunks with the default chunker. The paragraphs come from
the XQuAD development articles (Wikipedia text in English and German) when
`python -m bench.xquad.prepare` has put them under ``.local/xquad/dev-*``; without
them, sentences are built from the contract-language templates of bench.index_search
(so a fresh clone can still run the benchmark; the results file says which source
was used). Held-out articles are never read.

Every document carries a marker no other document has (``Vorgang SC-<seed>-<n>``):
the swap phase searches for it and knows exactly which document and revision must
answer.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.index_search import _sentence

ROOT = Path(__file__).resolve().parents[2]
XQUAD_DEV = ROOT / ".local" / "xquad"
LANGS = ("en", "de")
# A paragraph shorter than this is a caption or a heading, not body text.
MIN_PARAGRAPH_CHARS = 200

SECTION_TITLES = {
    "en": ["Background", "Overview", "History", "Details", "Assessment", "Notes"],
    "de": ["Hintergrund", "Überblick", "Geschichte", "Einzelheiten", "Bewertung", "Hinweise"],
}
TABLE_HEADERS = {
    "en": ("Item", "Year", "Quantity", "Share"),
    "de": ("Posten", "Jahr", "Menge", "Anteil"),
}
TABLE_ITEMS = {
    "en": ["Maintenance", "Licences", "Staff", "Travel", "Hardware", "Training", "Audit"],
    "de": ["Wartung", "Lizenzen", "Personal", "Reisen", "Hardware", "Schulung", "Prüfung"],
}


@dataclass(frozen=True)
class Document:
    key: str
    lang: str
    marker: str
    text: str


def marker_for(seed: int, n: int) -> str:
    """The document's unique search term (one token for the standard analyzer)."""
    return f"SC{seed}x{n:06d}"


def load_paragraphs(root: Path = XQUAD_DEV) -> dict[str, list[str]]:
    """Body paragraphs of the development articles by language ({} if not fetched)."""
    out: dict[str, list[str]] = {}
    for lang in LANGS:
        paras: list[str] = []
        for path in sorted((root / f"dev-{lang}" / "docs").glob("*.md")):
            for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
                block = block.strip()
                if len(block) >= MIN_PARAGRAPH_CHARS and not block.startswith(("#", "|")):
                    paras.append(block)
        if paras:
            out[lang] = paras
    return out if set(out) == set(LANGS) else {}


def _template_paragraph(rng: random.Random, lang: str) -> str:
    return " ".join(_sentence(rng, lang) for _ in range(rng.randint(5, 8)))


class Generator:
    """``documents(n)`` yields the same n documents for the same seed and source."""

    def __init__(self, seed: int = 17, paragraphs: dict[str, list[str]] | None = None) -> None:
        self.seed = seed
        self.paragraphs = load_paragraphs() if paragraphs is None else paragraphs

    @property
    def source(self) -> str:
        return "XQuAD dev articles (en/de)" if self.paragraphs else "templates"

    def _paragraph(self, rng: random.Random, lang: str) -> str:
        pool = self.paragraphs.get(lang)
        return rng.choice(pool) if pool else _template_paragraph(rng, lang)

    def _table(self, rng: random.Random, lang: str) -> str:
        header = TABLE_HEADERS[lang]
        rows = [f"| {' | '.join(header)} |", f"|{'---|' * len(header)}"]
        for item in rng.sample(TABLE_ITEMS[lang], rng.randint(4, 6)):
            share = f"{rng.randint(1, 40)}{',' if lang == 'de' else '.'}{rng.randint(0, 9)} %"
            rows.append(
                f"| {item} | {rng.randint(2015, 2026)} | {rng.randint(3, 9000)} | {share} |"
            )
        return "\n".join(rows)

    def document(self, n: int, revision: int = 0) -> Document:
        """Document ``n``; ``revision`` > 0 changes its text (a new S3 version)."""
        rng = random.Random(f"{self.seed}:{n}:{revision}")
        lang = LANGS[n % 2]
        marker = marker_for(self.seed, n)
        word = "Vorgang" if lang == "de" else "Case"
        parts = [f"# {word} {marker}", ""]
        sections = rng.sample(SECTION_TITLES[lang], rng.randint(3, 4))
        table_at = rng.randrange(len(sections))
        for i, title in enumerate(sections):
            parts += [f"## {title}", ""]
            for _ in range(3):
                parts += [self._paragraph(rng, lang), ""]
            if i == table_at:
                parts += [self._table(rng, lang), ""]
        parts.append(f"{word} {marker}, revision {revision}.")
        return Document(
            key=f"{lang}/doc-{n:06d}.md", lang=lang, marker=marker, text="\n".join(parts) + "\n"
        )

    def documents(self, count: int, start: int = 0) -> Iterator[Document]:
        for n in range(start, start + count):
            yield self.document(n)
