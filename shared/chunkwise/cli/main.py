"""`chunkwise` command line: chunk, extract, index, search, eval, the local stack.

Every command is registered here, statically (`COMMANDS`): its module is imported
when the command runs, by a plain import statement, so `chunkwise chunk` never
loads OpenSearch or AWS clients and every import stays visible to the architecture
test. Shared conventions (stdout for results, stderr for the rest, exit codes,
progress, reading an input) live in `chunkwise.cli.common`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from chunkwise import progress
from chunkwise.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_CODES_HELP,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    add_progress_flag,
    exit_code_for,
    parse_args,
    parser,
    read_input,
    showing_progress,
    warn,
)
from chunkwise.errors import ChunkwiseError, ConfigError, InputError

if TYPE_CHECKING:
    from chunkwise.chunking.config import ChunkerConfig
    from chunkwise.extract import Extraction

__all__ = ["main", "main_chunk", "model_facts", "parse_args"]

LANG_HELP = """\
languages: every chunk has a `lang`. "en" and "de" get their own sentence rules
  and BM25 analyzer; "und" (BCP 47 for "undetermined") means neither English nor
  German was recognised: ICU's root sentence and word rules, and the chunk is
  indexed into every analysed field. With --lang auto (the default) the document's
  language is guessed first, then each section (text under a heading, or a PDF
  page) with the document's language as the prior, and each paragraph with its
  section's: the English sections or untranslated paragraphs of a German file are
  tagged, split and analysed as English."""

_MAIN_EXAMPLES = """\
examples:
  chunkwise chunk manual.pdf > chunks.jsonl          # any supported format
  chunkwise extract manual.pdf | chunkwise chunk -   # the same chunks, in two steps
  chunkwise chunk notes.md --lang de --max-tokens 200 --report
  chunkwise --version"""


# --------------------------------------------------------------------------- model facts


def model_facts() -> dict[str, str | int]:
    """The embedding model the chunker sizes for: its id, tokenizer and token limit.

    The one place the command line learns the model's limit from, so that a
    change of the default model changes the refusal of `--max-tokens` too.
    """
    from chunkwise.models.registry import DEFAULT_MODEL

    distribution = DEFAULT_MODEL.distribution.split("==")[0]
    return {
        "model": DEFAULT_MODEL.model_id,
        "tokenizer": f"{DEFAULT_MODEL.model_id} tokenizer.json, from the Python package "
        f"{DEFAULT_MODEL.package} ({_version(distribution)})",
        "max_tokens": DEFAULT_MODEL.max_tokens,
    }


def _version_text() -> str:
    facts = model_facts()
    lines = [
        f"chunkwise {_version('chunkwise')}",
        f"model: {facts['model']} (limit {facts['max_tokens']} tokens)",
        f"tokenizer: {facts['tokenizer']}",
    ]
    try:
        import icu

        lines.append(f"ICU: {icu.ICU_VERSION} (PyICU {icu.VERSION})")
    except ImportError:  # pragma: no cover - a core dependency
        lines.append("ICU: not installed")
    lines.append(f"opensearch-py: {_version('opensearch-py')}")
    lines.append(f"Python: {sys.version.split()[0]}")
    return "\n".join(lines)


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


# --------------------------------------------------------------------------- chunk


def _chunk_parser() -> argparse.ArgumentParser:
    from chunkwise.chunking.config import ChunkerConfig
    from chunkwise.extract.formats import formats_sentence

    defaults = ChunkerConfig()
    p = parser(
        "chunkwise chunk",
        f"Extract each document ({formats_sentence()}; the format is "
        "read from the bytes) exactly as the ingest pipeline does, chunk its canonical "
        "text and write one JSON chunk per line to stdout. Offsets (start/end) refer to "
        "the canonical text that `chunkwise extract FILE` prints.\n\n" + LANG_HELP,
        examples="""\
  chunkwise chunk manual.pdf handbuch.docx > chunks.jsonl
  chunkwise extract manual.pdf | chunkwise chunk -
  cat notes.md | chunkwise chunk - --lang en --max-chars 1200 --overlap 100
  chunkwise chunk report.pdf --report 2> report.jsonl | wc -l""",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="documents to chunk; '-' reads standard input (canonical text or a document)",
    )
    p.add_argument(
        "--lang",
        choices=["auto", "en", "de", "und"],
        default="auto",
        help="language of the text; auto guesses per section and paragraph",
    )
    _add_sizing_arguments(p, defaults)
    p.add_argument(
        "--report",
        action="store_true",
        help="one JSON line per document on stderr: extraction and chunking report",
    )
    add_progress_flag(p)
    return p


def _add_sizing_arguments(p: argparse.ArgumentParser, defaults: ChunkerConfig) -> None:
    """The options that size a chunk: characters, tokens, overlap, tokenizer."""
    p.add_argument(
        "--max-chars",
        type=int,
        metavar="N",
        default=defaults.max_chars,
        help="packing target of a chunk body, in characters",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        default=None,
        help="hard cap on a chunk's tokens, context included (default: the model's limit, "
        f"{model_facts()['max_tokens']}; a larger value is refused)",
    )
    p.add_argument(
        "--overlap",
        type=int,
        metavar="N",
        default=defaults.overlap_chars,
        help="characters of context from the previous chunk",
    )
    p.add_argument(
        "--tokenizer",
        type=Path,
        metavar="PATH",
        default=None,
        help="tokenizer.json or a model zip (default: the packaged model's)",
    )


def chunker_config(args: argparse.Namespace) -> ChunkerConfig:
    """The chunker settings of the options, refusing limits that cannot be right."""
    from chunkwise.chunking.config import ChunkerConfig

    limit = int(model_facts()["max_tokens"])
    if args.max_tokens is not None and args.max_tokens > limit:
        raise ConfigError(
            f"--max-tokens {args.max_tokens} is above the model's limit of {limit} tokens: "
            "the model would truncate every longer chunk"
        )
    if args.overlap >= args.max_chars:
        raise ConfigError(
            f"--overlap {args.overlap} must be smaller than --max-chars {args.max_chars}"
        )
    if args.tokenizer is not None and not args.tokenizer.exists():
        raise ConfigError(f"--tokenizer {args.tokenizer}: no such file or directory")
    values: dict[str, object] = {"max_chars": args.max_chars, "overlap_chars": args.overlap}
    if args.max_tokens is not None:
        values["max_tokens"] = args.max_tokens
    if args.tokenizer is not None:
        values["tokenizer_path"] = args.tokenizer
    return ChunkerConfig.build(**values)


def extract_input(name: str) -> Extraction:
    """Extract a named input as the pipeline does; its warnings go to stderr.

    Standard input is taken as canonical text, exactly as it comes, unless its
    bytes say PDF, DOCX or HTML: so `chunkwise extract X | chunkwise chunk -`
    chunks the very text that `extract` printed and the offsets match it.
    """
    from chunkwise.extract import extract

    data = read_input(name)
    result = canonical_text(data) if name == "-" else None
    if result is None:
        result = extract(data, filename=None if name == "-" else Path(name).name)
    for warning in result.report.warnings:
        warn(f"chunkwise: {name}: warning: {warning}")
    return result


def canonical_text(data: bytes) -> Extraction | None:
    """Text that is already canonical, taken as is; None for a document to extract.

    Binary formats the extractor refuses are refused here too (sniffed first).
    """
    from chunkwise.extract import DocFormat, EmptyDocument, Extraction, ExtractionReport
    from chunkwise.extract.model import sha256_bytes, sha256_text
    from chunkwise.extract.sniff import sniff, text_kind
    from chunkwise.extract.text import decode_text

    if sniff(data, None) is not None:
        return None
    text, encoding = decode_text(data)
    if text_kind(data, text, None) is DocFormat.HTML:
        return None
    if not text.strip():
        raise EmptyDocument("standard input holds only whitespace")
    report = ExtractionReport(
        format=DocFormat.MARKDOWN,
        source_bytes=len(data),
        source_sha256=sha256_bytes(data),
        content_sha256=sha256_text(text),
        chars=len(text),
        encoding=encoding,
    )
    return Extraction(text=text, report=report, content_sha256=report.content_sha256)


def main_chunk(argv: Sequence[str]) -> int:
    args = parse_args(_chunk_parser(), argv)
    if isinstance(args, int):
        return args
    config = chunker_config(args)
    from chunkwise.chunking.chunk import ChunkingReport, chunk_text
    from chunkwise.extract import ExtractionError
    from chunkwise.models.counter import load_counter

    counter = load_counter(config.tokenizer_path, config.max_tokens, config.add_special_tokens)
    rc = EXIT_OK
    out = sys.stdout
    with showing_progress(args.progress):
        for name in progress.track(args.files, "chunk: documents"):
            try:
                extraction = extract_input(name)
            except (InputError, ExtractionError) as exc:
                warn(f"chunkwise chunk: {name}: {exc}")
                rc = EXIT_INPUT  # go on with the other files, as cat and grep do
                continue
            report = ChunkingReport()
            source = "-" if name == "-" else name
            for chunk in chunk_text(
                extraction.text, lang=args.lang, config=config, counter=counter, report=report
            ):
                record = chunk.model_copy(update={"source_key": chunk.source_key or source})
                out.write(json.dumps(record.model_dump(mode="json"), ensure_ascii=False) + "\n")
            if args.report:
                payload = {
                    "file": name,
                    "extraction": extraction.report.model_dump(mode="json"),
                    "chunking": dataclasses.asdict(report),
                }
                warn(json.dumps(payload, ensure_ascii=False))
    return rc


# --------------------------------------------------------------------------- commands
# The commands of other stages: each imports its module when it runs.


def _extract(argv: Sequence[str]) -> int:
    from chunkwise.cli.extract import main_extract

    return main_extract(argv)


def _search(argv: Sequence[str]) -> int:
    from chunkwise.cli.index import main_search

    return main_search(list(argv))


def _index(argv: Sequence[str]) -> int:
    from chunkwise.cli.index import main_index

    return main_index(list(argv))


def _eval(argv: Sequence[str]) -> int:
    from chunkwise.cli.evaluate import main_eval

    return main_eval(argv)


def _local(argv: Sequence[str]) -> int:
    from chunkwise.cli.local import main_local

    return main_local(argv)


def _ingest(argv: Sequence[str]) -> int:
    from chunkwise.cli.reconcile import main_ingest

    return main_ingest(argv)


def _backfill(argv: Sequence[str]) -> int:
    from chunkwise.cli.backfill import main_backfill

    return main_backfill(argv)


def _reconcile(argv: Sequence[str]) -> int:
    from chunkwise.cli.reconcile import main_reconcile

    return main_reconcile(argv)


@dataclass(frozen=True)
class Command:
    run: Callable[[Sequence[str]], int]
    summary: str


COMMANDS: dict[str, Command] = {
    "chunk": Command(main_chunk, "extract and chunk documents; JSONL on stdout"),
    "extract": Command(
        _extract, "print a document's canonical text (what chunk offsets refer to) or its report"
    ),
    "search": Command(_search, "hybrid BM25 + k-NN search, with citations"),
    "index": Command(_index, "create, swap, drop, sweep or list index generations"),
    "eval": Command(_eval, "retrieval evaluation of chunker configurations on a labelled corpus"),
    "local": Command(_local, "the local stack: up, down, status, env, run, reset"),
    "ingest": Command(_ingest, "ingest S3 keys now, without the queue"),
    "backfill": Command(
        _backfill,
        "bulk index settings around a backfill (drain the queue), restored however it ends",
    ),
    "reconcile": Command(
        _reconcile, "sweep bucket vs index; re-chunk into a new generation; finish (verify + swap)"
    ),
}


# --------------------------------------------------------------------------- main


def _main_help() -> str:
    width = max(len(n) for n in COMMANDS)
    rows = [f"  {n.ljust(width)}  {c.summary}" for n, c in COMMANDS.items()]
    return "\n".join(
        [
            "usage: chunkwise [-h] [--version] COMMAND [ARGS...]",
            "",
            "Documents to citable, token-capped chunks with exact offsets, and the",
            "OpenSearch index and search around them.",
            "",
            "commands:",
            *rows,
            "",
            "`chunkwise COMMAND --help` lists a command's options with their defaults.",
            "Results go to stdout; logs, warnings and progress bars go to stderr (bars only",
            "when stderr is a terminal, or with --progress).",
            "",
            LANG_HELP,
            "",
            _MAIN_EXAMPLES,
            "",
            EXIT_CODES_HELP,
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        rc = _dispatch(args)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return rc
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        print("chunkwise: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _dispatch(args: list[str]) -> int:
    if not args:
        print(_main_help().split("\n\n")[0], file=sys.stderr)
        print("chunkwise: error: a COMMAND is required (see chunkwise --help)", file=sys.stderr)
        return EXIT_USAGE
    if args[0] in ("-h", "--help"):
        print(_main_help())
        return EXIT_OK
    if args[0] in ("-V", "--version"):
        print(_version_text())
        return EXIT_OK
    name, rest = args[0], args[1:]
    command = COMMANDS.get(name)
    if command is None:
        print(f"chunkwise: error: unknown command {name!r} (see chunkwise --help)", file=sys.stderr)
        return EXIT_USAGE
    try:
        return command.run(rest)
    except ChunkwiseError as exc:
        print(f"chunkwise {name}: error: {exc}", file=sys.stderr)
        return exit_code_for(exc)


def _discard_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
