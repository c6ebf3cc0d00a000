"""Rate of the revision switch through the production ingest path, embedding excluded.

N small Markdown documents are uploaded to the S3 emulator, then ingested with
`Pipeline.ingest_batch` in SQS-sized batches by one worker (fetch, extract, chunk,
switch; the embedder returns fixed vectors at no cost, so the index side is
measured); then every document gets a new version and is ingested again (the
switch proper: new head, old revision superseded). Prints a table and writes
bench/results/switch_rate.{md,json}.

    python -m bench.switch_rate --docs 500 --batch 10
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.faults.scenarios import s3_client, throwaway_stack
from chunkwise.embedding.embed import Embedder, sizer_for
from chunkwise.ingest.pipeline import ObjectChange
from chunkwise.models.counter import HFTokenCounter
from chunkwise.models.local import default_embedder

RESULTS = Path(__file__).resolve().parent / "results"


class FixedVectors:
    """The default embedder's identity (name, dimension, tokenizer) with free vectors."""

    def __init__(self, real: Embedder) -> None:
        self.real = real
        self.name = real.name
        self.dimension = real.dimension
        self.max_tokens = real.max_tokens
        self.languages = getattr(real, "languages", None)

    def token_counter(self) -> HFTokenCounter:
        return sizer_for(self.real)

    def count_tokens(self, text: str) -> int:
        return self.real.count_tokens(text)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0] + [0.0] * (self.dimension - 1) for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0] + [0.0] * (self.dimension - 1)


def _doc(i: int, version: int) -> bytes:
    return (
        f"# Document {i}\n\nVersion {version} of a small document about topic {i % 17}.\n\n"
        f"## Details\n\nSecond paragraph, revision {version}, with a few more words.\n"
    ).encode()


LOAD_STAGES = ("fetch", "extract", "chunk", "artifacts", "embed")


def _ingest_all(
    pipeline: Any, keys: list[str], bucket: str, batch: int
) -> tuple[float, float, dict[str, int]]:
    """(wall seconds, seconds of the switch alone, outcomes): the switch alone is the
    wall time minus each document's fetch/extract/chunk/artifacts/embed stages."""
    statuses: dict[str, int] = {}
    loading = 0.0
    t0 = time.perf_counter()
    for s in range(0, len(keys), batch):
        changes = [ObjectChange(bucket, k) for k in keys[s : s + batch]]
        for r in pipeline.ingest_batch(changes):
            statuses[r.status] = statuses.get(r.status, 0) + 1
            loading += sum(r.stages.get(stage, 0.0) for stage in LOAD_STAGES)
    wall = time.perf_counter() - t0
    return wall, wall - loading, statuses


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.switch_rate")
    p.add_argument("--docs", type=int, default=500)
    p.add_argument("--batch", type=int, default=10, help="documents per SQS batch")
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args(argv)
    opensearch_url = os.environ.get("OPENSEARCH_URL", "http://127.0.0.1:9200")
    endpoint = os.environ.get("AWS_ENDPOINT_URL", "http://127.0.0.1:4566")
    load_before = os.getloadavg()
    with throwaway_stack("rate", opensearch_url, endpoint) as cfg:
        from chunkwise.settings import IngestSettings, load_settings
        from chunkwise.wiring import build_pipeline

        s3 = s3_client(cfg)
        keys = [f"{cfg.input_prefix}rate/doc-{i:05d}.md" for i in range(args.docs)]
        free = FixedVectors(default_embedder())
        pipeline = build_pipeline(load_settings(IngestSettings), embedder=free)  # type: ignore[arg-type]
        rows = []
        for version, label in (
            (1, "first revision (new documents)"),
            (2, "new revision of every document"),
        ):
            for i, k in enumerate(keys):
                s3.put_object(Bucket=cfg.bucket, Key=k, Body=_doc(i, version))
            seconds, switch_s, statuses = _ingest_all(pipeline, keys, cfg.bucket, args.batch)
            rows.append(
                {
                    "pass": label,
                    "documents": len(keys),
                    "seconds": round(seconds, 2),
                    "documents_per_s": round(len(keys) / seconds, 1),
                    "switch_seconds": round(switch_s, 2),
                    "switch_documents_per_s": round(len(keys) / switch_s, 1),
                    "statuses": statuses,
                }
            )
    load_after = os.getloadavg()
    meta = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "workers": 1,
        "batch": args.batch,
        "embedding": "excluded (fixed vectors, no model call)",
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
    }
    lines = [
        "| pass | documents | wall s | documents/s (whole path) | switch s | "
        "documents/s (switch alone: S3 HEADs + index) | outcomes |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {r['pass']} | {r['documents']} | {r['seconds']} | {r['documents_per_s']} | "
            f"{r['switch_seconds']} | {r['switch_documents_per_s']} | {r['statuses']} |"
            for r in rows
        ),
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "switch_rate.json").write_text(
            json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n", encoding="utf-8"
        )
        header = (
            "# Revision switch rate (`python -m bench.switch_rate`)\n\n"
            f"{meta['date']}; 1 worker, batches of {args.batch} (one SQS batch each); "
            "embedding excluded (fixed vectors); S3 = the emulator, OpenSearch = the local "
            f"node; load average {meta['load_average_before'][0]} before, "
            f"{meta['load_average_after'][0]} after (1-minute, 2 shared cores). Each "
            "document: S3 HEAD x2, GET, extract, chunk, artifacts PUT x2, and the switch "
            "(one bulk per phase for the batch, no refresh).\n\n"
        )
        (RESULTS / "switch_rate.md").write_text(header + text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
