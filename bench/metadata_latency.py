"""Benchmark: sidecar upload to new metadata searchable, on the local stack (p50/p95).

    .venv/bin/python -m bench.metadata_latency [--changes 24] [--docs 4]
        [--out bench/results/metadata_latency.md]

Needs the local stack's services running (`chunkwise local up`, or OPENSEARCH_URL /
AWS_ENDPOINT_URL); creates its own bucket, queue, DLQ and index prefix and removes them
afterwards.

``--docs`` documents (EN/DE Markdown and PDF from tests/data, and a generated German
manual of about 100 chunks, where extraction and embedding cost what they do on real
documents) are uploaded with a sidecar and indexed. Then ``--changes`` sidecar-only
changes, one at a time, round robin over the documents; each one removes the group the
previous one granted and grants another (what revoking a reader looks like). Latency of
one change = from just before `PutObject` of the sidecar until

- *read alias*: every chunk the filtered read alias serves for the document carries
  the new sidecar version (and its readers), none the old: what a raw OpenSearch
  client, and a DLS role on ``readers``, sees;
- *searcher*: chunkwise's reader (`Searcher`, heads) returns the document's hits of
  the new state only.

The runner (the ingest handler in-process, like `chunkwise local run`) polls the queue
in a thread; the conditions are checked every 25 ms. For comparison, ``--docs`` new
object versions (same documents, a changed last line) are timed the same way: the
full path (extract, chunk, embed). The counters are the handler's own results
(`IngestResult.metadata_only`, `extractions`, `embedding_calls`) and a count of the
embedding model's calls.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import platform
import statistics
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SOURCES = ["manual_en.md", "handbuch_de.md", "katalog_de_repeat.pdf", "manual_en.pdf"]
LONG = "long_handbuch_de.md"
GROUPS = [f"group-{i:02d}" for i in range(20)]


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * (len(s) - 1))))
    return s[k]


def long_manual(sections: int = 100) -> bytes:
    """A German manual of ``sections`` sections (about one chunk each)."""
    parts = ["# Betriebshandbuch Pumpenanlage"]
    for i in range(1, sections + 1):
        text = (
            f"Abschnitt {i} beschreibt die Wartung der Baugruppe {i}. Der Einlassfilter wird "
            f"alle {i % 12 + 1} Monate geprüft, der Druckverlust am Manometer abgelesen und "
            "im Wartungsprotokoll eingetragen. Bei einem Druckverlust über 0,4 bar ist der "
            "Filtereinsatz zu wechseln; die Dichtungen werden dabei mit Silikonfett versehen. "
        )
        parts.append(f"## {i}. Baugruppe {i}\n\n" + text * 4)
    return "\n\n".join(parts).encode("utf-8")


def documents(n: int) -> dict[str, bytes]:
    """Name -> bytes of the ``n`` documents: the generated long manual, then tests/data."""
    out = {LONG: long_manual()}
    for i in range(n - 1):
        out[SOURCES[i % len(SOURCES)]] = (DATA / SOURCES[i % len(SOURCES)]).read_bytes()
    return out


def sidecar(change: int, readers: list[str]) -> bytes:
    attributes = {"change": change, "dept": f"dept-{change % 5}", "chunkwise_readers": readers}
    return json.dumps({"metadataAttributes": attributes}).encode()


class Spy:
    """The handler's pipeline results and embedding calls from now on."""

    def __init__(self, runner: Any) -> None:
        handler = inspect.unwrap(runner.handler)
        self.pipeline = handler.__globals__["get_pipeline"]()
        self.results: list[Any] = []
        self.embedded = 0
        batch, embed = self.pipeline.ingest_batch, self.pipeline.embedder.embed

        def ingest_batch(*args: Any, **kwargs: Any) -> Any:
            out = batch(*args, **kwargs)
            self.results.extend(out)
            return out

        def counted(texts: Any) -> Any:
            self.embedded += 1
            return embed(texts)

        self.pipeline.ingest_batch = ingest_batch
        self.pipeline.embedder.embed = counted

    def take(self) -> tuple[list[Any], int]:
        out, n = self.results, self.embedded
        self.results, self.embedded = [], 0
        return out, n


