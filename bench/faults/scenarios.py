"""The fault-injection scenarios, each against its own throwaway local stack.

Every scenario returns rows ``(scenario, check, expected, measured, ok)``. The
handlers are the Lambda code itself (functions/*/app.py); S3 and SQS are the
emulator, OpenSearch the real node (optionally behind `ReadOnlyProxy`).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import logging
import os
import random
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.faults.poison import DATA, docx_bomb, long_markdown, wall_html
from bench.faults.readonly_proxy import ReadOnlyProxy
from chunkwise.cli.local import LocalContext, StackConfig, delete_resources, stack_up

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Row:
    scenario: str
    check: str
    expected: str
    measured: str
    ok: bool


Rows = list[Row]


def row(scenario: str, check: str, expected: object, measured: object, ok: bool) -> Row:
    return Row(scenario, check, str(expected), str(measured), ok)


# --------------------------------------------------------------------------- plumbing


@contextmanager
def throwaway_stack(tag: str, opensearch_url: str, endpoint: str) -> Iterator[StackConfig]:
    """A bucket, queue, DLQ and index prefix of their own; removed afterwards."""
    saved = dict(os.environ)
    suffix = uuid.uuid4().hex[:6]
    cfg = StackConfig(
        bucket=f"faults-{tag}-{suffix}",
        queue=f"faults-{tag}-{suffix}",
        dlq=f"faults-{tag}-{suffix}-dlq",
        index_prefix=f"faults-{tag}-{suffix}",
        endpoint=endpoint,
        opensearch_url=opensearch_url,
    )
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    os.environ["POWERTOOLS_LOG_LEVEL"] = "WARNING"
    stack_up(cfg, start=False)
    try:
        yield cfg
    finally:
        from chunkwise.adapters.opensearch.index import connect

        delete_resources(cfg, connect(opensearch_url))
        os.environ.clear()
        os.environ.update(saved)


def fresh_function(name: str, **env: str) -> ModuleType:
    """A new import of functions/<name>/app.py under ``env`` (settings are read at import)."""
    os.environ.update(env)
    path = ROOT / "functions" / name / "app.py"
    spec = importlib.util.spec_from_file_location(f"faults_{name}_{uuid.uuid4().hex[:6]}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def s3_client(cfg: StackConfig) -> Any:
    import boto3

    return boto3.client("s3", endpoint_url=cfg.endpoint_url, region_name=cfg.region)


def s3_record(bucket: str, key: str, version: str, message_id: str) -> dict[str, Any]:
    """One SQS record carrying one S3 ObjectCreated notification."""
    body = {
        "Records": [
            {
                "eventVersion": "2.1",
                "eventSource": "aws:s3",
                "eventName": "ObjectCreated:Put",
                "s3": {
                    "bucket": {"name": bucket},
                    "object": {"key": key, "versionId": version},
                },
            }
        ]
    }
    return {
        "messageId": message_id,
        "receiptHandle": message_id,
        "body": json.dumps(body),
        "attributes": {"ApproximateReceiveCount": "1"},
        "messageAttributes": {},
        "md5OfBody": "",
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:faults",
        "awsRegion": "us-east-1",
    }


def batches(records: Sequence[dict[str, Any]], size: int = 5) -> Iterator[list[dict[str, Any]]]:
    for i in range(0, len(records), size):
        yield list(records[i : i + size])


def failed_ids(response: dict[str, Any]) -> set[str]:
    return {f["itemIdentifier"] for f in response.get("batchItemFailures", [])}


def live_revisions(cfg: StackConfig) -> dict[str, set[str]]:
    from chunkwise.ingest.operations import live_set
    from chunkwise.settings import load_settings

    return live_set(load_settings()).live_revisions()


def current_versions(cfg: StackConfig) -> dict[str, str]:
    from chunkwise.adapters.s3 import S3Bucket

    store = S3Bucket(cfg.bucket)
    return {v.key: v.revision for v in store.list_current(cfg.input_prefix)}


def converged(cfg: StackConfig) -> tuple[int, int]:
    """(keys live at exactly S3's current version, keys in S3)."""
    current = current_versions(cfg)
    live = live_revisions(cfg)
    return sum(1 for k, rev in current.items() if live.get(k) == {rev}), len(current)


# --------------------------------------------------------------------------- 1: events


def events_scenario(opensearch_url: str, endpoint: str, seed: int = 14) -> Rows:
    """30 keys with 2-4 versions; events dropped (27 %), duplicated (15 %), reordered;
    ingested in batches of 5, then one sweep."""
    name = "events dropped/duplicated/reordered, then sweep"
    rng = random.Random(seed)
    with throwaway_stack("events", opensearch_url, endpoint) as cfg:
        s3 = s3_client(cfg)
        puts: list[tuple[str, str, str]] = []  # key, version id, marker word
        for i in range(30):
            key = f"{cfg.input_prefix}doc-{i:02d}.md"
            for v in range(rng.randint(2, 4)):
                marker = f"zqmark{i}x{v}"
                text = f"# Document {i}\n\nRevision {v} says {marker} about valve {i}.\n"
                resp = s3.put_object(Bucket=cfg.bucket, Key=key, Body=text.encode())
                puts.append((key, str(resp["VersionId"]), marker))
        records = [s3_record(cfg.bucket, k, v, f"m{n}") for n, (k, v, _) in enumerate(puts)]
        # 27 % of all events lost at random, and every event of five keys (those keys
        # only the sweep can find).
        silent = {f"{cfg.input_prefix}doc-{i:02d}.md" for i in rng.sample(range(30), 5)}
        kept = [
            r
            for r, (key, _, _) in zip(records, puts, strict=True)
            if key not in silent and rng.random() >= 0.27
        ]
        dropped = len(records) - len(kept)
        duplicated = [copy.deepcopy(r) for r in kept if rng.random() < 0.15]
        for d in duplicated:
            d["messageId"] += "-dup"
        delivered = kept + duplicated
        rng.shuffle(delivered)
        ingest = fresh_function("ingest")
        failures = 0
        for batch in batches(delivered):
            failures += len(failed_ids(ingest.lambda_handler({"Records": batch}, LocalContext())))
        before_sweep, total = converged(cfg)
        from chunkwise.ingest.operations import run_sweep
        from chunkwise.settings import load_settings

        first = run_sweep(load_settings(), enqueue=False)
        after_sweep, _ = converged(cfg)
        second = run_sweep(load_settings(), enqueue=False)
        superseded_hits, current_found, searches = _marker_searches(cfg, puts)
    rows = [
        row(
            name,
            "events: versions / dropped / duplicated (order shuffled)",
            "-",
            f"{len(records)} / {dropped} ({100 * dropped // len(records)} %, all of 5 keys) / "
            f"{len(duplicated)}",
            True,
        ),
        row(name, "failed messages while draining", 0, failures, failures == 0),
        row(
            name,
            "keys at S3's version before the sweep",
            f"<= {total - 5}/{total}",
            f"{before_sweep}/{total}",
            before_sweep <= total - 5,
        ),
        row(
            name,
            "keys at S3's version after the sweep",
            f"{total}/{total}",
            f"{after_sweep}/{total}",
            after_sweep == total,
        ),
        row(
            name,
            "drift repaired by the sweep / left for a second sweep",
            "all / 0",
            f"{len(first.repaired)} / {len(second.drifted)}",
            not second.drifted,
        ),
        row(
            name,
            "superseded revisions in search results",
            f"0 in {searches} searches",
            f"{superseded_hits} in {searches} searches",
            superseded_hits == 0,
        ),
        row(
            name,
            "current revision found by its marker",
            f"{total}/{total}",
            f"{current_found}/{total}",
            current_found == total,
        ),
    ]
    return rows


def _marker_searches(
    cfg: StackConfig, puts: Sequence[tuple[str, str, str]]
) -> tuple[int, int, int]:
    from chunkwise.adapters.opensearch.index import connect
    from chunkwise.adapters.opensearch.search import Searcher
    from chunkwise.index.bodies import IndexNames
    from chunkwise.wiring.embedders import get_embedder

    current = current_versions(cfg)
    searcher = Searcher(
        connect(cfg.opensearch_url), get_embedder("local"), IndexNames(cfg.index_prefix)
    )
    superseded = found = 0
    for key, version, marker in puts:
        hits = searcher.search(marker, 5)
        superseded += sum(1 for h in hits if h.citation.revision != current[h.citation.key])
        if version == current[key] and any(
            h.citation.key == key and h.citation.revision == version and marker in h.citation.body
            for h in hits
        ):
            found += 1
    return superseded, found, len(puts)


# --------------------------------------------------------------------------- 2: outage


def outage_scenario(opensearch_url: str, endpoint: str) -> Rows:
    """15 documents in 3 batches; OpenSearch stops answering in the middle of the second
    batch and stays down for the third; it comes back, SQS redelivers, one sweep."""
    name = "OpenSearch stopped mid-drain"
    with (
        ReadOnlyProxy(
            opensearch_url, allowed=frozenset({"GET", "HEAD", "POST", "PUT", "DELETE"})
        ) as proxy,
        throwaway_stack("outage", opensearch_url, endpoint) as cfg,
    ):
        s3 = s3_client(cfg)
        records = []
        for i in range(15):
            key = f"{cfg.input_prefix}manual-{i:02d}.md"
            body = (DATA / "manual_en.md").read_bytes() + f"\n\nCopy {i}.\n".encode()
            version = s3.put_object(Bucket=cfg.bucket, Key=key, Body=body)["VersionId"]
            records.append(s3_record(cfg.bucket, key, str(version), f"o{i}"))
        ingest = fresh_function("ingest", OPENSEARCH_URL=proxy.url)
        failures = _FailureLog()
        logging.getLogger("chunkwise-ingest").addHandler(failures)
        outcome: dict[str, int] = {}
        pending: list[dict[str, Any]] = []
        for n, batch in enumerate(batches(records)):
            if n == 1:
                proxy.go_down_after(12)  # a few requests into the second batch
            failed = failed_ids(ingest.lambda_handler({"Records": batch}, LocalContext()))
            outcome[f"batch {n + 1}"] = len(failed)
            pending += [r for r in batch if r["messageId"] in failed]
        during_outage = len(pending)
        proxy.down = False
        receives = 1
        while pending and receives < 3:  # the queue redelivers after the visibility timeout
            receives += 1
            for r in pending:
                r["attributes"]["ApproximateReceiveCount"] = str(receives)
            failed = set()
            for batch in batches(pending):
                failed |= failed_ids(ingest.lambda_handler({"Records": batch}, LocalContext()))
            pending = [r for r in pending if r["messageId"] in failed]
        from chunkwise.ingest.operations import run_sweep
        from chunkwise.settings import load_settings

        sweep = run_sweep(load_settings(), enqueue=False)
        live, total = converged(cfg)
    return [
        row(
            name,
            "failed messages per batch (outage from batch 2)",
            "0 / >0 / 5",
            " / ".join(str(v) for v in outcome.values()),
            outcome["batch 3"] == 5,
        ),
        row(
            name,
            "messages failed during the outage: transient / permanent",
            ">0 / 0",
            f"{failures.transient} / {failures.permanent}",
            during_outage > 0 and failures.transient >= during_outage and not failures.permanent,
        ),
        row(
            name,
            "messages still failing after redelivery (would reach the DLQ)",
            0,
            len(pending),
            not pending,
        ),
        row(name, "drift found by the sweep afterwards", 0, len(sweep.drifted), not sweep.drifted),
        row(
            name,
            "documents live at S3's version",
            f"{total}/{total}",
            f"{live}/{total}",
            live == total,
        ),
    ]


class _FailureLog(logging.Handler):
    """Counts the ingest handler's failure log lines by kind."""

    def __init__(self) -> None:
        super().__init__()
        self.transient = self.permanent = 0

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        self.transient += message.startswith("transient failure")
        self.permanent += message.startswith("permanent failure")


# --------------------------------------------------------------------------- 3: poison


def poison_scenario(
    opensearch_url: str, endpoint: str, *, memory_mb: int = 2048, timeout_s: float = 60.0
) -> Rows:
    """A document too slow to embed in its share of the time, a DOCX bomb and a 19.5 MB
    HTML wall in one batch with four good documents (one of 500,000 blank lines), in a
    fresh process with capped memory and a deadline (as one Lambda invocation)."""
    name = f"poison batch ({memory_mb} MB, {timeout_s:.0f} s)"
    with throwaway_stack("poison", opensearch_url, endpoint) as cfg:
        s3 = s3_client(cfg)
        # The slow document last: the documents before it are fast or small, so it is
        # given the rest of the invocation, a fair share it still overruns.
        files = {
            "bomb.docx": docx_bomb(),
            "wall.html": wall_html(),
            "manual_en.md": (DATA / "manual_en.md").read_bytes(),
            # good, but 500,000 blank lines: quadratic in sentence segmentation before
            "airy.md": b"# Notes\n\n" + b" \n" * 500_000 + b"The valve is checked yearly.\n",
            "pricing_en.docx": (DATA / "pricing_en.docx").read_bytes(),
            "handbuch_de.pdf": (DATA / "handbuch_de.pdf").read_bytes(),
            "long.md": long_markdown(),
        }
        records = []
        for n, (fname, data) in enumerate(files.items()):
            key = f"{cfg.input_prefix}{fname}"
            version = s3.put_object(Bucket=cfg.bucket, Key=key, Body=data)["VersionId"]
            records.append(s3_record(cfg.bucket, key, str(version), f"p{n}-{fname}"))
        result, logs, rc = _run_child({"Records": records}, memory_mb, timeout_s)
        failed = failed_ids(result.get("response", {})) if result else set()
        poison = {"p0-bomb.docx", "p1-wall.html", "p6-long.md"}
        live, total = converged(cfg)
        reasons = {
            str(x.get("key", "")).rsplit("/", 1)[-1]: str(x.get("reason", ""))
            for x in logs
            if "permanent failure" in str(x.get("message", ""))
        }
        from chunkwise.ingest.operations import run_sweep
        from chunkwise.settings import load_settings

        sweeps = [run_sweep(load_settings(), enqueue=True) for _ in range(2)]
        sizes = {k: len(v) for k, v in files.items()}
    limit = f"< {timeout_s:.0f} s, < {memory_mb} MB"
    measured = (
        f"{result.get('seconds')} s, peak RSS {result.get('peak_rss_mb')} MB" if result else "-"
    )
    return [
        row(
            name,
            "inputs",
            "-",
            f"long.md {sizes['long.md'] / 1e6:.1f} MB, bomb.docx "
            f"{sizes['bomb.docx'] / 1e6:.2f} MB (declares 2 KB), wall.html "
            f"{sizes['wall.html'] / 1e6:.1f} MB; 4 good files, one of 500,000 blank lines",
            True,
        ),
        row(
            name,
            "invocation survives (exit code, response)",
            "0, batch response",
            f"{rc}, {'batch response' if result else 'none'}",
            rc == 0 and bool(result),
        ),
        row(
            name,
            "time and memory of the invocation",
            limit,
            measured,
            bool(result) and result["seconds"] < timeout_s and result["peak_rss_mb"] < memory_mb,
        ),
        row(
            name,
            "failed messages",
            "the 3 poison files",
            ", ".join(sorted(failed)) or "none",
            failed == poison,
        ),
        row(
            name,
            "good documents live in the same invocation",
            "4/4",
            f"{live}/{total - 3}",
            live == total - 3,
        ),
        row(
            name,
            "log line per poison file (reason, no text)",
            "long.md, bomb.docx, wall.html",
            "; ".join(f"{k}: {v[:100]}" for k, v in sorted(reasons.items())) or "none",
            set(reasons) == {"long.md", "bomb.docx", "wall.html"},
        ),
        row(
            name,
            "sweeps afterwards: enqueued / known failures",
            "0 / 3 (both runs)",
            " ; ".join(f"{s.enqueued} / {len(s.known_failures)}" for s in sweeps),
            all(s.enqueued == 0 and len(s.known_failures) == 3 for s in sweeps),
        ),
    ]


def _run_child(
    event: dict[str, Any], memory_mb: int, timeout_s: float
) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(event, f)
    env = {**os.environ, "POWERTOOLS_LOG_LEVEL": "INFO", "PYTHONPATH": str(ROOT)}
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.faults.lambda_child",
                f.name,
                "--memory-mb",
                str(memory_mb),
                "--timeout-s",
                str(timeout_s),
            ],
            capture_output=True,
            text=True,
            timeout=timeout_s + 30,
            env=env,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return {}, [], -9
    finally:
        Path(f.name).unlink(missing_ok=True)
    result: dict[str, Any] = {}
    logs: list[dict[str, Any]] = []
    for line in proc.stdout.splitlines():
        if line.startswith("FAULTS-RESULT "):
            result = json.loads(line.removeprefix("FAULTS-RESULT "))
        elif line.startswith("{"):
            try:
                logs.append(json.loads(line))
            except ValueError:
                continue
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
    return result, logs, proc.returncode


