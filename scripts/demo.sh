#!/usr/bin/env bash
# `make demo`: the whole pipeline on the local stack, end to end, with cited answers.
#
#  1. starts the local stack (OpenSearch + LocalStack, bucket/queue/DLQ/index) via
#     `chunkwise local up` (OPENSEARCH_URL / AWS_ENDPOINT_URL: use those instead), with
#     names of its own (bucket, queues and index prefix chunkwise-demo*), so that it never
#     touches the stack of a plain `chunkwise local up`
#  2. uploads English and German sample documents (PDF, DOCX, HTML, Markdown, a
#     spreadsheet and a slide deck: tests/data/ersatzteile_de.xlsx, vortrag_de.pptx); documents
#     an earlier run left in the bucket (CHUNKWISE_DEMO_KEEP=1) are deleted first
#  3. runs the local runner (the ingest Lambda's own handler) until they are searchable
#  4. asks a few questions and prints cited answers (one about a row of the spreadsheet
#     that lands on a later chunk of its table: the hit carries the table's header; one
#     about a slide's table, cited by slide number), and asks one with curl straight
#     to OpenSearch (the cluster embeds the question: ML Commons + loopback endpoint);
#     a document only the group hr reads: a filtered `chunkwise search` as alice (hr)
#     finds it, the same as bob (sales) does not (tokens of the local issuer)
#  5. uploads a revised document: only the new revision is returned
#  6. deletes a document: it is gone from the results
#  7. stops what it started (CHUNKWISE_DEMO_KEEP=1 leaves the stack running to explore)
#
# Repeatable: every answer is checked to come from a revision THIS run uploaded (a hit
# from an earlier run, a superseded revision or a deleted document fails the demo, exit 1
# with the reason), whatever earlier runs left; `chunkwise local up` has already brought
# the index in line with the bucket (samdocs/local-stack.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
if [[ ! -x $BIN/chunkwise ]]; then
  echo "demo: .venv missing; run 'make setup' first" >&2
  exit 1
fi
export POWERTOOLS_LOG_LEVEL=${POWERTOOLS_LOG_LEVEL:-WARNING}
export POWERTOOLS_METRICS_DISABLED=true POWERTOOLS_TRACE_DISABLED=true

stop_stack() {
  if [[ "${CHUNKWISE_DEMO_KEEP:-0}" != 1 ]]; then
    echo "== stopping what the demo started (CHUNKWISE_DEMO_KEEP=1 keeps the stack running)"
    $BIN/chunkwise local down
  fi
}
# On success and on failure alike: the demo leaves no service behind that it started.
trap stop_stack EXIT

echo "== 1/6 local stack"
$BIN/chunkwise local up --index-prefix "${CHUNKWISE_DEMO_INDEX:-chunkwise-demo}" \
  --bucket "${CHUNKWISE_DEMO_BUCKET:-chunkwise-demo}" \
  --queue chunkwise-demo-ingest --dlq chunkwise-demo-dlq \
  --visibility-timeout 30 --max-receive-count 3

$BIN/python - <<'PY'
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from chunkwise.settings import load_settings
from chunkwise.wiring.embedders import embedder_for
from chunkwise.index.names import make_doc_id
from chunkwise.adapters.opensearch.client import connect, hosts_of
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.localstack.config import apply_env, load_state
from chunkwise.localstack.emulator import Runner
from chunkwise.localstack.resources import bucket_keys
from chunkwise.search.hybrid import SearchFilters
from chunkwise.adapters.opensearch.search import Searcher

import boto3

DATA = Path("tests/data")
cfg = load_state()
assert cfg is not None
apply_env(cfg.env())
settings = load_settings()
s3 = boto3.client("s3", endpoint_url=cfg.endpoint, region_name=cfg.region)
client = connect(cfg.opensearch_url)
index = OpenSearchIndex(client, settings.names)
searcher = Searcher(client, embedder_for(settings), settings.names)
runner = Runner(cfg)

DOCS = {
    "en/X17 pump manual.pdf": "manual_en.pdf",
    "de/Betriebsanleitung Pumpe X17.pdf": "handbuch_de.pdf",
    "en/pricing 2026.docx": "pricing_en.docx",
    "de/Preise 2026.html": "preise_de.html",
    "de/Katalog Übersicht.pdf": "katalog_de_repeat.pdf",
    "de/Ersatzteilliste 2026.xlsx": "ersatzteile_de.xlsx",
    "de/Schulung Wartung KP-40.pptx": "vortrag_de.pptx",
}


