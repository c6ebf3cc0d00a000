"""`chunkwise extract FILE`: print the canonical text (or the report) of a document.

Wired into the main CLI as the `extract` sub-command:

    chunkwise extract FILE [--report | --json] [--max-bytes N] [--max-pages N]
                           [--max-seconds S] [--out-dir DIR] [--progress]

Exit codes: 0 success, 2 bad arguments or limits, 3 the file cannot be read or
the document was rejected (typed ExtractionError; reason on stderr).
Warnings of the extraction (encryption, image-only pages) go to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from chunkwise.cli.common import (
    EXIT_INPUT,
    EXIT_OK,
    EXIT_USAGE,
    add_progress_flag,
    parse_args,
    parser,
    read_input,
    showing_progress,
    warn,
)
from chunkwise.errors import InputError
from chunkwise.extract.errors import ExtractionError
from chunkwise.extract.formats import formats_sentence
from chunkwise.extract.limits import ExtractLimits


def _parser() -> argparse.ArgumentParser:
    defaults = ExtractLimits()
    p = parser(
        "chunkwise extract",
        f"Extract canonical text (markdown-like) from {formats_sentence()}. The format is "
        "read from the bytes; chunk offsets refer to this text.",
        examples="""\
  chunkwise extract manual.pdf > manual.md
  chunkwise extract manual.pdf --report | jq .warnings
  chunkwise extract manual.pdf | chunkwise chunk -""",
    )
    p.add_argument("file", help="document to extract ('-' reads stdin)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--report", action="store_true", help="print the extraction report (JSON)")
    out.add_argument("--json", action="store_true", help="print {text, report} as one JSON object")
    p.add_argument("--out-dir", type=Path, help="also write <stem>.md and <stem>.json there")
    p.add_argument("--max-bytes", type=int, default=defaults.max_bytes, help="input size")
    p.add_argument("--max-pages", type=int, default=defaults.max_pages, help="PDF pages")
    p.add_argument(
        "--max-seconds", type=float, default=defaults.max_seconds, help="wall-clock budget"
    )
    add_progress_flag(p)
    return p


def main_extract(argv: Sequence[str]) -> int:
    args = parse_args(_parser(), argv)
    if isinstance(args, int):
        return args
    try:
        limits = ExtractLimits(
            max_bytes=args.max_bytes, max_pages=args.max_pages, max_seconds=args.max_seconds
        )
    except ValueError as exc:
        print(f"chunkwise extract: invalid limit: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from chunkwise.extract import extract

    name = None if args.file == "-" else args.file
    try:
        data = read_input(args.file)
        with showing_progress(args.progress):
            result = extract(data, filename=Path(name).name if name else None, limits=limits)
    except InputError as exc:
        print(f"chunkwise extract: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except ExtractionError as exc:
        print(f"chunkwise extract: {args.file}: {exc}", file=sys.stderr)
        return EXIT_INPUT
    for warning in result.report.warnings:
        warn(f"chunkwise: {args.file}: warning: {warning}")
    if args.out_dir is not None:
        stem = Path(name).stem if name else "stdin"
        args.out_dir.mkdir(parents=True, exist_ok=True)
        (args.out_dir / f"{stem}.md").write_text(result.text, encoding="utf-8", newline="")
        (args.out_dir / f"{stem}.json").write_text(result.report_json() + "\n", encoding="utf-8")
    if args.report:
        sys.stdout.write(result.report_json() + "\n")
    elif args.json:
        payload = {"text": result.text, "report": result.report.model_dump(mode="json")}
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(result.text)
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main_extract(sys.argv[1:]))
