"""What every `chunkwise` subcommand shares: exit codes, help layout, progress, warnings.

Conventions (the same for every subcommand):

- results go to stdout (JSONL or plain lines), everything else -- logs,
  warnings, progress bars -- to stderr, so `chunkwise ... | jq` always works;
- progress bars are drawn only when stderr is a terminal, or when asked with
  `--progress` (and never with `--no-progress`);
- exit codes: see `EXIT_CODES_HELP`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Never, TextIO

from chunkwise import progress
from chunkwise.errors import ChunkwiseError, InputError

if TYPE_CHECKING:
    from tqdm import tqdm

EXIT_OK = 0
EXIT_RUNTIME = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports `cmd | head`

EXIT_CODES_HELP = """\
exit codes:
  0    success
  1    runtime failure (service unreachable, failed ingest, internal error)
  2    usage or configuration error (bad option, impossible limit, bad config file)
  3    unreadable or refused input (missing file, unsupported or corrupt document)
  130  interrupted (Ctrl-C); 141  stdout closed early (e.g. piped into `head`)"""


class HelpFormatter(argparse.HelpFormatter):
    """Wraps prose paragraphs, keeps laid-out ones (examples, exit codes) as
    written, and shows each option's default unless it says nothing (None, off,
    empty) or the help names it."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for para in text.split("\n\n"):
            laid_out = any(line.startswith(" ") for line in para.split("\n"))
            paragraphs.append(para if laid_out else super()._fill_text(para, width, indent))
        return "\n\n".join(paragraphs)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        silent = default is None or default is False or default == []
        silent = silent or default is argparse.SUPPRESS
        if silent or "default" in text or not action.option_strings:
            return text
        return f"{text} (default: {str(default).replace('%', '%%')})".strip()


def parser(prog: str, description: str, examples: str = "") -> argparse.ArgumentParser:
    """An argument parser with the shared layout: defaults shown, examples and
    exit codes in the epilog."""
    epilog = (f"examples:\n{examples.rstrip()}\n\n" if examples else "") + EXIT_CODES_HELP
    return argparse.ArgumentParser(
        prog=prog, description=description, epilog=epilog, formatter_class=HelpFormatter
    )


def add_progress_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bars on stderr (default: only when stderr is a terminal)",
    )


def parse_args(p: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace | int:
    """Parse ``argv``; ``--help`` or a usage error gives argparse's exit status
    instead of exiting, so every subcommand returns its code (and can be called
    from tests and from `main`)."""
    try:
        return p.parse_args(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE


def exit_code_for(exc: ChunkwiseError) -> int:
    """The documented exit code of an error raised on purpose."""
    from chunkwise.errors import InputError
    from chunkwise.extract.errors import ExtractionError

    if isinstance(exc, InputError | ExtractionError) or isinstance(exc.__cause__, OSError):
        return EXIT_INPUT
    if isinstance(exc, ValueError):  # ConfigError and the other validation errors
        return EXIT_USAGE
    return EXIT_RUNTIME


# --------------------------------------------------------------------------- stderr


_bars: _Bars | None = None


def warn(message: str) -> None:
    """A line on stderr that does not tear a progress bar apart."""
    if _bars is not None:
        _bars.write(message)
    else:
        print(message, file=sys.stderr, flush=True)


def progress_wanted(flag: bool | None, stream: TextIO | None = None) -> bool:
    """`--progress` / `--no-progress` decide; unset, only a terminal gets bars."""
    if flag is not None:
        return flag
    stream = stream or sys.stderr
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def showing_progress(flag: bool | None) -> Iterator[None]:
    """Draw the progress of the work inside the block on stderr, if wanted."""
    global _bars
    if not progress_wanted(flag):
        yield
        return
    bars = _Bars(sys.stderr)
    _bars = bars
    try:
        with progress.reporting(bars):
            yield
    finally:
        _bars = None
        bars.close()


class _Bars:
    """One tqdm bar per task; a finished bar below the first is removed."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.bars: dict[str, tqdm[Never]] = {}

    def __call__(self, task: str, done: int, total: int | None) -> None:
        from tqdm import tqdm

        if task not in self.bars:
            columns, rows = _terminal_size(self.stream)
            self.bars[task] = tqdm(
                total=total,
                desc=task,
                file=self.stream,
                position=len(self.bars),
                leave=not self.bars,
                ncols=columns,
                nrows=rows,
                mininterval=0.2,
            )
        bar = self.bars[task]
        if total is not None and bar.total != total:
            bar.total = total
        bar.update(done - bar.n)
        if total is not None and done >= total and len(self.bars) > 1:
            bar.close()
            del self.bars[task]

    def write(self, message: str) -> None:
        from tqdm import tqdm

        tqdm.write(message, file=self.stream)

    def close(self) -> None:
        for bar in reversed(list(self.bars.values())):
            bar.close()
        self.bars.clear()


def _terminal_size(stream: TextIO) -> tuple[int, int]:
    """Columns and rows of the terminal behind `stream`; 80x24 where it reports
    none (a pipe, or a pseudo-terminal nobody sized, where tqdm would draw nothing)."""
    try:
        size = os.get_terminal_size(stream.fileno())
        return size.columns or 80, size.lines or 24
    except (AttributeError, OSError, ValueError):
        return 80, 24


def read_input(name: str) -> bytes:
    """The bytes of a file named on the command line ('-' is standard input)."""
    if name == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(name).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {name}: {exc.strerror or exc}") from exc