class Poller:
    """The runner in a thread (so the conditions can be checked more often than it
    polls)."""

    def __init__(self, runner: Any) -> None:
        self.runner, self.stop = runner, threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.stop.is_set():
            self.runner.poll_once()

    def __enter__(self) -> Poller:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=30)


def wait_for(
    conditions: dict[str, Callable[[], bool]], t0: float, limit: float
) -> dict[str, float]:
    """Seconds from ``t0`` until each condition first held."""
    reached: dict[str, float] = {}
    while len(reached) < len(conditions):
        for name, check in conditions.items():
            if name not in reached and check():
                reached[name] = time.perf_counter() - t0
        if time.perf_counter() - t0 > limit:
            raise SystemExit(f"not reached within {limit} s: {set(conditions) - set(reached)}")
        time.sleep(0.025)
    return reached


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=24)
    ap.add_argument("--docs", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "metadata_latency.md")
    args = ap.parse_args(argv)

    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    import boto3

    from chunkwise.adapters.opensearch.client import connect
    from chunkwise.adapters.opensearch.search import Searcher
    from chunkwise.index.names import IndexNames, make_doc_id
    from chunkwise.localstack.config import DEFAULT_ENDPOINT, DEFAULT_OPENSEARCH, StackConfig
    from chunkwise.localstack.emulator import Runner
    from chunkwise.localstack.stack import delete_resources, stack_up
    from chunkwise.search.hybrid import SearchFilters

    tag = uuid.uuid4().hex[:6]
    cfg = StackConfig(
        bucket=f"bench-{tag}",
        queue=f"bench-{tag}-ingest",
        dlq=f"bench-{tag}-dlq",
        index_prefix=f"bench-{tag}",
        visibility_timeout=120,
        endpoint=os.environ.get("AWS_ENDPOINT_URL", DEFAULT_ENDPOINT),
        opensearch_url=os.environ.get("OPENSEARCH_URL", DEFAULT_OPENSEARCH),
    )
    stack_up(cfg, start=False)
    s3 = boto3.client("s3", endpoint_url=cfg.endpoint, region_name=cfg.region)
    client = connect(cfg.opensearch_url)
    names = IndexNames(cfg.index_prefix)
    runner = Runner(cfg, wait_seconds=1)
    try:
        data = {
            f"{cfg.input_prefix}bench/{i:02d} {name}": body
            for i, (name, body) in enumerate(documents(args.docs).items())
        }
        keys = list(data)

        def live(key: str) -> list[dict[str, Any]]:
            body = {
                "size": 500,
                "query": {"term": {"doc_id": make_doc_id(cfg.bucket, key)}},
                "_source": ["metadata_version", "readers", "revision"],
            }
            hits = client.search(index=names.read_alias, body=body)["hits"]["hits"]
            return [h["_source"] for h in hits]

        def alias_shows(key: str, field: str, value: str) -> Callable[[], bool]:
            def check() -> bool:
                chunks = live(key)
                return bool(chunks) and all(c[field] == value for c in chunks)

            return check

        # indexing the documents with their first sidecar (and the model's warm-up)
        readers: dict[str, list[str]] = {}
        for i, key in enumerate(keys):
            readers[key] = [GROUPS[i % len(GROUPS)]]
            s3.put_object(Bucket=cfg.bucket, Key=key, Body=data[key])
            m = s3.put_object(
                Bucket=cfg.bucket, Key=key + ".metadata.json", Body=sidecar(0, readers[key])
            )
            ok = runner.run(
                until=alias_shows(key, "metadata_version", m["VersionId"]), max_seconds=600
            )
            if not ok:
                raise SystemExit(f"{key}: not indexed within 600 s")
        spy = Spy(runner)
        searcher = Searcher(client, spy.pipeline.embedder, names, fusion="client")

        def searcher_shows(key: str, version: str) -> Callable[[], bool]:
            doc_id = make_doc_id(cfg.bucket, key)

            def check() -> bool:
                hits = searcher.search("pump filter Wartung", 5, SearchFilters(doc_ids=(doc_id,)))
                # a hit's id is <doc_id>:<revision key>:<chunk index>
                return bool(hits) and all(
                    h.id.rsplit(":", 1)[0].endswith(f"|{version}") for h in hits
                )

            return check

        alias_s: list[float] = []
        searcher_s: list[float] = []
        rows: list[dict[str, Any]] = []
        with Poller(runner):
            for change in range(1, args.changes + 1):
                key = keys[change % len(keys)]
                revoked = readers[key][-1]
                readers[key] = [GROUPS[(change * 7) % len(GROUPS)]]
                t0 = time.perf_counter()
                m = s3.put_object(
                    Bucket=cfg.bucket,
                    Key=key + ".metadata.json",
                    Body=sidecar(change, readers[key]),
                )
                version = m["VersionId"]
                reached = wait_for(
                    {
                        "alias": alias_shows(key, "metadata_version", version),
                        "searcher": searcher_shows(key, version),
                    },
                    t0,
                    120,
                )
                results, embedded = spy.take()
                alias_s.append(reached["alias"])
                searcher_s.append(reached["searcher"])
                gone = (
                    all(revoked not in c["readers"] for c in live(key)) or revoked in readers[key]
                )
                rows.append(
                    {
                        "change": change,
                        "key": key.rsplit("/", 1)[1],
                        "chunks": len(live(key)),
                        "alias_ms": round(reached["alias"] * 1000),
                        "searcher_ms": round(reached["searcher"] * 1000),
                        "metadata_only": [
                            r.metadata_only for r in results if r.status == "indexed"
                        ],
                        "extractions": sum(r.extractions for r in results),
                        "embedding_calls": sum(r.embedding_calls for r in results),
                        "model_calls": embedded,
                        "handler_ms": handler_ms(results),
                        "revoked_group_gone": gone,
                    }
                )
                print(json.dumps(rows[-1]), flush=True)

            full_s: list[float] = []
            full_counts: list[dict[str, Any]] = []
            for i, key in enumerate(keys):
                t0 = time.perf_counter()
                # a new version (of the same bytes for a PDF): the full path all the same
                extra = b"" if key.endswith(".pdf") else f"\n\nRevision {i}.\n".encode()
                body = data[key] + extra
                v = s3.put_object(Bucket=cfg.bucket, Key=key, Body=body)
                reached = wait_for({"alias": alias_shows(key, "revision", v["VersionId"])}, t0, 300)
                results, embedded = spy.take()
                full_s.append(reached["alias"])
                full_counts.append(
                    {
                        "key": key.rsplit("/", 1)[1],
                        "chunks": len(live(key)),
                        "alias_ms": round(reached["alias"] * 1000),
                        "handler_ms": handler_ms(results),
                        "extractions": sum(r.extractions for r in results),
                        "embedding_calls": sum(r.embedding_calls for r in results),
                        "model_calls": embedded,
                    }
                )
                print(json.dumps(full_counts[-1]), flush=True)
    finally:
        for failure in delete_resources(cfg, client):
            print(f"cleanup: {failure}")

    write_results(args, cfg, client, rows, alias_s, searcher_s, full_s, full_counts)
    return 0


