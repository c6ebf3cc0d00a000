"""Unit tests of the chunker's rules (issue 2, points 1-11), English and German.

The real all-MiniLM-L6-v2 tokenizer is used (a real part, loaded once per
session from its installed package); no network, no other I/O.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from chunkwise import ChunkerConfig, chunk_text, split_sentences
from chunkwise.chunking.chunk import ChunkingReport
from chunkwise.errors import ConfigError, TokenizerError
from chunkwise.models.counter import HFTokenCounter, load_counter
from chunkwise.schema import ChunkKind
from tests.chunk_invariants import assert_all, assert_no_runts

EN_PARAS = [
    "Disconnect power before opening the cover. Then remove the four screws.",
    "The pump runs at 1,450 rpm. Dr. Smith approved the maintenance plan in May.",
    "Replace the filter every 500 hours. Use only genuine parts from the vendor.",
]
DE_PARAS = [
    "Vor dem Öffnen der Abdeckung den Strom trennen. Dann die vier Schrauben lösen.",
    "Die Anlage wurde am 3. Oktober geprüft, z. B. die Pumpe Nr. 5 und der Filter.",
    "Der Umsatz betrug ca. 5 Mio. Euro. Dr. Müller hat den Bericht freigegeben.",
]


def _cfg(**kw: object) -> ChunkerConfig:
    return ChunkerConfig.build(**kw)


def test_empty_and_whitespace_give_no_chunks() -> None:
    assert chunk_text("") == []
    assert chunk_text(" \n\t\r\n  ") == []


@pytest.mark.parametrize("paras,lang", [(EN_PARAS, "en"), (DE_PARAS, "de")])
def test_small_document_is_one_chunk_with_exact_offsets(
    paras: list[str], lang: str, counter: HFTokenCounter
) -> None:
    text = "\n\n".join(paras) + "\n"
    chunks = chunk_text(text, lang=lang)
    assert len(chunks) == 1
    assert chunks[0].body == text.strip()
    assert chunks[0].lang == lang
    assert_all(text, chunks, counter, ChunkerConfig(), counter.max_tokens)


@pytest.mark.parametrize("paras", [EN_PARAS, DE_PARAS])
def test_blocks_are_atoms_cuts_only_between_paragraphs(
    paras: list[str], counter: HFTokenCounter
) -> None:
    text = "\n\n".join(paras * 6)
    cfg = _cfg(max_chars=260, overlap_chars=0)
    chunks = chunk_text(text, config=cfg)
    assert len(chunks) > 2
    starts = {0} | {i + 2 for i in range(len(text)) if text.startswith("\n\n", i)}
    for c in chunks:
        assert c.start in starts, "a cut fell inside a paragraph that fits the budget"
        assert len(c.body) <= cfg.merge_ceiling
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_oversized_paragraph_is_cut_at_sentence_boundaries(counter: HFTokenCounter) -> None:
    text = " ".join(DE_PARAS * 8)
    cfg = _cfg(max_chars=300, overlap_chars=0)
    chunks = chunk_text(text, lang="de", config=cfg)
    sentence_starts = {s for s, _ in split_sentences(text, "de")}
    assert len(chunks) > 3
    assert all(c.start in sentence_starts for c in chunks)
    # The German correction layer keeps "am 3. Oktober" and "z. B." together.
    assert not any(c.body.startswith(("Oktober", "B. die")) for c in chunks)
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_overlong_sentence_is_cut_at_word_boundaries(counter: HFTokenCounter) -> None:
    words = ["Donaudampfschifffahrtsgesellschaft", "und", "Kapitänsmütze"] * 60
    text = " ".join(words) + "."
    cfg = _cfg(max_chars=200, overlap_chars=0)
    report = ChunkingReport()
    chunks = chunk_text(text, lang="de", config=cfg, report=report)
    assert "words" in report.split_levels
    for c in chunks:
        assert c.body[0].isalpha() and (c.body[-1].isalpha() or c.body[-1] == ".")
        assert text[c.start - 1] == " " if c.start else True
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_word_longer_than_budget_is_cut_at_grapheme_boundaries(counter: HFTokenCounter) -> None:
    # One ICU "word" of letters with combining marks and Hangul jamo: only
    # grapheme boundaries are left to cut at.
    text = "e\u0301a\u0308\u1100\u1161\u11a8o\u0302\u0323" * 300
    cfg = _cfg(max_chars=100, overlap_chars=0, max_tokens=64)
    report = ChunkingReport()
    chunks = chunk_text(text, config=cfg, report=report)
    assert len(chunks) > 5
    assert "graphemes" in report.split_levels
    assert_all(text, chunks, counter, cfg, 64)


def test_emoji_sequences_are_never_split(
    counter: HFTokenCounter, minilm_counter: HFTokenCounter
) -> None:
    cluster = "👩\u200d👩\u200d👧\u200d👦🇩🇪👍🏽"  # ZWJ family, flag, skin tone
    text = cluster * 300
    cfg = _cfg(max_chars=100, overlap_chars=0, max_tokens=64)
    chunks = chunk_text(text, config=cfg)
    assert len(chunks) > 5
    assert_all(text, chunks, counter, cfg, 64)
    # WordPiece reads every emoji as one [UNK]: cuts fall at whole clusters.
    chunks = chunk_text(text, config=cfg, counter=minilm_counter)
    assert all(c.body.startswith("👩") for c in chunks)
    assert_all(text, chunks, minilm_counter, cfg, 64)


def test_crlf_is_never_split(counter: HFTokenCounter) -> None:
    text = "\r\n".join(["Zeile mit Text " * 5] * 40)
    cfg = _cfg(max_chars=120, overlap_chars=0)
    chunks = chunk_text(text, config=cfg)
    for c in chunks:
        assert not c.body.startswith("\n") and not c.body.endswith("\r")
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_token_cap_holds_with_small_cap(counter: HFTokenCounter) -> None:
    text = "\n\n".join(DE_PARAS * 10)
    cfg = _cfg(max_tokens=40, overlap_chars=60)
    chunks = chunk_text(text, config=cfg)
    assert max(c.token_count for c in chunks) <= 40
    assert_all(text, chunks, counter, cfg, 40)


def test_default_cap_is_model_limit(counter: HFTokenCounter) -> None:
    text = "\n\n".join(EN_PARAS * 40)
    # Soft target off: packing to the hard maximum shows the cap in force.
    cfg = _cfg(soft_target_fraction=1.0)
    chunks = chunk_text(text, config=cfg)
    assert counter.max_tokens == 512  # multilingual-e5-small's limit
    assert max(c.token_count for c in chunks) <= 512
    # Close to the cap: packing uses the budget, it does not stop early.
    assert max(c.token_count for c in chunks) > 0.75 * 512
    assert_all(text, chunks, counter, cfg, 512)


def _table(rows: int, lang: str = "en") -> str:
    head = "| Plan | Price | vCPU |" if lang == "en" else "| Tarif | Preis | vCPU |"
    body = "".join(f"| Plan {i} | {i * 10}.00 EUR | {i % 16} |\n" for i in range(rows))
    caption = "Table 1: Plans and prices" if lang == "en" else "Tabelle 1: Tarife und Preise"
    return f"# Pricing\n\n## Page 4\n\n{caption}\n\n{head}\n|---|---|---|\n{body}"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_table_rows_are_atomic_and_header_repeats(lang: str, counter: HFTokenCounter) -> None:
    text = _table(120, lang) + "\nAfter the table comes prose. It is long enough to matter here.\n"
    chunks = chunk_text(text, lang=lang)
    header = text.splitlines()[6] + "\n" + text.splitlines()[7]
    table_chunks = [c for c in chunks if c.kind is ChunkKind.TABLE]
    assert len(table_chunks) >= 3
    for c in table_chunks:
        assert c.table_header == header
        assert header in c.text, "every fragment is indexed with its header"
        assert c.text.count(header) == 1, "the header is never indexed twice"
        for line in c.body.splitlines():
            assert not line.startswith("|") or line.endswith("|"), "a row was cut"
    # Caption once, on the first fragment only, and in the body (it is source text).
    caption = "Table 1" if lang == "en" else "Tabelle 1"
    assert caption in table_chunks[0].body
    assert all(caption not in c.text for c in table_chunks[1:])
    assert all(c.page_start == 4 and c.page_end == 4 for c in chunks)
    assert_all(text, chunks, counter, ChunkerConfig(), counter.max_tokens)


def test_a_headerless_tables_fragments_repeat_its_caption(counter: HFTokenCounter) -> None:
    # A slot table without a header row (PDF: every header cell empty) is named only
    # by its caption: each fragment repeats the caption with the empty header.
    caption = "Table 2: Text symbols formerly from the textcomp package"
    rows = "\n".join(f"| \\textsym{i} | {i + 13} |" for i in range(150))
    text = f"## Page 35\n\n{caption}\n\n|  |  |\n| --- | --- |\n{rows}\n"
    chunks = chunk_text(text, lang="en")
    table_chunks = [c for c in chunks if c.kind is ChunkKind.TABLE]
    assert len(table_chunks) >= 2
    assert all(caption in c.text for c in table_chunks)
    assert all(c.text.count(caption) == 1 for c in table_chunks)
    assert all(c.table_header.endswith("|  |  |\n| --- | --- |") for c in table_chunks[1:])
    assert_all(text, chunks, counter, ChunkerConfig(), counter.max_tokens)
    # A title across the table in the header's first cell names no column either.
    titled = text.replace("|  |  |\n", "| Unchanged options |  |\n")
    titled_chunks = [c for c in chunk_text(titled, lang="en") if c.kind is ChunkKind.TABLE]
    assert all(caption in c.text for c in titled_chunks)


def test_row_longer_than_budget_is_split_with_header(counter: HFTokenCounter) -> None:
    long_cell = " ".join(["Lieferung nach Absprache"] * 60)
    text = f"| Artikel | Hinweis |\n|---|---|\n| A-1 | kurz |\n| A-2 | {long_cell} |\n"
    cfg = _cfg(max_chars=300, overlap_chars=0)
    chunks = chunk_text(text, lang="de", config=cfg)
    assert len(chunks) >= 3
    assert all(c.table_header == "| Artikel | Hinweis |\n|---|---|" for c in chunks)
    assert all(c.text.startswith("| Artikel | Hinweis |") for c in chunks)
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_heading_path_and_pages(counter: HFTokenCounter) -> None:
    text = (
        "# Handbuch\n\n## Page 1\n\n### Wartung\n\n"
        + "\n\n".join(DE_PARAS * 3)
        + "\n\n## Page 2\n\n### Sicherheit\n\n"
        + "\n\n".join(DE_PARAS * 3)
    )
    chunks = chunk_text(text, lang="de", config=_cfg(max_chars=400))
    first, last = chunks[0], chunks[-1]
    assert first.heading_path == ["Handbuch", "Page 1", "Wartung"]
    assert last.heading_path[:2] == ["Handbuch", "Page 2"]
    assert (first.page_start, last.page_end) == (1, 2)
    assert first.text.startswith("Handbuch > Page 1 > Wartung\n")
    assert_all(text, chunks, counter, _cfg(max_chars=400), counter.max_tokens)


def test_transcribed_headings_never_become_ancestors_of_native_text() -> None:
    ocr = "Scanned text that a vision model read from an image. " * 8
    native = "Native text from the PDF text layer follows here. " * 8
    text = (
        "# Report\n\n## Page 12\n\n### Figure 3 (transcribed)\n\n"
        + ocr
        + "\n\n## Page 13\n\n"
        + native
    )
    chunks = chunk_text(text, lang="en", config=_cfg(max_chars=500))
    ocr_chunks = [c for c in chunks if c.kind is ChunkKind.TRANSCRIBED]
    native_chunks = [c for c in chunks if "Native text" in c.body]
    assert ocr_chunks and native_chunks
    assert all("(transcribed" not in " ".join(c.heading_path) for c in native_chunks)
    assert all(c.heading_path[-1] == "Figure 3 (transcribed)" for c in ocr_chunks)
    assert all("Scanned" not in c.body for c in native_chunks), "OCR mixed into native"
    # No overlap into or out of transcribed text.
    assert all(not c.overlap_prefix for c in ocr_chunks)
    assert all("Scanned" not in c.overlap_prefix for c in native_chunks)
    assert native_chunks[0].page_start == 13


def test_overlap_is_context_snapped_to_a_word_and_not_in_body() -> None:
    text = " ".join(EN_PARAS * 12)
    cfg = _cfg(max_chars=400, overlap_chars=80)
    chunks = chunk_text(text, lang="en", config=cfg)
    with_overlap = [c for c in chunks[1:] if c.overlap_prefix]
    assert with_overlap, "prose chunks after the first carry overlap"
    for c in with_overlap:
        prev = chunks[c.chunk_index - 1]
        assert prev.body.endswith(c.overlap_prefix)
        assert len(c.overlap_prefix) <= 80
        start = len(prev.body) - len(c.overlap_prefix)
        assert prev.body[start - 1].isspace(), "overlap starts mid-word"
        assert not c.body.startswith(c.overlap_prefix)
        assert c.text.index(c.overlap_prefix) < c.text.index(c.body)


def test_no_overlap_into_or_out_of_tables() -> None:
    text = " ".join(EN_PARAS * 6) + "\n\n" + _table(60) + "\n" + " ".join(EN_PARAS * 6)
    chunks = chunk_text(text, lang="en", config=_cfg(max_chars=500, overlap_chars=100))
    for prev, c in itertools.pairwise(chunks):
        if prev.kind is ChunkKind.TABLE or c.kind is ChunkKind.TABLE:
            assert not c.overlap_prefix


def test_runts_are_coalesced_backward(counter: HFTokenCounter) -> None:
    big = "Word " * 70  # ~350 chars
    text = f"{big}\n\n{big}\n\n## Small\n\nTiny tail one.\n\n## Smaller\n\nTiny tail two."
    cfg = _cfg(max_chars=400, overlap_chars=0)
    chunks = chunk_text(text, config=cfg)
    assert_no_runts(chunks, cfg, counter.max_tokens)
    assert chunks[-1].body.endswith("Tiny tail two.")
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_single_chunk_document_may_be_small() -> None:
    chunks = chunk_text("Kurz.")
    assert len(chunks) == 1 and chunks[0].body == "Kurz."


def test_output_is_deterministic() -> None:
    text = _table(50, "de") + "\n" + " ".join(DE_PARAS * 10)
    first = [c.model_dump_json() for c in chunk_text(text)]
    second = [c.model_dump_json() for c in chunk_text(text)]
    assert first == second


def test_config_errors_name_the_field(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="overlap_chars"):
        ChunkerConfig.build(max_chars=100, overlap_chars=100)
    with pytest.raises(ConfigError, match="max_chars"):
        ChunkerConfig.build(max_chars=-5)
    with pytest.raises(ConfigError, match="bogus"):
        ChunkerConfig.build(bogus=1)
    with pytest.raises(TokenizerError, match="not found"):
        load_counter(tmp_path / "missing.json")


def test_report_counts_and_length_percentiles() -> None:
    text = "\n\n".join(EN_PARAS * 30)
    report = ChunkingReport()
    chunks = chunk_text(text, report=report)
    lengths = sorted(len(c.body) for c in chunks)
    assert report.chunks == len(chunks) and report.runts == 0
    assert report.total_tokens == sum(c.token_count for c in chunks)
    assert report.max_tokens == max(c.token_count for c in chunks)
    assert report.length_percentiles["p1"] == lengths[0]
    assert lengths[0] <= report.length_percentiles["p50"] <= report.length_percentiles["p95"]


def test_section_heading_carries_across_a_page_anchor(counter: HFTokenCounter) -> None:
    text = (
        "# Handbuch\n\n## Page 1\n\n### Wartung\n\n" + "\n\n".join(DE_PARAS)
        + "\n\n## Page 2\n\n" + "\n\n".join(DE_PARAS)
        + "\n\n### Sicherheit\n\n" + "\n\n".join(DE_PARAS)
    )
    chunks = chunk_text(text, lang="de", config=_cfg(max_chars=400))
    on_page_2 = [c for c in chunks if c.page_start == 2]
    assert on_page_2
    # The top of page 2 still belongs to "Wartung" (the page anchor is a citation) ...
    assert on_page_2[0].heading_path == ["Handbuch", "Page 2", "Wartung"]
    # ... until the next heading of that level replaces it.
    assert chunks[-1].heading_path == ["Handbuch", "Page 2", "Sicherheit"]
    assert_all(text, chunks, counter, _cfg(max_chars=400), 256)


def test_heading_over_32_kb_is_capped_in_heading_path_but_kept_in_the_body(
    counter: HFTokenCounter,
) -> None:
    from chunkwise.chunking.chunk import MAX_HEADING_CHARS

    title = "Wartung " * 5000  # 40,000 characters, far over Lucene's 32,766-byte term limit
    text = f"# {title}\n\n" + "\n\n".join(DE_PARAS) + "\n"
    chunks = chunk_text(text, lang="de")
    assert chunks and all(c.heading_path for c in chunks)
    for c in chunks:
        assert all(len(h) <= MAX_HEADING_CHARS for h in c.heading_path)
        assert c.heading_path[0].startswith("Wartung Wartung") and c.heading_path[0].endswith("…")
    # the cited text is untouched: the whole heading is in the bodies, in order
    assert chunks[0].start == 0 and chunks[0].body.startswith("# Wartung Wartung")
    covered = sum(c.body.count("Wartung") for c in chunks)
    assert covered >= 5000
    assert_all(text, chunks, counter, ChunkerConfig(), counter.max_tokens)


def test_cap_heading_cuts_at_a_space_and_keeps_combining_marks() -> None:
    from chunkwise.chunking.chunk import cap_heading

    assert cap_heading("kurz") == "kurz"
    capped = cap_heading("a" * 300 + " b", limit=256)
    assert len(capped) <= 256 and capped.endswith("…")
    spaced = cap_heading("wort " * 100, limit=50)
    assert spaced == ("wort " * 10).rstrip() + "…" and len(spaced) == 50
    marks = cap_heading("e\u0301" * 200, limit=51)  # é as e + combining acute
    assert not marks[:-1].endswith("e") or marks[:-1] == ""
    assert len(marks) <= 51


def test_a_runt_merged_across_a_page_anchor_keeps_the_carried_section(
    counter: HFTokenCounter,
) -> None:
    # A short paragraph at the top of page 2, merged into the chunk before it,
    # is still in "Wartung": the chunk's path keeps it, not only the title.
    text = (
        "# Handbuch\n\n## Page 1\n\n### Wartung\n\n"
        + "Word " * 40
        + "\n\n## Page 2\n\nTiny tail on the next page.\n"
    )
    cfg = _cfg(max_chars=400, overlap_chars=0)
    chunks = chunk_text(text, lang="en", config=cfg)
    tail = next(c for c in chunks if "Tiny tail" in c.body)
    assert "Wartung" in tail.heading_path
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_a_sentence_run_on_over_a_page_anchor_is_in_one_chunk_citing_both_pages(
    counter: HFTokenCounter,
) -> None:
    """#26 (c): the page anchor is a citation inside the sentence, not a section start."""
    head = "# Handbuch\n\n## Page 1\n\n### Wartung\n\n" + " ".join(EN_PARAS) + " "
    text = (
        head
        + "The filter of the pump must be replaced\n\n## Page 2\n\n"
        + "every 500 hours by the operator. "
        + " ".join(reversed(EN_PARAS))
        + "\n\n"
        + "\n\n".join(EN_PARAS)
        + "\n"
    )
    cfg = _cfg(max_chars=300, overlap_chars=0)
    chunks = chunk_text(text, lang="en", config=cfg)
    spanning = [c for c in chunks if "must be replaced" in c.body]
    assert len(spanning) == 1
    chunk = spanning[0]
    assert "every 500 hours by the operator." in chunk.body
    assert (chunk.page_start, chunk.page_end) == (1, 2)
    assert "Wartung" in chunk.heading_path
    assert_all(text, chunks, counter, cfg, counter.max_tokens)
    # A paragraph that ends its sentence on page 1 still ends its chunk at the anchor.
    ended = text.replace("must be replaced\n", "must be replaced.\n")
    chunks = chunk_text(ended, lang="en", config=cfg)
    assert not any("must be replaced" in c.body and "by the operator" in c.body for c in chunks)
    assert_all(ended, chunks, counter, cfg, counter.max_tokens)


