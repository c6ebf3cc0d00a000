"""Language per section and per paragraph (`--lang auto`), the document's as the prior.

The real all-MiniLM-L6-v2 tokenizer is used (loaded once per session); no I/O.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkwise import ChunkerConfig, chunk_text
from chunkwise.index.bodies import lang_fields
from chunkwise.models.counter import HFTokenCounter
from chunkwise.text.lang import detect_part_language
from tests.chunk_invariants import assert_offsets

DATA = Path(__file__).resolve().parents[1] / "data"

EN_SECTION = (
    "## Installation\n\n"
    "Mount the pump on a level floor and connect the inlet to the tank. The outlet "
    "must be free of kinks, and the power cable has to be fixed to the frame with the "
    "clips that are in the box."
)
# Two sentences; the second has ordinals ("am 3.", "dem 4.") that English rules cut after.
DE_SECTION = (
    "## Wartung\n\n"
    "Die Pumpe ist wartungsarm und läuft ruhig. "
    "Der Filter wurde am 3. Oktober und dem 4. November gewechselt, und die Dichtung "
    "ist nicht mehr dicht."
)


def _langs(text: str, **config: object) -> list[tuple[str, str]]:
    cfg = ChunkerConfig.build(**config) if config else None
    return [(c.lang, c.body) for c in chunk_text(text, "auto", cfg)]


def test_each_section_gets_its_own_language() -> None:
    text = f"# Manual\n\n{EN_SECTION}\n\n{DE_SECTION}\n\n{EN_SECTION}\n"
    chunks = chunk_text(text)
    by_heading = {c.heading_path[-1]: c.lang for c in chunks}
    assert by_heading == {"Installation": "en", "Wartung": "de"}
    assert_offsets(text, chunks)
    # The chunk's language picks its BM25 analyzer.
    assert {tuple(lang_fields(c.lang)) for c in chunks} == {("text_en",), ("text_de",)}


def test_german_sentence_rules_in_the_german_section_of_an_english_document(
    counter: HFTokenCounter,
) -> None:
    # A chunk target that holds the first German sentence plus a piece of the
    # second, but not both: English rules would cut after "am 3.".
    text = f"{EN_SECTION}\n\n{EN_SECTION}\n\n{DE_SECTION}\n"
    cfg = ChunkerConfig.build(max_chars=100, overlap_chars=0)
    chunks = chunk_text(text, "auto", cfg, counter=counter)
    german = [c for c in chunks if c.lang == "de"]
    assert german and all(not c.body.rstrip().endswith(("am 3.", "dem 4.")) for c in german)
    forced = chunk_text(text, "en", cfg, counter=counter)
    assert any(c.body.rstrip().endswith(("am 3.", "dem 4.")) for c in forced)


def test_an_english_paragraph_in_a_german_section_is_english() -> None:
    english = (
        "Please note that this paragraph was not translated: it is in English, and the "
        "rest of the section is in German, which is how translated manuals often look."
    )
    german = (
        "Die Pumpe wird über das Netzteil versorgt. Vor dem Öffnen der Abdeckung ist "
        "der Stecker zu ziehen, und die Anlage muss stillstehen."
    )
    text = f"# Handbuch\n\n{german}\n\n{english}\n\n{german}\n"
    chunks = chunk_text(text)
    assert [c.lang for c in chunks] == ["de", "en", "de"]
    assert chunks[1].body == english
    assert_offsets(text, chunks)


def test_short_parts_keep_the_documents_language() -> None:
    text = (
        "# Handbuch\n\n"
        + DE_SECTION
        + "\n\n## Technical data\n\n| Wert | Einheit |\n|---|---|\n| 5 | bar |\n\n## Ende\n\nOK.\n"
    )
    assert {lang for lang, _ in _langs(text)} == {"de"}


def test_an_explicit_language_is_used_everywhere() -> None:
    text = f"{EN_SECTION}\n\n{DE_SECTION}\n"
    assert {c.lang for c in chunk_text(text, "de")} == {"de"}
    assert {c.lang for c in chunk_text(text, "und")} == {"und"}


def test_real_samples_concatenated_keep_each_documents_language() -> None:
    de = (DATA / "handbuch_de.md").read_text(encoding="utf-8")
    en = (DATA / "manual_en.md").read_text(encoding="utf-8")
    text = de + "\n" + en
    chunks = chunk_text(text)
    assert_offsets(text, chunks)
    assert {c.lang for c in chunks if c.end <= len(de)} == {"de"}
    assert {c.lang for c in chunks if c.start >= len(de)} == {"en"}


@pytest.mark.parametrize(
    ("text", "prior", "expected"),
    [
        ("Die Pumpe ist nicht mit dem Netz verbunden und wird vom Akku versorgt.", "en", "de"),
        ("The pump is not connected to the mains and is powered by the battery pack.", "de", "en"),
        ("Technische Daten", "en", "en"),  # too little evidence: the prior stays
        ("| 5 | bar | 20 °C |", "de", "de"),
        ("the die in an was will das und", "de", "de"),  # no clear winner: the prior stays
    ],
)
def test_part_language_needs_clear_evidence(text: str, prior: str, expected: str) -> None:
    assert detect_part_language(text, prior) == expected
