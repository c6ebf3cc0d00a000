"""The format benchmark's scoring (bench/formats/metrics.py, __main__.py) on tiny inputs."""

from __future__ import annotations

from typing import Any

from bench.formats.__main__ import Score, outcome_of, summary_md
from bench.formats.corpus import Document
from bench.formats.metrics import Outcome, check, check_strict, compare, structure
from bench.realdocs.metrics import View

TABLE = (
    "## Formate\n\n| Posten | Betrag | Anteil |\n| --- | --- | --- |\n| Miete | 1.234,50 € | 15 % |"
)


def ok(text: str, heading_path: tuple[str, ...] = ()) -> Outcome:
    return Outcome("ok", text, (View(text, heading_path),))


def table(cell: str, *alternatives: str) -> dict[str, Any]:
    fact: dict[str, Any] = {"kind": "table", "row": "Miete", "column": "Betrag", "cell": cell}
    if alternatives:
        fact["alternatives"] = list(alternatives)
    return fact


def test_a_table_fact_passes_on_any_of_its_alternatives_and_fails_on_another_value() -> None:
    assert check(table("1,234.50 €", "1.234,50 €"), ok(TABLE))
    assert check_strict(table("1,234.50 €", "1.234,50 €"), ok(TABLE))
    assert not check(table("1,234.50 €"), ok(TABLE))
    assert not check(
        table("1.234,50 €"), ok(TABLE.replace("| Posten | Betrag |", "| Posten | Summe |"))
    )


def test_absent_and_order_facts() -> None:
    text = "Früh am Morgen verließ sie das Dorf.\n\nAm zweiten Tag erreichten sie Husum."
    assert check({"kind": "absent", "snippet": "Inhaltsverzeichnis"}, ok(text))
    assert not check({"kind": "absent", "snippet": "zweiten  Tag"}, ok(text))
    assert check({"kind": "order", "first": "Früh am Morgen", "then": "Am zweiten Tag"}, ok(text))
    assert not check({"kind": "order", "first": "Am zweiten Tag", "then": "Früh am"}, ok(text))
    assert not check({"kind": "order", "first": "Früh am Morgen", "then": "Kiel"}, ok(text))


def test_a_refusal_counts_only_as_a_typed_error_within_the_bounds() -> None:
    fact = {"kind": "refused"}
    assert check(fact, Outcome("error", seconds=0.4, rss_mib=80))
    assert not check(fact, Outcome("error", seconds=6.0, rss_mib=80))
    assert not check(fact, Outcome("error", seconds=0.4, rss_mib=900))
    assert not check(fact, Outcome("crash", seconds=0.4, rss_mib=80))
    assert not check(fact, ok("the bomb was read"))


def test_no_fact_but_a_refusal_passes_without_a_text() -> None:
    for status in ("error", "crash", "unsupported"):
        assert not check({"kind": "prose", "snippet": "x"}, Outcome(status))
        assert not check({"kind": "absent", "snippet": "x"}, Outcome(status))


def test_a_slide_without_a_title_is_found_under_its_anchor() -> None:
    fact = {"kind": "heading", "heading": "Slide 5", "snippet": "Vielen Dank"}
    assert check(fact, ok("Vielen Dank für Ihre Aufmerksamkeit!", ("Slide 5",)))
    assert not check(fact, ok("Vielen Dank für Ihre Aufmerksamkeit!", ("Slide 4",)))


def test_structure_reads_the_cells_and_headings_of_markdown() -> None:
    found = structure("# Sheet1\n\n| a | b |\n| - | - |\n| 1 | \\_x |\n\ntext\n## Sheet2 ##")
    assert found.cells == {"a", "b", "1", "_x"}
    assert found.headings == {"Sheet1", "Sheet2"}


def test_compare_lists_what_each_side_lacks() -> None:
    docling = "## Sheet1\n\n| Year | Ducks |\n| - | - |\n| 2019 | 120 |\n| 2020 | 135 |"
    ours = (
        "# Sheet1\n\n| Year | Ducks |\n| --- | --- |\n| 2019 | 120 |\n\n"
        "# Notes\n\n| k | 999 |\n|-|-|"
    )
    result = compare(docling, ours)
    assert result.cells_missing == ("135", "2020")
    assert result.cells_extra == ("999", "k")
    assert result.headings_missing == ()
    assert result.headings_extra == ("Notes",)
    # A value present only as prose on our side is not missing.
    assert compare(docling, ours + "\n\nIn 2020 there were 135.").cells_missing == ()


XLSX = Document("t", "xlsx", "en", "dev", "docling", "t.xlsx", "MIT", "test", "")


def test_a_file_read_as_another_format_is_unsupported_and_not_scored() -> None:
    score = Score(
        "t",
        "xlsx",
        "en",
        "real",
        total={"table": 3, **dict.fromkeys(("prose", "heading", "absent", "order", "refused"), 0)},
    )
    outcome = outcome_of(XLSX, {"status": "ok", "format": "docx", "text": "x"}, score)
    assert (outcome.status, score.status, score.read_as, score.scored) == (
        "unsupported",
        "unsupported",
        "docx",
        False,
    )
    refused = Score("t", "xlsx", "en", "real")
    outcome_of(XLSX, {"status": "error", "error": "UnsupportedFormat", "reason": "zip"}, refused)
    assert refused.status == "unsupported"
    summary = summary_md([score], ("table", "prose", "heading"))[-1]
    assert "| xlsx | en | 1 | 1 | - | - |" in summary


