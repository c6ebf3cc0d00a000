"""The index port in memory, and synthetic chunks of a revision (unit and integration tests)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from chunkwise.index.bodies import (
    ObjectVersion,
    RevisionState,
    State,
)
from chunkwise.schema import Chunk


def make_chunks(doc_id: str, v: ObjectVersion, n: int = 3, lang: str = "en") -> list[Chunk]:
    """n synthetic chunks of one revision, bodies back to back (no separator)."""
    bodies = [
        f"Revision {v.version_id} of {v.key}, part {i}: lorem ipsum dolor. " for i in range(n)
    ]
    return _chunks(doc_id, v, bodies, separator="", lang=lang)


class FakeIndex:
    """IndexPort in memory: _id -> (revision, chunk_index, state, expected)."""

    def __init__(self) -> None:
        self.docs: dict[str, dict[str, tuple[str, int, State, int]]] = {}
        self.lock = threading.Lock()
        self.fail_revisions: set[str] = set()
        # doc_id -> {revision: (key, reason)}: failure markers
        self.failures: dict[str, dict[str, tuple[str, str]]] = {}

    def record_failure(self, doc_id: str, key: str, revision: str, reason: str) -> None:
        with self.lock:
            self.failures.setdefault(doc_id, {})[revision] = (key, reason)

    def revision_states(self, doc_id: str) -> dict[str, RevisionState]:
        with self.lock:
            counts: dict[str, dict[str, int]] = {}
            expected: dict[str, int] = {}
            for rev, _i, st, exp in self.docs.get(doc_id, {}).values():
                c = counts.setdefault(rev, {})
                c[st.value] = c.get(st.value, 0) + 1
                expected[rev] = max(expected.get(rev, 0), exp)
            return {r: RevisionState(r, c, expected[r]) for r, c in counts.items()}

    def write_revision(
        self, chunks: Sequence[Chunk], embeddings: Sequence[Sequence[float]]
    ) -> None:
        from chunkwise.errors import PermanentError

        if chunks and chunks[0].revision in self.fail_revisions:
            raise PermanentError("mapping failure (fake)")
        with self.lock:
            for c in chunks:
                d = self.docs.setdefault(c.doc_id, {})
                d[c.chunk_id] = (c.revision, c.chunk_index, State.PENDING, len(chunks))
            # As the adapter: chunks of an earlier, longer write of this revision go.
            if chunks:
                d = self.docs[chunks[0].doc_id]
                for cid, (rev, i, _st, _exp) in list(d.items()):
                    if rev == chunks[0].revision and i >= len(chunks):
                        del d[cid]

    def flip_live(self, doc_id: str, revision: str) -> None:
        with self.lock:
            d = self.docs.get(doc_id, {})
            for cid, (rev, i, st, exp) in list(d.items()):
                if rev == revision and st is State.PENDING:
                    d[cid] = (rev, i, State.LIVE, exp)

    def supersede_others(self, doc_id: str, keep_revision: str | None) -> None:
        new = State.SUPERSEDED if keep_revision is not None else State.DELETED
        with self.lock:
            d = self.docs.get(doc_id, {})
            for cid, (rev, i, st, exp) in list(d.items()):
                if rev != keep_revision and st in (State.LIVE, State.PENDING):
                    d[cid] = (rev, i, new, exp)

    def live(self, doc_id: str) -> set[str]:
        with self.lock:
            return {r for r, _i, st, _e in self.docs.get(doc_id, {}).values() if st is State.LIVE}


def chunks_from_paragraphs(
    doc_id: str,
    v: ObjectVersion,
    paragraphs: Sequence[str],
    *,
    lang: str = "en",
    kind: str = "prose",
    heading: str = "",
) -> list[Chunk]:
    """One chunk per paragraph of a synthetic extracted text (offsets are exact)."""
    return _chunks(
        doc_id, v, paragraphs, separator="\n\n", lang=lang, kind=kind, heading=heading, pages=True
    )


def _chunks(
    doc_id: str,
    v: ObjectVersion,
    bodies: Sequence[str],
    *,
    separator: str,
    lang: str,
    kind: str = "prose",
    heading: str = "",
    pages: bool = False,
) -> list[Chunk]:
    """Chunks whose bodies sit in `separator.join(bodies)` at exact offsets."""
    out = []
    pos = byte_pos = 0
    for i, body in enumerate(bodies):
        out.append(
            Chunk(
                doc_id=doc_id,
                source_key=v.key,
                revision=v.revision,
                source_etag=v.etag,
                last_modified=v.last_modified,
                chunk_index=i,
                start=pos,
                end=pos + len(body),
                byte_start=byte_pos,
                byte_end=byte_pos + len(body.encode()),
                body=body,
                heading_path=[heading] if heading else [],
                text=(heading + "\n" + body) if heading else body,
                token_count=len(body.split()) + 2,
                kind=kind,  # type: ignore[arg-type]
                lang=lang,
                page_start=1 + i // 2 if pages else None,
                page_end=1 + i // 2 if pages else None,
            )
        )
        pos += len(body) + len(separator)
        byte_pos += len(body.encode()) + len(separator.encode())
    return out
