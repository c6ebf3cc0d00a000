"""The shared ZIP guard (extract/containers.py): bombs in every container format,
traversal, encryption, nesting, declared vs real sizes."""

from __future__ import annotations

import io
import time
import tracemalloc
import zipfile
import zlib

import pytest
from bench.faults.zip_bombs import FORMATS, KINDS, bomb, raw_zip

from chunkwise.extract import (
    CorruptDocument,
    EncryptedDocument,
    ExtractionError,
    ExtractLimits,
    LimitExceeded,
    extract,
)
from chunkwise.extract.containers import ZipContainer, directory_extent, unsafe_name

#: What refuses each kind of bomb, and the limit named (None: not a limit).
REFUSAL: dict[str, tuple[type[ExtractionError], str | None]] = {
    "declared": (LimitExceeded, "max_member_bytes"),
    "liar": (CorruptDocument, None),
    "spread": (LimitExceeded, "max_decompressed_bytes"),
    "entries": (LimitExceeded, "max_zip_members"),
}


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return buf.getvalue()


@pytest.mark.parametrize("kind", sorted(REFUSAL))
@pytest.mark.parametrize("fmt", FORMATS)
def test_bomb_refused_fast_and_small(fmt: str, kind: str) -> None:
    data = bomb(fmt, kind)
    assert len(data) < 8 << 20
    error, limit = REFUSAL[kind]
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(error) as e:
            extract(data, filename=f"bomb.{fmt}")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - t0 < 5.0
    assert peak < 300 << 20, f"peak Python allocation {peak >> 20} MiB"
    if limit is not None:
        assert isinstance(e.value, LimitExceeded) and e.value.limit == limit
    else:
        assert "does not inflate as declared" in e.value.reason


@pytest.mark.parametrize("fmt", FORMATS)
def test_nested_bomb_is_never_opened(fmt: str) -> None:
    """A ZIP inside the ZIP is counted as the bytes it is, never inflated by a reader."""
    data = bomb(fmt, "nested")
    t0 = time.monotonic()
    container = ZipContainer.open(data, ExtractLimits())
    container.verify()
    assert container.archives and container.archives[0].endswith(".zip")
    tracemalloc.start()
    try:
        with pytest.raises(ExtractionError):
            extract(data, filename=f"nested.{fmt}")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - t0 < 5.0 and peak < 300 << 20
    # Opened on purpose, the inner archive meets the same guard one level down...
    with pytest.raises(LimitExceeded) as e:
        container.nested(container.archives[0])
    assert e.value.limit == "max_member_bytes"
    # ... and no deeper than allowed.
    flat = ZipContainer.open(data, ExtractLimits(max_zip_depth=0))
    with pytest.raises(LimitExceeded) as e:
        flat.nested(container.archives[0])
    assert e.value.limit == "max_zip_depth"


def test_every_bomb_kind_is_covered() -> None:
    assert set(REFUSAL) | {"nested"} == set(KINDS)


def test_member_count_is_read_before_zipfile_parses_the_directory() -> None:
    data = bomb("xlsx", "entries")
    assert directory_extent(data)[0] == 60_002
    tracemalloc.start()
    try:
        with pytest.raises(LimitExceeded):
            ZipContainer.open(data, ExtractLimits())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, "the directory was parsed before the count was checked"


def test_end_record_understating_the_count_is_still_caught() -> None:
    members = {f"m{i}": b"" for i in range(30)}
    data = bytearray(_zip(members, zipfile.ZIP_STORED))
    eocd = data.rfind(b"PK\x05\x06")
    data[eocd + 8 : eocd + 12] = (2).to_bytes(2, "little") * 2  # claims 2 entries
    with pytest.raises(LimitExceeded) as e:
        ZipContainer.open(bytes(data), ExtractLimits(max_zip_members=10))
    assert e.value.limit == "max_zip_members"


@pytest.mark.parametrize(
    "name", ["../evil.xml", "a/../../evil", "/etc/passwd", "\\win.ini", "C:/x", "a\\..\\b"]
)
def test_path_traversal_refused(name: str) -> None:
    assert unsafe_name(name)
    data = raw_zip([(name, b"x", zipfile.ZIP_STORED, 1, zlib.crc32(b"x"))])
    with pytest.raises(CorruptDocument) as e:
        ZipContainer.open(data, ExtractLimits())
    assert "path traversal" in e.value.reason


def test_ordinary_names_are_safe() -> None:
    assert not any(unsafe_name(n) for n in ("xl/workbook.xml", "[Content_Types].xml", "a..b"))


def test_duplicate_member_names_refused() -> None:
    entry = ("word/document.xml", b"x", zipfile.ZIP_STORED, 1, zlib.crc32(b"x"))
    with pytest.raises(CorruptDocument) as e:
        ZipContainer.open(raw_zip([entry, entry]), ExtractLimits())
    assert "twice" in e.value.reason


def test_encrypted_member_refused() -> None:
    data = bytearray(_zip({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<w/>"}))
    pos = 0
    while (pos := data.find(b"PK\x01\x02", pos)) >= 0:  # set bit 0 of every flag word
        data[pos + 8] |= 1
        pos += 4
    with pytest.raises(EncryptedDocument) as e:
        extract(bytes(data), filename="locked.xlsx")
    assert "encrypted" in e.value.reason


def test_whole_archive_ratio_counts_small_members_together() -> None:
    members = {f"xl/p{i}.xml": bytes(500_000) for i in range(10)}
    members["[Content_Types].xml"] = b"<Types/>"
    with pytest.raises(LimitExceeded) as e:
        ZipContainer.open(_zip(members), ExtractLimits())
    assert e.value.limit == "max_compression_ratio" and "together" in e.value.reason


def test_real_sizes_are_counted_against_the_budget() -> None:
    """verify() counts what really inflates, not what the directory says."""
    import random

    content = random.Random(3).randbytes(300_000)
    data = _zip({"a.bin": content, "b.bin": content})
    container = ZipContainer.open(data, ExtractLimits())
    container.verify()
    assert container.budget.used == 600_000
    tight = ZipContainer.open(data, ExtractLimits(max_decompressed_bytes=700_000))
    tight.budget.limit = 400_000  # as if the directory had understated the sizes
    with pytest.raises(LimitExceeded) as e:
        tight.verify()
    assert e.value.limit == "max_decompressed_bytes"


def test_read_is_capped_and_repacked_copy_is_stored() -> None:
    data = _zip({"a.xml": b"<a>" + b"x" * 10_000 + b"</a>"})
    container = ZipContainer.open(data, ExtractLimits())
    with pytest.raises(LimitExceeded):
        container.read("a.xml", cap=1000)
    assert container.read("a.xml").startswith(b"<a>")
    copy = zipfile.ZipFile(io.BytesIO(container.repacked()))
    assert copy.getinfo("a.xml").compress_type == zipfile.ZIP_STORED
