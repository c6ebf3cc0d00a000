"""Retrieval evaluation: labelled questions, hit@k, citation accuracy (pure parts).

    chunkwise eval QUESTIONS.jsonl --config A.toml [--config B.toml ...] [--out DIR]

This module holds everything that needs no OpenSearch: the question and corpus
models and loaders, the configuration loader, evidence resolution, per-question
judging, aggregated metrics and the markdown/JSON reports. The I/O half
(ingesting, searching) lives in `chunkwise.evaluation.run`, the command line in
`chunkwise.cli.evaluate`.

Question file (JSONL, one object per line; blank lines and ``#`` lines are
skipped)::

    {"id": "table-en-007", "lang": "en", "doc_type": "table",
     "question": "How much storage comes with the Starter plan?",
     "evidence": [{"source_key": "pricing_en.pdf", "quote": "| Starter | 6 USD | ..."}],
     "required_context": ["| Plan | Monthly price | ... |"],
     "revision": {"superseded": "r1", "superseded_quote": "| Starter | ... 50 GB ..."},
     "tags": ["cell", "revision"]}

Evidence is a quoted string or a ``[start, end)`` span of the *current*
revision's extracted text (``"start": 10, "end": 42``). A question is answered
at rank r when the r-th hit (strict, the acceptance metric):

- is a chunk of the evidence's source key in its current revision,
- cites a span ``[start, end)`` that contains an occurrence of the evidence in
  that revision's extracted text (checked against the text itself, not the
  hit's body), and
- carries every ``required_context`` string (e.g. the table header needed to
  read a cell) in its indexed ``text``.

Citation accuracy: of the questions whose top-3 contains a hit whose body shows
the evidence string, the share where that first such hit's citation verifies
(revision current, offsets reproduce the body and cover the evidence, required
context present). Superseded citations: hits (top 10, every search mode) whose
cited span covers a superseded quote in the superseded revision; must be 0.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from chunkwise.chunking.config import ChunkerConfig
from chunkwise.errors import ChunkwiseError, ConfigError
from chunkwise.evaluation.baselines import BASELINES
from chunkwise.stats import percentile

KS = (1, 3, 5)
MRR_K = 10
MODES = ("hybrid", "bm25", "vector")


class QuestionsError(ChunkwiseError, ValueError):
    """The questions file is malformed; the message names the line."""


class EvidenceError(ChunkwiseError, ValueError):
    """A question's evidence (or context) cannot be found in the corpus."""


# --------------------------------------------------------------------------- models


class EvidenceSpan(BaseModel):
    """Gold evidence: a quoted string, or a [start, end) span, in one source's extracted text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_key: str = Field(min_length=1)
    quote: str | None = Field(None, min_length=1)
    start: int | None = Field(None, ge=0)
    end: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _one_form(self) -> EvidenceSpan:
        has_span = self.start is not None or self.end is not None
        if (self.quote is None) == (not has_span):
            raise ValueError("evidence needs either 'quote' or both 'start' and 'end'")
        if has_span and (self.start is None or self.end is None or self.end <= self.start):
            raise ValueError("evidence span needs start < end")
        return self


class RevisionInfo(BaseModel):
    """A changed-value question: the value in ``superseded`` must never be cited."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    current: str | None = None  # expected current revision; None = the corpus' latest
    superseded: str = Field(min_length=1)
    superseded_quote: str = Field(min_length=1)
    note: str = ""


