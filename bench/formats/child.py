"""One measured chunkwise extraction in a fresh process: ``python -m bench.formats.child PATH OUT``.

Writes JSON to OUT: ``status`` ("ok", "error" for a typed extraction error,
"crash" for anything else), the canonical ``text`` (ok), the ``format`` the
extraction report names (ok) or the dispatch sniffs (error, crash), the
error's class and reason (error, crash), the formats this chunkwise knows,
``seconds`` and the peak RSS (``rss_mib``, VmHWM: this process's alone).
Address space is capped at 4 GiB so that a reader that inflates a ZIP bomb
fails here instead of starving the machine.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

_ADDRESS_SPACE = 4 << 30


def peak_rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def extract_file(path: Path) -> dict[str, Any]:
    from chunkwise.extract import ExtractionError, extract

    data = path.read_bytes()
    start = time.perf_counter()
    try:
        result = extract(data, filename=path.name)
    except ExtractionError as exc:
        record: dict[str, Any] = {"status": "error", "error": type(exc).__name__}
        record["reason"] = str(getattr(exc, "reason", exc))
    except Exception as exc:  # a crash is what this measures, whatever it is
        record = {"status": "crash", "error": type(exc).__name__, "reason": str(exc)[:500]}
    else:
        record = {
            "status": "ok",
            "text": result.text,
            "format": str(result.report.format),
            "warnings": list(result.report.warnings),
        }
    record["seconds"] = time.perf_counter() - start
    record["rss_mib"] = peak_rss_mib()
    record.setdefault("format", sniffed_format(data, path.name))
    record["known_formats"] = known_formats()
    return record


def known_formats() -> list[str]:
    """The formats this chunkwise names (its DocFormat values): a format among them has a
    reader, so a file of it that is not read as it is a failure, not an unsupported format."""
    try:
        from chunkwise.extract import DocFormat
    except ImportError:
        return []
    return [str(f.value) for f in DocFormat]


def sniffed_format(data: bytes, name: str) -> str:
    """The format chunkwise's dispatch picks for these bytes (after a failed extraction:
    whether the file's own reader failed or another one). "" if this chunkwise has no
    such function."""
    try:
        from chunkwise.extract.sniff import sniff
    except ImportError:
        return ""
    try:
        fmt = sniff(data, name)
    except Exception:  # sniffing refuses what no reader takes: the extraction said so
        return ""
    return str(fmt) if fmt is not None else "text"


def main() -> int:
    path, out = Path(sys.argv[1]), Path(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (_ADDRESS_SPACE, _ADDRESS_SPACE))
    record = extract_file(path)
    out.write_text(json.dumps(record), encoding="ascii")  # escapes lone surrogates too
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