def handler_ms(results: list[Any]) -> int:
    return round(sum(r.stages.get("total", 0.0) for r in results) * 1000)


def per_document(rows: list[dict[str, Any]], full: list[dict[str, Any]]) -> list[str]:
    out = []
    for f in full:
        mine = [r for r in rows if r["key"] == f["key"]]
        if not mine:
            continue
        alias = statistics.median(r["alias_ms"] for r in mine)
        handler = statistics.median(r["handler_ms"] for r in mine)
        out.append(
            f"| {f['key']} | {f['chunks']} | {alias:.0f} ms | {handler:.0f} ms "
            f"| {f['alias_ms']} ms | {f['handler_ms']} ms |"
        )
    return out


def write_results(
    args: argparse.Namespace,
    cfg: Any,
    client: Any,
    rows: list[dict[str, Any]],
    alias_s: list[float],
    searcher_s: list[float],
    full_s: list[float],
    full_counts: list[dict[str, Any]],
) -> None:
    emulator = "LocalStack (host mode)"
    try:
        import urllib.request

        with urllib.request.urlopen(cfg.endpoint + "/_localstack/health", timeout=5) as r:
            emulator += " " + json.loads(r.read()).get("version", "")
    except Exception:
        emulator = f"S3/SQS at {cfg.endpoint} (not LocalStack)"
    load = os.getloadavg()

    def line(label: str, vals: list[float]) -> str:
        return (
            f"| {label} | {len(vals)} | {pct(vals, 50) * 1000:.0f} ms"
            f" | {pct(vals, 95) * 1000:.0f} ms | {max(vals) * 1000:.0f} ms"
            f" | {statistics.fmean(vals) * 1000:.0f} ms |"
        )

    restamped = sum(all(r["metadata_only"]) and bool(r["metadata_only"]) for r in rows)
    lines = [
        "# Sidecar upload to new metadata searchable (local stack)",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by "
        f"`.venv/bin/python -m bench.metadata_latency` ({len(rows)} sidecar-only changes over "
        f"{args.docs} documents, one at a time; then {len(full_s)} new object versions).",
        "",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores shared with other work "
        f"(load average {load[0]:.1f} / {load[1]:.1f} at the end), "
        f"Python {platform.python_version()}",
        f"- S3/SQS: {emulator}; OpenSearch {client.info()['version']['number']} "
        "(single local node, refresh interval 1 s)",
        "- ingest: the Lambda handler in-process (`chunkwise.localstack.emulator.Runner` "
        "in a thread, one worker, 1 s long poll); conditions checked every 25 ms",
        "- read alias: every live chunk of the document carries the new sidecar version; searcher: "
        "chunkwise's reader returns the new state's chunks only",
        "",
        "| change | n | p50 | p95 | max | mean |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        line("sidecar only: read alias", alias_s),
        line("sidecar only: searcher", searcher_s),
        line("new object version (full path): read alias", full_s),
        "",
        "Per document (medians; handler = the revision switch of the change inside the ingest "
        "handler, from its result's `stages.total`):",
        "",
        "| document | chunks | sidecar only: read alias | handler | new version: read alias "
        "| handler |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        *per_document(rows, full_counts),
        "",
        "Counters (the ingest handler's own results, and the embedding model's calls counted "
        "around it):",
        "",
        f"- sidecar-only changes: {restamped} of {len(rows)} restamped (`metadata_only`); "
        f"extractions {sum(r['extractions'] for r in rows)}, embedding calls "
        f"{sum(r['embedding_calls'] for r in rows)}, "
        f"model calls {sum(r['model_calls'] for r in rows)}",
        f"- new object versions: extractions {sum(r['extractions'] for r in full_counts)}, "
        f"embedding calls {sum(r['embedding_calls'] for r in full_counts)}, model calls "
        f"{sum(r['model_calls'] for r in full_counts)}",
        f"- each change revoked the group the previous one granted: gone from every live chunk "
        f"when the read alias condition held in {sum(r['revoked_group_gone'] for r in rows)} of "
        f"{len(rows)} changes",
        "",
        "Per change: `bench/results/metadata_latency.json`. Not included: Lambda cold start, "
        "S3 event delivery on AWS (seconds, not milliseconds), Lambda's SQS polling delay.",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    args.out.with_suffix(".json").write_text(
        json.dumps({"changes": rows, "full": full_counts}, indent=2) + "\n", encoding="utf-8"
    )
    print("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
