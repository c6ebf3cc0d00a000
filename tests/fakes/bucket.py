"""The one fake of a versioned S3 bucket: HEAD current, GET exact version, LIST current.

`put` numbers versions itself (v0001, ... with a ticking clock); `put_version` takes
the version id and time from the test. `None` in a key's list marks a delete marker.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from chunkwise.errors import TransientError
from chunkwise.index.versions import ObjectVersion


@dataclass
class _Obj:
    version: ObjectVersion | None  # None = delete marker
    data: bytes = b""


@dataclass
class FakeBucket:
    """A versioned bucket: key -> versions (newest last); None marks a delete marker."""

    bucket: str = "bucket"
    objects: dict[str, list[_Obj]] = field(default_factory=dict)
    gets: list[tuple[str, str]] = field(default_factory=list)
    heads: int = 0
    clock: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def put(self, key: str, data: bytes, metadata: dict[str, str] | None = None) -> ObjectVersion:
        """A new version of ``key``; ``metadata``: its user metadata (``x-amz-meta-*``)."""
        with self.lock:
            self.clock += 1
            vid = f"v{self.clock:04d}"
            v = ObjectVersion(
                last_modified=f"2026-03-02T09:{self.clock // 60:02d}:{self.clock % 60:02d}.000Z",
                version_id=vid,
                key=key,
                bucket=self.bucket,
                etag='"' + hashlib.md5(data).hexdigest() + '"',
                size=len(data),
                user_metadata=tuple(sorted((metadata or {}).items())),
            )
            self.objects.setdefault(key, []).append(_Obj(v, data))
            return v

    def put_version(
        self, key: str, version_id: str, last_modified: str, data: bytes = b""
    ) -> ObjectVersion:
        """A version with the given id and time (the etag is the version id)."""
        v = ObjectVersion(
            last_modified=last_modified,
            version_id=version_id,
            key=key,
            bucket=self.bucket,
            etag=f'"{version_id}"',
        )
        with self.lock:
            self.objects.setdefault(key, []).append(_Obj(v, data))
        return v

    def delete(self, key: str) -> None:
        with self.lock:
            self.clock += 1
            self.objects.setdefault(key, []).append(_Obj(None))

    def head_current(self, key: str) -> ObjectVersion | None:
        with self.lock:
            self.heads += 1
            lst = self.objects.get(key)
            return lst[-1].version if lst else None

    def get_version(self, key: str, version_id: str) -> bytes:
        with self.lock:
            self.gets.append((key, version_id))
            for o in self.objects.get(key, []):
                if o.version is not None and o.version.version_id == version_id:
                    return o.data
        raise TransientError(f"NoSuchVersion {key}@{version_id}")

    def list_current(self, prefix: str = "") -> Iterator[ObjectVersion]:
        for key in sorted(self.objects):
            if key.startswith(prefix):
                v = self.head_current(key)
                if v is not None:
                    yield v
