"""`chunkwise local up|down|status|env|run|reset`: the local stack from the command line.

    chunkwise local up [--bucket B] [--queue Q] [--index-prefix P]
                       [--visibility-timeout S] [--max-receive-count N]
                       [--access-control none|groups] [--admin-group G] [--nodes N]
        starts OpenSearch (tools/opensearch/opensearch.sh) and LocalStack
        (scripts/localstack.sh) unless OPENSEARCH_URL / AWS_ENDPOINT_URL name another
        stack; creates the versioned bucket, the ingest queue + DLQ, the bucket
        notification, the index generation, aliases and search pipeline; brings the
        index in line with the bucket (samdocs/local-stack.md: one lifetime for the
        local state) and says what it did; starts the loopback embedding endpoint and
        registers it as the cluster's query model; makes the local test issuer (once,
        keys in .local/issuer) whose tokens the stack's query function accepts
        (`chunkwise search --as alice --groups hr`); writes .local/chunkwise-local.json;
        --nodes 3: a local cluster of three nodes (generations: 3 shards, 1 replica)
    chunkwise local run [--workers N] [--until-idle S] [--max-seconds S]
        polls the queue and calls the SAME handler as the ingest Lambda
        (functions/ingest/app.py) with SQS-shaped events (chunkwise.localstack.emulator)
    chunkwise local run --stack NAME [--until-idle S]
        the same against a DEPLOYED stack (`make deploy-local`): its queue, bucket and
        index from the stack's outputs, the ingest function's deployed environment
        (chunkwise.localstack.deployed)
    chunkwise local admin --stack NAME [--update | --delete]
        the admin function's code with the stack's custom-resource request (index,
        aliases, search pipeline), which the emulator does not send; --update after a
        stack update that changed the resource's properties (CloudFormation's Update)
    chunkwise local reconcile --stack NAME [ACTION] [--generation G] [--force]
        the reconcile function's code with one action (sweep, rechunk, finish-rechunk,
        retention), as its schedule or an operator's invoke would send it
    chunkwise local query --stack NAME TEXT [-k K] [--lang L]
        the query function's code with a Function URL request; prints its JSON reply
    chunkwise local status        services, queue depths, live generation
    chunkwise local down [--all]  stops what `up` started (--all: every service)
    chunkwise local env           the environment of the stack, as `export` lines
    chunkwise local reset         deletes this stack's bucket, queues, index generations,
                                  template, query models and state file

The work is done by the library `chunkwise.localstack`; this module parses and reports.
Exit codes: 0 ok, 1 operational error, 2 usage.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from functools import partial

from chunkwise.cli.common import (
    HelpFormatter,
    add_progress_flag,
    parse_args,
    parser,
    showing_progress,
)
from chunkwise.localstack import deployed, embed_endpoint
from chunkwise.localstack.config import (
    StackConfig,
    apply_env,
    is_emulator,
    load_state,
    require_state,
    say,
)
from chunkwise.localstack.emulator import run_workers
from chunkwise.localstack.resources import queue_depths
from chunkwise.localstack.services import services_running
from chunkwise.localstack.stack import stack_down, stack_reset, up_and_save
from chunkwise.settings import export_env, load_settings, local_ports, local_stack_env

# The reconcile function's actions (functions/reconcile/app.py).
RECONCILE_ACTIONS = ("sweep", "rechunk", "finish-rechunk", "retention")


def _stack_args(p: argparse.ArgumentParser) -> None:
    d = StackConfig()
    p.add_argument("--bucket", default=d.bucket)
    p.add_argument("--queue", default=d.queue)
    p.add_argument("--dlq", default=d.dlq)
    p.add_argument("--input-prefix", default=d.input_prefix)
    env = local_stack_env()
    p.add_argument("--index-prefix", default=env.chunkwise_index_prefix or "chunks")
    p.add_argument("--visibility-timeout", type=int, default=d.visibility_timeout)
    p.add_argument("--max-receive-count", type=int, default=d.max_receive_count)
    p.add_argument("--region", default=env.aws_default_region or d.region)
    p.add_argument(
        "--access-control",
        choices=["none", "groups"],
        default=d.access_control,
        help="the query path's mode (groups: tokens of the local issuer, readers filter)",
    )
    p.add_argument("--admin-group", default=d.admin_group, help="the group that reads everything")
    p.add_argument(
        "--nodes",
        type=int,
        default=local_ports().opensearch_nodes,
        choices=range(1, 10),
        metavar="N",
        help="OpenSearch nodes: 1 (default, OPENSEARCH_NODES), or a local cluster of N on "
        "ports OPENSEARCH_PORT..+N-1 whose generations get 3 shards and 1 replica",
    )


def _local_parser() -> argparse.ArgumentParser:
    p = parser(
        "chunkwise local",
        "The local stack: OpenSearch and the S3/SQS emulator, the bucket, queues and "
        "index of a deployment, and a runner that feeds the queue to the ingest handler.",
        examples="""\
  chunkwise local up && eval "$(chunkwise local env)"
  aws s3 cp manual.pdf s3://chunkwise-local/incoming/manual.pdf
  chunkwise local run --until-idle 5
  chunkwise local down
  chunkwise local reset     # start over: this stack's bucket, queues and index are deleted""",
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    sub_parser = partial(sub.add_parser, formatter_class=HelpFormatter)
    _stack_args(sub_parser("up", help="start services, create bucket/queue/index, reconcile"))
    down = sub_parser("down", help="stop the services `up` started")
    down.add_argument("--all", action="store_true", help="also services `up` found running")
    sub_parser("status", help="services, queue depths, live generation")
    sub_parser("env", help="print the stack's environment as export lines")
    sub_parser("reset", help="delete this stack's bucket, queues, index and state file")
    _run_args(sub_parser("run", help="poll the queue and call the ingest handler"))
    admin = sub_parser("admin", help="a deployed stack: run the admin function's custom resource")
    admin.add_argument("--stack", required=True, help="the deployed stack's name")
    kind = admin.add_mutually_exclusive_group()
    kind.add_argument("--delete", action="store_true", help="send Delete instead of Create")
    kind.add_argument(
        "--update", action="store_true", help="send Update (after a stack update) instead of Create"
    )
    rec = sub_parser("reconcile", help="a deployed stack: run the reconcile function on an action")
    rec.add_argument("--stack", required=True, help="the deployed stack's name")
    rec.add_argument(
        "action", nargs="?", default="sweep", choices=RECONCILE_ACTIONS, help="default: sweep"
    )
    rec.add_argument("--generation", default=None, help="rechunk / finish-rechunk: the generation")
    rec.add_argument("--force", action="store_true", help="finish-rechunk: swap even if incomplete")
    query = sub_parser("query", help="a deployed stack: run the query function on one query")
    query.add_argument("--stack", required=True, help="the deployed stack's name")
    query.add_argument("text")
    query.add_argument("-k", type=int, default=5)
    query.add_argument("--lang", action="append", default=None, help="only chunks in it")
    return p


