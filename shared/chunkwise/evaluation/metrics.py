"""Retrieval metrics over judged questions: hit@k, MRR, evidence@3, citation accuracy,
superseded citations and latency, overall and per group; chunk statistics (pure).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chunkwise.evaluation.judging import Judgement
from chunkwise.stats import percentile

KS = (1, 3, 5)
MRR_K = 10
MODES = ("hybrid", "bm25", "vector")


# --------------------------------------------------------------------------- metrics


def retrieval_metrics(js: Sequence[Judgement]) -> dict[str, Any]:
    n = len(js)
    if n == 0:
        return {"questions": 0}
    out: dict[str, Any] = {"questions": n}
    for k in KS:
        out[f"hit@{k}"] = sum(j.rank is not None and j.rank <= k for j in js) / n
    out[f"mrr@{MRR_K}"] = sum(1.0 / j.rank for j in js if j.rank and j.rank <= MRR_K) / n
    out["evidence@3"] = sum(j.evidence_rank is not None and j.evidence_rank <= 3 for j in js) / n
    judged = [j for j in js if j.citation_ok is not None]
    out["citation_accuracy"] = (
        sum(bool(j.citation_ok) for j in judged) / len(judged) if judged else None
    )
    out["citations_checked"] = len(judged)
    out["superseded_citations"] = sum(j.superseded_citations for j in js)
    out["context_tokens_mean"] = sum(j.context_tokens for j in js) / n
    out["redundant_share_mean"] = sum(j.redundant_share for j in js) / n
    lat = [j.latency_ms for j in js]
    out["latency_ms_p50"] = percentile(lat, 50)
    out["latency_ms_p95"] = percentile(lat, 95)
    return out


def grouped_metrics(js: Sequence[Judgement]) -> dict[str, dict[str, Any]]:
    """Overall, per language, per document type, per (document type, language), per tag
    and per (language, tag): a question type (a tag such as ``cell`` or ``qtype-when``)
    is judged in each language apart."""
    groups: dict[str, list[Judgement]] = {"all": list(js)}
    for j in js:
        groups.setdefault(f"lang={j.lang}", []).append(j)
        groups.setdefault(f"doc_type={j.doc_type}", []).append(j)
        groups.setdefault(f"{j.doc_type}/{j.lang}", []).append(j)
        for t in j.tags:
            groups.setdefault(f"tag={t}", []).append(j)
            groups.setdefault(f"lang={j.lang}&tag={t}", []).append(j)
    return {name: retrieval_metrics(g) for name, g in sorted(groups.items())}


def chunk_stats(
    bodies_chars: Sequence[int], tokens: Sequence[int], runts: int, token_cap: int
) -> dict[str, Any]:
    return {
        "chunks": len(bodies_chars),
        "chars_p1": percentile(bodies_chars, 1),
        "chars_p5": percentile(bodies_chars, 5),
        "chars_p50": percentile(bodies_chars, 50),
        "chars_p95": percentile(bodies_chars, 95),
        "runts": runts,
        "mean_tokens": (sum(tokens) / len(tokens)) if tokens else 0.0,
        "max_tokens": max(tokens, default=0),
        "over_token_cap": sum(t > token_cap for t in tokens),
        "token_cap": token_cap,
    }
