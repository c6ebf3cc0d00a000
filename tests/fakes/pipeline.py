"""In-memory fakes of the pipeline ports (artifacts, queue, live set, embedder) and a
pipeline over them (`make_rig`); the source bucket is `tests.fakes.bucket.FakeBucket`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from chunkwise.index.states import State
from chunkwise.ingest.config import PipelineConfig
from chunkwise.ingest.pipeline import Pipeline
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import FakeIndex

EVENTS = Path(__file__).resolve().parents[2] / "events"
DATA = Path(__file__).resolve().parents[1] / "data"
BUCKET = "chunkwise-docs-123456789012"


def load_event(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((EVENTS / name).read_text(encoding="utf-8"))
    return data


@dataclass
class FakeArtifactStore:
    files: dict[str, tuple[bytes, str]] = field(default_factory=dict)

    def put(self, key: str, data: bytes, content_type: str) -> None:
        self.files[key] = (data, content_type)

    def delete(self, keys: Sequence[str]) -> None:
        for key in keys:
            self.files.pop(key, None)


@dataclass
class FakeQueue:
    bodies: list[str] = field(default_factory=list)

    def send_batch(self, bodies: Sequence[str]) -> None:
        self.bodies.extend(bodies)


class FakeLiveSet:
    """LiveSetPort over a FakeIndex + the chunks' source keys it was given: revision
    keys of live (and pending) chunks, failures by revision key."""

    def __init__(self, index: FakeIndex, keys: dict[str, str]) -> None:
        self.index = index
        self.keys = keys  # doc_id -> key

    def live_revisions(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for doc_id, chunks in self.index.docs.items():
            for rev, _i, st, _e in chunks.values():
                if st in (State.LIVE, State.PENDING):
                    out.setdefault(self.keys[doc_id], set()).add(rev)
        return out

    def known_failures(self) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for revisions in self.index.failures.values():
            for rev, (key, reason) in revisions.items():
                out.setdefault(key, {})[rev] = reason
        return out


class FakeEmbedder:
    """Deterministic 8-d vectors; counts calls and batch sizes."""

    name = "fake-embedder"
    dimension = 8
    max_tokens = 256
    batch_size = 16

    def __init__(self) -> None:
        self.calls: list[int] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + 2

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        out = []
        for t in texts:
            h = hashlib.sha256(t.encode()).digest()
            out.append([b / 255.0 for b in h[:8]])
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]


@dataclass
class Rig:
    """A pipeline over fakes, plus the fakes for assertions."""

    pipeline: Pipeline
    store: FakeBucket
    artifacts: FakeArtifactStore
    index: FakeIndex
    indexes: dict[str | None, FakeIndex]
    embedder: FakeEmbedder


def make_rig(counter: object, **config: object) -> Rig:
    values: dict[str, object] = {"bucket": BUCKET, "input_prefix": "incoming/"}
    values.update(config)
    cfg = PipelineConfig.model_validate(values)
    store = FakeBucket(bucket=BUCKET)
    artifacts = FakeArtifactStore()
    indexes: dict[str | None, FakeIndex] = {None: FakeIndex()}

    def index_for(generation: str | None) -> FakeIndex:
        return indexes.setdefault(generation, FakeIndex())

    emb = FakeEmbedder()
    pipeline = Pipeline(
        cfg,
        store=store,
        artifacts=artifacts,
        index_for=index_for,
        embedder=emb,
        counter=counter,  # type: ignore[arg-type]
    )
    return Rig(pipeline, store, artifacts, indexes[None], indexes, emb)