def _run_args(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--until-idle",
        type=float,
        default=None,
        help="exit after S idle seconds (default: run until Ctrl-C)",
    )
    run.add_argument(
        "--max-seconds", type=float, default=None, help="exit after S seconds (default: no limit)"
    )
    run.add_argument("--batch-size", type=int, default=10, help="messages per handler call")
    run.add_argument(
        "--workers", type=int, default=1, help="worker processes polling the queue (default 1)"
    )
    run.add_argument(
        "--stack",
        default=None,
        help="a deployed stack (make deploy-local): its queue and index, from its outputs",
    )
    add_progress_flag(run)


def main_local(argv: Sequence[str]) -> int:
    args = parse_args(_local_parser(), argv)
    if isinstance(args, int):
        return args
    commands: dict[str, Callable[[argparse.Namespace], int]] = {
        "up": _local_up,
        "env": _local_env,
        "status": lambda _args: _status(),
        "down": _local_down,
        "run": _local_run,
        "reset": lambda _args: _local_reset(),
        "admin": _local_admin,
        "query": _local_query,
        "reconcile": _local_reconcile,
    }
    return commands[args.cmd](args)


def _local_up(args: argparse.Namespace) -> int:
    cfg = StackConfig(
        bucket=args.bucket,
        queue=args.queue,
        dlq=args.dlq,
        input_prefix=args.input_prefix,
        index_prefix=args.index_prefix,
        visibility_timeout=args.visibility_timeout,
        max_receive_count=args.max_receive_count,
        region=args.region,
        access_control=args.access_control,
        admin_group=args.admin_group,
        nodes=args.nodes,
    )
    up_and_save(cfg)
    say(f"ready. upload to s3://{cfg.bucket}/{cfg.input_prefix}..., then `chunkwise local run`")
    say("stop with `chunkwise local down`; start over with `chunkwise local reset`")
    return 0


def _local_env(args: argparse.Namespace) -> int:
    env = require_state().env()
    if is_emulator(env["AWS_ENDPOINT_URL"]):
        outside = local_stack_env()
        env["AWS_ACCESS_KEY_ID"] = outside.aws_access_key_id or "test"
        env["AWS_SECRET_ACCESS_KEY"] = outside.aws_secret_access_key or "test"
    for k, v in env.items():
        if v:
            print(f"export {k}={json.dumps(v)}")
    return 0


def _local_down(args: argparse.Namespace) -> int:
    if not stack_down(args.all):
        say("nothing was started by `chunkwise local up` (use --all to stop both anyway)")
    return 0


