"""`chunkwise` command line: chunk, extract, index, search.

Each subcommand imports its stage lazily, so `chunkwise chunk` never loads
OpenSearch or AWS clients.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from pathlib import Path

from chunkwise.errors import ChunkwiseError

# Subcommands owned by other stages: name -> (module, function taking argv).
_DELEGATED: dict[str, tuple[str, str]] = {
    "extract": ("chunkwise.extract.cli", "main_extract"),
    "index": ("chunkwise.cli_index", "main_index"),
    "search": ("chunkwise.cli_index", "main_search"),
    "eval": ("chunkwise.evaluate", "main_eval"),
    "local": ("chunkwise.local", "main_local"),
    "ingest": ("chunkwise.local", "main_ingest"),
    "reconcile": ("chunkwise.local", "main_reconcile"),
}


def _chunk_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chunkwise chunk", description="Chunk canonical text files; JSONL on stdout."
    )
    parser.add_argument("files", nargs="+", type=Path, help="UTF-8 canonical text (markdown-like)")
    parser.add_argument("--lang", choices=["en", "de", "und", "auto"], default="auto")
    parser.add_argument("--max-chars", type=int, default=None)
    parser.add_argument("--max-tokens", type=int, default=None)
    parser.add_argument("--overlap", type=int, default=None, help="overlap in characters")
    parser.add_argument("--tokenizer", type=Path, default=None, help="tokenizer.json or model zip")
    parser.add_argument("--report", action="store_true", help="print a chunking report to stderr")
    return parser


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace | int:
    """Parse ``argv``; ``--help`` or a usage error gives argparse's exit status
    instead of exiting, so every subcommand returns its code (and can be called
    from tests and from `main`)."""
    try:
        return parser.parse_args(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2


def main_chunk(argv: Sequence[str]) -> int:
    from chunkwise.chunk import ChunkingReport, chunk_text
    from chunkwise.config import ChunkerConfig

    args = parse_args(_chunk_parser(), argv)
    if isinstance(args, int):
        return args
    values: dict[str, object] = {}
    if args.max_chars is not None:
        values["max_chars"] = args.max_chars
    if args.max_tokens is not None:
        values["max_tokens"] = args.max_tokens
    if args.overlap is not None:
        values["overlap_chars"] = args.overlap
    if args.tokenizer is not None:
        values["tokenizer_path"] = args.tokenizer
    config = ChunkerConfig.build(**values)
    out = sys.stdout
    for path in args.files:
        try:
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
        except OSError as exc:
            raise ChunkwiseError(f"cannot read {path}: {exc}") from exc
        report = ChunkingReport()
        for chunk in chunk_text(text, lang=args.lang, config=config, report=report):
            record = chunk.model_copy(update={"source_key": chunk.source_key or str(path)})
            out.write(json.dumps(record.model_dump(mode="json"), ensure_ascii=False) + "\n")
        if args.report:
            print(f"{path}: {report}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    commands: dict[str, Callable[[Sequence[str]], int]] = {"chunk": main_chunk}
    if not args or args[0] in ("-h", "--help"):
        names = ", ".join(sorted([*commands, *_DELEGATED]))
        print(f"usage: chunkwise COMMAND [ARGS]\ncommands: {names}", file=sys.stderr)
        return 0 if args else 2
    name, rest = args[0], args[1:]
    try:
        if name in commands:
            return commands[name](rest)
        if name in _DELEGATED:
            module, func = _DELEGATED[name]
            handler: Callable[[list[str]], int] = getattr(import_module(module), func)
            return handler(rest)
    except ChunkwiseError as exc:
        print(f"chunkwise {name}: error: {exc}", file=sys.stderr)
        return 1
    print(f"chunkwise: unknown command {name!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
