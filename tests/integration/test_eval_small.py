"""`chunkwise eval` end to end on the real node: a tiny corpus, 5 questions, two configs."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from chunkwise import progress
from chunkwise.adapters.opensearch.client import connect
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.evaluation.evaluate import load_corpus, load_questions, parse_config
from chunkwise.evaluation.run import run_evaluation
from chunkwise.index.names import IndexNames

pytestmark = pytest.mark.integration

HEADER = "| Plan | Monthly price | Storage |"


def _prices(team: str) -> str:
    return (
        "# Price list\n\nAll prices are per user.\n\n"
        f"{HEADER}\n| --- | --- | --- |\n| Free | 0 USD | 5 GB |\n"
        f"| Team | {team} | 100 GB |\n| Business | 25 USD | 1 TB |\n"
    )


POLICY = (
    "# Travel policy\n\n## Allowances\n\n"
    "For business trips to Berlin, the daily allowance is 28 EUR. "
    "For trips to Paris, it is 40 EUR.\n\n## Lost devices\n\n"
    "A laptop may get lost during a trip. In that case, report it to the IT desk within "
    "24 hours.\n"
)

QUESTIONS = [
    {
        "id": "t1",
        "lang": "en",
        "doc_type": "table",
        "question": "How much storage does the Business plan include?",
        "evidence": [{"source_key": "prices.md", "quote": "| Business | 25 USD | 1 TB |"}],
        "required_context": [HEADER],
    },
    {
        "id": "t2",
        "lang": "en",
        "doc_type": "table",
        "question": "What is the monthly price of the Team plan?",
        "evidence": [{"source_key": "prices.md", "quote": "| Team | 14 USD | 100 GB |"}],
        "required_context": [HEADER],
        "revision": {"superseded": "r1", "superseded_quote": "| Team | 12 USD | 100 GB |"},
        "tags": ["revision"],
    },
    {
        "id": "p1",
        "lang": "en",
        "doc_type": "prose",
        "question": "What is the daily allowance in Berlin?",
        "evidence": [{"source_key": "policy.md", "quote": "the daily allowance is 28 EUR"}],
    },
    {
        "id": "p2",
        "lang": "en",
        "doc_type": "prose",
        "question": "What must I do when my laptop is lost on a trip?",
        "evidence": [
            {
                "source_key": "policy.md",
                "quote": "A laptop may get lost during a trip. In that case, report it to the "
                "IT desk within 24 hours.",
            }
        ],
        "tags": ["sentence_split"],
    },
    {
        "id": "p3",
        "lang": "en",
        "doc_type": "prose",
        "question": "What is the allowance for Paris?",
        "evidence": [{"source_key": "policy.md", "quote": "For trips to Paris, it is 40 EUR."}],
    },
]


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    (tmp_path / "prices_r1.md").write_text(_prices("12 USD"), encoding="utf-8")
    (tmp_path / "prices_r2.md").write_text(_prices("14 USD"), encoding="utf-8")
    (tmp_path / "policy.md").write_text(POLICY, encoding="utf-8")
    corpus = {
        "documents": [
            {
                "key": "prices.md",
                "lang": "en",
                "doc_type": "table",
                "revisions": [
                    {
                        "revision": "r1",
                        "path": "prices_r1.md",
                        "last_modified": "2026-01-01T00:00:00Z",
                    },
                    {
                        "revision": "r2",
                        "path": "prices_r2.md",
                        "last_modified": "2026-02-01T00:00:00Z",
                    },
                ],
            },
            {
                "key": "policy.md",
                "lang": "en",
                "doc_type": "prose",
                "revisions": [
                    {"revision": "r1", "path": "policy.md", "last_modified": "2026-01-01T00:00:00Z"}
                ],
            },
        ]
    }
    (tmp_path / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (tmp_path / "questions.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8"
    )
    return tmp_path


def test_eval_end_to_end_on_the_real_node(corpus_dir: Path, opensearch_url: str) -> None:
    prefix = f"it-eval-{uuid.uuid4().hex[:8]}"
    configs = [
        parse_config({"name": "chunkwise"}),
        parse_config(
            {"name": "fixed", "baseline": "fixed", "chunker": {"max_chars": 60, "overlap_chars": 0}}
        ),
    ]
    out = corpus_dir / "out"
    steps: list[tuple[str, int, int | None]] = []
    with progress.reporting(lambda task, done, total: steps.append((task, done, total))):
        reports = run_evaluation(
            load_questions(corpus_dir / "questions.jsonl"),
            configs,
            load_corpus(corpus_dir / "corpus.json"),
            corpus_dir=corpus_dir,
            out_dir=out,
            url=opensearch_url,
            prefix=prefix,
            plot=False,
        )
    # Progress by configuration, then by document and question within each.
    assert ("eval: configurations", 2, 2) in steps
    assert steps.count(("eval: questions", 5, 5)) == 2
    assert steps.count(("eval: documents", 2, 2)) == 2
    cw, fixed = reports
    for mode in ("hybrid", "bm25", "vector"):
        assert cw["modes"][mode]["all"]["questions"] == 5
        # r1 was superseded by r2: its old price is never cited, in any mode
        assert cw["modes"][mode]["all"]["superseded_citations"] == 0
        assert fixed["modes"][mode]["all"]["superseded_citations"] == 0
    assert cw["modes"]["hybrid"]["all"]["hit@3"] == 1.0
    assert cw["modes"]["hybrid"]["all"]["citation_accuracy"] == 1.0
    # 60-char windows cut the table rows away from their header: table questions fail
    assert fixed["modes"]["hybrid"]["table/en"]["hit@3"] < 1.0
    assert fixed["chunks"]["chunks"] > cw["chunks"]["chunks"]
    for name in ("chunkwise.json", "chunkwise.md", "fixed.md", "diff_chunkwise_vs_fixed.md"):
        assert (out / name).is_file(), name
    assert "t2" in json.dumps(json.loads((out / "chunkwise.json").read_text())["questions"])
    # generations are dropped afterwards
    client = connect(opensearch_url)
    for c in configs:
        assert OpenSearchIndex(client, IndexNames(f"{prefix}-{c.name}")).generations() == []
