"""Golden chunk outputs: every field of every chunk of a few fixture documents,
chunked with the default configuration, against the JSONL committed under
tests/golden/.

Besides the default (multilingual-e5-small, 1,800 characters), two tight
settings make the same fixtures reach the rungs the default never needs on
short documents: sentence and word cuts, runt merging; once with the default
tokenizer (counted on the rendered text) and once with MiniLM's WordPiece (whose
counts add up, so the chunker sums atom counts instead); a third packs to the
hard maximum, where chunks carry overlap.

The chunker's behaviour is pinned whole (boundaries, context, counts, ids), so a
refactor that moves one boundary or changes one field fails here. After an
intended change, regenerate with ``pytest --update-golden tests/unit/test_golden_chunks.py``
and review the diff of tests/golden/ in git.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chunkwise import chunk_text
from chunkwise.chunking.config import ChunkerConfig
from chunkwise.extract import extract
from chunkwise.models.counter import HFTokenCounter

pytest.importorskip("pdfplumber")
pytest.importorskip("docx")
pytest.importorskip("openpyxl")
pytest.importorskip("pptx")

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
GOLDEN = ROOT / "golden"

#: One of each kind the chunker sees: English and German Markdown, a PDF whose
#: table is stitched over three pages, a DOCX with a merged header, an HTML page,
#: a German CSV export, a workbook with two header rows and several tables, a
#: German slide deck (Slide N anchors, a table, notes, a hidden slide) and an ODT
#: saved by LibreOffice (numbered headings, lists, a two-row table header).
DOCUMENTS = (
    "manual_en.md",
    "handbuch_de.md",
    "catalog_en_repeat.pdf",
    "merged_header_de.docx",
    "preise_de.html",
    "preisliste_de.csv",
    "preise_de.xlsx",
    "vortrag_de.pptx",
    "wartung_de.libreoffice.odt",
)

#: Small enough that every fixture is cut below its blocks.
TIGHT = ChunkerConfig(max_chars=300, overlap_chars=80, max_tokens=64)
#: name -> (config, which tokenizer fixture)
SETTINGS: dict[str, tuple[ChunkerConfig, str]] = {
    "default": (ChunkerConfig(), "counter"),
    "tight": (TIGHT, "counter"),
    "tight-minilm": (TIGHT, "minilm_counter"),
    # Packed to the hard maximum: no soft close, so chunks carry overlap.
    "tight-packed": (TIGHT.model_copy(update={"soft_target_fraction": 1.0}), "counter"),
}


def chunk_records(
    name: str, config: ChunkerConfig, counter: HFTokenCounter
) -> list[dict[str, Any]]:
    """The chunks of one fixture as the pipeline makes them (language detected)."""
    extraction = extract((DATA / name).read_bytes(), filename=name)
    chunks = chunk_text(extraction.text, lang="auto", config=config, counter=counter)
    return [chunk.model_dump(mode="json") | {"chunk_id": chunk.chunk_id} for chunk in chunks]


def _golden_path(name: str, setting: str) -> Path:
    return GOLDEN / setting / f"{name}.jsonl"


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    lines = (json.dumps(r, ensure_ascii=False, sort_keys=True) for r in records)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _read(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line]


def _differences(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    return [
        f"{field}: golden {expected.get(field)!r} != now {actual.get(field)!r}"
        for field in sorted(expected.keys() | actual.keys())
        if expected.get(field) != actual.get(field)
    ]


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("name", DOCUMENTS)
def test_chunks_match_the_golden_output(
    name: str, setting: str, request: pytest.FixtureRequest, update_golden: bool
) -> None:
    config, counter_fixture = SETTINGS[setting]
    counter: HFTokenCounter = request.getfixturevalue(counter_fixture)
    actual = chunk_records(name, config, counter)
    assert actual, f"{name}: no chunks"
    path = _golden_path(name, setting)
    if update_golden:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write(path, actual)
        return
    assert path.exists(), f"{path} missing: run pytest --update-golden"
    expected = _read(path)
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        diff = _differences(want, got)
        assert not diff, f"{name} ({setting}) chunk {index} differs:\n" + "\n".join(diff)
    counts = f"{len(actual)} chunks, golden {len(expected)}"
    assert len(actual) == len(expected), f"{name} ({setting}): {counts}"
