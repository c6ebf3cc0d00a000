"""The revision switch's index port in memory, and synthetic chunks of a revision."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from chunkwise.index.heads import Head, absent_head, chunk_ids
from chunkwise.index.revision_queries import RevisionState
from chunkwise.index.states import State
from chunkwise.index.versions import REVISION_KEY_SEPARATOR, ObjectVersion, revision_key
from chunkwise.ingest.revisions import Loaded
from chunkwise.schema import Chunk


def make_chunks(doc_id: str, v: ObjectVersion, n: int = 3, lang: str = "en") -> list[Chunk]:
    """n synthetic chunks of one revision, bodies back to back (no separator)."""
    bodies = [
        f"Revision {v.version_id} of {v.key}, part {i}: lorem ipsum dolor. " for i in range(n)
    ]
    return _chunks(doc_id, v, bodies, separator="", lang=lang)


class FakeIndex:
    """The pipeline's index port in memory (`SwitchIndexPort` + `RevisionSource`),
    realtime: doc_id -> {_id: (revision key, chunk_index, state, expected)}, plus heads;
    what each chunk was written with is in `stored` (chunk, vector, metadata version,
    metadata fields)."""

    def __init__(self) -> None:
        self.docs: dict[str, dict[str, tuple[str, int, State, int]]] = {}
        self.stored: dict[str, tuple[Chunk, list[float], str, dict[str, Any]]] = {}
        self.reads: list[tuple[str, str]] = []  # read_revision calls (doc_id, key)
        self.heads: dict[str, Head] = {}
        self.seq = 0
        self.lock = threading.Lock()
        self.fail_revisions: set[str] = set()
        # doc_id -> {revision: (key, reason)}: failure markers
        self.failures: dict[str, dict[str, tuple[str, str]]] = {}
        self.writes: list[list[str]] = []  # chunk ids of every write_chunks call

    def record_failure(
        self, doc_id: str, key: str, revision: str, reason: str, metadata_version: str = ""
    ) -> None:
        with self.lock:
            state = revision_key(revision, metadata_version)
            self.failures.setdefault(doc_id, {})[state] = (key, reason)

    def revision_states(self, doc_id: str) -> dict[str, RevisionState]:
        """Chunk counts by object revision, as the real index groups them."""
        with self.lock:
            counts: dict[str, dict[str, int]] = {}
            expected: dict[str, int] = {}
            for cid, (key, _i, st, exp) in self.docs.get(doc_id, {}).items():
                stored = self.stored.get(cid)  # None: a row a test wrote by hand
                rev = stored[0].revision if stored else key.split(REVISION_KEY_SEPARATOR)[0]
                c = counts.setdefault(rev, {})
                c[st.value] = c.get(st.value, 0) + 1
                expected[rev] = max(expected.get(rev, 0), exp)
            return {r: RevisionState(r, c, expected[r]) for r, c in counts.items()}

    def read_heads(self, docs: Mapping[str, str]) -> dict[str, Head]:
        with self.lock:
            out = {}
            for doc_id, key in docs.items():
                legacy: dict[str, int] = {}
                for rev, _i, st, _e in self.docs.get(doc_id, {}).values():
                    if st is State.LIVE:
                        legacy[rev] = legacy.get(rev, 0) + 1
                out[doc_id] = self.heads.get(doc_id) or absent_head(
                    doc_id, key, sorted(legacy.items())
                )
            return out

    def write_chunks(self, loaded: Sequence[Loaded]) -> dict[str, str]:
        rejected: dict[str, str] = {}
        with self.lock:
            for item in loaded:
                if item.chunks and item.chunks[0].revision in self.fail_revisions:
                    rejected[item.chunks[0].doc_id] = "400: mapping failure (fake)"
                    continue
                ids = item.chunk_ids()
                self.writes.append(ids)
                state = revision_key(item.chunks[0].revision, item.metadata_version) if ids else ""
                for cid, c, vector in zip(ids, item.chunks, item.vectors, strict=True):
                    d = self.docs.setdefault(c.doc_id, {})
                    # created, or written over a superseded/deleted chunk of a state that
                    # repeats; a twin's pending or the head's live chunk is never touched
                    if cid not in d or d[cid][2] in (State.SUPERSEDED, State.DELETED):
                        d[cid] = (state, c.chunk_index, State.PENDING, len(item.chunks))
                        self.stored[cid] = (c, vector, item.metadata_version, dict(item.fields))
        return rejected

    def read_revision(
        self, doc_id: str, key: str, n: int
    ) -> list[tuple[Chunk, list[float]]] | None:
        with self.lock:
            self.reads.append((doc_id, key))
            ids = chunk_ids(doc_id, key, n)
            if n < 1 or any(i not in self.docs.get(doc_id, {}) for i in ids):
                return None
            return [(self.stored[i][0], list(self.stored[i][1])) for i in ids]

    # -- RetentionIndexPort (every superseded or deleted chunk counts as expired)

    def _gone(self) -> list[tuple[str, str]]:
        return [
            (doc_id, cid)
            for doc_id, rows in self.docs.items()
            for cid, row in rows.items()
            if row[2] in (State.SUPERSEDED, State.DELETED)
        ]

    def expired_revisions(
        self, older_than_seconds: int, *, now: object = None
    ) -> set[tuple[str, str]]:
        """(doc_id, object revision) of the chunks `sweep` erases, as the real index
        groups them."""
        with self.lock:
            return {(doc_id, self.stored[cid][0].revision) for doc_id, cid in self._gone()}

    def sweep(self, older_than_seconds: int, *, now: object = None) -> int:
        with self.lock:
            gone = self._gone()
            for doc_id, cid in gone:
                del self.docs[doc_id][cid]
                self.stored.pop(cid, None)
            return len(gone)

    def fields_of(self, doc_id: str, state: State = State.LIVE) -> list[dict[str, Any]]:
        """The metadata fields (plus ``metadata_version``) of a document's chunks in
        ``state``, as their writes left them."""
        with self.lock:
            return [
                {**self.stored[cid][3], "metadata_version": self.stored[cid][2]}
                for cid, row in sorted(self.docs.get(doc_id, {}).items())
                if row[2] is state
            ]

    def commit_heads(self, pairs: Sequence[tuple[Head, Head]]) -> dict[str, Head]:
        won = {}
        with self.lock:
            for read, new in pairs:
                stored = self.heads.get(read.doc_id)
                if (stored.seq_no if stored else -1) == read.seq_no:
                    self.seq += 1
                    self.heads[read.doc_id] = replace(new, seq_no=self.seq, primary_term=1)
                    won[read.doc_id] = self.heads[read.doc_id]
        return won

    def finish(self, heads: Sequence[Head]) -> None:
        with self.lock:
            for h in heads:
                d = self.docs.get(h.doc_id, {})
                old = {r for r, _n in h.cleanup}
                gone = State.DELETED if h.tombstone else State.SUPERSEDED
                for cid, (rev, i, st, exp) in list(d.items()):
                    if rev == h.revision_key and h.revision and st is State.PENDING:
                        d[cid] = (rev, i, State.LIVE, exp)
                    elif rev in old and st in (State.PENDING, State.LIVE):
                        d[cid] = (rev, i, gone, exp)

    def clear_cleanup(self, heads: Sequence[Head]) -> None:
        with self.lock:
            for h in heads:
                stored = self.heads.get(h.doc_id)
                if stored is not None and stored.seq_no == h.seq_no:
                    self.seq += 1
                    self.heads[h.doc_id] = replace(h, cleanup=(), settled=True, seq_no=self.seq)

    def delete_chunks(self, ids: Sequence[str], routing: Mapping[str, str]) -> None:
        with self.lock:
            for i in ids:
                self.docs.get(routing[i], {}).pop(i, None)
                self.stored.pop(i, None)

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
