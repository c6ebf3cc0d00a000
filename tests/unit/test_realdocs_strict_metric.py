"""The strict table measure of the real-document benchmark counts structure, not co-location."""

from bench.realdocs.metrics import (
    View,
    prose_fact,
    reference_words,
    table_fact,
    table_fact_strict,
    tables_in,
    word_integrity,
)

TABLE = (
    "Packages\n\n"
    "| package | popcon | description |\n"
    "| --- | --- | --- |\n"
    "| sudo | V:638 | run as root |\n"
    "| mc | V:50 | file manager |\n"
)
PROSE_ROWS = "package popcon description\n\nsudo V:638 run as root\n\nmc V:50 file manager\n"
CAPTIONED = "Tabelle 2: Dokumentklassen\n\n| book | für Bücher |\n| beamer | für Präsentationen |\n"


def test_cell_in_its_column_and_row_passes() -> None:
    assert table_fact_strict([View(TABLE)], "V:638", "popcon", "sudo")
    assert table_fact_strict([View(TABLE)], "file manager", "description", "mc")


def test_cell_in_another_column_fails() -> None:
    assert not table_fact_strict([View(TABLE)], "V:638", "description", "sudo")


def test_rows_as_paragraphs_pass_only_the_lenient_measure() -> None:
    views = [View(PROSE_ROWS)]
    assert table_fact(views, "V:638", "popcon", "sudo")
    assert not table_fact_strict(views, "V:638", "popcon", "sudo")


def test_headerless_table_is_named_by_its_caption_line() -> None:
    assert table_fact_strict([View(CAPTIONED)], "für Bücher", "Dokumentklassen", "book")
    assert not table_fact_strict([View(CAPTIONED)], "für Bücher", "Klassenoptionen", "book")


def test_escaped_pipe_stays_in_its_cell() -> None:
    (table,) = tables_in("| a \\| b | c |\n| --- | --- |\n| x | y |\n")
    assert table.header == ("a | b", "c")
    assert table.rows == (("x", "y"),)


def test_key_value_table_without_header_is_named_by_its_first_row() -> None:
    text = "|  |  |\n| --- | --- |\n| LATEX name: | T5 |\n| Public name: | Vietnamese |\n"
    assert table_fact_strict([View(text)], "Vietnamese", "T5", "Public name:")
    assert not table_fact_strict([View(text)], "Vietnamese", "T6", "Public name:")


def test_a_combining_accent_in_the_reference_is_the_letter_it_makes() -> None:
    # pdftotext writes a TeX accent as letter + combining mark: one word, "geschützt".
    reference = reference_words("ein geschu\u0308tztes Leerzeichen\n")
    assert word_integrity(reference, "ein geschütztes Leerzeichen") == 1.0
    assert word_integrity(reference, "ein geschu\u00a8tztes Leerzeichen") < 1.0
    assert prose_fact("ein geschu\u0308tztes Leerzeichen", "geschütztes Leerzeichen")
