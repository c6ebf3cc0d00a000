"""Judging one question's hits: the gold evidence located in the corpus texts, and
whether a hit answers (strict: its citation verifies), shows the evidence, or cites a
superseded value (pure, no I/O; the rules are in `chunkwise.evaluation.evaluate`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from chunkwise.errors import ChunkwiseError
from chunkwise.evaluation.inputs import EvidenceSpan, Question
from chunkwise.search.duplicates import text_fingerprint


class EvidenceError(ChunkwiseError, ValueError):
    """A question's evidence (or context) cannot be found in the corpus."""


# --------------------------------------------------------------------------- evidence


@dataclass(frozen=True)
class Span:
    key: str
    revision: str
    start: int
    end: int


@dataclass(frozen=True)
class Gold:
    """A question's evidence resolved against the corpus texts."""

    spans: tuple[Span, ...]  # every occurrence in the current revision
    quotes: tuple[str, ...]  # evidence text (for the body-shows-evidence check)
    context: tuple[str, ...]
    superseded: tuple[Span, ...] = ()


Texts = Mapping[tuple[str, str], str]  # (source key, revision) -> extracted text


def _occurrences(text: str, quote: str) -> list[tuple[int, int]]:
    out = []
    i = text.find(quote)
    while i >= 0:
        out.append((i, i + len(quote)))
        i = text.find(quote, i + 1)
    return out


def resolve_evidence(
    questions: Sequence[Question], texts: Texts, current: Mapping[str, str]
) -> dict[str, Gold]:
    """Locate every question's evidence; EvidenceError names question and evidence if absent."""
    gold: dict[str, Gold] = {}
    for q in questions:
        spans: list[Span] = []
        quotes: list[str] = []
        keys: set[str] = set()
        for ev in q.evidence:
            text, rev = _evidence_text(q, ev.source_key, texts, current)
            keys.add(ev.source_key)
            found = _evidence_spans(q, ev, text, rev)
            spans.extend(found)
            quotes.append(ev.quote if ev.quote is not None else text[found[0].start : found[0].end])
        for ctx in q.required_context:
            if not any(ctx in texts[(k, current[k])] for k in keys):
                raise EvidenceError(
                    f"question {q.id}: required context {_short(ctx)} not found in "
                    f"{', '.join(sorted(keys))}"
                )
        superseded = _superseded_spans(q, keys, texts)
        gold[q.id] = Gold(tuple(spans), tuple(quotes), tuple(q.required_context), tuple(superseded))
    return gold


def _evidence_text(
    q: Question, key: str, texts: Texts, current: Mapping[str, str]
) -> tuple[str, str]:
    """The extracted text the question's evidence in ``key`` refers to, and its revision."""
    if key not in current:
        raise EvidenceError(f"question {q.id}: source {key!r} is not in the corpus")
    rev = (q.revision.current if q.revision and q.revision.current else None) or current[key]
    if (key, rev) not in texts:
        raise EvidenceError(f"question {q.id}: revision {rev!r} of {key!r} is not in the corpus")
    return texts[(key, rev)], rev


def _evidence_spans(q: Question, ev: EvidenceSpan, text: str, rev: str) -> list[Span]:
    """Every place the evidence is in the text (a quote may occur more than once)."""
    if ev.quote is not None:
        found = _occurrences(text, ev.quote)
        if not found:
            raise EvidenceError(
                f"question {q.id}: evidence {_short(ev.quote)} not found in the "
                f"extracted text of {ev.source_key}@{rev}"
            )
        return [Span(ev.source_key, rev, s, e) for s, e in found]
    assert ev.start is not None and ev.end is not None
    if ev.end > len(text):
        raise EvidenceError(
            f"question {q.id}: evidence span [{ev.start}, {ev.end}) lies outside "
            f"the extracted text of {ev.source_key}@{rev} ({len(text)} chars)"
        )
    return [Span(ev.source_key, rev, ev.start, ev.end)]


def _superseded_spans(q: Question, keys: set[str], texts: Texts) -> list[Span]:
    """Where the superseded revision says what the question must no longer be answered by."""
    if q.revision is None:
        return []
    superseded: list[Span] = []
    for k in sorted(keys):
        if (k, q.revision.superseded) not in texts:
            raise EvidenceError(
                f"question {q.id}: superseded revision {q.revision.superseded!r} of "
                f"{k!r} is not in the corpus"
            )
        old = texts[(k, q.revision.superseded)]
        superseded.extend(
            Span(k, q.revision.superseded, s, e)
            for s, e in _occurrences(old, q.revision.superseded_quote)
        )
    if not superseded:
        raise EvidenceError(
            f"question {q.id}: superseded quote {_short(q.revision.superseded_quote)} "
            f"not found in revision {q.revision.superseded!r}"
        )
    return superseded


