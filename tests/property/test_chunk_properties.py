"""Property tests (hypothesis) for the chunk invariants of the Chunk contract.

Generated multilingual documents mix English and German prose, emoji (ZWJ
sequences, flags, skin tones), combining marks, Hangul jamo, CRLF, headings,
lists and GFM tables. Small budgets force every split level to be exercised.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkwise import ChunkerConfig, chunk_text
from chunkwise.models.counter import HFTokenCounter, load_counter
from chunkwise.models.registry import MINILM
from tests.chunk_invariants import (
    assert_coverage,
    assert_grapheme_safe,
    assert_no_runts,
    assert_offsets,
    assert_text_holds_body,
    assert_token_cap,
)

# The default model's sizer (multilingual-e5-small: SentencePiece, counted whole,
# with the "passage: " prefix) and MiniLM's (WordPiece, summed through the word memo).
COUNTER = load_counter()
COUNTERS = st.sampled_from([COUNTER, load_counter(model=MINILM)])

WORDS = st.sampled_from(
    [
        "the", "pump", "Dr.", "Smith", "z. B.", "am", "3.", "Oktober", "Größe", "Übermaß",
        "café", "e\u0301", "naïve", "👩\u200d👩\u200d👧", "🇩🇪", "👍🏽", "\u1100\u1161\u11a8",
        "Nr.", "5", "ca.", "Mio.", "Euro", "Straße", "x" * 30, "1,234.50", "€", "a|b",
    ]
)
SEPARATORS = st.sampled_from([" ", " ", " ", ". ", ", ", "\n", "\r\n", "! "])


@st.composite
def sentence(draw: st.DrawFn) -> str:
    words = draw(st.lists(WORDS, min_size=1, max_size=25))
    seps = draw(st.lists(SEPARATORS, min_size=len(words), max_size=len(words)))
    return "".join(w + s for w, s in zip(words, seps, strict=True)).strip() + "."


@st.composite
def table(draw: st.DrawFn) -> str:
    cols = draw(st.integers(1, 4))
    header = "| " + " | ".join(f"Col{i} Größe" for i in range(cols)) + " |"
    sep = "|" + "---|" * cols
    rows = draw(st.lists(st.lists(WORDS, min_size=cols, max_size=cols), min_size=1, max_size=40))
    lines = ["| " + " | ".join(r).replace("\n", " ") + " |" for r in rows]
    return "\n".join([header, sep, *lines])


@st.composite
def block(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["para", "para", "heading", "list", "table", "page"]))
    if kind == "heading":
        return "#" * draw(st.integers(1, 4)) + " " + draw(sentence())
    if kind == "page":
        return f"## Page {draw(st.integers(1, 99))}"
    if kind == "list":
        return "\n".join("- " + s for s in draw(st.lists(sentence(), min_size=1, max_size=6)))
    if kind == "table":
        return str(draw(table()))
    return " ".join(draw(st.lists(sentence(), min_size=1, max_size=8)))


documents = st.lists(block(), min_size=1, max_size=14).map("\n\n".join)
configs = st.builds(
    lambda chars, overlap, tokens, soft: ChunkerConfig.build(
        max_chars=chars,
        overlap_chars=min(overlap, chars - 1),
        max_tokens=tokens,
        soft_target_fraction=soft,
    ),
    st.integers(80, 900),
    st.integers(0, 200),
    st.sampled_from([48, 96, 256]),
    st.sampled_from([0.2, 0.5, 1.0]),
)

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@SETTINGS
@given(text=documents, config=configs, counter=COUNTERS)
def test_offsets_and_coverage(
    text: str, config: ChunkerConfig, counter: HFTokenCounter
) -> None:
    chunks = chunk_text(text, config=config, counter=counter)
    assert_offsets(text, chunks)
    assert_coverage(text, chunks)
    assert_text_holds_body(chunks)


@SETTINGS
@given(text=documents, config=configs, counter=COUNTERS)
def test_no_cut_inside_a_grapheme_cluster(
    text: str, config: ChunkerConfig, counter: HFTokenCounter
) -> None:
    assert_grapheme_safe(text, chunk_text(text, config=config, counter=counter))


@SETTINGS
@given(text=documents, config=configs, counter=COUNTERS)
def test_token_count_is_exact_and_never_above_cap(
    text: str, config: ChunkerConfig, counter: HFTokenCounter
) -> None:
    chunks = chunk_text(text, config=config, counter=counter)
    cap = config.max_tokens or counter.max_tokens
    assert_token_cap(chunks, counter, cap)


@SETTINGS
@given(text=documents, config=configs, counter=COUNTERS)
def test_deterministic(
    text: str, config: ChunkerConfig, counter: HFTokenCounter
) -> None:
    first = [c.model_dump_json() for c in chunk_text(text, config=config, counter=counter)]
    second = [c.model_dump_json() for c in chunk_text(text, config=config, counter=counter)]
    assert first == second


@SETTINGS
@given(prefix=documents, rows=table(), suffix=documents, config=configs, counter=COUNTERS)
def test_every_table_fragment_carries_its_header(
    prefix: str, rows: str, suffix: str, config: ChunkerConfig, counter: HFTokenCounter
) -> None:
    # A header no generated block can contain, so it identifies this table.
    header = "| Key ★ | Wert ★ |\n|---|---|"
    tbl = header + "\n" + "\n".join(rows.splitlines()[2:])
    text = f"{prefix}\n\n{tbl}\n\n{suffix}"
    rows_start = text.index(tbl) + len(header)
    rows_end = text.index(tbl) + len(tbl)
    chunks = chunk_text(text, config=config, counter=counter)
    holding_rows = [c for c in chunks if c.start < rows_end and c.end > rows_start + 1]
    assert holding_rows
    cap = config.max_tokens or counter.max_tokens
    if counter.count_many_plain([header])[0] > cap // 2:
        return  # documented: a header over half the token cap is not repeated
    for c in holding_rows:
        assert header in c.text, f"chunk {c.chunk_index} holds rows but not their header"


@settings(max_examples=40, deadline=None)
@given(
    text=st.lists(st.sampled_from(["prose", "table"]), min_size=2, max_size=12).map(
        lambda kinds: "\n\n".join(
            ("Ein Satz über die Größe der Anlage am 3. Oktober. " * 6)
            if k == "prose"
            else "| A | B |\n|---|---|\n" + "| 1 | 2 |\n" * 30
            for k in kinds
        )
    )
)
def test_no_runts_except_single_chunk_documents(text: str) -> None:
    config = ChunkerConfig()
    chunks = chunk_text(text, config=config, counter=COUNTER)
    assert_no_runts(chunks, config, COUNTER.max_tokens)


def test_counter_is_the_real_model_tokenizer(counter: HFTokenCounter) -> None:
    # XLM-R SentencePiece: <s> "passage" ":" ... </s>; "Oktober" is one piece,
    # the compound "Einlassfilter" four.
    assert counter.count("Oktober") == 2 + 2 + 1
    assert counter.count("Einlassfilter") == 2 + 2 + 4
    minilm = load_counter(model=MINILM)
    # "Oktober" is not in all-MiniLM's English vocabulary: WordPiece splits it.
    assert minilm.count("Oktober") == 2 + 3
    assert minilm.count("the") == 2 + 1
