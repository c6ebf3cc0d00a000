"""The same manual as PDF and as DOCX in one index: a question's top 3 hold three
different passages, each copy listed where it was collapsed (#29), on the real node."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch

import chunkwise
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.embedding.embed import Embedder
from chunkwise.extract import extract
from chunkwise.index.names import make_doc_id
from chunkwise.index.versions import ObjectVersion
from chunkwise.ingest.document import with_identity
from chunkwise.search.duplicates import text_fingerprint
from tests.fakes.bucket import FakeBucket
from tests.integration.live_index import live_test_index, switch_to_current

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parents[1] / "data"
BUCKET = "bucket"
CONFIG = chunkwise.ChunkerConfig(max_chars=400, overlap_chars=0)
QUESTION = "How often must the inlet filter of the pump be checked, and what protection is worn?"


def _manual_docx() -> bytes:
    """The manual of tests/data/manual_en.pdf, written as a Word document."""
    import docx

    sys.path.insert(0, str(DATA))
    try:
        from make_samples import MANUAL  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(DATA))
    m = MANUAL["en"]
    d = docx.Document()
    d.add_heading(m["title"], 1)
    for heading, paras, bullets in m["sections"]:
        d.add_heading(heading, 2)
        for para in paras:
            d.add_paragraph(para)
        for b in bullets or []:
            d.add_paragraph(b, style="List Bullet")
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


@pytest.fixture(scope="module")
def index(client: OpenSearch, embedder: Embedder) -> Iterator[OpenSearchIndex]:
    files = {
        "manuals/x17.pdf": (DATA / "manual_en.pdf").read_bytes(),
        "manuals/word/x17.docx": _manual_docx(),
    }
    with live_test_index(client, embedder, "it-dupes") as ix:
        s3 = FakeBucket(BUCKET)
        for key, data in files.items():
            doc = make_doc_id(BUCKET, key)
            s3.put_version(key, "v1", "2025-01-01T00:00:00Z")
            text = extract(data, filename=key).text

            def load(v: ObjectVersion, t: str = text, d: str = doc) -> Any:
                return with_identity(chunkwise.chunk_text(t, lang="en", config=CONFIG), d, v)

            switch_to_current(key, doc, s3=s3, index=ix, load_chunks=load, embed=embedder.embed)
        yield ix


def test_top_3_hold_three_passages_not_two_copies(
    index: OpenSearchIndex, embedder: Embedder
) -> None:
    searcher = Searcher(index.client, embedder, index.names)
    copies = searcher.answer(QUESTION, 3, collapse=False).hits
    texts = [text_fingerprint(h.citation.body) for h in copies]
    # without collapsing, a passage takes two of the three slots (PDF and DOCX copy)
    assert len(set(texts)) < 3, [h.citation.key for h in copies]
    hits = searcher.answer(QUESTION, 3).hits
    assert len(hits) == 3
    assert len({text_fingerprint(h.citation.body) for h in hits}) == 3
    listed = [(h.citation.key, e.key) for h in hits for e in h.also_in]
    assert listed, "a collapsed copy is listed in the hit that kept its slot"
    for kept, other in listed:
        assert {kept, other} == {"manuals/x17.pdf", "manuals/word/x17.docx"}
    for h in hits:
        for e in h.also_in:  # each listed copy cites its own document's span
            assert e.end > e.start and e.revision == "v1"