def _short(s: str, n: int = 60) -> str:
    return repr(s if len(s) <= n else s[: n - 1] + "…")


# --------------------------------------------------------------------------- judging


@dataclass(frozen=True)
class RankedHit:
    """What a search returned at one rank, plus the indexed text of that chunk."""

    id: str
    key: str
    revision: str
    start: int
    end: int
    body: str
    text: str  # the chunk's indexed text (context check)
    tokens: int = 0  # the indexed text's tokens: what an answering model reads of it


def citation_verifies(hit: RankedHit, gold: Gold, texts: Texts) -> bool:
    """The strict check: current revision, offsets reproduce the body and cover the evidence,
    required context present in the indexed text."""
    source = texts.get((hit.key, hit.revision))
    if source is None or source[hit.start : hit.end] != hit.body:
        return False
    covers = any(
        s.key == hit.key
        and s.revision == hit.revision
        and hit.start <= s.start
        and s.end <= hit.end
        for s in gold.spans
    )
    return covers and all(c in hit.text for c in gold.context)


def shows_evidence(hit: RankedHit, gold: Gold) -> bool:
    """Loose: the hit's body shows one of the evidence strings (context not required)."""
    return any(q in hit.body for q in gold.quotes)


def cites_superseded(hit: RankedHit, gold: Gold) -> bool:
    return any(
        s.key == hit.key and s.revision == hit.revision and hit.start < s.end and s.start < hit.end
        for s in gold.superseded
    )


@dataclass
class Judgement:
    qid: str
    lang: str
    doc_type: str
    tags: list[str]
    rank: int | None  # 1-based rank of the first strictly answering hit
    evidence_rank: int | None  # 1-based rank of the first hit whose body shows the evidence
    citation_ok: bool | None  # that first evidence hit's citation verifies (None: no such hit)
    superseded_citations: int
    latency_ms: float
    top: list[str] = field(default_factory=list)  # ids of the top 3 hits
    context_tokens: int = 0  # tokens of the top COST_K hits' indexed text
    redundant_share: float = 0.0  # share of the top COST_K bodies repeating another's text


def judge(
    q: Question, hits: Sequence[RankedHit], gold: Gold, texts: Texts, latency_ms: float = 0.0
) -> Judgement:
    rank = next((i for i, h in enumerate(hits, start=1) if citation_verifies(h, gold, texts)), None)
    ev = next((i for i, h in enumerate(hits, start=1) if shows_evidence(h, gold)), None)
    cit = None
    if ev is not None and ev <= 3:
        cit = citation_verifies(hits[ev - 1], gold, texts)
    sup = sum(cites_superseded(h, gold) for h in hits)
    return Judgement(
        qid=q.id,
        lang=q.lang,
        doc_type=q.doc_type,
        tags=list(q.tags),
        rank=rank,
        evidence_rank=ev,
        citation_ok=cit,
        superseded_citations=sup,
        latency_ms=latency_ms,
        top=[h.id for h in hits[:3]],
        context_tokens=sum(h.tokens for h in hits[:COST_K]),
        redundant_share=redundant_share(hits[:COST_K]),
    )


# --------------------------------------------------------------------------- cost

#: The hits an answering model is handed (the query function's default k).
COST_K = 5


def redundant_share(hits: Sequence[RankedHit]) -> float:
    """Of the hits' body characters, the share an earlier hit already holds: the part of
    a span inside an earlier span of the same revision (overlap), or a whole body with
    the same text as an earlier one (a copy in another document)."""
    total = redundant = 0
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    seen: set[str] = set()
    for h in hits:
        n = h.end - h.start
        total += n
        fp = text_fingerprint(h.body)
        if fp in seen and h.body.strip():
            redundant += n
        else:
            earlier = spans.get((h.key, h.revision), [])
            redundant += _covered(h.start, h.end, earlier)
        seen.add(fp)
        spans.setdefault((h.key, h.revision), []).append((h.start, h.end))
    return redundant / total if total else 0.0


def _covered(start: int, end: int, spans: Sequence[tuple[int, int]]) -> int:
    """Characters of [start, end) inside the union of ``spans``."""
    covered, pos = 0, start
    for s, e in sorted(spans):
        s, e = max(s, pos), min(e, end)
        if e > s:
            covered += e - s
            pos = e
    return covered
