"""Benchmark: upload-to-searchable latency on the local stack (p50/p95 over 50 documents).

    .venv/bin/python -m bench.upload_latency [--docs 50] [--out bench/results/upload_latency.md]

Needs the local stack's services running (`chunkwise local up`, or OPENSEARCH_URL /
AWS_ENDPOINT_URL); creates its own bucket, queue, DLQ and index prefix and removes
them afterwards.

Latency of one document = from just before `PutObject` until a count on the
read alias (filtered to live chunks) finds that exact revision: S3 notification
-> SQS -> runner long-poll (1 s) -> ingest handler (HEAD, GET version, extract,
chunk, embed with all-MiniLM-L6-v2 on CPU, pending write, flip live,
supersede, HEAD again) -> visible.

Two runs:
- sequential: one upload at a time, each waits until searchable (single-document
  latency, the queue is empty);
- burst: all documents uploaded at once, one runner drains the queue (latency
  includes waiting in the queue behind the others; one Lambda-like worker).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chunkwise.localstack.config import StackConfig

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SOURCES = [
    ("md", "manual_en.md"),
    ("md", "handbuch_de.md"),
    ("html", "pricing_en.html"),
    ("html", "preise_de.html"),
    ("pdf", "manual_en.pdf"),
    ("pdf", "handbuch_de.pdf"),
    ("docx", "pricing_en.docx"),
    ("pdf", "katalog_de_repeat.pdf"),
]


def document(i: int) -> tuple[str, bytes]:
    kind, name = SOURCES[i % len(SOURCES)]
    data = (DATA / name).read_bytes()
    if kind == "md":  # make the text documents distinct
        data += f"\n\nDocument number {i} of the latency benchmark.\n".encode()
    stem, suffix = name.rsplit(".", 1)
    return f"bench/{i:03d} {stem}.{suffix}", data


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * (len(s) - 1))))
    return s[k]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=50)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "upload_latency.md")
    args = ap.parse_args(argv)

    from chunkwise.localstack.stack import throwaway_stack

    # the library's throwaway stack: names of its own, removed afterwards
    with throwaway_stack("bench", visibility_timeout=120) as cfg:
        return measure(args, cfg)


def measure(args: argparse.Namespace, cfg: StackConfig) -> int:
    import boto3

    from chunkwise.adapters.opensearch.client import connect
    from chunkwise.index.names import IndexNames, make_doc_id
    from chunkwise.localstack.emulator import Runner

    s3 = boto3.client("s3", endpoint_url=cfg.endpoint, region_name=cfg.region)
    client = connect(cfg.opensearch_url)
    read_alias = IndexNames(cfg.index_prefix).read_alias
    runner = Runner(cfg, wait_seconds=1)

    def visible(key: str, rev: str) -> bool:
        body = {
            "query": {
                "bool": {
                    "filter": [
                        {"term": {"doc_id": make_doc_id(cfg.bucket, key)}},
                        {"term": {"revision": rev}},
                    ]
                }
            }
        }
        return int(client.count(index=read_alias, body=body)["count"]) > 0

    # warm-up: model weights, tokenizer, clients (a Lambda's cold start, not measured)
    _, d0 = document(0)
    w = s3.put_object(Bucket=cfg.bucket, Key=f"{cfg.input_prefix}warmup.md", Body=d0)
    runner.run(
        until=lambda: visible(f"{cfg.input_prefix}warmup.md", w["VersionId"]), max_seconds=300
    )

    seq: list[float] = []
    for i in range(args.docs):
        name, data = document(i)
        key = f"{cfg.input_prefix}seq/{name}"
        t0 = time.perf_counter()
        rev = s3.put_object(Bucket=cfg.bucket, Key=key, Body=data)["VersionId"]
        if not runner.run(until=lambda k=key, r=rev: visible(k, r), max_seconds=120):
            raise SystemExit(f"not searchable within 120 s: {key}")
        seq.append(time.perf_counter() - t0)
        print(f"sequential {i + 1:3d}/{args.docs}: {seq[-1] * 1000:7.0f} ms  {name}", flush=True)

    burst: dict[str, float] = {}
    pending: dict[str, str] = {}
    t0 = time.perf_counter()
    for i in range(args.docs):
        name, data = document(i)
        key = f"{cfg.input_prefix}burst/{name}"
        pending[key] = s3.put_object(Bucket=cfg.bucket, Key=key, Body=data)["VersionId"]
    upload_s = time.perf_counter() - t0

    def all_visible() -> bool:
        for k, r in list(pending.items()):
            if visible(k, r):
                burst[k] = time.perf_counter() - t0
                del pending[k]
        return not pending

    if not runner.run(until=all_visible, max_seconds=900):
        raise SystemExit(f"burst: {len(pending)} documents not searchable within 900 s")
    drain_s = time.perf_counter() - t0
    burst_values = list(burst.values())

    emulator = "LocalStack (host mode)"
    try:
        import json
        import urllib.request

        with urllib.request.urlopen(cfg.endpoint + "/_localstack/health", timeout=5) as r:
            emulator += " " + json.loads(r.read()).get("version", "")
    except Exception:
        emulator = f"S3/SQS at {cfg.endpoint} (not LocalStack)"
    os_version = client.info()["version"]["number"]
    load = os.getloadavg()
    cpus = os.cpu_count()
    lines = [
        "# Upload-to-searchable latency (local stack)",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by "
        "`.venv/bin/python -m bench.upload_latency` "
        f"({args.docs} documents per run; EN/DE Markdown, HTML, PDF, DOCX from tests/data).",
        "",
        f"- machine: {platform.machine()}, {cpus} cores shared with other work "
        f"(load average {load[0]:.1f} / {load[1]:.1f} at the end), "
        f"Python {platform.python_version()}",
        f"- S3/SQS: {emulator}; OpenSearch {os_version} (single local node)",
        "- ingest: the Lambda handler in-process (`chunkwise.localstack.emulator.Runner`, one "
        "worker, batch up to 10, 1 s long poll); embedder all-MiniLM-L6-v2 on CPU (numpy, 1 BLAS "
        "thread)",
        "- latency: from just before PutObject until a count on the read alias finds the revision",
        "",
        "| run | n | p50 | p95 | max | mean |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, vals in (("sequential (empty queue)", seq), ("burst (all at once)", burst_values)):
        lines.append(
            f"| {label} | {len(vals)} | {pct(vals, 50) * 1000:.0f} ms"
            f" | {pct(vals, 95) * 1000:.0f} ms | {max(vals) * 1000:.0f} ms"
            f" | {statistics.fmean(vals) * 1000:.0f} ms |"
        )
    lines += [
        "",
        f"Burst: {args.docs} uploads took {upload_s:.1f} s; the single runner drained the queue "
        f"in {drain_s:.1f} s ({args.docs / drain_s:.1f} documents/s). In AWS the event source "
        "mapping runs several function instances in parallel, so burst latency there is closer "
        "to the sequential figure plus Lambda's polling delay.",
        "",
        "Not included: Lambda cold start (first document after idle) and Bedrock embedding "
        "latency; the warm-up document is not counted.",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
