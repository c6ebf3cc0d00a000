"""Where things are and what one ingestion may consume: `PipelineConfig`, validated once.

Artifacts
---------
``<artifacts_prefix><doc_id>/<revision>.md`` (the canonical text every chunk
offset refers to) and ``.json`` (extraction report + chunking stats) go to the
artifacts bucket, or to a prefix of the source bucket outside the watched
input prefix. A configuration that would put artifacts where the trigger
listens is rejected: derived files must never re-trigger ingestion.

The configuration is built from the settings by the composition side
(`chunkwise.wiring.pipeline_config`), at the functions' cold start.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from chunkwise.errors import ConfigError
from chunkwise.extract.formats import accepted_suffixes
from chunkwise.metadata.model import DEFAULT_READERS_KEY, MetadataError, check_readers_key

MIB = 1024 * 1024
#: The files written per revision: canonical text, then report.
ARTIFACT_SUFFIXES = (".md", ".json")


class PipelineConfig(BaseModel):
    """Where things are and what one ingestion may consume. Validated once."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    bucket: str = Field(min_length=3)
    input_prefix: str = Field("", description="only keys under it are ingested ('' = all)")
    artifacts_bucket: str = Field("", description="'' = the source bucket")
    artifacts_prefix: str = "extracted/"
    max_object_bytes: int = Field(100 * MIB, gt=0)
    # Object suffixes handed to extraction: the format registry's (extract/formats.py).
    allowed_suffixes: tuple[str, ...] = Field(default_factory=accepted_suffixes)
    # Work one document may cause, checked after chunking and before embedding (the
    # expensive step: a remote model is called per text). 5,000 chunks are ~2.5 M
    # characters of prose; a 20 MB HTML page made 44,010.
    max_chunks_per_document: int = Field(5000, gt=0)
    max_tokens_per_document: int = Field(1_500_000, gt=0)
    # The sidecar attribute that holds a document's readers (access control).
    readers_key: str = DEFAULT_READERS_KEY

    @field_validator("readers_key")
    @classmethod
    def _readers_key(cls, key: str) -> str:
        try:
            check_readers_key(key)
        except MetadataError as exc:
            raise ValueError(exc.reason) from None
        return key

    @model_validator(mode="after")
    def _artifacts_not_watched(self) -> PipelineConfig:
        same_bucket = self.artifacts_bucket in ("", self.bucket)
        if same_bucket and (
            self.input_prefix == "" or self.artifacts_prefix.startswith(self.input_prefix)
        ):
            raise ValueError(
                "artifacts_prefix: artifacts would be written where the ingest trigger listens "
                f"(bucket {self.bucket!r}, input prefix {self.input_prefix!r}); use a separate "
                "artifacts bucket or an input prefix that does not contain the artifacts prefix"
            )
        if same_bucket and self.input_prefix.startswith(self.artifacts_prefix):
            raise ValueError("input_prefix: must not lie under artifacts_prefix")
        return self

    @property
    def artifacts_location(self) -> str:
        return self.artifacts_bucket or self.bucket

    def artifact_key(self, doc_id: str, revision: str, suffix: str) -> str:
        return f"{self.artifacts_prefix}{doc_id}/{revision}{suffix}"

    def watches(self, key: str) -> bool:
        """Is ``key`` an input (a document or a sidecar: under the input prefix, not an
        artifact)?"""
        if not key.startswith(self.input_prefix) or key.endswith("/"):
            return False
        same_bucket = self.artifacts_bucket in ("", self.bucket)
        return not (same_bucket and key.startswith(self.artifacts_prefix))


def build_config(**values: Any) -> PipelineConfig:
    from pydantic import ValidationError

    try:
        return PipelineConfig.model_validate(values)
    except ValidationError as exc:
        parts = [f"{'.'.join(map(str, e['loc'])) or 'config'}: {e['msg']}" for e in exc.errors()]
        raise ConfigError("invalid pipeline config: " + "; ".join(parts)) from exc
