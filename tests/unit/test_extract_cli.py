"""`main_extract`, the `chunkwise extract FILE` entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkwise.cli.extract import main_extract

DATA = Path(__file__).resolve().parents[1] / "data"


def test_prints_canonical_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_extract([str(DATA / "manual_en.md")]) == 0
    out = capsys.readouterr().out
    assert out == (DATA / "manual_en.md").read_text(encoding="utf-8")


def test_report_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main_extract([str(DATA / "pricing_en.html"), "--report"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["format"] == "html" and report["tables_found"] == 2
    assert main_extract([str(DATA / "pricing_en.html"), "--json", "--out-dir", str(tmp_path)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["text"].startswith("# Pricing and Features")
    assert (tmp_path / "pricing_en.md").read_text(encoding="utf-8") == payload["text"]
    assert json.loads((tmp_path / "pricing_en.json").read_text())["content_sha256"]


def test_rejected_document_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_extract([str(DATA / "hostile" / "image.pdf")]) == 3
    err = capsys.readouterr().err
    assert "UnsupportedFormat" in err and "PNG" in err


def test_missing_file_exit_3(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main_extract([str(tmp_path / "nope.pdf")]) == 3
    assert "cannot read" in capsys.readouterr().err


def test_limit_flag(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pdfplumber")
    assert main_extract([str(DATA / "catalog_en_repeat.pdf"), "--max-pages", "1"]) == 3
    assert "max_pages" in capsys.readouterr().err
    assert main_extract([str(DATA / "manual_en.md"), "--max-pages", "0"]) == 2


def test_usage_errors_return_instead_of_exiting(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_extract([]) == 2
    assert main_extract(["--help"]) == 0
    assert "chunkwise extract" in capsys.readouterr().out