def _local_reset() -> int:
    from chunkwise.localstack.index_setup import stack_client

    cfg = require_state()
    _, client = stack_client(cfg)
    failures = stack_reset(cfg, client)
    for failure in failures:
        say(f"not removed: {failure}")
    say(
        f"reset: bucket s3://{cfg.bucket}, queues {cfg.queue} and {cfg.dlq}, index prefix "
        f"{cfg.index_prefix} (generations, template, query models) and the state file"
        + (" (except the above)" if failures else "")
        + (
            f"; still running: {', '.join(cfg.started)} (`chunkwise local down`)"
            if cfg.started
            else ""
        )
    )
    return 1 if failures else 0


def _deployed(name: str) -> deployed.DeployedStack:
    from chunkwise.localstack.config import service_urls

    return deployed.find_stack(
        name, service_urls()[0], local_stack_env().aws_default_region or "us-east-1"
    )


def _local_admin(args: argparse.Namespace) -> int:
    stack = _deployed(args.stack)
    same = stack.deployed_code_matches("AdminFunction", "admin")
    say(
        f"stack {stack.name}: admin function {stack.function_name('AdminFunction')}, "
        f"code {'identical to' if same else 'DIFFERS from'} the deployed package"
    )
    if not same:
        return 1
    request = "Delete" if args.delete else "Update" if args.update else "Create"
    reply = deployed.admin(stack, request)
    print(json.dumps(reply, indent=2))
    return 0 if reply.get("Status") == "SUCCESS" else 1


def reconcile_event(action: str, generation: str | None, force: bool) -> dict[str, object]:
    """The reconcile function's event for one action (functions/reconcile/app.py)."""
    event: dict[str, object] = {"action": action}
    if generation:
        event["generation"] = generation
    elif action == "finish-rechunk":
        raise ValueError("finish-rechunk needs --generation (the one rechunk printed)")
    if force:
        event["force"] = True
    return event


def _local_reconcile(args: argparse.Namespace) -> int:
    try:
        event = reconcile_event(args.action, args.generation, args.force)
    except ValueError as exc:
        say(str(exc))
        return 2
    stack = _deployed(args.stack)
    if not stack.deployed_code_matches("ReconcileFunction", "reconcile"):
        say("the reconcile function's code differs from the deployed package")
        return 1
    print(json.dumps(deployed.reconcile(stack, event), indent=2))
    return 0


def _local_query(args: argparse.Namespace) -> int:
    stack = _deployed(args.stack)
    if not stack.deployed_code_matches("QueryFunction", "query"):
        say("the query function's code differs from the deployed package")
        return 1
    body: dict[str, object] = {"query": args.text, "k": args.k}
    if args.lang:
        body["lang"] = args.lang
    status, reply = deployed.query(stack, body)
    print(json.dumps(reply, indent=2, ensure_ascii=False))
    return 0 if status == 200 else 1


def _local_run(args: argparse.Namespace) -> int:
    if args.stack:
        stack = _deployed(args.stack)
        if not stack.deployed_code_matches("IngestFunction", "ingest"):
            say("the ingest function's code differs from the deployed package")
            return 1
        stack.use_function_env("IngestFunction")
        cfg = stack.ingest_config()
    else:
        cfg = require_state()
    export_env({"POWERTOOLS_METRICS_DISABLED": "true"}, only_unset=True)
    say(f"polling {cfg.queue_url} with {args.workers} worker(s) (Ctrl-C to stop)")
    with showing_progress(args.progress):
        s = run_workers(
            cfg,
            args.workers,
            batch_size=args.batch_size,
            until_idle=args.until_idle,
            max_seconds=args.max_seconds,
        )
    say(f"batches {s.batches}, messages {s.received}, ok {s.succeeded}, failed {s.failed}")
    return 0


def _status() -> int:
    cfg = load_state()
    rc = 0 if services_running() else 1
    url = (cfg.embed_url if cfg else "") or embed_endpoint.endpoint_url()
    info = embed_endpoint.probe(url)
    say(f"embedding endpoint {url}: {info['model'] if info else 'not answering'}")
    if cfg is not None and cfg.query_model_id:
        say(f"query model (ML Commons): {cfg.query_model_id}")
    if cfg is None:
        say("no stack state yet (run `chunkwise local up`)")
        return 1
    try:
        apply_env(cfg.env())
        d = queue_depths(cfg)
        say(
            f"queue {cfg.queue}: {d['queue']} waiting, {d['queue_in_flight']} in flight; "
            f"DLQ {cfg.dlq}: {d['dlq']}"
        )
        from chunkwise.wiring import opensearch_index

        ix = opensearch_index(load_settings())
        say(f"live generation: {ix.live_generation()} (started by up: {cfg.started or 'none'})")
    except Exception as exc:  # status reports, it does not fail on details
        say(f"stack not reachable: {type(exc).__name__}: {exc}")
        rc = 1
    return rc
