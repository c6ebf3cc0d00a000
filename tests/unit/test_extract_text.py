"""Plain text, Markdown and encodings."""

from __future__ import annotations

import pytest

from chunkwise.errors import PermanentError
from chunkwise.extract import (
    DocFormat,
    EmptyDocument,
    ExtractLimits,
    LimitExceeded,
    UnsupportedEncoding,
    UnsupportedFormat,
    extract,
)
from chunkwise.extract.model import sha256_text
from chunkwise.extract.text import decode_text

GERMAN = "Größe: 5 Mio. Euro für Änderungen, z. B. am 3. Oktober \u2013 „Übung“.\n"


def test_utf8_text_kept_exactly_and_hashed() -> None:
    r = extract(GERMAN.encode("utf-8"), filename="notes.txt")
    assert r.text == GERMAN
    assert r.report.format is DocFormat.TEXT
    assert r.report.encoding == "utf-8"
    assert r.content_sha256 == sha256_text(r.text) == r.report.content_sha256
    assert r.report.chars == len(r.text)


def test_utf8_bom_is_stripped() -> None:
    r = extract(b"\xef\xbb\xbf" + GERMAN.encode("utf-8"), filename="x.txt")
    assert r.text == GERMAN
    assert not r.text.startswith("\ufeff")
    assert r.report.encoding == "utf-8-bom"


@pytest.mark.parametrize("enc,bom", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")])
def test_utf16_with_bom(enc: str, bom: bytes) -> None:
    r = extract(bom + GERMAN.encode(enc), filename="x.txt")
    assert r.text == GERMAN
    assert r.report.encoding == f"{enc}-bom"


def test_utf16_without_bom_is_rejected_as_binary() -> None:
    with pytest.raises(UnsupportedFormat) as e:
        extract(GERMAN.encode("utf-16-le"), filename="x.txt")
    assert "NUL" in e.value.reason


def test_crlf_normalised() -> None:
    r = extract(b"# Title\r\n\r\nLine one\r\nLine two\r\n", filename="a.md")
    assert r.text == "# Title\n\nLine one\nLine two\n"


def test_legacy_cp1252_german_accepted_with_warning() -> None:
    data = "Die Größe der Übung beträgt 5 €; Straße „Süd“.\n".encode("cp1252")
    r = extract(data, filename="alt.txt")
    assert r.text == "Die Größe der Übung beträgt 5 €; Straße „Süd“.\n"
    assert r.report.encoding == "cp1252"
    assert any("Windows-1252" in w for w in r.report.warnings)


@pytest.mark.parametrize(
    "line",
    [
        "Schraube M4 × 20, verzinkt; 0,12 €",  # the multiplication sign between numbers
        "Unterlegscheibe Ø 4,3; 0,03 €",  # the diameter sign alone before a number
        "Teiler 10 ÷ 2; Rohr ø 12 mm",
    ],
)
def test_cp1252_symbols_of_product_lists_decode(line: str) -> None:
    """German Excel exports write ×, ÷ and the diameter sign Ø/ø between spaces: symbols,
    not letters of a word, so the letter-next-to-letter rule must not refuse them."""
    text, encoding = decode_text(f"Artikel;Bezeichnung\r\nA-1;{line}\r\n".encode("cp1252"))
    assert encoding == "cp1252"
    assert line in text


def test_legacy_other_codepage_rejected() -> None:
    data = "Привет, как дела? Это текст.".encode("cp1251")
    with pytest.raises(UnsupportedEncoding) as e:
        extract(data, filename="ru.txt")
    assert "UTF-8" in e.value.reason
    assert isinstance(e.value, PermanentError)


def test_random_high_bytes_rejected() -> None:
    data = bytes((i * 97 + 13) % 128 + 128 for i in range(2000))
    with pytest.raises(UnsupportedFormat):
        extract(data, filename="x.txt")


def test_zero_bytes_and_whitespace_only() -> None:
    with pytest.raises(EmptyDocument) as e:
        extract(b"", filename="empty.txt")
    assert e.value.reason
    with pytest.raises(EmptyDocument):
        extract(b" \n\n\t\n", filename="blank.md")


def test_markdown_passthrough_and_tables_reported() -> None:
    md = (
        "# Handbuch\n\nEinleitung.\n\nTabelle 1: Preise\n\n"
        "| Plan | Preis |\n| --- | --- |\n| Team | 10 € |\n\n## Ende\n"
    )
    r = extract(md.encode(), filename="handbuch.md")
    assert r.text == md
    assert r.report.format is DocFormat.MARKDOWN
    assert r.report.tables_found == 1
    t = r.report.tables[0]
    assert t.header == "| Plan | Preis |"
    assert r.text[t.start : t.end].startswith("| Plan | Preis |")
    assert t.rows == 1


def test_text_limit_checked_before_decoding() -> None:
    with pytest.raises(LimitExceeded) as e:
        extract(b"a" * 2000, filename="x.txt", limits=ExtractLimits(max_text_bytes=1000))
    assert "max_text_bytes" in e.value.reason


def test_max_bytes() -> None:
    with pytest.raises(LimitExceeded) as e:
        extract(b"a" * 2000, limits=ExtractLimits(max_bytes=1000))
    assert e.value.limit == "max_bytes"


def test_bad_limit_rejected() -> None:
    with pytest.raises(ValueError, match="max_pages"):
        ExtractLimits(max_pages=0)


def test_markdown_samples_keep_headings_and_tables() -> None:
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "data"
    expected = {
        "manual_en.md": [
            "# X17 Pump Operating Manual\n",
            "## 3 Maintenance\n",
            "Table 1: Plans and prices\n\n| Plan | Price per user | Storage | Support |\n",
            "| Enterprise | 45 USD | Unlimited | Dedicated manager, 1 hour |",
        ],
        "handbuch_de.md": [
            "# Betriebsanleitung Pumpe X17\n",
            "## 1 Sicherheit\n",
            "Tabelle 1: Tarife und Preise\n\n| Tarif | Preis pro Nutzer | Speicher | Support |\n",
            "| Kostenlos | 0 € | 5 GB | Community-Forum |",
        ],
    }
    for name, parts in expected.items():
        r = extract((data / name).read_bytes(), filename=name)
        assert r.report.format is DocFormat.MARKDOWN
        for part in parts:
            assert part in r.text, (name, part)
        assert len(r.report.tables) == 1
