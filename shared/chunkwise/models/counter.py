"""Token counting with the embedding model's real tokenizer, loaded offline.

Characters are not tokens and bytes are not characters: every size limit that
the embedding model enforces is checked here with the model's own
`tokenizer.json` (Hugging Face `tokenizers`), never estimated.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from tokenizers import Tokenizer

from chunkwise.errors import TokenizerError
from chunkwise.models.files import default_tokenizer_path, load_tokenizer_json, model_tokenizer_path
from chunkwise.models.registry import (
    DEFAULT_MODEL,
    ModelTokenizer,
    check_tokenizer_matches,
    identify_model,
)
from chunkwise.models.word_counts import DEFAULT_MEMO_WORDS, WordCounts


class HFTokenCounter:
    """Counts tokens with a Hugging Face `tokenizers` file; no network access.

    The production backend of the chunker's sizing interface,
    `chunkwise.chunking.sizing.TokenCounter`."""

    def __init__(
        self,
        tokenizer: Tokenizer,
        max_tokens: int,
        add_special_tokens: bool,
        additive: bool = False,
        memo_words: int = DEFAULT_MEMO_WORDS,
        *,
        prefix: str = "",
        model_id: str = "",
        tokenizer_id: str = "",
        sentencepiece_memo: bool = False,
    ) -> None:
        # The shipped tokenizer.json may carry truncation/padding settings (all-MiniLM
        # truncates at 128): a counter that truncates would silently under-count.
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self._tokenizer = tokenizer
        self._max_tokens = max_tokens
        self._add_special = add_special_tokens
        self._special = tokenizer.num_special_tokens_to_add(False) if add_special_tokens else 0
        self._prefix = prefix
        self._model_id = model_id
        self._tokenizer_id = tokenizer_id
        # A prefix is counted together with the text it is put before: whether its
        # tokens add up with the text's depends on how the text begins, so the
        # counts that matter (`count`, `count_many`) encode prefix + text whole.
        self._additive = additive and not prefix
        # encode_batch_fast skips offset tracking, which counting never needs.
        self._encode_batch = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
        # The word memo is tried for the two tokenizer structures whose counts are
        # known to add up over words (BERT's, and SentencePiece's Metaspace with
        # space-run collapsing); `WordCounts.for_tokenizer` then measures whether
        # this tokenizer really does, and declines otherwise.
        self._sentencepiece_memo = sentencepiece_memo and not additive
        self._words = (
            WordCounts.for_tokenizer(tokenizer, memo_words, check_words=self._sentencepiece_memo)
            if (additive or self._sentencepiece_memo) and memo_words > 0
            else None
        )

    @property
    def additive(self) -> bool:
        """Counts add up across joins at whitespace/punctuation (BERT pre-tokenizer).

        Only claimed for tokenizers whose normaliser and pre-tokenizer are BERT's.
        SentencePiece pieces start with the "▁" of the space before them, and the
        model's prefix is counted with the text, so the chunker counts its joins
        whole; its texts are still counted exactly with the word memo.
        """
        return self._additive

    @property
    def max_tokens(self) -> int:
        """The cap: the model's input limit, prefix and special tokens included."""
        return self._max_tokens

    @property
    def model_id(self) -> str:
        """The embedding model this counter sizes for ("" if not a known model)."""
        return self._model_id

    @property
    def tokenizer_id(self) -> str:
        """Which tokenizer file the counts come from (model id + content hash)."""
        return self._tokenizer_id

    @property
    def prefix(self) -> str:
        """Text the model puts before every passage; counted with it."""
        return self._prefix

    @property
    def tokenizer(self) -> Tokenizer:
        """The untruncated, unpadded tokenizer the counts come from."""
        return self._tokenizer

    @property
    def special_tokens(self) -> int:
        """Tokens the model adds around every input (counted once per text)."""
        return self._special

    @property
    def overhead_tokens(self) -> int:
        """What every passage costs before its first word: specials plus the
        prefix (for planning; the final counts encode prefix + text whole)."""
        if not self._prefix:
            return self._special
        prefix = self._tokenizer.encode(self._prefix, add_special_tokens=False)
        return self._special + len(prefix.ids)

    def count(self, text: str) -> int:
        """Tokens the model sees for `text` as a passage: prefix, specials, untruncated."""
        return self.count_many([text])[0]

    def count_many(self, texts: Sequence[str]) -> list[int]:
        if self._prefix:
            # The prefix is counted as the start of the text it is put before: the
            # memo (exact for any text) or the tokenizer sees "passage: " + text.
            texts = [self._prefix + t for t in texts]
        return [n + self._special for n in self.count_many_plain(texts)]

    def count_plain(self, text: str) -> int:
        """Tokens of a piece that will be joined into a larger text (no specials)."""
        return self.count_many_plain([text])[0]

    def count_many_plain(self, texts: Sequence[str]) -> list[int]:
        """Counts without special tokens, for pieces that are later joined."""
        if not texts:
            return []
        if self._words is not None:
            return self._words.count_many(texts)
        return self._count_raw(texts)

    def count_whole(self, text: str) -> int:
        """The count from encoding `text` whole (as a passage, with the prefix),
        bypassing the word memo and every batch path: the reference the
        chunker's counts are tested against."""
        encoding = self._tokenizer.encode(self._prefix + text, add_special_tokens=self._add_special)
        return len(encoding.ids)

    def sizing_for(self, model_id: str, max_tokens: int) -> HFTokenCounter:
        """This tokenizer as the sizer of another model (a Bedrock model whose own
        tokenizer is not published): same counts, that model's id and cap."""
        return HFTokenCounter(
            self._tokenizer,
            max_tokens,
            self._add_special,
            additive=self._additive,
            memo_words=DEFAULT_MEMO_WORDS if self._words is not None else 0,
            prefix=self._prefix,
            model_id=model_id,
            tokenizer_id=self._tokenizer_id,
            sentencepiece_memo=self._sentencepiece_memo,
        )

    @property
    def uses_word_memo(self) -> bool:
        return self._words is not None

    def _count_raw(self, texts: Sequence[str]) -> list[int]:
        """The tokenizer itself, every text encoded whole."""
        encodings = self._encode_batch(list(texts), add_special_tokens=False)
        return [len(e) for e in encodings]  # len() without building the id list

    @property
    def memo_stats(self) -> dict[str, int]:
        """Word-memo traffic since load (all zero when the memo is not used)."""
        if self._words is None:
            return {"words": 0, "misses": 0, "size": 0}
        return self._words.stats()