def test_a_typed_error_on_a_read_format_fails_its_facts_in_the_summary() -> None:
    score = Score("t", "xlsx", "en", "real")
    score.total["table"] = 2
    outcome_of(XLSX, {"status": "error", "error": "CorruptDocument", "reason": "bad"}, score)
    assert score.scored
    assert "0.0 % (0/2) ✗" in summary_md([score], ("table",))[-1]


def test_an_error_of_another_formats_reader_is_unsupported() -> None:
    csv_doc = Document("c", "csv", "de", "dev", "generated", "c.csv", "-", "test", "")
    score = Score("c", "csv", "de", "real")
    record = {"status": "error", "error": "UnsupportedEncoding", "format": "text", "reason": "x"}
    outcome_of(csv_doc, record, score)
    assert (score.status, score.scored) == ("unsupported", False)
    own = Score("c", "csv", "de", "real")
    outcome_of(csv_doc, {**record, "format": "csv"}, own)
    assert (own.status, own.scored) == ("error", True)


def test_a_wide_row_keeps_its_cell_however_far_from_the_label() -> None:
    wide = "| Nr | Text | Betrag |\n| --- | --- | --- |\n| 7 | " + "lang " * 100 + "| 9,99 |"
    fact = {"kind": "table", "row": "7", "column": "Betrag", "cell": "9,99"}
    assert check(fact, ok(wide))
    assert not check({**fact, "cell": "7"}, ok(wide.replace("| 7 |", "| 8 |")))
    assert not check(fact, ok(wide.replace("Betrag", "Summe")))


def test_a_known_format_not_read_as_itself_is_a_failure_not_unsupported() -> None:
    csv_doc = Document("c", "csv", "de", "dev", "generated", "c.csv", "-", "test", "")
    known = ["text", "markdown", "html", "docx", "pdf", "csv", "tsv"]
    cases = {
        "unsupported": {"status": "ok", "format": "text", "known_formats": known[:5]},
        "misread": {"status": "ok", "format": "text", "known_formats": known},
        "error": {"status": "error", "error": "UnsupportedEncoding", "known_formats": known},
    }
    for expected, record in cases.items():
        score = Score("c", "csv", "de", "real")
        score.total["table"] = 1
        outcome = outcome_of(csv_doc, {"text": "x", **record}, score)
        assert score.status == expected
        assert score.scored is (expected != "unsupported")
        assert not check(table("1,234.50 €"), outcome)
    refused = {"status": "error", "error": "UnsupportedFormat", "known_formats": known}
    score = Score("c", "csv", "de", "real")
    outcome_of(csv_doc, refused, score)
    assert score.status == "misread"


def test_a_bounded_fact_wants_a_read_or_a_typed_refusal_within_a_lambda() -> None:
    fact = {"kind": "bounded"}
    assert check(fact, Outcome("ok", "x", seconds=30, rss_mib=260))
    assert check(fact, Outcome("error", seconds=0.1, rss_mib=50))
    assert not check(fact, Outcome("ok", "x", seconds=901, rss_mib=260))
    assert not check(fact, Outcome("ok", "x", seconds=30, rss_mib=2100))
    assert not check(fact, Outcome("crash", seconds=3, rss_mib=50))


def test_a_heading_that_is_its_own_snippet_passes_as_a_heading_line_of_a_merged_chunk() -> None:
    fact = {
        "kind": "heading",
        "heading": "Screenshots",
        "snippet": "Screenshots of our map library",
    }
    merged = "## Slide 8\n\n### Map\n\nText.\n\n## Slide 9\n\n### Screenshots of our map library\n"
    assert check(fact, ok(merged, ()))
    # the heading rule alone could not see it: the snippet is the heading, nothing is before it
    assert not check(fact, ok("Screenshots of our map library", ()))


def test_a_heading_line_passes_no_other_fact() -> None:
    heading_line = "## Slide 9\n\n### Screenshots of our map library and more\n"
    part = {
        "kind": "heading",
        "heading": "Screenshots",
        "snippet": "Screenshots of our map library",
    }
    assert not check(part, ok(heading_line, ()))  # part of a heading line is not the line
    other = {"kind": "heading", "heading": "Results", "snippet": "Screenshots of our map library"}
    assert not check(other, ok("### Screenshots of our map library\n", ()))  # names another
    paragraph = {"kind": "heading", "heading": "Ducks", "snippet": "Ducks"}
    assert not check(paragraph, ok("## Slide 2\n\nDucks\n", ()))  # a paragraph, not a heading
    prose = {"kind": "prose", "snippet": "Screenshots of our map library"}
    assert not check(prose, ok("### Screenshots of our map\n", ()))
