"""One guard for every ZIP container (OOXML, OpenDocument, EPUB): nothing is trusted.

A ZIP names its members and their sizes in a central directory that anybody can
write. Before any library sees the bytes, `ZipContainer.open` checks, in this
order and from the directory alone:

1. the number of entries and the directory's size, read from the end record
   BEFORE `zipfile` builds one object per entry (a million tiny entries would
   cost gigabytes of `ZipInfo` objects): ``max_zip_members``;
2. member names: no ``..`` part, no absolute or drive path, no NUL, no name
   twice (traversal and shadowing tricks; a document's parts are always
   relative): `CorruptDocument`;
3. the encryption flag of any member: `EncryptedDocument`;
4. declared uncompressed sizes, per member (``max_member_bytes``) and summed
   (``max_decompressed_bytes``), and the compression ratio of each member over
   1 MB and of the whole archive (``max_compression_ratio``): `LimitExceeded`.

The declared sizes are then checked against the real ones: `verify` inflates
every member once as a stream in `INFLATE_STEP` pieces, keeping nothing,
counting the real bytes against the same caps at every step, and checking that
each member ends exactly at its declared size with its CRC (a member that
declares 2 KB and inflates to 1 GB is a `CorruptDocument` after 2 KB, never a
gigabyte in memory). `read` inflates one member the same way, under a cap.

Nesting: a reader never opens an embedded archive (an XLSX inside a DOCX, a
ZIP inside an EPUB) except through `nested`, which counts the depth against
``max_zip_depth`` and shares the parent's budget of inflated bytes, so a
ZIP-in-ZIP cannot multiply what one level allows. `archives` lists the members
that are ZIPs themselves (found by `verify`), for the report.

Used by: the sniffer (names, the ``mimetype`` member, ``[Content_Types].xml``)
and every ZIP-based reader (`ReadContext.container`); the DOCX reader hands
python-docx the stored copy `repacked` makes.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from .errors import CorruptDocument, EncryptedDocument, ExtractionError, LimitExceeded
from .limits import ExtractLimits

#: Bytes inflated per step: zlib is never asked for more than this at once.
INFLATE_STEP = 64 * 1024
#: Directory bytes allowed per entry: 46 fixed bytes plus name and extra fields.
DIRECTORY_BYTES_PER_MEMBER = 1024
#: Members below this size are not judged by their own ratio (tiny XML parts
#: compress very well); the whole archive still is.
RATIO_FLOOR_BYTES = 1_000_000
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")

_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"
_EOCD_SIZE = 22
_MAX_COMMENT = 0xFFFF


def is_zip(data: bytes) -> bool:
    return data[:4] in ZIP_SIGNATURES


@dataclass
class _Budget:
    """Real inflated bytes, shared by a container and every container nested in it."""

    limit: int
    used: int = 0

    def spend(self, size: int, label: str) -> None:
        self.used += size
        if self.used > self.limit:
            raise LimitExceeded(
                "max_decompressed_bytes",
                self.limit,
                self.used,
                f"{label} members inflate past the limit (zip bomb?)",
            )


def directory_extent(data: bytes) -> tuple[int, int]:
    """(entries, central directory bytes) from the end record, before any parsing.

    The ZIP64 end record is followed when the classic one is saturated.
    """
    tail_start = max(0, len(data) - _EOCD_SIZE - _MAX_COMMENT)
    pos = data.rfind(_EOCD, tail_start)
    if pos < 0 or pos + _EOCD_SIZE > len(data):
        raise CorruptDocument("not a readable ZIP container: no end of central directory")
    entries, size = struct.unpack_from("<HI", data, pos + 10)
    if entries == 0xFFFF or size == 0xFFFFFFFF:
        locator = pos - 20
        if locator >= 0 and data[locator : locator + 4] == _ZIP64_LOCATOR:
            (record,) = struct.unpack_from("<Q", data, locator + 8)
            if data[record : record + 4] != _ZIP64_EOCD or record + 56 > len(data):
                raise CorruptDocument("not a readable ZIP container: broken ZIP64 end record")
            entries, size = struct.unpack_from("<QQ", data, record + 32)
    return entries, size


def _check_extent(data: bytes, limits: ExtractLimits, label: str) -> None:
    entries, size = directory_extent(data)
    if entries > limits.max_zip_members:
        raise LimitExceeded(
            "max_zip_members", limits.max_zip_members, entries, f"too many {label} entries"
        )
    # zipfile reads entries until the directory's size is used up, whatever the count says.
    allowed = limits.max_zip_members * DIRECTORY_BYTES_PER_MEMBER
    if size > allowed:
        raise LimitExceeded(
            "max_zip_members",
            limits.max_zip_members,
            size // 46,
            f"{label} central directory of {size} bytes holds too many entries",
        )


def unsafe_name(name: str) -> bool:
    """A member name that could point outside the container (or hide in it)."""
    if not name or "\x00" in name or name.startswith(("/", "\\")):
        return True
    if len(name) > 1 and name[1] == ":":
        return True  # a drive letter: C:/...
    return ".." in name.replace("\\", "/").split("/")


def _check_names(infos: list[zipfile.ZipInfo], label: str) -> None:
    seen: set[str] = set()
    for info in infos:
        if unsafe_name(info.filename):
            raise CorruptDocument(
                f"{label} member name {info.filename!r} escapes the container (path traversal)"
            )
        if info.filename in seen:
            raise CorruptDocument(f"{label} names the member {info.filename!r} twice")
        seen.add(info.filename)
        if info.flag_bits & 0x1:
            raise EncryptedDocument(
                f"{label} member {info.filename} is encrypted; remove the password and upload again"
            )


def _check_sizes(infos: list[zipfile.ZipInfo], limits: ExtractLimits, label: str) -> None:
    total = compressed = 0
    for info in infos:
        total += info.file_size
        compressed += info.compress_size
        if info.file_size > limits.max_member_bytes:
            raise LimitExceeded(
                "max_member_bytes",
                limits.max_member_bytes,
                info.file_size,
                f"{info.filename} would inflate to {info.file_size} bytes (zip bomb?)",
            )
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > RATIO_FLOOR_BYTES and ratio > limits.max_compression_ratio:
            raise LimitExceeded(
                "max_compression_ratio",
                limits.max_compression_ratio,
                round(ratio),
                f"{info.filename} compresses {ratio:.0f}:1 (zip bomb?)",
            )
    if total > limits.max_decompressed_bytes:
        raise LimitExceeded(
            "max_decompressed_bytes",
            limits.max_decompressed_bytes,
            total,
            f"{label} members would inflate to {total} bytes (zip bomb?)",
        )
    ratio = total / max(compressed, 1)
    if total > RATIO_FLOOR_BYTES and ratio > limits.max_compression_ratio:
        raise LimitExceeded(
            "max_compression_ratio",
            limits.max_compression_ratio,
            round(ratio),
            f"{label} members compress {ratio:.0f}:1 together (zip bomb?)",
        )


@dataclass
class ZipContainer:
    """A ZIP whose directory passed the checks; members are read as bounded streams."""

    archive: zipfile.ZipFile
    limits: ExtractLimits
    label: str
    depth: int = 0
    budget: _Budget = field(default_factory=lambda: _Budget(0))
    archives: list[str] = field(default_factory=list)
    verified: bool = False

    @classmethod
    def open(
        cls,
        data: bytes,
        limits: ExtractLimits,
        *,
        label: str = "ZIP container",
        depth: int = 0,
        budget: _Budget | None = None,
    ) -> ZipContainer:
        _check_extent(data, limits, label)
        try:
            zf = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError) as exc:
            raise CorruptDocument(f"not a readable ZIP container: {exc}") from None
        infos = zf.infolist()
        if len(infos) > limits.max_zip_members:  # the end record may understate it
            raise LimitExceeded(
                "max_zip_members", limits.max_zip_members, len(infos), f"too many {label} entries"
            )
        _check_names(infos, label)
        _check_sizes(infos, limits, label)
        return cls(
            archive=zf,
            limits=limits,
            label=label,
            depth=depth,
            budget=budget or _Budget(limits.max_decompressed_bytes),
        )

    @property
    def names(self) -> list[str]:
        """Member names (directories left out), in directory order."""
        return [i.filename for i in self.archive.infolist() if not i.is_dir()]

    def has(self, name: str) -> bool:
        """A member of that name, or (a name ending in ``/``) any member under it."""
        if name.endswith("/"):
            return any(n.startswith(name) for n in self.names)
        return name in self.archive.NameToInfo

    def read(self, name: str, *, cap: int | None = None) -> bytes:
        """One member, inflated as a stream; more than ``cap`` bytes is a LimitExceeded."""
        try:
            info = self.archive.getinfo(name)
        except KeyError:
            raise CorruptDocument(f"{self.label} has no member {name}") from None
        limit = min(cap or self.limits.max_member_bytes, self.limits.max_member_bytes)
        return b"".join(self._inflate(info, limit))

    def read_head(self, name: str, size: int) -> bytes:
        """The first ``size`` bytes of a member (a ``mimetype`` marker), or b"" if absent."""
        if name not in self.archive.NameToInfo:
            return b""
        try:
            with self.archive.open(name) as member:
                return member.read(size)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError):
            return b""

    def verify(self) -> None:
        """Inflate every member once (nothing kept): real sizes and CRCs as declared."""
        if self.verified:
            return
        for info in self.archive.infolist():
            if info.is_dir():
                continue
            head = b""
            for step in self._inflate(info, self.limits.max_member_bytes):
                self.budget.spend(len(step), self.label)
                head = head or step[:4]
            if head in ZIP_SIGNATURES:
                self.archives.append(info.filename)
        self.verified = True

    def nested(self, name: str) -> ZipContainer:
        """An embedded archive, opened under the same guard, one level deeper."""
        if self.depth + 1 > self.limits.max_zip_depth:
            raise LimitExceeded(
                "max_zip_depth",
                self.limits.max_zip_depth,
                self.depth + 1,
                f"{name} is a ZIP inside a ZIP (nesting)",
            )
        inner = self.read(name)
        self.budget.spend(len(inner), self.label)
        return ZipContainer.open(
            inner,
            self.limits,
            label=f"{self.label} > {name}",
            depth=self.depth + 1,
            budget=self.budget,
        )

    def repacked(self) -> bytes:
        """The verified members as a stored (uncompressed) ZIP, for libraries that
        re-read the archive: they then inflate nothing."""
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as copy:
            for info in self.archive.infolist():
                if not info.is_dir():
                    content = b"".join(self._inflate(info, self.limits.max_member_bytes))
                    self.budget.spend(len(content), self.label)
                    copy.writestr(info.filename, content)
        return out.getvalue()

    def _inflate(self, info: zipfile.ZipInfo, cap: int) -> Iterator[bytes]:
        """A member's bytes in steps; the real count is checked against the cap
        and, at the end, against the declared size."""
        size = 0
        try:
            with self.archive.open(info) as member:
                while step := member.read(INFLATE_STEP):
                    size += len(step)
                    if size > cap:
                        raise LimitExceeded(
                            "max_member_bytes",
                            cap,
                            size,
                            f"{info.filename} inflates past the limit (zip bomb?)",
                        )
                    yield step
        except ExtractionError:
            raise
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
            # zipfile raises BadZipFile for a CRC or size mismatch, RuntimeError when encrypted
            raise CorruptDocument(
                f"{self.label} member {info.filename} does not inflate as declared: "
                f"{type(exc).__name__}"
            ) from None
        if size != info.file_size:
            raise CorruptDocument(
                f"{self.label} member {info.filename} inflates to {size} bytes, "
                f"not the {info.file_size} it declares"
            )