class Question(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    lang: str = Field(min_length=2)
    doc_type: str = Field(min_length=1)
    question: str = Field(min_length=1)
    evidence: list[EvidenceSpan] = Field(min_length=1)
    required_context: list[str] = Field(default_factory=list)
    revision: RevisionInfo | None = None
    tags: list[str] = Field(default_factory=list)


class CorpusRevision(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    revision: str = Field(min_length=1)
    path: str = Field(min_length=1)
    last_modified: str = Field(min_length=1)


class CorpusDocument(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(min_length=1)
    lang: str = "auto"
    doc_type: str = ""
    revisions: list[CorpusRevision] = Field(min_length=1)

    @property
    def current(self) -> str:
        return self.revisions[-1].revision


class Corpus(BaseModel):
    """Documents in ingestion order; a document's revisions oldest first."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    documents: list[CorpusDocument] = Field(min_length=1)


# --------------------------------------------------------------------------- loaders


def _pydantic_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "line"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def parse_questions(lines: Iterable[str], source: str = "<questions>") -> list[Question]:
    """Questions from JSONL lines; a bad line raises QuestionsError naming its number."""
    out: list[Question] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QuestionsError(f"{source}: line {n}: invalid JSON: {exc.msg}") from exc
        if not isinstance(data, dict):
            raise QuestionsError(f"{source}: line {n}: expected a JSON object")
        try:
            q = Question.model_validate(data)
        except ValidationError as exc:
            raise QuestionsError(f"{source}: line {n}: {_pydantic_message(exc)}") from exc
        if q.id in seen:
            raise QuestionsError(
                f"{source}: line {n}: duplicate question id {q.id!r} (first on line {seen[q.id]})"
            )
        seen[q.id] = n
        out.append(q)
    if not out:
        raise QuestionsError(f"{source}: no questions")
    return out


def load_questions(path: Path) -> list[Question]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionsError(f"cannot read questions file {path}: {exc}") from exc
    return parse_questions(text.splitlines(), str(path))


def load_corpus(path: Path) -> Corpus:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read corpus manifest {path}: {exc}") from exc
    try:
        corpus = Corpus.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {_pydantic_message(exc)}") from exc
    keys = [d.key for d in corpus.documents]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ConfigError(f"{path}: duplicate document key(s): {', '.join(dupes)}")
    return corpus


@dataclass(frozen=True)
class EvalConfig:
    """One configuration under test: a baseline by name plus chunker settings."""

    name: str
    baseline: str
    chunker: ChunkerConfig
    description: str = ""
    source: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "baseline": self.baseline,
            "description": self.description,
            "chunker": self.chunker.model_dump(mode="json"),
        }


CONFIG_KEYS = ("name", "baseline", "description", "chunker")


def parse_config(data: Mapping[str, Any], source: str = "<config>") -> EvalConfig:
    """Validate a configuration table; unknown keys raise ConfigError naming the key."""
    unknown = sorted(set(data) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigError(
            f"{source}: unknown key(s) {', '.join(repr(k) for k in unknown)} "
            f"(allowed: {', '.join(CONFIG_KEYS)}; chunker settings go under [chunker])"
        )
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{source}: 'name' must be a non-empty string")
    baseline = data.get("baseline", "chunkwise")
    if baseline not in BASELINES:
        raise ConfigError(
            f"{source}: baseline: unknown {baseline!r} (choose from {', '.join(BASELINES)})"
        )
    chunker = data.get("chunker", {})
    if not isinstance(chunker, Mapping):
        raise ConfigError(f"{source}: [chunker] must be a table")
    try:
        cfg = ChunkerConfig.build(**dict(chunker))
    except ConfigError as exc:
        raise ConfigError(f"{source}: [chunker] {exc}") from exc
    description = data.get("description", "")
    return EvalConfig(
        name=name.strip(),
        baseline=str(baseline),
        chunker=cfg,
        description=str(description),
        source=source,
    )


def load_config(path: Path) -> EvalConfig:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    return parse_config(data, str(path))


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
    )


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
    lat = [j.latency_ms for j in js]
    out["latency_ms_p50"] = percentile(lat, 50)
    out["latency_ms_p95"] = percentile(lat, 95)
    return out


def grouped_metrics(js: Sequence[Judgement]) -> dict[str, dict[str, Any]]:
    """Overall, per language, per document type and per (document type, language)."""
    groups: dict[str, list[Judgement]] = {"all": list(js)}
    for j in js:
        groups.setdefault(f"lang={j.lang}", []).append(j)
        groups.setdefault(f"doc_type={j.doc_type}", []).append(j)
        groups.setdefault(f"{j.doc_type}/{j.lang}", []).append(j)
        for t in j.tags:
            groups.setdefault(f"tag={t}", []).append(j)
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


# --------------------------------------------------------------------------- reports


def _pct(v: Any) -> str:
    return "–" if v is None else f"{100 * v:.1f} %"


def config_report(
    config: EvalConfig,
    judgements: Mapping[str, Sequence[Judgement]],
    stats: Mapping[str, Any],
    timings: Mapping[str, float],
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report of one configuration (every search mode, every group, per question)."""
    return {
        "config": config.as_dict(),
        "meta": dict(meta or {}),
        "chunks": dict(stats),
        "timings": dict(timings),
        "modes": {mode: grouped_metrics(js) for mode, js in judgements.items()},
        "questions": {
            mode: [
                {
                    "id": j.qid,
                    "lang": j.lang,
                    "doc_type": j.doc_type,
                    "rank": j.rank,
                    "evidence_rank": j.evidence_rank,
                    "citation_ok": j.citation_ok,
                    "superseded_citations": j.superseded_citations,
                    "latency_ms": round(j.latency_ms, 3),
                    "top3": j.top,
                }
                for j in js
            ]
            for mode, js in judgements.items()
        },
    }


def _group_order(groups: Iterable[str]) -> list[str]:
    pairs = sorted(g for g in groups if "/" in g)
    others = sorted(g for g in groups if "/" not in g and g != "all")
    return ["all", *pairs, *others]


def render_config_markdown(report: Mapping[str, Any]) -> str:
    cfg = report["config"]
    st = report["chunks"]
    tm = report["timings"]
    lines = [
        f"# Evaluation: {cfg['name']}",
        "",
        f"Baseline `{cfg['baseline']}`; chunker `max_chars={cfg['chunker']['max_chars']}`, "
        f"`overlap_chars={cfg['chunker']['overlap_chars']}`."
        + (f" {cfg['description']}" if cfg.get("description") else ""),
        "",
        "hit@k / MRR: strict (cited span of the current revision covers the evidence and the "
        "chunk's indexed text has the required context). evidence@3: a top-3 body shows the "
        "evidence string. citation accuracy: of those, share whose citation verifies.",
        "",
        "## Chunks and timings",
        "",
        "| chunks | chars p1 | p5 | p50 | p95 | runts | mean tokens | max tokens | over cap "
        "| indexing s | chunking s | embedding s | bulk s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {st['chunks']} | {st['chars_p1']:.0f} | {st['chars_p5']:.0f} | {st['chars_p50']:.0f} "
        f"| {st['chars_p95']:.0f} | {st['runts']} | {st['mean_tokens']:.1f} | {st['max_tokens']} "
        f"| {st['over_token_cap']} | {tm.get('indexing_s', 0):.1f} | {tm.get('chunking_s', 0):.2f} "
        f"| {tm.get('embedding_s', 0):.1f} | {tm.get('bulk_s', 0):.1f} |",
        "",
    ]
    for mode, groups in report["modes"].items():
        lines += [
            f"## Search mode: {mode}",
            "",
            "| group | n | hit@1 | hit@3 | hit@5 | MRR@10 | evidence@3 | citation acc. "
            "| superseded cited | latency p50 ms | p95 ms |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for g in _group_order(groups):
            m = groups[g]
            lines.append(
                f"| {g} | {m['questions']} | {_pct(m['hit@1'])} | {_pct(m['hit@3'])} "
                f"| {_pct(m['hit@5'])} | {m['mrr@10']:.3f} | {_pct(m['evidence@3'])} "
                f"| {_pct(m['citation_accuracy'])} | {m['superseded_citations']} "
                f"| {m['latency_ms_p50']:.1f} | {m['latency_ms_p95']:.1f} |"
            )
        lines.append("")
    misses = [
        q for q in report["questions"].get("hybrid", []) if not (q["rank"] and q["rank"] <= 3)
    ]
    if misses:
        lines += ["## Hybrid misses (not answered in the top 3)", ""]
        for q in misses:
            why = (
                "evidence shown but citation/context fails"
                if q["evidence_rank"] and q["evidence_rank"] <= 3
                else "evidence not in top 3"
            )
            lines.append(f"- `{q['id']}` rank {q['rank']}: {why}")
        lines.append("")
    return "\n".join(lines)


def diff_reports(
    a: Mapping[str, Any], b: Mapping[str, Any], mode: str = "hybrid"
) -> dict[str, Any]:
    """Per-question wins/losses of A against B (strict hit@3, then rank)."""
    qa = {q["id"]: q for q in a["questions"][mode]}
    qb = {q["id"]: q for q in b["questions"][mode]}
    wins, losses, better, worse = [], [], [], []
    for qid in sorted(set(qa) & set(qb)):
        ra, rb = qa[qid]["rank"], qb[qid]["rank"]
        a3, b3 = bool(ra and ra <= 3), bool(rb and rb <= 3)
        row = {
            "id": qid,
            "doc_type": qa[qid]["doc_type"],
            "lang": qa[qid]["lang"],
            "a": ra,
            "b": rb,
        }
        if a3 and not b3:
            wins.append(row)
        elif b3 and not a3:
            losses.append(row)
        elif ra and (rb is None or ra < rb):
            better.append(row)
        elif rb and (ra is None or rb < ra):
            worse.append(row)
    groups = sorted(set(a["modes"][mode]) & set(b["modes"][mode]))
    return {
        "a": a["config"]["name"],
        "b": b["config"]["name"],
        "mode": mode,
        "groups": {
            g: {
                metric: [a["modes"][mode][g].get(metric), b["modes"][mode][g].get(metric)]
                for metric in (
                    "questions",
                    "hit@1",
                    "hit@3",
                    "hit@5",
                    "mrr@10",
                    "citation_accuracy",
                    "superseded_citations",
                )
            }
            for g in groups
        },
        "chunks": {k: [a["chunks"][k], b["chunks"][k]] for k in a["chunks"]},
        "wins": wins,
        "losses": losses,
        "better_rank": better,
        "worse_rank": worse,
    }


def render_diff_markdown(d: Mapping[str, Any]) -> str:
    a, b = d["a"], d["b"]
    lines = [
        f"# {a} vs {b} ({d['mode']} search)",
        "",
        f"| group | n | hit@3 {a} | hit@3 {b} | Δ | MRR@10 {a} | MRR@10 {b} | citation acc. {a} "
        f"| citation acc. {b} |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for g in _group_order(d["groups"]):
        m = d["groups"][g]
        ha, hb = m["hit@3"]
        lines.append(
            f"| {g} | {m['questions'][0]} | {_pct(ha)} | {_pct(hb)} | {100 * (ha - hb):+.1f} "
            f"| {m['mrr@10'][0]:.3f} | {m['mrr@10'][1]:.3f} | {_pct(m['citation_accuracy'][0])} "
            f"| {_pct(m['citation_accuracy'][1])} |"
        )
    ch = d["chunks"]
    lines += [
        "",
        f"Chunks: {ch['chunks'][0]} vs {ch['chunks'][1]}; mean tokens "
        f"{ch['mean_tokens'][0]:.1f} vs {ch['mean_tokens'][1]:.1f}; runts {ch['runts'][0]} vs "
        f"{ch['runts'][1]}; over the token cap {ch['over_token_cap'][0]} vs "
        f"{ch['over_token_cap'][1]}.",
        "",
        f"## Wins of {a} ({len(d['wins'])}: answered in the top 3 by {a}, not by {b})",
        "",
    ]
    lines += [f"- `{r['id']}` rank {r['a']} vs {r['b']}" for r in d["wins"]] or ["none"]
    lines += ["", f"## Losses of {a} ({len(d['losses'])})", ""]
    lines += [f"- `{r['id']}` rank {r['a']} vs {r['b']}" for r in d["losses"]] or ["none"]
    lines += [
        "",
        f"Rank changes inside/outside the top 3: {len(d['better_rank'])} better, "
        f"{len(d['worse_rank'])} worse for {a}.",
        "",
    ]
    return "\n".join(lines)


def render_summary_markdown(reports: Sequence[Mapping[str, Any]], mode: str = "hybrid") -> str:
    """One table: hit@3 per configuration and (document type, language), plus chunk stats."""
    groups = sorted({g for r in reports for g in r["modes"][mode] if "/" in g})
    head = (
        "| configuration | "
        + " | ".join(groups)
        + " | all | MRR@10 | citation acc. | superseded cited |"
    )
    lines = [
        f"## hit@3 ({mode} search, strict: correct citation + required context)",
        "",
        head,
        "|---|" + "---:|" * (len(groups) + 4),
    ]
    for r in reports:
        m = r["modes"][mode]
        cells = [_pct(m[g]["hit@3"]) if g in m else "–" for g in groups]
        sup = sum(r["modes"][md]["all"]["superseded_citations"] for md in r["modes"])
        lines.append(
            f"| {r['config']['name']} | "
            + " | ".join(cells)
            + f" | {_pct(m['all']['hit@3'])} | {m['all']['mrr@10']:.3f} "
            f"| {_pct(m['all']['citation_accuracy'])} | {sup} |"
        )
    lines += _summary_by_mode(reports, groups)
    lines += _summary_chunks(reports, mode)
    lines.append("")
    return "\n".join(lines)


def _summary_by_mode(reports: Sequence[Mapping[str, Any]], groups: Sequence[str]) -> list[str]:
    lines = [
        "",
        "## hit@3 by search mode",
        "",
        "| configuration | mode | " + " | ".join(groups) + " | all |",
        "|---|---|" + "---:|" * (len(groups) + 1),
    ]
    for r in reports:
        for md in MODES:
            if md not in r["modes"]:
                continue
            m = r["modes"][md]
            cells = [_pct(m[g]["hit@3"]) if g in m else "–" for g in groups]
            lines.append(
                f"| {r['config']['name']} | {md} | "
                + " | ".join(cells)
                + f" | {_pct(m['all']['hit@3'])} |"
            )
    return lines


def _summary_chunks(reports: Sequence[Mapping[str, Any]], mode: str) -> list[str]:
    lines = [
        "",
        "## Chunks, tokens, latency",
        "",
        "| configuration | chunks | chars p1 | p5 | p50 | p95 | runts | mean tokens | over cap "
        "| indexing s | hybrid p50 ms | hybrid p95 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in reports:
        st, tm, m = r["chunks"], r["timings"], r["modes"][mode]["all"]
        lines.append(
            f"| {r['config']['name']} | {st['chunks']} | {st['chars_p1']:.0f} "
            f"| {st['chars_p5']:.0f} | {st['chars_p50']:.0f} | {st['chars_p95']:.0f} "
            f"| {st['runts']} "
            f"| {st['mean_tokens']:.1f} | {st['over_token_cap']} | {tm.get('indexing_s', 0):.1f} "
            f"| {m['latency_ms_p50']:.1f} | {m['latency_ms_p95']:.1f} |"
        )
    return lines
