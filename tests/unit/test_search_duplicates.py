"""One slot per text: copies of a passage from other documents collapse into the best hit."""

from __future__ import annotations

from typing import Any

from chunkwise.search.duplicates import text_fingerprint
from chunkwise.search.hybrid import hits_from_response, postprocess


def _raw(i: str, doc: str, body: str, score: float, start: int = 0) -> dict[str, Any]:
    return {
        "_id": i,
        "_score": score,
        "_source": {
            "doc_id": doc,
            "source_key": f"manuals/{doc}",
            "revision": "v1",
            "last_modified": "2025-01-01T00:00:00Z",
            "start": start,
            "end": start + len(body),
            "body": body,
            "page_start": 2 if doc.endswith("pdf") else None,
            "page_end": 2 if doc.endswith("pdf") else None,
            "chunk_index": 0,
        },
    }


PDF_BODY = "## Page 2\n\n### 3 Maintenance\n\nCheck the inlet filter\nevery 500 hours."
DOCX_BODY = "## 3 Maintenance\n\nCheck the inlet filter every 500 hours."


def test_fingerprint_ignores_markup_whitespace_case_and_page_anchors_only() -> None:
    assert text_fingerprint(PDF_BODY) == text_fingerprint(DOCX_BODY)
    assert text_fingerprint("| Free | 0 USD |") == text_fingerprint("Free 0 usd")
    assert text_fingerprint(DOCX_BODY) != text_fingerprint(DOCX_BODY.replace("500", "250"))
    # "Page 2" in prose is text, not an anchor
    assert text_fingerprint("See Page 2 for the filter.") != text_fingerprint("See for the filter.")


def test_copies_collapse_into_the_best_ranked_hit_which_lists_them() -> None:
    hits = hits_from_response(
        {
            "hits": {
                "hits": [
                    _raw("a", "x17.pdf", PDF_BODY, 3.0),
                    _raw("b", "x17.docx", DOCX_BODY, 2.5),
                    _raw("c", "x17.pdf", "Never run the pump dry.", 2.0, start=500),
                    _raw("d", "x17.docx", "Never run the pump dry.", 1.5, start=400),
                    _raw("e", "x17.pdf", "Store the pump frost-free.", 1.0, start=900),
                ]
            }
        },
        "bm25",
    )
    out = postprocess(hits, 3)
    assert [h.id for h in out] == ["a", "c", "e"]
    assert [(e.id, e.key, e.start, e.page_start) for e in out[0].also_in] == [
        ("b", "manuals/x17.docx", 0, None)
    ]
    assert [e.id for e in out[1].also_in] == ["d"] and out[2].also_in == ()
    # opt-out: both copies keep their slots
    assert [h.id for h in postprocess(hits, 3, collapse=False)] == ["a", "b", "c"]


def test_a_body_without_words_never_collapses() -> None:
    hits = hits_from_response(
        {"hits": {"hits": [_raw("a", "p", "", 2.0), _raw("b", "q", "", 1.0, start=5)]}}, "bm25"
    )
    assert [h.id for h in postprocess(hits, 5)] == ["a", "b"]
