"""Pinned Debian packages for the real-text benchmarks, fetched once into `.local/`.

Each package is downloaded with ``apt-get download NAME=VERSION`` (a pinned version:
another one is refused rather than silently measuring other files) and unpacked with
``dpkg-deb -x``. Nothing fetched here is committed.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path


def _deb_exists(debs: Path, name: str, version: str) -> bool:
    # apt-get writes an epoch "4:" as "4%3a" in the file name.
    file_version = version.replace(":", "%3a")
    return bool(list(debs.glob(f"{name}_{file_version}_*.deb")))


def fetch_pinned(packages: Mapping[str, str], workdir: Path) -> Path:
    """Download the missing packages, unpack each .deb once; returns the unpacked root."""
    debs, root = workdir / "debs", workdir / "root"
    debs.mkdir(parents=True, exist_ok=True)
    missing = [f"{n}={v}" for n, v in packages.items() if not _deb_exists(debs, n, v)]
    if missing:
        subprocess.run(["apt-get", "download", *missing], cwd=debs, check=True)
    root.mkdir(exist_ok=True)
    for deb in sorted(debs.glob("*.deb")):
        stamp = root / f".{deb.name}.unpacked"
        if not stamp.exists():
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
            stamp.touch()
    return root
