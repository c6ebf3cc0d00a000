"""The word-processor PDF corpus: every labelled document pinned, in its set, in a family."""

import json
import subprocess
from pathlib import Path

import pytest
from bench.realdocs.__main__ import WPDOCS, Score, load_labels, summary_md
from bench.wpdocs import fetch

LABELS = Path(fetch.__file__).resolve().parent / "labels"


def _label_docs(name: str) -> set[str]:
    lines = (LABELS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["doc"] for line in lines if line.strip()}


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_every_labelled_document_is_pinned_in_its_own_set(split: str) -> None:
    pinned = {s.name: s for s in fetch.SOURCES}
    docs = _label_docs(split)
    assert docs and docs <= set(pinned)
    assert {pinned[d].split for d in docs} == {split}
    assert set(load_labels(split, WPDOCS)) == docs


def test_sources_are_pinned_by_commit_and_sha256() -> None:
    for s in fetch.SOURCES:
        assert s.family in fetch.FAMILIES
        assert len(s.sha256) == 64 and int(s.sha256, 16)
        if s.origin != "office":
            assert len(s.commit) == 40 and s.origin.startswith("git:")


def test_a_file_with_other_bytes_is_changed_not_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fetch, "WORK", tmp_path)
    source = next(s for s in fetch.SOURCES if s.origin != "office")
    assert fetch.state(source) == "missing"
    fetch.resolve(source).parent.mkdir(parents=True)
    fetch.resolve(source).write_bytes(b"%PDF-1.4 not the pinned file")
    assert fetch.state(source) == "changed"
    assert not WPDOCS.usable(fetch.document(source))


def test_git_sources_are_read_from_the_clone_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clone passed with --git is read at the pinned commit; without one nothing is read."""
    monkeypatch.setattr(fetch, "WORK", tmp_path / "work")
    source = next(s for s in fetch.SOURCES if s.origin != "office")
    calls: list[list[str]] = []

    def run(cmd: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, b"%PDF-", b"")

    monkeypatch.setattr(fetch.subprocess, "run", run)
    fetch.fetch_git({})
    assert calls == []
    repo = source.origin.removeprefix("git:")
    fetch.fetch_git({repo: tmp_path / "clone.git"})
    assert ["git", "--git-dir", str(tmp_path / "clone.git"), "show",
            f"{source.commit}:{source.path}"] in calls  # fmt: skip
    assert fetch.resolve(source).read_bytes() == b"%PDF-"


def test_the_summary_sums_per_producer_family() -> None:
    a, b = Score("a", "chunkwise", "en"), Score("b", "chunkwise", "de")
    a.group = b.group = fetch.LIBREOFFICE
    a.total["prose"], a.passed["prose"] = 2, 1
    b.total["prose"], b.passed["prose"] = 2, 2
    rows = summary_md([a, b], "producer family")
    assert rows[0].startswith("| producer family |")
    assert any(r.startswith("| LibreOffice | chunkwise | - | - | 75 % (3/4)") for r in rows)
