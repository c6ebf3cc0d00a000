"""Header rows of a grid (extract/grids.py): pure, no files."""

from __future__ import annotations

from chunkwise.extract.grids import Grid, table_shape

DATA = [["Nord", "120", "135", "150", "170"], ["Süd", "98", "104", "111", "125"],
        ["West", "77", "80", "91", "96"]]  # fmt: skip
HEADER = ["Region", "2023 / H1", "2023 / H2", "2024 / H1", "2024 / H2"]


def test_year_groups_merged_over_half_years_are_a_two_row_header() -> None:
    """A spreadsheet's merged year cells (filled across) over the H1/H2 row: the years
    are labels, not data, so both rows are the header."""
    rows = [["Region", "2023", "2023", "2024", "2024"], ["Region", "H1", "H2", "H1", "H2"], *DATA]
    shape = table_shape(Grid.of_texts(rows), 5)
    assert (shape.header, shape.header_rows, shape.first_data_row) == (HEADER, 2, 2)


def test_year_groups_written_once_in_a_csv_are_a_two_row_header() -> None:
    rows = [["Region", "2023", "", "2024", ""], ["", "H1", "H2", "H1", "H2"], *DATA]
    shape = table_shape(Grid.of_texts(rows), 5)
    assert (shape.header, shape.header_rows, shape.first_data_row) == (HEADER, 2, 2)


def test_a_row_of_years_over_numbers_is_the_header() -> None:
    rows = [["Kennzahl", "2022", "2023", "2024"], ["Umsatz", "12,4", "14,1", "15,0"],
            ["Standorte", "3", "4", "4"]]  # fmt: skip
    shape = table_shape(Grid.of_texts(rows), 4)
    assert (shape.header, shape.header_rows) == (["Kennzahl", "2022", "2023", "2024"], 1)


def test_years_in_a_column_of_years_are_data() -> None:
    rows = [["2019", "Bonn", "120"], ["2020", "Kiel", "130"], ["2021", "Ulm", "140"]]
    shape = table_shape(Grid.of_texts(rows), 3)
    assert (shape.header_rows, shape.first_data_row) == (0, 0)