def test_a_header_too_long_to_repeat_is_carried_as_named_cells(counter: HFTokenCounter) -> None:
    """A wide, sparse table (80 columns, a header far over half the cap) over many
    rows: a fragment cannot repeat the header, so it carries its rows' filled cells
    named by column (``Plural: Hunde``), and every chunk still fits the cap."""
    names = [f"Kasus{i} Numerus{i}" for i in range(80)]
    head = "| " + " | ".join(names) + " |\n|" + "---|" * 80 + "\n"

    def row(i: int) -> str:
        cells = [""] * 80
        cells[0], cells[17], cells[63] = f"Wort{i}", f"Form{i}a", f"Form{i}b"
        return "| " + " | ".join(cells) + " |\n"

    text = "# Substantive\n\n" + head + "".join(row(i) for i in range(400))
    chunks = chunk_text(text, lang="de")
    tables = [c for c in chunks if c.kind is ChunkKind.TABLE]
    fragments = [c for c in tables if not c.body.startswith("| Kasus0")]
    assert len(fragments) >= 3
    named = 0
    for c in fragments:
        for i in range(400):
            if f"| Wort{i} |" in c.body and f"Kasus17 Numerus17: Form{i}a" in c.text:
                named += 1
                assert f"Kasus63 Numerus63: Form{i}b" in c.text
        assert c.token_count <= counter.max_tokens
    assert named >= 100, "rows of the fragments say which column each value is in"
    assert_all(text, chunks, counter, ChunkerConfig(), counter.max_tokens)