def out(msg: str = "") -> None:
    print(msg, flush=True)


def key(name: str) -> str:
    return cfg.input_prefix + name


def live(k: str) -> set[str]:
    states = index.revision_states(make_doc_id(cfg.bucket, k))
    return {r for r, s in states.items() if s.complete_live}


def wait_live(want: dict[str, str], timeout: float = 300.0) -> None:
    t0 = time.monotonic()
    done: set[str] = set()

    def check() -> bool:
        for k, rev in want.items():
            if k not in done and live(k) == {rev}:
                done.add(k)
                out(f"   searchable after {time.monotonic() - t0:5.1f}s: {k} @ {rev}")
        return len(done) == len(want)

    if not runner.run(until=check, max_seconds=timeout):
        sys.exit(f"demo: not searchable within {timeout}s: {sorted(set(want) - done)}")


revs: dict[str, str] = {}  # key -> the revision THIS run uploaded (current)


def this_run() -> SearchFilters:
    """Only the documents this run uploaded and has not deleted."""
    return SearchFilters(doc_ids=tuple(make_doc_id(cfg.bucket, key) for key in revs))


def check_this_run(question: str, hits: list) -> None:
    """Every hit must be the current revision of a document this run uploaded."""
    for h in hits:
        if revs.get(h.citation.key) != h.revision:
            sys.exit(
                f"demo: a hit for {question!r} is {h.citation.key} @ {h.revision}, not a "
                "document this run uploaded (left by an earlier run, superseded or deleted)"
            )


def ask(question: str, k: int = 3, filters: SearchFilters | None = None) -> list:
    out(f"\n   Q: {question}")
    hits = searcher.search(question, k, filters or this_run())
    if not hits:
        out("      (no results)")
    for i, h in enumerate(hits, 1):
        c = h.citation
        pages = ""
        if c.page_start is not None:
            pages = f", p.{c.page_start}" + (f"-{c.page_end}" if c.page_end not in (None, c.page_start) else "")
        body = " ".join(c.body.split())
        body = body if len(body) <= 220 else body[:220] + "…"
        out(f"   {i}. {c.key} @ {c.revision}{pages}, [{c.start}, {c.end})")
        if c.heading_path:
            out(f"      § {' > '.join(c.heading_path)}")
        out(f"      \"{body}\"")
    check_this_run(question, hits)
    return hits


out("\n== 2/6 upload sample documents")
left = [k for k in bucket_keys(cfg) if k not in {key(n) for n in DOCS}]
for k in left:  # an earlier run's (CHUNKWISE_DEMO_KEEP=1): this run starts without them
    s3.delete_object(Bucket=cfg.bucket, Key=k)
    out(f"   deleted s3://{cfg.bucket}/{k} (left by an earlier run)")
for name, src in DOCS.items():
    k = key(name)
    revs[k] = s3.put_object(Bucket=cfg.bucket, Key=k, Body=(DATA / src).read_bytes())["VersionId"]
    out(f"   s3://{cfg.bucket}/{k}  ({src})")

out("\n== 3/6 runner: queue -> ingest handler -> OpenSearch")
wait_live(revs)
if left and not runner.run(until=lambda: not any(live(k) for k in left), max_seconds=120):
    sys.exit(f"demo: an earlier run's documents are still searchable: {left}")

out("\n== 4/6 questions with cited answers")
for question, evidence in (
    ("How often must the inlet filter be checked?", "every 500 operating hours"),
    ("Wie oft muss der Einlassfilter geprüft werden?", "alle 500 Betriebsstunden"),
):
    first = ask(question)[:1]
    if not first or evidence not in " ".join(first[0].citation.body.split()):
        sys.exit(f"demo: the first hit for {question!r} does not hold {evidence!r}")
    out(f"   -> first hit holds the answer ({evidence!r})")
ask("What does the Team plan cost per user?")

out("\n== 4a/6 a spreadsheet row on a later chunk, and a slide")
sheet = key("de/Ersatzteilliste 2026.xlsx")
first = ask("Was kostet die Gleitringdichtung GD-4711 und wie lang ist die Lieferzeit?")[:1]
if not first or first[0].citation.key != sheet or "GD-4711" not in first[0].citation.body:
    sys.exit("demo: the first hit for GD-4711 is not its row in the spreadsheet")
