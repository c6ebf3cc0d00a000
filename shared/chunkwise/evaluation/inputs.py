"""What `chunkwise eval` reads: the labelled questions, the corpus manifest and the
configurations under test, as validated models, with loaders whose errors name the
file, the line or the key at fault (pure but for reading the files).

The question format (JSONL) is described in `chunkwise.evaluation.evaluate`.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from chunkwise.chunking.config import ChunkerConfig
from chunkwise.errors import ChunkwiseError, ConfigError
from chunkwise.evaluation.baselines import BASELINES, OVER_CAP


class QuestionsError(ChunkwiseError, ValueError):
    """The questions file is malformed; the message names the line."""


# --------------------------------------------------------------------------- models


class EvidenceSpan(BaseModel):
    """Gold evidence: a quoted string, or a [start, end) span, in one source's extracted text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_key: str = Field(min_length=1)
    quote: str | None = Field(None, min_length=1)
    start: int | None = Field(None, ge=0)
    end: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _one_form(self) -> EvidenceSpan:
        has_span = self.start is not None or self.end is not None
        if (self.quote is None) == (not has_span):
            raise ValueError("evidence needs either 'quote' or both 'start' and 'end'")
        if has_span and (self.start is None or self.end is None or self.end <= self.start):
            raise ValueError("evidence span needs start < end")
        return self


class RevisionInfo(BaseModel):
    """A changed-value question: the value in ``superseded`` must never be cited."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    current: str | None = None  # expected current revision; None = the corpus' latest
    superseded: str = Field(min_length=1)
    superseded_quote: str = Field(min_length=1)
    note: str = ""


class Question(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    lang: str = Field(min_length=2)
    doc_type: str = Field(min_length=1)
    question: str = Field(min_length=1)
    evidence: list[EvidenceSpan] = Field(min_length=1)
    required_context: list[str] = Field(default_factory=list)
    revision: RevisionInfo | None = None
    tags: list[str] = Field(default_factory=list)


class CorpusRevision(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    revision: str = Field(min_length=1)
    path: str = Field(min_length=1)
    last_modified: str = Field(min_length=1)


class CorpusDocument(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(min_length=1)
    lang: str = "auto"
    doc_type: str = ""
    revisions: list[CorpusRevision] = Field(min_length=1)

    @property
    def current(self) -> str:
        return self.revisions[-1].revision


class Corpus(BaseModel):
    """Documents in ingestion order; a document's revisions oldest first."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    documents: list[CorpusDocument] = Field(min_length=1)


# --------------------------------------------------------------------------- loaders


def _pydantic_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "line"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def parse_questions(lines: Iterable[str], source: str = "<questions>") -> list[Question]:
    """Questions from JSONL lines; a bad line raises QuestionsError naming its number."""
    out: list[Question] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QuestionsError(f"{source}: line {n}: invalid JSON: {exc.msg}") from exc
        if not isinstance(data, dict):
            raise QuestionsError(f"{source}: line {n}: expected a JSON object")
        try:
            q = Question.model_validate(data)
        except ValidationError as exc:
            raise QuestionsError(f"{source}: line {n}: {_pydantic_message(exc)}") from exc
        if q.id in seen:
            raise QuestionsError(
                f"{source}: line {n}: duplicate question id {q.id!r} (first on line {seen[q.id]})"
            )
        seen[q.id] = n
        out.append(q)
    if not out:
        raise QuestionsError(f"{source}: no questions")
    return out


def load_questions(path: Path) -> list[Question]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionsError(f"cannot read questions file {path}: {exc}") from exc
    return parse_questions(text.splitlines(), str(path))


def load_corpus(path: Path) -> Corpus:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read corpus manifest {path}: {exc}") from exc
    try:
        corpus = Corpus.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {_pydantic_message(exc)}") from exc
    keys = [d.key for d in corpus.documents]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ConfigError(f"{path}: duplicate document key(s): {', '.join(dupes)}")
    return corpus


@dataclass(frozen=True)
class EvalConfig:
    """One configuration under test: a baseline by name plus chunker settings."""

    name: str
    baseline: str
    chunker: ChunkerConfig
    description: str = ""
    source: str = ""
    # What a chunk over the model's token cap becomes (chunkwise.evaluation.baselines).
    over_cap: str = "truncate"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "baseline": self.baseline,
            "description": self.description,
            "over_cap": self.over_cap,
            "chunker": self.chunker.model_dump(mode="json"),
        }


CONFIG_KEYS = ("name", "baseline", "description", "over_cap", "chunker")


def parse_config(data: Mapping[str, Any], source: str = "<config>") -> EvalConfig:
    """Validate a configuration table; unknown keys raise ConfigError naming the key."""
    unknown = sorted(set(data) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigError(
            f"{source}: unknown key(s) {', '.join(repr(k) for k in unknown)} "
            f"(allowed: {', '.join(CONFIG_KEYS)}; chunker settings go under [chunker])"
        )
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{source}: 'name' must be a non-empty string")
    baseline = data.get("baseline", "chunkwise")
    if baseline not in BASELINES:
        raise ConfigError(
            f"{source}: baseline: unknown {baseline!r} (choose from {', '.join(BASELINES)})"
        )
    chunker = data.get("chunker", {})
    if not isinstance(chunker, Mapping):
        raise ConfigError(f"{source}: [chunker] must be a table")
    try:
        cfg = ChunkerConfig.build(**dict(chunker))
    except ConfigError as exc:
        raise ConfigError(f"{source}: [chunker] {exc}") from exc
    description = data.get("description", "")
    over_cap = data.get("over_cap", "truncate")
    if over_cap not in OVER_CAP:
        raise ConfigError(
            f"{source}: over_cap: unknown {over_cap!r} (choose from {', '.join(OVER_CAP)})"
        )
    return EvalConfig(
        name=name.strip(),
        baseline=str(baseline),
        chunker=cfg,
        description=str(description),
        source=source,
        over_cap=str(over_cap),
    )


def load_config(path: Path) -> EvalConfig:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    return parse_config(data, str(path))