@lru_cache(maxsize=8)
def load_counter(
    path: Path | None = None,
    max_tokens: int | None = None,
    add_special_tokens: bool = True,
    *,
    model: ModelTokenizer | None = None,
) -> HFTokenCounter:
    """Load (once per process) a counter for `path`, `model`'s installed
    tokenizer, or the default model's.

    The cap, the passage prefix and the model id come from the model: the one
    given (whose tokenizer `path` must then be), or the known model that
    `path`'s tokenizer is recognised as. A tokenizer of no known model is
    counted plain, with the cap given or the default model's.
    """
    if path is None:
        path = model_tokenizer_path(model) if model is not None else default_tokenizer_path()
    raw = load_tokenizer_json(path)
    try:
        tokenizer = Tokenizer.from_str(raw)
        spec = json.loads(raw)
    except Exception as exc:  # tokenizers raises plain Exception on bad JSON
        raise TokenizerError(f"invalid tokenizer file {path}: {exc}") from exc
    if model is not None:
        check_tokenizer_matches(spec, model, path)
    known = model or identify_model(spec)
    digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]
    limit = max_tokens if max_tokens is not None else (known or DEFAULT_MODEL).max_tokens
    return HFTokenCounter(
        tokenizer,
        limit,
        add_special_tokens,
        additive=_is_bert_like(spec),
        sentencepiece_memo=_is_sentencepiece_like(spec),
        prefix=known.passage_prefix if known else "",
        model_id=known.model_id if known else "",
        tokenizer_id=f"{known.model_id if known else 'tokenizer'}@sha256:{digest}",
    )


def _is_bert_like(spec: dict[str, object]) -> bool:
    """BERT normaliser + BERT pre-tokenizer + WordPiece: counts add up at splits."""

    def kind(key: str) -> object:
        part = spec.get(key)
        return part.get("type") if isinstance(part, dict) else None

    return (
        kind("normalizer") == "BertNormalizer"
        and kind("pre_tokenizer") == "BertPreTokenizer"
        and kind("model") == "WordPiece"
    )


def _is_sentencepiece_like(spec: dict[str, object]) -> bool:
    """SentencePiece's normaliser (its precompiled character map, then runs of
    spaces collapsed to one) before the Metaspace pre-tokenizer: the structure
    whose counts add up over words. Anything else in the normaliser (a Strip, a
    Replace across words) is not known to keep them additive."""
    normalizer = spec.get("normalizer")
    if not isinstance(normalizer, dict):
        return False
    parts = normalizer.get("normalizers") if normalizer.get("type") == "Sequence" else [normalizer]
    collapse = {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}
    pre = spec.get("pre_tokenizer")
    return (
        isinstance(parts, list)
        and [p.get("type") for p in parts if isinstance(p, dict)] == ["Precompiled", "Replace"]
        and parts[1] == collapse
        and isinstance(pre, dict)
        and pre.get("type") == "Metaspace"
    )