row_hit = first[0]
if row_hit.chunk_index == 0 or "| Teilenummer |" not in row_hit.table_header:
    sys.exit(f"demo: the GD-4711 row is chunk {row_hit.chunk_index} with header {row_hit.table_header!r}")
row = next(line for line in row_hit.citation.body.splitlines() if "GD-4711" in line)
out(f"   -> chunk {row_hit.chunk_index} of the table (not its first); the hit's table header:")
out(f"      {row_hit.table_header.splitlines()[0]}")
out(f"      {row}")
deck = key("de/Schulung Wartung KP-40.pptx")
first = ask("Wie oft muss die Gleitringdichtung gewartet werden?", 2,
            SearchFilters(doc_ids=(make_doc_id(cfg.bucket, deck),)))[:1]
c = first[0].citation if first else None
if c is None or not (c.page_start or 0) <= 2 <= (c.page_end or c.page_start or 0) or "jährlich" not in c.body:
    sys.exit("demo: the first hit in the deck does not cite slide 2's maintenance table")
row = next(line for line in c.body.splitlines() if line.startswith("| Gleitringdichtung"))
out(f"   -> slides {c.page_start}-{c.page_end} (a short deck packs into one chunk); slide 2's table row:")
out(f"      {row}")
ask("Was kostet der Schlafsack -5 °C in der Region Alpen?")

out("\n== 4b/6 the same question asked with curl straight to OpenSearch (no chunkwise code)")
if cfg.query_model_id:
    question = "Wie oft muss der Einlassfilter geprüft werden?"
    body = {
        "size": 3,
        "_source": ["source_key", "revision", "page_start", "start", "end", "body"],
        "query": {"hybrid": {"queries": [
            {"multi_match": {"query": question, "fields": ["text_de^2", "text_en", "text"]}},
            {"neural": {"embedding": {"query_text": question, "k": 12}}},
        ]}},
    }
    # Any one node answers for the cluster (a local cluster's URL names all of them).
    url = f"{hosts_of(cfg.opensearch_url)[0]}/{settings.names.read_alias}/_search"
    payload = json.dumps(body, ensure_ascii=False)
    out(f"   $ curl -s -XPOST {url} -H 'content-type: application/json' -d '{payload}'")
    raw = subprocess.run(
        ["curl", "-sS", "-XPOST", url, "-H", "content-type: application/json", "-d", payload],
        check=True, capture_output=True, text=True,
    ).stdout
    for i, hit in enumerate(json.loads(raw)["hits"]["hits"], 1):
        src = hit["_source"]
        if revs.get(src["source_key"]) != src["revision"]:
            sys.exit(f"demo: curl returned {src['source_key']} @ {src['revision']}, not this run's")
        body_text = " ".join(src["body"].split())[:160]
        out(f"   {i}. {src['source_key']} @ {src['revision']}, p.{src.get('page_start')}, "
            f"[{src['start']}, {src['end']})  score {hit['_score']:.4f}")
        out(f"      \"{body_text}\"")
    out("   (the cluster embedded the question itself: ML Commons model "
        f"{cfg.query_model_id}, fused by the read alias' default search pipeline)")
else:
    out("   skipped: this cluster has no ML Commons query model (see chunkwise local up)")

