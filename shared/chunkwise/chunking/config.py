"""Chunker configuration: one validated model and its defaults.

Defaults (tune by measurement only): 1,800-character hard packing maximum with
a soft target of 30 % of it (and of the token cap) after which a chunk closes
at the next paragraph boundary (chosen on dev data: XQuAD articles 1-24 and
bench/eval; samdocs/embeddings.md), 150-char overlap snapped to a word
boundary, runt floor 25 % of max, merges may reach 125 %. The token cap of the
embedding model is a hard limit no merge may break.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from chunkwise.errors import ConfigError

Lang = Literal["en", "de", "und", "auto"]


class ChunkerConfig(BaseModel):
    """Validated chunker settings; a bad value raises ConfigError naming the field."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_chars: int = Field(1800, ge=50, le=1_000_000, description="packing target for body")
    overlap_chars: int = Field(150, ge=0, description="context copied from the previous chunk")
    max_tokens: int | None = Field(
        None, ge=16, description="hard cap on tokens of `text`; None = the model's limit"
    )
    soft_target_fraction: float = Field(
        0.3,
        gt=0.0,
        le=1.0,
        description=(
            "soft target, share of max_chars and of the token cap: a body that reached it "
            "closes at the next paragraph boundary; 1.0 = pack up to the hard maximum"
        ),
    )
    runt_fraction: float = Field(0.25, gt=0.0, lt=1.0, description="runt floor, share of max")
    overflow_fraction: float = Field(1.25, ge=1.0, le=2.0, description="merge ceiling")
    tokenizer_path: Path | None = Field(
        None, description="tokenizer.json (or a .zip holding one); None = packaged default"
    )
    add_special_tokens: bool = Field(
        True, description="count the special tokens the model adds ([CLS], [SEP])"
    )
    heading_separator: str = " > "

    @model_validator(mode="after")
    def _check_relations(self) -> ChunkerConfig:
        if self.overlap_chars >= self.max_chars:
            raise ValueError(
                f"overlap_chars ({self.overlap_chars}) must be smaller than "
                f"max_chars ({self.max_chars})"
            )
        return self

    @property
    def runt_floor(self) -> int:
        """Bodies shorter than this are runts (BM25 length-normalisation hazard)."""
        return int(self.runt_fraction * self.max_chars)

    @property
    def merge_ceiling(self) -> int:
        """A runt merge may grow a body up to this many characters."""
        return int(self.overflow_fraction * self.max_chars)

    @classmethod
    def build(cls, **values: object) -> ChunkerConfig:
        """Construct from loose values, turning pydantic's error into ConfigError."""
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise ConfigError(_describe(exc)) from exc


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "config"
        parts.append(f"{field}: {err['msg']}")
    return "invalid chunker config: " + "; ".join(parts)
