"""`chunkwise extract FILE`: print the canonical text (or the report) of a document.

Wired into the main CLI as the `extract` sub-command:

    chunkwise extract FILE [--report | --json] [--max-bytes N] [--max-pages N]
                           [--max-seconds S] [--out-dir DIR]

Exit codes: 0 success, 1 file cannot be read, 2 bad arguments (argparse),
3 the document was rejected (typed ExtractionError; reason on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from chunkwise.cli import parse_args

from . import extract
from .errors import ExtractionError
from .limits import ExtractLimits


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="chunkwise extract",
        description="Extract canonical text (markdown-like) from PDF, DOCX, HTML, Markdown, text.",
    )
    p.add_argument("file", help="document to extract ('-' reads stdin)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--report", action="store_true", help="print the extraction report (JSON)")
    out.add_argument("--json", action="store_true", help="print {text, report} as one JSON object")
    p.add_argument("--out-dir", type=Path, help="also write <stem>.md and <stem>.json there")
    p.add_argument("--max-bytes", type=int)
    p.add_argument("--max-pages", type=int)
    p.add_argument("--max-seconds", type=float)
    return p


def main_extract(argv: list[str]) -> int:
    args = parse_args(_parser(), argv)
    if isinstance(args, int):
        return args
    overrides = {
        k: v
        for k, v in {
            "max_bytes": args.max_bytes,
            "max_pages": args.max_pages,
            "max_seconds": args.max_seconds,
        }.items()
        if v is not None
    }
    try:
        limits = ExtractLimits(**overrides)
    except ValueError as exc:
        print(f"chunkwise extract: invalid limit: {exc}", file=sys.stderr)
        return 2
    name = None if args.file == "-" else args.file
    try:
        data = sys.stdin.buffer.read() if name is None else Path(name).read_bytes()
    except OSError as exc:
        print(f"chunkwise extract: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 1
    try:
        result = extract(data, filename=Path(name).name if name else None, limits=limits)
    except ExtractionError as exc:
        print(f"chunkwise extract: {args.file}: {exc}", file=sys.stderr)
        return 3
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
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main_extract(sys.argv[1:]))