def access_control_demo() -> None:
    """A document only the group hr reads (its sidecar's readers), found by a filtered
    query as alice (hr) and not as bob (sales): `chunkwise search --as`, whose token the
    local issuer of `chunkwise local up` signs and the query path's verifier checks."""
    import shlex

    out("\n== 4c/6 access control: one document, two identities")
    doc = key("hr/salary bands 2026.md")
    readers = {"metadataAttributes": {"department": "hr", "chunkwise_readers": ["hr"]}}
    s3.put_object(Bucket=cfg.bucket, Key=doc + ".metadata.json", Body=json.dumps(readers).encode())
    text = ("# Salary bands 2026\n\nThe salary band for a senior engineer is 78,000 to "
            "96,000 EUR a year; band reviews take place every March.\n")
    revs[doc] = s3.put_object(Bucket=cfg.bucket, Key=doc, Body=text.encode())["VersionId"]
    out(f"   s3://{cfg.bucket}/{doc} with readers [\"hr\"] in {doc.rsplit('/', 1)[1]}.metadata.json")
    wait_live({doc: revs[doc]})  # its first state already has the sidecar (uploaded first)
    dept = '{"equals": {"key": "department", "value": "hr"}}'
    seen = {}
    for who, groups in (("alice", "hr"), ("bob", "sales")):
        argv = ["search", "salary band senior engineer", "--k", "3", "--filter", dept,
                "--as", who, "--groups", groups]
        out(f"\n   $ chunkwise {shlex.join(argv)}")
        run = subprocess.run([".venv/bin/chunkwise", *argv], capture_output=True, text=True)
        for line in (run.stderr + run.stdout).splitlines():
            out(f"   {line}")
        if run.returncode != 0:
            sys.exit(f"demo: chunkwise search as {who} failed (exit {run.returncode})")
        seen[who] = doc in run.stdout
    out(f"\n   alice (hr) sees {doc}: {seen['alice']}; bob (sales): {seen['bob']}")
    if not seen["alice"] or seen["bob"]:
        sys.exit("demo: the hr document must be seen by alice and not by bob")


access_control_demo()

out("\n== 5/6 revised document: only the new revision is returned")
manual = key("en/X17 pump manual.md")
v1 = s3.put_object(Bucket=cfg.bucket, Key=manual, Body=(DATA / "manual_en.md").read_bytes())["VersionId"]
revs[manual] = v1
wait_live({manual: v1})
ask("How often must the inlet filter be checked?", 2, SearchFilters(doc_ids=(make_doc_id(cfg.bucket, manual),)))
revised = (DATA / "manual_en.md").read_text(encoding="utf-8").replace(
    "every 500 operating hours", "every 250 operating hours (revised interval)"
)
v2 = s3.put_object(Bucket=cfg.bucket, Key=manual, Body=revised.encode("utf-8"))["VersionId"]
revs[manual] = v2  # from now on, a hit of v1 fails the demo
out(f"   uploaded revision {v2} of {manual}")
wait_live({manual: v2})
hits = ask("How often must the inlet filter be checked?", 3, SearchFilters(doc_ids=(make_doc_id(cfg.bucket, manual),)))
revisions = {h.revision for h in hits}
out(f"   revisions in the results: {sorted(revisions)} (old {v1} {'ABSENT' if v1 not in revisions else 'PRESENT!'})")
if not hits or "every 250 operating hours" not in " ".join(hits[0].citation.body.split()):
    sys.exit("demo: the first hit of the revised manual does not hold 'every 250 operating hours'")

out("\n== 6/6 delete a document")
gone = key("de/Preise 2026.html")
s3.delete_object(Bucket=cfg.bucket, Key=gone)
out(f"   deleted s3://{cfg.bucket}/{gone}")
t0 = time.monotonic()
if not runner.run(until=lambda: not live(gone), max_seconds=120):
    sys.exit(f"demo: {gone} still searchable 120 s after its delete")
out(f"   retired after {time.monotonic() - t0:.1f}s")
deleted_revision = revs.pop(gone)
# asked over the whole read alias: the deleted document must be gone from it
hits = searcher.search("Preis pro Nutzer im Team-Tarif", 5, None)
out(f"\n   Q: Preis pro Nutzer im Team-Tarif (all documents)")
for i, h in enumerate(hits, 1):
    out(f"   {i}. {h.citation.key} @ {h.revision}")
from_deleted = sum(h.citation.key == gone for h in hits)
out(f"   results from the deleted document: {from_deleted}")
if from_deleted:
    sys.exit(f"demo: the deleted {gone} @ {deleted_revision} is still returned")
check_this_run("Preis pro Nutzer im Team-Tarif", hits)

s = runner.stats
out(f"\nrunner: {s.batches} batches, {s.received} messages, {s.succeeded} ok, {s.failed} failed")
if os.environ.get("CHUNKWISE_DEMO_KEEP") == "1":
    out("\nThe stack is still running (CHUNKWISE_DEMO_KEEP=1). Try:")
    out("   .venv/bin/chunkwise search 'Druckverlust Filter' --k 3")
    out("   .venv/bin/chunkwise local status")
    out("   .venv/bin/chunkwise local run          # keeps ingesting uploads to s3://%s/%s" % (cfg.bucket, cfg.input_prefix))
    out("Stop it with:  .venv/bin/chunkwise local down")
PY
