"""The word memo gives exactly the tokenizer's count (DESIGN section 3: token
counts are the model's, never estimated), whatever the text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkwise.tokens import MINILM, PYTHON_WHITESPACE, load_counter

COUNTER = load_counter(model=MINILM)  # the word memo serves BERT WordPiece tokenizers
E5 = load_counter()  # the default model: SentencePiece, counted whole with its prefix

# Every Python whitespace character (some split words for BERT, some are deleted by
# its normaliser), plus joiners, marks, emoji parts, CJK and the literal special tokens.
AWKWARD = [
    *sorted(PYTHON_WHITESPACE),
    "\u200d", "\u200b", "\ufeff", "\x00", "\ufffd", "\u0301", "\u0308", "\U0001f44d",
    "\U0001f3fd", "\U0001f1e9\U0001f1ea", "日", "本", "ß", "İ", "ﬁ", "Å", "[CLS]", "[SEP]",
    "##", ".", "-", "'", "€", "½", "\u2026",
]  # fmt: skip
WORDS = st.sampled_from(
    ["Oktober", "z.", "B.", "Straße", "naïve", "the", "Rechnung", "1.234,5", "U.S.", "x" * 120]
)
PIECES = st.one_of(
    st.sampled_from(AWKWARD),
    WORDS,
    st.text(st.characters(exclude_categories=("Cs",)), max_size=12),
)
TEXTS = st.lists(PIECES, max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(TEXTS, min_size=1, max_size=5))
def test_memo_counts_equal_whole_text_counts(texts: list[str]) -> None:
    assert COUNTER.uses_word_memo
    assert COUNTER.count_many(texts) == [COUNTER.count_whole(t) for t in texts]
    assert COUNTER.count_many_plain(texts) == [COUNTER.count_whole(t) - 2 for t in texts]


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(TEXTS, min_size=1, max_size=5))
def test_default_model_counts_prefix_and_specials_exactly_once(texts: list[str]) -> None:
    # No memo for SentencePiece: its pieces merge across spaces ("▁" starts a word).
    assert not E5.uses_word_memo and not E5.additive
    assert E5.prefix == "passage: "
    whole = [E5.tokenizer.encode("passage: " + t, add_special_tokens=True) for t in texts]
    expected = [len(e.ids) for e in whole]
    assert E5.count_many(texts) == expected
    assert [E5.count(t) for t in texts] == expected
    assert [E5.count_whole(t) for t in texts] == expected