# --------------------------------------------------------------------------- 4: query


def readonly_query_scenario(opensearch_url: str, endpoint: str, queries: int = 20) -> Rows:
    """The query function through an endpoint that refuses every non-read method, as the
    query role's domain policy does."""
    name = "query path behind a write-refusing OpenSearch"
    with throwaway_stack("query", opensearch_url, endpoint) as cfg:
        s3 = s3_client(cfg)
        records = []
        for n, fname in enumerate(("manual_en.md", "handbuch_de.md")):
            key = f"{cfg.input_prefix}{fname}"
            version = s3.put_object(Bucket=cfg.bucket, Key=key, Body=(DATA / fname).read_bytes())
            records.append(s3_record(cfg.bucket, key, str(version["VersionId"]), f"q{n}"))
        fresh_function("ingest").lambda_handler({"Records": records}, LocalContext())
        _wait_searchable(cfg, opensearch_url, len(records))
        with ReadOnlyProxy(opensearch_url) as proxy:
            query = fresh_function("query", OPENSEARCH_URL=proxy.url)
            texts = ["maintenance interval", "Wartungsintervall Filter", "spare parts", "Preis"]
            statuses = [
                query.lambda_handler(_get({"q": texts[i % len(texts)], "k": "3"}), LocalContext())
                for i in range(queries)
            ]
            ok = sum(1 for r in statuses if r["statusCode"] == 200)
            with_hits = sum(1 for r in statuses if json.loads(r["body"]).get("hits"))
            long_query = " ".join(f"wort{i}" for i in range(660))[:2000]
            bad = {
                "660-term query": _get({"q": long_query}),
                "k=true": _get({"q": "x", "k": "true"}),
                "1 MB key_prefix": _get({"q": "x", "key_prefix": "a" * 1_000_000}),
            }
            bad_status = {
                label: query.lambda_handler(ev, LocalContext())["statusCode"]
                for label, ev in bad.items()
            }
            caps_reads = sum(1 for r in proxy.log.requests if "_cat/plugins" in r[1])
            writes = proxy.log.writes()
            from chunkwise.search.request import MAX_QUERY_TERMS

            widest = " ".join(f"wort{i}" for i in range(MAX_QUERY_TERMS))
            widest_status = query.lambda_handler(_get({"q": widest}), LocalContext())["statusCode"]
        unbounded = _unbounded_query_error(cfg, " ".join(f"wort{i}" for i in range(660)))
    return [
        row(
            name,
            "queries answered 200 (with hits)",
            f"{queries}/{queries}",
            f"{ok}/{queries} ({with_hits} with hits)",
            ok == queries and with_hits == queries,
        ),
        row(
            name,
            "write requests attempted / refused",
            "0 / 0",
            f"{len(writes)} / {len(proxy.log.refused())}",
            not writes,
        ),
        row(
            name, "capability detections (cached per cold start)", "1", caps_reads, caps_reads == 1
        ),
        row(
            name,
            "bad input answered 400",
            "400, 400, 400",
            ", ".join(f"{k}: {v}" for k, v in bad_status.items()),
            set(bad_status.values()) == {400},
        ),
        row(
            name,
            "widest allowed query (128 terms) on the real node",
            200,
            widest_status,
            widest_status == 200,
        ),
        row(
            name,
            "660 terms past the handler (model's token cap, node's clause limit)",
            "QueryRejected (400, not retried)",
            unbounded,
            unbounded == "QueryRejected",
        ),
    ]


