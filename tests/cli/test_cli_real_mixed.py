"""`chunkwise chunk` on a real mixed-language document: the German Debian Reference.

Its translation leaves some paragraphs in English. The seven checked here were
found and read by hand; they must come out as English chunks, and the German
text around them as German. The document is a pinned Debian package fetched by
`make fetch-mixed-doc` (scripts/fetch-mixed-doc.sh) into .local/.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_cli_process import CLI

ROOT = Path(__file__).resolve().parents[2] / ".local/mixed/root/usr/share/debian-reference"
ENGLISH_PARAGRAPHS = {
    "ch02.de.html": ["The file name specification of the command line and the menu prompt"],
    "ch03.de.html": [
        "For UEFI system, GRUB2 first reads the ESP partition",
        # Two tips, read as paragraphs since layout tables are no longer tables.
        "You can enable to see kerrnel boot log messages",
        "You can customize GRUB splash image",
    ],
    "ch06.de.html": ["Debian traditionally installed some MTA program"],
    "ch09.de.html": [
        "Please note that access to non-free-firmware packages",
        "The sbuild package to build Debian packages from source",
    ],
}

pytestmark = pytest.mark.skipif(
    not ROOT.is_dir(), reason="needs the real document: make fetch-mixed-doc"
)


def _chunks(path: Path) -> list[dict[str, object]]:
    out = subprocess.run([*CLI, "chunk", str(path)], capture_output=True, check=True).stdout
    return [json.loads(line) for line in out.decode("utf-8").splitlines()]


@pytest.mark.parametrize("name", sorted(ENGLISH_PARAGRAPHS))
def test_untranslated_english_paragraphs_are_english_chunks(name: str) -> None:
    chunks = _chunks(ROOT / name)
    for opening in ENGLISH_PARAGRAPHS[name]:
        (chunk,) = [c for c in chunks if opening in str(c["body"])]
        assert chunk["lang"] == "en", opening
    german = [c for c in chunks if c["lang"] == "de"]
    # Everything else stays German: at most the known English paragraphs are not.
    assert len(chunks) - len(german) == len(ENGLISH_PARAGRAPHS[name])


def test_offsets_hold_on_the_real_document() -> None:
    path = ROOT / "ch09.de.html"
    text = subprocess.run([*CLI, "extract", str(path)], capture_output=True, check=True).stdout
    canonical = text.decode("utf-8")
    for c in _chunks(path):
        assert canonical[int(str(c["start"])) : int(str(c["end"]))] == c["body"]
