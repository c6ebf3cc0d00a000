"""Retrieval evaluation: labelled questions, hit@k, citation accuracy (pure parts).

    chunkwise eval QUESTIONS.jsonl --config A.toml [--config B.toml ...] [--out DIR]

The parts that need no OpenSearch, by concept: the question and corpus models,
the configuration and their loaders (`chunkwise.evaluation.inputs`), evidence
resolution and per-question judging (`judging`), aggregated metrics (`metrics`) and
the markdown/JSON reports (`reports`); this module names them all in one place.
The I/O half (ingesting, searching) lives in `chunkwise.evaluation.run`, the command
line in `chunkwise.cli.evaluate`.

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

from chunkwise.evaluation.inputs import (
    CONFIG_KEYS,
    Corpus,
    CorpusDocument,
    CorpusRevision,
    EvalConfig,
    EvidenceSpan,
    Question,
    QuestionsError,
    RevisionInfo,
    load_config,
    load_corpus,
    load_questions,
    parse_config,
    parse_questions,
)
from chunkwise.evaluation.judging import (
    EvidenceError,
    Gold,
    Judgement,
    RankedHit,
    Span,
    Texts,
    citation_verifies,
    cites_superseded,
    judge,
    resolve_evidence,
    shows_evidence,
)
from chunkwise.evaluation.metrics import (
    KS,
    MODES,
    MRR_K,
    chunk_stats,
    grouped_metrics,
    retrieval_metrics,
)
from chunkwise.evaluation.reports import (
    config_report,
    diff_reports,
    render_config_markdown,
    render_diff_markdown,
    render_summary_markdown,
)

__all__ = [
    "CONFIG_KEYS",
    "KS",
    "MODES",
    "MRR_K",
    "Corpus",
    "CorpusDocument",
    "CorpusRevision",
    "EvalConfig",
    "EvidenceError",
    "EvidenceSpan",
    "Gold",
    "Judgement",
    "Question",
    "QuestionsError",
    "RankedHit",
    "RevisionInfo",
    "Span",
    "Texts",
    "chunk_stats",
    "citation_verifies",
    "cites_superseded",
    "config_report",
    "diff_reports",
    "grouped_metrics",
    "judge",
    "load_config",
    "load_corpus",
    "load_questions",
    "parse_config",
    "parse_questions",
    "render_config_markdown",
    "render_diff_markdown",
    "render_summary_markdown",
    "resolve_evidence",
    "retrieval_metrics",
    "shows_evidence",
]
