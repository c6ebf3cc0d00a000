"""Names of one deployment's indexes and aliases, document ids, the alias swap (pure).

- physical index per generation: ``<prefix>-<generation>`` (default prefix ``chunks``)
- read alias ``<prefix>`` (filtered: only ``state == live`` chunks are visible)
- write alias ``<prefix>-write`` (unfiltered, ``is_write_index``)
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from chunkwise.errors import ConfigError
from chunkwise.index.states import State

DEFAULT_PREFIX = "chunks"
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.]{0,99}$")
_PREFIX_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,99}$")
#: What a generation id may look like (also checked on queue messages that name one).
GENERATION_RE = _NAME_RE


@dataclass(frozen=True)
class IndexNames:
    """Index and alias names of one deployment (tests use a unique prefix)."""

    prefix: str = DEFAULT_PREFIX

    def __post_init__(self) -> None:
        if not _PREFIX_RE.match(self.prefix):
            raise ConfigError(
                f"prefix: must be lowercase [a-z0-9_.-], start alphanumeric; got {self.prefix!r}"
            )

    @property
    def read_alias(self) -> str:
        return self.prefix

    @property
    def write_alias(self) -> str:
        return f"{self.prefix}-write"

    def index(self, generation: str) -> str:
        if not _NAME_RE.match(generation) or generation in ("write", "read"):
            raise ConfigError(
                "generation: must be lowercase [a-z0-9_.], start alphanumeric, and not "
                f"'write'/'read'; got {generation!r}"
            )
        return f"{self.prefix}-{generation}"

    def generation_of(self, index: str) -> str | None:
        head = f"{self.prefix}-"
        if not index.startswith(head):
            return None
        gen = index[len(head) :]
        return gen if _NAME_RE.match(gen) and gen not in ("write", "read") else None


def new_generation_id(now: datetime | None = None) -> str:
    """Sortable generation id from the clock, e.g. ``g20250101t120000``."""
    t = now or datetime.now(UTC)
    return t.strftime("g%Y%m%dt%H%M%S")


def make_doc_id(bucket: str, key: str) -> str:
    """Stable document id of an S3 object (bucket + key), safe in ``_id`` and routing."""
    return hashlib.sha256(f"{bucket}\x00{key}".encode()).hexdigest()[:32]


def template_name(names: IndexNames) -> str:
    return f"{names.prefix}-chunks"


def read_alias_filter() -> dict[str, Any]:
    return {"term": {"state": State.LIVE.value}}


def swap_actions(
    names: IndexNames,
    new_index: str,
    *,
    current_write: Sequence[str] = (),
    current_read: Sequence[str] = (),
) -> dict[str, Any]:
    """Body of one atomic ``POST _aliases`` moving both aliases to ``new_index``."""
    actions: list[dict[str, Any]] = []
    for idx in current_write:
        if idx != new_index:
            actions.append({"remove": {"index": idx, "alias": names.write_alias}})
    for idx in current_read:
        if idx != new_index:
            actions.append({"remove": {"index": idx, "alias": names.read_alias}})
    actions.append(
        {"add": {"index": new_index, "alias": names.write_alias, "is_write_index": True}}
    )
    actions.append(
        {"add": {"index": new_index, "alias": names.read_alias, "filter": read_alias_filter()}}
    )
    return {"actions": actions}
