"""Compare two runs' JSON outputs field by field, timings left out.

    python -m bench.identity.compare A B [--ignore REGEX ...] [--show N] [--json OUT]

A and B are two JSON files, or two folders (every ``*.json`` below them, matched by
relative path; a file present on one side only is a difference). Written for two
``chunkwise eval --out`` folders (the labelled set, XQuAD) of two commits, but any
JSON works: objects are compared key by key, lists item by item, numbers and strings
exactly (no tolerance: a behaviour-preserving change must give the same floats).

Left out by default (``DEFAULT_IGNORE``, each a regular expression matched against a
field's key): wall-clock fields, which differ from run to run whatever the code:
``timings`` (indexing/chunking/embedding/bulk seconds), ``latency_ms*`` (search round
trips), ``query_embedding_ms*``, ``seconds``, ``rss_mib``. ``--ignore`` adds more;
``--no-default-ignore`` drops the defaults.

Exit status: 0 identical (after the ignored fields), 1 differences, 2 usage error.
Differences are printed as ``path: a != b`` (the first ``--show`` of them) with a
count per top-level field; ``--json`` writes them all.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_IGNORE = (
    r"^timings$",
    r"^latency_ms.*$",
    r"^query_embedding_ms.*$",
    r"^seconds$",
    r"^rss_mib$",
)


@dataclass
class Report:
    ignore: tuple[re.Pattern[str], ...]
    differences: list[tuple[str, Any, Any]] = field(default_factory=list)
    compared: int = 0  # leaf values compared
    ignored: int = 0  # fields left out by the ignore patterns

    def skip(self, key: str) -> bool:
        return any(p.search(key) for p in self.ignore)


def _missing(value: Any) -> str:
    return f"<missing; other side {type(value).__name__}>"


def compare(a: Any, b: Any, path: str, report: Report) -> None:
    """Record every difference between a and b below path."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if report.skip(str(key)):
                report.ignored += 1
                continue
            sub = f"{path}.{key}" if path else str(key)
            if key not in a:
                report.differences.append((sub, _missing(b[key]), b[key]))
            elif key not in b:
                report.differences.append((sub, a[key], _missing(a[key])))
            else:
                compare(a[key], b[key], sub, report)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            report.differences.append((f"{path}.length", len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            compare(x, y, f"{path}[{i}]", report)
        return
    report.compared += 1
    # type(a) is type(b): 1 and 1.0, or True and 1, are a difference in a JSON output.
    if type(a) is not type(b) or a != b:
        report.differences.append((path, a, b))


def json_files(root: Path) -> dict[str, Path]:
    if root.is_file():
        return {"": root}
    return {str(p.relative_to(root)): p for p in sorted(root.rglob("*.json"))}


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def compare_paths(a: Path, b: Path, report: Report) -> list[str]:
    """Compare two files or two folders; returns the files found on one side only."""
    files_a, files_b = json_files(a), json_files(b)
    if a.is_file() != b.is_file():
        raise SystemExit(f"{a} and {b}: one is a file, the other a folder")
    one_side = sorted(set(files_a) ^ set(files_b))
    for name in sorted(set(files_a) & set(files_b)):
        compare(load(files_a[name]), load(files_b[name]), name, report)
    return one_side


def _short(value: Any, width: int = 100) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= width else text[: width - 3] + "..."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.identity.compare",
        description="compare two JSON outputs (files or folders) field by field, timings left out",
    )
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--ignore", action="append", default=[], help="key regex to leave out")
    parser.add_argument("--no-default-ignore", action="store_true")
    parser.add_argument("--show", type=int, default=40, help="differences to print")
    parser.add_argument("--json", type=Path, help="write every difference here")
    args = parser.parse_args(argv)
    for p in (args.a, args.b):
        if not p.exists():
            print(f"{p}: not found", file=sys.stderr)
            return 2
    patterns = [*([] if args.no_default_ignore else DEFAULT_IGNORE), *args.ignore]
    report = Report(tuple(re.compile(p) for p in patterns))
    one_side = compare_paths(args.a, args.b, report)
    for name in one_side:
        print(f"only on one side: {name}")
    # Counted per top-level field (for folders: per file and its top-level field).
    depth = 2 if len(json_files(args.a)) > 1 else 1
    by_top: Counter[str] = Counter(
        ".".join(re.split(r"[.\[]", d[0])[:depth]) for d in report.differences
    )
    for path, x, y in report.differences[: args.show]:
        print(f"{path}: {_short(x)} != {_short(y)}")
    if len(report.differences) > args.show:
        print(f"... {len(report.differences) - args.show} more")
    for top, count in sorted(by_top.items()):
        print(f"  {count:6d} differences in {top}")
    identical = not report.differences and not one_side
    print(
        f"{'IDENTICAL' if identical else 'DIFFERENT'}: {report.compared} values compared, "
        f"{len(report.differences)} differ, {report.ignored} fields ignored "
        f"({', '.join(patterns) or 'none'}), {len(one_side)} files on one side only"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "identical": identical,
                    "compared": report.compared,
                    "ignored_patterns": patterns,
                    "only_one_side": one_side,
                    "differences": [{"path": p, "a": x, "b": y} for p, x, y in report.differences],
                },
                indent=1,
                ensure_ascii=False,
            )
            + "\n",
            encoding="utf-8",
        )
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
