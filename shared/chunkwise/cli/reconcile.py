"""`chunkwise ingest KEY...` and `chunkwise reconcile [sweep|rechunk|finish|retention]`.

    chunkwise ingest KEY...       reconcile these keys now (no queue)
    chunkwise reconcile [--enqueue]              sweep: bucket vs live set
    chunkwise reconcile retention [--older-than 7d]  erase deleted/superseded revisions
    chunkwise reconcile rechunk [--generation G] new generation + one message per object
    chunkwise reconcile finish G [--force]       verify G against the bucket, then swap

They run against the stack of `chunkwise local up`, or the one CHUNKWISE_BUCKET and
friends name. Exit codes: 0 ok, 1 operational error, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from chunkwise import progress
from chunkwise.cli.common import add_progress_flag, parse_args, parser, showing_progress, warn
from chunkwise.localstack.config import stack_settings
from chunkwise.settings import Settings


def main_ingest(argv: Sequence[str]) -> int:
    p = parser(
        "chunkwise ingest",
        "Reconcile S3 keys with the index now, without the queue (the stack of "
        "`chunkwise local up`, or the one CHUNKWISE_BUCKET and friends name).",
        examples="  chunkwise ingest incoming/manual.pdf incoming/handbuch.docx",
    )
    p.add_argument("keys", nargs="+", help="object keys (decoded, as stored in S3)")
    add_progress_flag(p)
    args = parse_args(p, argv)
    if isinstance(args, int):
        return args
    from chunkwise.ingest.messages import ObjectChange
    from chunkwise.wiring import build_pipeline

    settings = stack_settings()
    pipeline = build_pipeline(settings)
    rc = 0
    with showing_progress(args.progress):
        for key in progress.track(args.keys, "ingest: documents"):
            try:
                change = ObjectChange(settings.bucket, key, kind="reconcile", raw_key=key)
                res = pipeline.ingest(change)
                print(json.dumps(res.log_fields(), ensure_ascii=False))
            except Exception as exc:  # report per key and go on with the others
                warn(f"chunkwise ingest: {key}: {type(exc).__name__}: {exc}")
                rc = 1
    return rc


def _reconcile_parser() -> argparse.ArgumentParser:
    p = parser(
        "chunkwise reconcile",
        "sweep: compare the bucket's current versions with the live index and repair "
        "the drift (inline, or --enqueue one message per key); rechunk: create a new "
        "generation and enqueue every object for it; finish: verify that generation "
        "against the bucket, then swap the aliases to it; retention: erase the chunks "
        "and artifacts of revisions deleted or superseded longer ago than --older-than.",
        examples="""\
  chunkwise reconcile
  chunkwise reconcile rechunk && chunkwise local run --until-idle 5
  chunkwise reconcile finish 20260101t000000
  chunkwise reconcile retention --older-than 7d""",
    )
    p.add_argument(
        "action", nargs="?", default="sweep", choices=["sweep", "rechunk", "finish", "retention"]
    )
    p.add_argument(
        "generation", nargs="?", default=None, help="rechunk: its id (default: from the clock)"
    )
    p.add_argument("--enqueue", action="store_true", help="sweep: enqueue instead of inline")
    p.add_argument("--force", action="store_true", help="finish: swap even if incomplete")
    p.add_argument("--older-than", default=None, help="retention: e.g. 7d (default: setting)")
    add_progress_flag(p)
    return p


def main_reconcile(argv: Sequence[str]) -> int:
    args = parse_args(_reconcile_parser(), argv)
    if isinstance(args, int):
        return args
    actions: dict[str, Callable[[Settings, argparse.Namespace], int]] = {
        "retention": _reconcile_retention,
        "sweep": _reconcile_sweep,
        "rechunk": _reconcile_rechunk,
        "finish": _reconcile_finish,
    }
    return actions[args.action](stack_settings(), args)


def _reconcile_retention(settings: Settings, args: argparse.Namespace) -> int:
    from chunkwise.wiring.operations import run_retention

    kept = run_retention(settings, args.older_than)
    print(json.dumps(kept.__dict__))
    return 0


def _reconcile_sweep(settings: Settings, args: argparse.Namespace) -> int:
    from chunkwise.wiring.operations import run_sweep

    with showing_progress(args.progress):
        res = run_sweep(settings, enqueue=args.enqueue)
    print(
        json.dumps(
            {
                "bucket_keys": res.bucket_keys,
                "indexed_keys": res.indexed_keys,
                "drifted": res.drifted,
                "enqueued": res.enqueued,
                "repaired": res.repaired,
                "failed": res.failed,
                "known_failures": res.known_failures,
            },
            ensure_ascii=False,
        )
    )
    return 1 if res.failed else 0


def _reconcile_rechunk(settings: Settings, args: argparse.Namespace) -> int:
    from chunkwise.wiring.operations import start_rechunk

    with showing_progress(args.progress):
        gen, n = start_rechunk(settings, args.generation)
    print(json.dumps({"generation": gen, "enqueued": n}))
    print(f"when the queue is drained: chunkwise reconcile finish {gen}", file=sys.stderr)
    return 0


def _reconcile_finish(settings: Settings, args: argparse.Namespace) -> int:
    from chunkwise.wiring.operations import finish_rechunk

    if not args.generation:
        print("chunkwise reconcile finish: GENERATION is required", file=sys.stderr)
        return 2
    with showing_progress(args.progress):
        check = finish_rechunk(settings, args.generation, force=args.force)
    print(
        json.dumps(
            {
                "generation": check.generation,
                "complete": check.complete,
                "bucket_keys": check.bucket_keys,
                "indexed_keys": check.indexed_keys,
                "missing": list(check.missing)[:50],
                "extra": list(check.extra)[:50],
                "swapped": check.complete or args.force,
            },
            ensure_ascii=False,
        )
    )
    return 0 if check.complete or args.force else 1
