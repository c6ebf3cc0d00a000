"""One ingest invocation as a Lambda runs it: a fresh process, capped memory, a deadline.

    python -m bench.faults.lambda_child EVENT.json --memory-mb 2048 --timeout-s 60

The parent (`bench.faults.scenarios`) sets the stack's environment. The address
space is capped with RLIMIT_AS at ``--memory-mb`` plus a fixed allowance for the
interpreter's and libraries' reserved-but-unused mappings (thread stacks,
malloc arenas), so an inflating document hits the cap as it would the Lambda's
memory; the context reports ``--memory-mb`` and the remaining time. Prints one
JSON line: the handler's response, wall seconds, peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

#: Address space reserved but not resident (thread stacks, arenas, mapped libraries).
VIRTUAL_ALLOWANCE_MB = 1024


class Context:
    function_name = "chunkwise-ingest-faults"
    function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:chunkwise-ingest"
    log_group_name = "/faults/chunkwise-ingest"
    log_stream_name = "faults"
    aws_request_id = "faults-0"

    def __init__(self, memory_mb: int, timeout_s: float) -> None:
        self.memory_limit_in_mb = memory_mb
        self._end = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._end - time.monotonic()) * 1000))


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("event", type=Path)
    p.add_argument("--memory-mb", type=int, default=2048)
    p.add_argument("--timeout-s", type=float, default=60.0)
    args = p.parse_args(argv)
    cap = (args.memory_mb + VIRTUAL_ALLOWANCE_MB) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    event = json.loads(args.event.read_text(encoding="utf-8"))
    t0 = time.monotonic()
    from chunkwise.localstack.emulator import load_function

    handler = load_function("ingest")
    response = handler.lambda_handler(event, Context(args.memory_mb, args.timeout_s))
    out = {
        "response": response,
        "seconds": round(time.monotonic() - t0, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print("FAULTS-RESULT " + json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
