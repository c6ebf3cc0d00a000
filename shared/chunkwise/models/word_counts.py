"""The word memo: exact token counts from one tokenizer call per distinct word.

`HFTokenCounter` (chunkwise.models.counter) counts through it when the
tokenizer's counts are measured to add up over whitespace-separated words.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import threading
from collections.abc import Sequence

from tokenizers import Tokenizer
from tokenizers.pre_tokenizers import Metaspace

# Distinct words remembered per counter. A word costs roughly 100-150 bytes in the
# memo, so the default bounds it to ~30 MB; it is emptied (not evicted piecemeal)
# when full, which keeps the hot path a plain dict lookup.
DEFAULT_MEMO_WORDS = 200_000
# Longer "words" (URLs, base64, a 5 MB line without spaces) rarely repeat: they are
# counted by the tokenizer every time and never stored.
_MEMO_MAX_WORD_CHARS = 48


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


class WordCounts:
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
    ) -> WordCounts | None:
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
