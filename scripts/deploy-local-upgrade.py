"""The upgrade rehearsal of the stack deployed into LocalStack (issue #30, item 3).

    .venv/bin/python scripts/deploy-local-upgrade.py [--reuse] [--keep] [--out BASE]
    make deploy-local-upgrade

1. deploy: `scripts/deploy-local.sh up` (a new stack to CREATE_COMPLETE; --reuse takes
   a stack already deployed as it is), then the smoke test's English and German
   documents through the deployed bucket and queue (`deploy-local.sh smoke`), then four
   committed samples (``SAMPLES``: PDF, DOCX, HTML) the same way;
2. before: the live generation, the live revisions with their chunk ids (read alias),
   the S3 current version of every key, the functions' layer versions, the ingest
   mapping's batch size, the custom resource's MappingRevision;
3. a reader process starts: the query function's code, loaded once with the deployed
   environment (as a warm Lambda would be), asks an English and a German question in
   turn until told to stop; each answer is classified (``classify``);
4. the changed release: `DEPLOY_LOCAL_UPGRADE=1 DEPLOY_LOCAL_PARAMS=IngestBatchSize=5
   deploy-local.sh up` (scripts/deploy-local-template.py --upgrade: a new tokenizer
   layer version, the next MappingRevision), to UPDATE_COMPLETE, with the custom
   resource's Update;
5. the documented migration for a mapping change that needs a new generation
   (samdocs/operations.md, re-chunking): the reconcile function's ``rechunk``, the
   ingest function's code on the deployed queue until it is drained, ``finish-rechunk``
   (verify, then swap both aliases), then a ``sweep``;
6. after: the same as 2, compared; the reader stops;
7. the stack is deleted and what remains is listed (buckets, index generations), then
   `deploy-local.sh down` stops what was started (--keep: neither).

Figures go to BASE.md and BASE.json (default bench/results/deploy_upgrade). Exit 1 if a
check failed (an error or a wrong answer during the update, a revision or chunk id
lost, a change that did not arrive).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STACK = os.environ.get("DEPLOY_LOCAL_STACK", "chunkwise-local")
REGION = "us-east-1"
BATCH_AFTER = 5  # the changed batch size (default 10)
# The smoke test's documents (scripts/deploy-local.sh smoke) and a question for each.
QUESTIONS: tuple[tuple[str, str, str], ...] = (
    ("en", "maintenance interval of the pump", "maintenance-en.md"),
    ("de", "Wartungsintervall der Kreiselpumpe", "wartung-de.md"),
)


# Committed sample documents (tests/data) with several chunks each, so that the chunk
# ids compared before and after are more than one per document.
SAMPLES = ("manual_en.pdf", "handbuch_de.pdf", "pricing_en.docx", "preise_de.html")


def classify(
    status: int, hits: Sequence[Mapping[str, Any]], suffix: str, current: Mapping[str, str]
) -> str:
    """One answer of the reader: ``error`` (not a 200), ``missing`` (the question's
    document not among the hits), ``stale`` (a hit of a key cites a revision that is not
    the key's S3 current version), else ``ok``."""
    if status != 200:
        return "error"
    cited = [(str(h["citation"]["key"]), str(h["citation"]["revision"])) for h in hits]
    if not any(k.endswith(suffix) for k, _ in cited):
        return "missing"
    if any(k in current and rev != current[k] for k, rev in cited):
        return "stale"
    return "ok"


def compare_live(
    before: Mapping[str, Sequence[str]], after: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """Live ``key@revision -> chunk ids`` before and after: what was lost, gained, moved."""
    lost = sorted(set(before) - set(after))
    gained = sorted(set(after) - set(before))
    changed = sorted(k for k in set(before) & set(after) if sorted(before[k]) != sorted(after[k]))
    return {
        "revisions_before": len(before),
        "revisions_after": len(after),
        "chunks_before": sum(len(v) for v in before.values()),
        "chunks_after": sum(len(v) for v in after.values()),
        "lost": lost,
        "gained": gained,
        "chunk_ids_changed": changed,
        "same": not (lost or gained or changed),
    }


# ---------------------------------------------------------------- the stack, read


def _env() -> dict[str, str]:
    """This process's environment before any function's environment replaced it (the
    functions' code run here sets os.environ as Lambda would): for the subprocesses."""
    return dict(BASE_ENV)


BASE_ENV: dict[str, str] = dict(os.environ)


def _endpoint() -> str:
    return f"http://127.0.0.1:{BASE_ENV.get('LOCALSTACK_PORT', '4566')}"


def _opensearch() -> str:
    return f"http://127.0.0.1:{BASE_ENV.get('OPENSEARCH_PORT', '9200')}"


def _http(method: str, url: str, body: Any = None) -> Any:
    import urllib.request

    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        url, data=data, method=method, headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read() or b"null")


def _stack() -> Any:
    from chunkwise.localstack import deployed

    return deployed.find_stack(STACK, _endpoint(), REGION)


def snapshot(stack: Any) -> dict[str, Any]:
    """What the rehearsal compares before and after the update."""
    prefix = stack.function_env("QueryFunction")["CHUNKWISE_INDEX_PREFIX"]
    aliases = _http("GET", f"{_opensearch()}/_alias/{prefix}")
    live: dict[str, list[str]] = {}
    res = _http(
        "POST",
        f"{_opensearch()}/{prefix}/_search",
        {"size": 1000, "_source": ["source_key", "revision"], "query": {"match_all": {}}},
    )
    for h in res["hits"]["hits"]:
        src = h["_source"]
        live.setdefault(f"{src['source_key']}@{src['revision']}", []).append(h["_id"])
    s3 = stack.client("s3")
    bucket = stack.outputs["DocumentBucketName"]
    current = {
        v["Key"]: v["VersionId"]
        for v in s3.list_object_versions(Bucket=bucket).get("Versions", [])
        if v["IsLatest"]
    }
    lam, cfn = stack.client("lambda"), stack.client("cloudformation")
    layers: dict[str, list[str]] = {}
    for logical in ("IngestFunction", "QueryFunction", "ReconcileFunction", "AdminFunction"):
        cfg = lam.get_function_configuration(FunctionName=stack.function_name(logical))
        layers[logical] = [a["Arn"].split(":layer:")[-1] for a in cfg.get("Layers", [])]
    ingest_arn = lam.get_function_configuration(FunctionName=stack.function_name("IngestFunction"))[
        "FunctionArn"
    ]
    mappings = [
        {"batch_size": m["BatchSize"], "state": m["State"]}
        for m in lam.list_event_source_mappings(FunctionName=ingest_arn)["EventSourceMappings"]
    ]
    revision = mapping_revision(
        cfn.get_template(StackName=stack.name, TemplateStage="Original")["TemplateBody"]
    )
    status = cfn.describe_stacks(StackName=stack.name)["Stacks"][0]["StackStatus"]
    return {
        "stack_status": status,
        "index_prefix": prefix,
        "live_generation": sorted(aliases),
        "live": live,
        "s3_current": current,
        "layers": layers,
        "event_source_mappings": mappings,
        "mapping_revision": revision,
    }


def mapping_revision(body: Any) -> str | None:
    """SearchIndex's MappingRevision from a deployed template (a dict, or JSON / YAML
    text with CloudFormation's short tags, as the emulator may return it)."""
    import re

    if isinstance(body, dict):
        return str(body["Resources"]["SearchIndex"]["Properties"].get("MappingRevision"))
    found = re.search(r"MappingRevision\W+(\d+)", str(body))
    return found.group(1) if found else None


# ---------------------------------------------------------------- the reader


def reader(out: Path, stop: Path, pause_s: float) -> int:
    """Child process: the query function's code asks until ``stop`` exists; one JSON
    line per answer."""
    from chunkwise.localstack import deployed
    from chunkwise.localstack.emulator import load_function, log_to_stderr

    stack = _stack()
    current = snapshot(stack)["s3_current"]
    stack.use_function_env("QueryFunction")
    module = load_function("query")
    log_to_stderr(module)
    n = 0
    with out.open("w", encoding="utf-8") as f:
        while not stop.exists():
            lang, text, suffix = QUESTIONS[n % len(QUESTIONS)]
            n += 1
            t = time.time()
            try:
                reply = module.lambda_handler(
                    deployed.function_url_event({"query": text, "k": 5}),
                    stack.context("QueryFunction", 30),
                )
                status = int(reply.get("statusCode", 200))
                hits = json.loads(reply.get("body") or "{}").get("hits", [])
                verdict, err = classify(status, hits, suffix, current), ""
            except Exception as exc:  # an answer that failed is counted, not fatal
                verdict, err, hits = "error", f"{type(exc).__name__}: {exc}"[:300], []
            f.write(
                json.dumps(
                    {
                        "t": t,
                        "ms": round((time.time() - t) * 1000, 1),
                        "lang": lang,
                        "verdict": verdict,
                        "error": err,
                        "revisions": sorted({h["citation"]["revision"] for h in hits}),
                    }
                )
                + "\n"
            )
            f.flush()
            time.sleep(pause_s)
    return 0


# ---------------------------------------------------------------- the rehearsal


@dataclass
class Run:
    t0: float = field(default_factory=time.time)
    phases: list[dict[str, Any]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def phase(self, name: str, started: float, **info: Any) -> None:
        took = time.time() - started
        self.phases.append(
            {
                "phase": name,
                "start_s": round(started - self.t0, 1),
                "seconds": round(took, 1),
                **info,
            }
        )
        print(f"deploy-local-upgrade: {name}: {took:.0f} s {info or ''}", file=sys.stderr)

    def check(self, ok: bool, what: str) -> None:
        print(f"deploy-local-upgrade: {'ok  ' if ok else 'FAIL'} {what}", file=sys.stderr)
        if not ok:
            self.failures.append(what)


def sh(args: Sequence[str], extra_env: Mapping[str, str] | None = None) -> None:
    env = {**_env(), **(extra_env or {})}
    subprocess.run(list(args), cwd=ROOT, env=env, check=True)


def cli(*args: str) -> dict[str, Any]:
    env = {
        **_env(),
        "AWS_ENDPOINT_URL": _endpoint(),
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": REGION,
    }
    env.pop("AWS_PROFILE", None)
    out = subprocess.run(
        [str(ROOT / ".venv/bin/chunkwise"), "local", *args],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    # The command's JSON is the last object starting at column 0 (log lines go to stderr,
    # but nothing else is promised of stdout).
    lines = out.splitlines()
    starts = [i for i, line in enumerate(lines) if line == "{"]
    return json.loads("\n".join(lines[starts[-1] :])) if starts else {}


def rehearse(args: argparse.Namespace) -> int:
    run = Run()
    work = ROOT / ".local" / "deploy-local" / "upgrade"
    work.mkdir(parents=True, exist_ok=True)
    stop, answers = work / "stop", work / "answers.jsonl"
    stop.unlink(missing_ok=True)
    answers.unlink(missing_ok=True)  # a file of an earlier run is no first answer

    t = time.time()
    if not args.reuse:
        sh(["bash", "scripts/deploy-local.sh", "up"])
    stack = _stack()
    run.phase("deploy", t, reused=args.reuse, status=snapshot(stack)["stack_status"])
    t = time.time()
    sh(["bash", "scripts/deploy-local.sh", "smoke"])
    run.phase("ingest (smoke test: en + de through the deployed bucket and queue)", t)
    t = time.time()
    stack = _stack()
    s3 = stack.client("s3")
    for name in SAMPLES:
        key = f"{stack.outputs['InputPrefix']}rehearsal/{name}"
        s3.put_object(
            Bucket=stack.outputs["DocumentBucketName"],
            Key=key,
            Body=(ROOT / "tests" / "data" / name).read_bytes(),
        )
    cli("run", "--stack", STACK, "--until-idle", "5", "--max-seconds", "300")
    run.phase("ingest (committed samples: PDF, DOCX, HTML; more chunks to compare)", t)

    before = snapshot(_stack())
    print(json.dumps({k: v for k, v in before.items() if k != "live"}), file=sys.stderr)

    t = time.time()
    child = subprocess.Popen(
        [sys.executable, __file__, "reader", "--out", str(answers), "--stop", str(stop)],
        cwd=ROOT,
        env=_env(),
    )
    while not answers.exists() or not answers.read_text().strip():
        if child.poll() is not None:
            raise SystemExit("the reader ended before its first answer")
        time.sleep(0.5)
    reading_from = time.time()
    run.phase("reader started", t)

    t = time.time()
    sh(
        ["bash", "scripts/deploy-local.sh", "up"],
        {
            "DEPLOY_LOCAL_UPGRADE": "1",
            "DEPLOY_LOCAL_SKIP_BUILD": "1",
            "DEPLOY_LOCAL_PARAMS": f"IngestBatchSize={BATCH_AFTER}",
        },
    )
    update_window = (t, time.time())
    run.phase("stack update (new layer version, MappingRevision+1, batch size) + admin Update", t)

    t = time.time()
    started = cli("reconcile", "--stack", STACK, "rechunk")
    gen = str(started["generation"])
    cli("run", "--stack", STACK, "--until-idle", "5", "--max-seconds", "300")
    finished = cli("reconcile", "--stack", STACK, "finish-rechunk", "--generation", gen)
    swept = cli("reconcile", "--stack", STACK, "sweep")
    migrate_window = (t, time.time())
    run.phase(
        "migration: rechunk, drain, finish-rechunk (verify + swap), sweep",
        t,
        generation=gen,
        enqueued=started.get("enqueued"),
        complete=finished.get("complete"),
        drifted=swept.get("drifted"),
    )
    time.sleep(3)  # a few answers from the new generation
    stop.touch()
    child.wait(timeout=120)
    reading_until = time.time()

    after = snapshot(_stack())
    lines = [json.loads(x) for x in answers.read_text().splitlines() if x.strip()]

    def counts(lo: float, hi: float) -> dict[str, int]:
        return dict(Counter(x["verdict"] for x in lines if lo <= x["t"] <= hi))

    verdicts = {
        "all": dict(Counter(x["verdict"] for x in lines)),
        "during the stack update": counts(*update_window),
        "during the migration": counts(*migrate_window),
    }
    errors = sorted({x["error"] for x in lines if x["error"]})[:5]
    live = compare_live(before["live"], after["live"])

    run.check(before["stack_status"] in ("CREATE_COMPLETE", "UPDATE_COMPLETE"), "deployed")
    run.check(after["stack_status"] == "UPDATE_COMPLETE", "the update reached UPDATE_COMPLETE")
    run.check(
        len(lines) > 0 and set(verdicts["all"]) == {"ok"},
        f"every answer during the rehearsal whole and current: {verdicts['all']}",
    )
    run.check(sum(verdicts["during the stack update"].values()) > 0, "answers during the update")
    run.check(live["same"], "the live revisions and their chunk ids survived")
    run.check(
        set(before["s3_current"].items()) <= {tuple(k.split("@", 1)) for k in after["live"]}
        if after["live"]
        else False,
        "every key's S3 current version is live after",
    )
    run.check(before["layers"] != after["layers"], "the functions moved to a new layer version")
    run.check(
        [m["batch_size"] for m in after["event_source_mappings"]] == [BATCH_AFTER],
        f"the ingest mapping's batch size is {BATCH_AFTER}",
    )
    run.check(
        str(after["mapping_revision"]) != str(before["mapping_revision"]),
        "the custom resource's MappingRevision changed",
    )
    run.check(
        after["live_generation"] == [f"{before['index_prefix']}-{gen}"],
        f"the read alias moved to the new generation {gen}",
    )
    run.check(bool(finished.get("complete")), "finish-rechunk verified the new generation")

    remains: dict[str, Any] = {}
    if not args.keep:
        t = time.time()
        stack = _stack()
        s3 = stack.client("s3")
        stack_buckets = sorted(
            stack.resources[r] for r in ("DocumentBucket", "ArtifactsBucket", "AccessLogsBucket")
        )
        cfn = stack.client("cloudformation")
        cfn.delete_stack(StackName=STACK)
        cfn.get_waiter("stack_delete_complete").wait(
            StackName=STACK, WaiterConfig={"Delay": 2, "MaxAttempts": 150}
        )
        names = {b["Name"] for b in s3.list_buckets()["Buckets"]}
        prefix = before["index_prefix"]
        cat = _http(
            "GET", f"{_opensearch()}/_cat/indices/{prefix}-*?format=json&h=index,docs.count"
        )
        indexes = sorted(f"{i['index']} ({i['docs.count']} docs)" for i in cat)
        remains = {
            "stack_buckets": {b: b in names for b in stack_buckets},
            "index_generations": indexes,
            "read_alias": sorted(_http("GET", f"{_opensearch()}/_alias/{prefix}")),
        }
        run.phase("stack deleted", t, **remains)
        sh(["bash", "scripts/deploy-local.sh", "down"])

    result = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(run.t0)),
        "load_average": os.getloadavg(),
        "stack": STACK,
        "phases": run.phases,
        "answers": {
            "count": len(lines),
            "seconds": round(reading_until - reading_from, 1),
            "verdicts": verdicts,
            "errors": errors,
            "ms_median": sorted(x["ms"] for x in lines)[len(lines) // 2] if lines else None,
        },
        "before": {k: v for k, v in before.items() if k != "live"},
        "after": {k: v for k, v in after.items() if k != "live"},
        "live": live,
        "generation": gen,
        "remains_after_delete": remains,
        "failures": run.failures,
        "total_s": round(time.time() - run.t0, 1),
    }
    base = Path(args.out)
    base.parent.mkdir(parents=True, exist_ok=True)
    base.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    base.with_suffix(".md").write_text(report(result), encoding="utf-8")
    print(f"deploy-local-upgrade: {base}.md, {len(run.failures)} failed check(s)", file=sys.stderr)
    return 1 if run.failures else 0


def report(r: Mapping[str, Any]) -> str:
    a, b, live = r["after"], r["before"], r["live"]
    out = [
        "# Upgrade rehearsal of the stack in LocalStack (`make deploy-local-upgrade`)",
        "",
        f"Recorded {r['when']} by `scripts/deploy-local-upgrade.py` (load average at the end "
        f"{', '.join(f'{x:.1f}' for x in r['load_average'])}; 2 shared cores). "
        f"Total {r['total_s']:.0f} s. Failed checks: {', '.join(r['failures']) or 'none'}.",
        "",
        "| phase | start (s) | took (s) |",
        "|---|---:|---:|",
        *[f"| {p['phase']} | {p['start_s']} | {p['seconds']} |" for p in r["phases"]],
        "",
        "## Searches through the query function's code",
        "",
        f"{r['answers']['count']} answers in {r['answers']['seconds']} s "
        f"(median {r['answers']['ms_median']} ms), alternately an English and a German "
        "question, each classified: ok (its document among the hits, every hit citing its "
        "key's S3 current version), missing, stale, error.",
        "",
        "| window | answers by verdict |",
        "|---|---|",
        *[f"| {w} | {json.dumps(v)} |" for w, v in r["answers"]["verdicts"].items()],
        "",
        *(["Errors: " + "; ".join(r["answers"]["errors"]), ""] if r["answers"]["errors"] else []),
        "## Before and after",
        "",
        "| | before | after |",
        "|---|---|---|",
        f"| stack | {b['stack_status']} | {a['stack_status']} |",
        f"| live generation (read alias) | {', '.join(b['live_generation'])} | "
        f"{', '.join(a['live_generation'])} |",
        f"| live revisions / chunks | {live['revisions_before']} / {live['chunks_before']} | "
        f"{live['revisions_after']} / {live['chunks_after']} |",
        f"| MappingRevision | {b['mapping_revision']} | {a['mapping_revision']} |",
        f"| ingest mapping | {json.dumps(b['event_source_mappings'])} | "
        f"{json.dumps(a['event_source_mappings'])} |",
        f"| query function's layers | {', '.join(b['layers']['QueryFunction'])} | "
        f"{', '.join(a['layers']['QueryFunction'])} |",
        "",
        f"Live revisions and chunk ids the same before and after: **{live['same']}** "
        f"(lost {live['lost']}, gained {live['gained']}, chunk ids changed "
        f"{live['chunk_ids_changed']}).",
        "",
    ]
    if r["remains_after_delete"]:
        rem = r["remains_after_delete"]
        out += [
            "## After the stack's deletion",
            "",
            "| what | remains |",
            "|---|---|",
            *[f"| bucket {k} | {v} |" for k, v in rem["stack_buckets"].items()],
            f"| index generations on the node | {', '.join(rem['index_generations']) or 'none'} |",
            f"| read alias | {', '.join(rem['read_alias']) or 'none'} |",
            "",
        ]
    return "\n".join(out)


def main(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd")
    rd = sub.add_parser("reader")
    rd.add_argument("--out", required=True)
    rd.add_argument("--stop", required=True)
    rd.add_argument("--pause", type=float, default=0.5)
    p.add_argument("--reuse", action="store_true", help="take the deployed stack as it is")
    p.add_argument("--keep", action="store_true", help="neither delete the stack nor stop")
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "deploy_upgrade"))
    args = p.parse_args(argv)
    if args.cmd == "reader":
        return reader(Path(args.out), Path(args.stop), args.pause)
    return rehearse(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
