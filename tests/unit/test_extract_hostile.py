"""Hostile inputs: each gives a typed, permanent error with a reason, fast and small."""

from __future__ import annotations

import importlib.util
import io
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from bench.faults.poison import declare_size

from chunkwise.errors import PermanentError
from chunkwise.extract import (
    CorruptDocument,
    EmptyDocument,
    EncryptedDocument,
    ExtractionError,
    ExtractLimits,
    LimitExceeded,
    UnsupportedFormat,
    extract,
)

DATA = Path(__file__).resolve().parents[1] / "data"
HOSTILE = DATA / "hostile"
# The PDF parser is the optional `extract` extra; skip (not fail) where it is absent.
needs_pdf = pytest.mark.skipif(
    importlib.util.find_spec("pdfplumber") is None, reason="pdfplumber not installed"
)

CASES = {
    "encrypted.pdf": (EncryptedDocument, "password"),
    "corrupt.pdf": (CorruptDocument, "PDF"),
    "truncated.pdf": (CorruptDocument, "PDF"),
    "bomb.docx": (LimitExceeded, "zip bomb"),
    "binary.txt": (UnsupportedFormat, "binary"),
    "empty.txt": (EmptyDocument, "0-byte"),
    "image.pdf": (UnsupportedFormat, "PNG image"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_sample_gives_typed_error_quickly(name: str) -> None:
    error, words = CASES[name]
    if name in ("encrypted.pdf", "corrupt.pdf", "truncated.pdf"):
        pytest.importorskip("pdfplumber")
    data = (HOSTILE / name).read_bytes()
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(error) as e:
            extract(data, filename=name)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.monotonic() - t0 < 5.0
    assert peak < 64 * 1024 * 1024, f"peak Python allocation {peak} bytes"
    assert isinstance(e.value, PermanentError) and isinstance(e.value, ExtractionError)
    assert words in e.value.reason
    assert type(e.value).__name__ in str(e.value)


def test_bomb_is_small_on_disk() -> None:
    assert (HOSTILE / "bomb.docx").stat().st_size < 10_000
    with zipfile.ZipFile(HOSTILE / "bomb.docx") as zf:
        assert zf.getinfo("word/document.xml").file_size == 1 << 30


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return buf.getvalue()


def test_high_compression_ratio_member_rejected() -> None:
    data = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"\0" * (20 << 20)})
    assert len(data) < 100_000
    with pytest.raises(LimitExceeded) as e:
        extract(data, filename="x.docx")
    assert e.value.limit == "max_compression_ratio"


def test_total_decompressed_size_limit() -> None:
    data = _zip(
        {"word/document.xml": b"<w/>", "a.bin": bytes(range(256)) * 8192}, zipfile.ZIP_STORED
    )
    with pytest.raises(LimitExceeded) as e:
        extract(data, filename="x.docx", limits=ExtractLimits(max_decompressed_bytes=1_000_000))
    assert e.value.limit == "max_decompressed_bytes"


def test_too_many_members() -> None:
    members = {f"word/media/{i}.xml": b"x" for i in range(60)}
    members["word/document.xml"] = b"<w/>"
    with pytest.raises(LimitExceeded) as e:
        extract(_zip(members), filename="x.docx", limits=ExtractLimits(max_zip_members=50))
    assert e.value.limit == "max_zip_members"


@pytest.mark.skipif(importlib.util.find_spec("docx") is None, reason="python-docx missing")
def test_member_lying_about_its_size_is_corrupt() -> None:
    """Declared small, inflates larger: zipfile stops at the declared size (CRC error)."""
    real = (DATA / "pricing_en.docx").read_bytes()
    src = zipfile.ZipFile(io.BytesIO(real))
    info = src.getinfo("word/document.xml")
    content = src.read(info)
    lie = len(content) // 10
    out = bytearray(real)
    # patch the uncompressed size in the local header and the central directory
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):
        pos = 0
        while (pos := out.find(sig, pos)) >= 0:
            name_off = 30 if sig == b"PK\x03\x04" else 46
            size_off = 22 if sig == b"PK\x03\x04" else 24
            n = int.from_bytes(
                out[pos + 28 : pos + 30] if sig == b"PK\x01\x02" else out[pos + 26 : pos + 28],
                "little",
            )
            if out[pos + name_off : pos + name_off + n] == b"word/document.xml":
                out[pos + size_off : pos + size_off + 4] = lie.to_bytes(4, "little")
            pos += 4
    with pytest.raises(CorruptDocument) as e:
        extract(bytes(out), filename="liar.docx")
    assert "DOCX" in e.value.reason


def test_other_zip_is_not_docx() -> None:
    data = _zip({"xl/workbook.xml": b"<workbook/>"})
    with pytest.raises(UnsupportedFormat) as e:
        extract(data, filename="sheet.docx")
    assert "XLSX" in e.value.reason


def test_garbage_named_docx() -> None:
    with pytest.raises(UnsupportedFormat) as e:
        extract(b"hello world", filename="x.docx")
    assert "ZIP" in e.value.reason


@needs_pdf
def test_max_pages() -> None:
    with pytest.raises(LimitExceeded) as e:
        extract((DATA / "catalog_en_repeat.pdf").read_bytes(), limits=ExtractLimits(max_pages=2))
    assert e.value.limit == "max_pages" and e.value.actual == 3


@needs_pdf
def test_time_budget() -> None:
    with pytest.raises(LimitExceeded) as e:
        extract(
            (DATA / "catalog_en_repeat.pdf").read_bytes(),
            limits=ExtractLimits(max_seconds=1e-9),
        )
    assert e.value.limit == "max_seconds"


def test_max_output_chars() -> None:
    with pytest.raises(LimitExceeded) as e:
        extract(b"word " * 100, limits=ExtractLimits(max_output_chars=10))
    assert e.value.limit == "max_output_chars"


@pytest.mark.parametrize(
    "data,error",
    [
        (b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 100, UnsupportedFormat),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, UnsupportedFormat),
        pytest.param(b"%PDF-1.4\n", CorruptDocument, marks=needs_pdf),
        (b"PK\x03\x04garbage", CorruptDocument),
    ],
)
def test_misc_binary(data: bytes, error: type[Exception]) -> None:
    with pytest.raises(error):
        extract(data, filename="upload")


@pytest.mark.skipif(importlib.util.find_spec("docx") is None, reason="python-docx missing")
def test_member_declaring_2_kb_is_inflated_as_a_bounded_stream() -> None:
    """A deflate stream of 64 MiB declared as 2 KB: ZipFile.read inflates the whole stream
    before cutting it to the declared size; the streaming inflate never holds more than
    a few steps of it."""
    import tracemalloc

    with zipfile.ZipFile(DATA / "pricing_en.docx") as src:  # a real package around the bomb
        members = {i.filename: src.read(i) for i in src.infolist()}
    members["word/document.xml"] = b"\0" * (64 << 20)
    liar = declare_size(_zip(members), b"word/document.xml", 2048)
    assert len(liar) < 200_000
    tracemalloc.start()
    try:
        with pytest.raises(CorruptDocument) as e:
            extract(liar, filename="liar.docx")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"peak {peak >> 20} MiB while rejecting a 2 KB member"
    assert "does not inflate as declared" in e.value.reason
