"""A document a tool could not extract counts in the totals: its facts failed."""

from pathlib import Path

from bench.realdocs.__main__ import Score, failed_extraction, summary_md

FACTS = [
    {"kind": "table", "row": "a", "column": "b", "cell": "c"},
    {"kind": "prose", "snippet": "some words of the page"},
]


def test_a_failed_extraction_counts_its_facts_as_failed() -> None:
    ok = Score("good", "chunkwise", "de")
    ok.total["prose"], ok.passed["prose"] = 2, 2
    ok.integrity = ok.integrity_corrected = 1.0
    failed = failed_extraction(Score("bad", "chunkwise", "de"), FACTS, Path("bad.pdf"), "boom")
    assert failed.error == "boom" and failed.total["table"] == 1 and failed.strict_tables == 0
    row = next(line for line in summary_md([ok, failed]) if line.startswith("| de |"))
    assert "0 % (0/1)" in row  # tables
    assert "67 % (2/3)" in row  # prose: the failed document's fact is in the total
    assert "0.0 %" in row  # its words did not come out
