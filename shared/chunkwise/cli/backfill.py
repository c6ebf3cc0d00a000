"""`chunkwise backfill`: bulk index settings around a large load, restored however it ends.

    chunkwise backfill [GENERATION] [--workers N] [--until-idle S] [--batch-size B]
                       [--refresh-interval -1] [--segments 1 | --no-merge] [--no-warmup]
        applies the backfill settings (chunkwise.index.backfill) to GENERATION (default:
        the live one), drains the ingest queue with N local worker processes (the ingest
        handler, as `chunkwise local run --workers N`), or with --workers 0 waits until
        the queue is drained by others (the ingest Lambda functions); then restores the
        settings (also after an error, Ctrl-C or SIGTERM), refreshes, force-merges to
        --segments and calls the k-NN warmup.
    chunkwise backfill GENERATION --restore
        puts back what a crashed run left applied (nothing to restore is not an error).

A re-chunk with it:

    chunkwise reconcile rechunk           # prints the new generation G, enqueues every object
    chunkwise backfill G --workers 4
    chunkwise reconcile finish G          # verify G against the bucket, then swap

Exit codes: 0 ok, 1 operational error, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any

from chunkwise.cli.common import parse_args, parser
from chunkwise.index.backfill import BackfillSpec

if TYPE_CHECKING:
    from chunkwise.settings import BackfillSettings

QUEUE_POLL_S = 5.0


def _parser() -> argparse.ArgumentParser:
    p = parser(
        "chunkwise backfill",
        "Bulk index settings for a backfill (refresh, replicas, translog, k-NN graph "
        "deferral where the engine allows it), applied for the drain of the ingest queue "
        "and restored when it ends, however it ends; then refresh, force merge, warmup.",
        examples="""\
  chunkwise reconcile rechunk && chunkwise backfill G --workers 4 && chunkwise reconcile finish G
  chunkwise backfill --workers 4 --until-idle 10        # an initial load into the live one
  chunkwise backfill G --restore                        # after a crashed run""",
    )
    p.add_argument("generation", nargs="?", default=None, help="default: the live generation")
    p.add_argument("--restore", action="store_true", help="only restore a crashed run's settings")
    p.add_argument("--workers", type=int, default=1, help="local workers; 0: wait for others")
    p.add_argument("--until-idle", type=float, default=10.0, help="drained after S idle seconds")
    p.add_argument("--batch-size", type=int, default=10, help="messages per handler call")
    d = BackfillSpec()
    p.add_argument("--refresh-interval", default=d.refresh_interval, help="while loading")
    p.add_argument("--segments", type=int, default=1, help="force-merge to this many segments")
    p.add_argument("--no-merge", action="store_true", help="no force merge at the end")
    p.add_argument("--no-warmup", action="store_true", help="no k-NN warmup at the end")
    return p


def _terminate_as_exit(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (a stopped container, `kill`) ends the run like Ctrl-C: through the
    `finally` that restores the settings."""
    raise SystemExit(128 + signum)


def main_backfill(argv: Sequence[str]) -> int:
    args = parse_args(_parser(), argv)
    if isinstance(args, int):
        return args
    from chunkwise.adapters.opensearch.backfill import OpenSearchBackfill, backfilling
    from chunkwise.localstack.config import use_stack_env
    from chunkwise.settings import BackfillSettings, load_settings
    from chunkwise.wiring import opensearch_client, opensearch_index

    use_stack_env()
    settings = load_settings(BackfillSettings)
    client = opensearch_client(settings)
    generation = args.generation or opensearch_index(settings, client=client).live_generation()
    if not generation:
        print("chunkwise backfill: no live generation (name one)", file=sys.stderr)
        return 2
    index = settings.names.index(generation)
    if args.restore:
        restored = OpenSearchBackfill(client, index).restore()
        print(json.dumps({"index": index, "restored": restored}))
        return 0
    signal.signal(signal.SIGTERM, _terminate_as_exit)
    spec = BackfillSpec(refresh_interval=args.refresh_interval)
    t0 = time.perf_counter()
    with backfilling(client, index, spec) as backfill:
        drained = _drain(args, settings)  # restored by the block's end, however it ends
    finish = backfill.finish(
        max_segments=None if args.no_merge else args.segments, warmup=not args.no_warmup
    )
    print(
        json.dumps(
            {
                "index": index,
                **drained,
                "seconds": round(time.perf_counter() - t0, 1),
                "merge_s": round(finish.merge_s, 1),
                "segments": finish.segments,
            }
        )
    )
    return 0


def _drain(args: argparse.Namespace, settings: BackfillSettings) -> dict[str, Any]:
    """Run local workers until the queue is idle, or wait until others drained it."""
    from chunkwise.localstack.config import StackConfig, load_state
    from chunkwise.localstack.emulator import run_workers
    from chunkwise.localstack.resources import wait_until_drained

    cfg = load_state()
    if args.workers > 0:
        if cfg is None:
            raise SystemExit("chunkwise backfill: --workers needs `chunkwise local up` first")
        stats = run_workers(
            cfg, args.workers, batch_size=args.batch_size, until_idle=args.until_idle
        )
        return {"workers": stats.workers, "ok": stats.succeeded, "failed": stats.failed}
    if cfg is None or cfg.queue_url != settings.queue_url:  # the queue of a deployment
        region = settings.region or StackConfig().region
        cfg = StackConfig(endpoint="aws", queue_url=settings.queue_url, region=region)
    print(f"chunkwise backfill: waiting until {cfg.queue_url} is drained", file=sys.stderr)
    return {"waited_s": round(wait_until_drained(cfg, args.until_idle, QUEUE_POLL_S), 1)}