def _wait_searchable(cfg: StackConfig, opensearch_url: str, documents: int) -> None:
    """Until the node's periodic refresh showed ``documents`` live documents (the
    revision switch never forces a refresh); at most 30 s."""
    import time

    from chunkwise.adapters.opensearch.index import connect

    client = connect(opensearch_url)
    body = {"size": 0, "aggs": {"docs": {"cardinality": {"field": "doc_id"}}}}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        resp = client.search(index=cfg.index_prefix, body=body)
        if resp["aggregations"]["docs"]["value"] >= documents:
            return
        time.sleep(0.2)


def _unbounded_query_error(cfg: StackConfig, text: str) -> str:
    """What the search layer makes of a query the node refuses (clause limit)."""
    from chunkwise.adapters.opensearch.index import RetryPolicy, connect
    from chunkwise.adapters.opensearch.search import Searcher
    from chunkwise.index.bodies import IndexNames
    from chunkwise.wiring.embedders import get_embedder

    searcher = Searcher(
        connect(cfg.opensearch_url),
        get_embedder("local"),
        IndexNames(cfg.index_prefix),
        policy=RetryPolicy(attempts=3, initial=0.1, maximum=0.2),
    )
    try:
        searcher.search(text, 5)
    except Exception as exc:  # the class is the measurement
        return type(exc).__name__
    return "accepted"


def _get(params: dict[str, str]) -> dict[str, Any]:
    return {
        "version": "2.0",
        "rawPath": "/",
        "requestContext": {"http": {"method": "GET", "path": "/"}},
        "queryStringParameters": params,
        "isBase64Encoded": False,
    }


SCENARIOS: dict[str, Callable[[str, str], Rows]] = {
    "events": events_scenario,
    "outage": outage_scenario,
    "poison": poison_scenario,
    "query": readonly_query_scenario,
}
