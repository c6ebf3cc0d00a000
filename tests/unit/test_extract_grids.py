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


def test_one_year_over_decimals_is_a_header_label() -> None:
    """ "Rank | Country | 2005" over "1 | Norway | 0.968": the year is a whole number where
    the column holds decimals, a label of another form than the data (#25)."""
    rows = [["Rank", "Country", "2005"], ["1", "Norway", "0.968"], ["2", "Iceland", "0.968"],
            ["3", "Australia", "0.962"], ["8", "Japan", "0.953"]]  # fmt: skip
    shape = table_shape(Grid.of_texts(rows), 3)
    assert (shape.header, shape.header_rows, shape.first_data_row) == (rows[0], 1, 1)


def test_years_over_thousands_and_percentages_are_the_header() -> None:
    rows = [["2019", "2020", "2021"], ["1,234", "1,310", "1,402"], ["2,001", "2,115", "2,3"]]
    shape = table_shape(Grid.of_texts(rows), 3)
    assert (shape.header, shape.header_rows) == (["2019", "2020", "2021"], 1)
    rows = [["Land", "2019", "2020"], ["Bayern", "12,5 %", "13,1 %"], ["Berlin", "9,8 %", "9,9 %"]]
    shape = table_shape(Grid.of_texts(rows), 3)
    assert (shape.header, shape.header_rows) == (["Land", "2019", "2020"], 1)


def test_a_first_row_of_the_same_form_as_the_data_is_data() -> None:
    rows = [["1", "Norway", "0.968"], ["2", "Iceland", "0.968"], ["3", "Australia", "0.962"]]
    assert table_shape(Grid.of_texts(rows), 3).header_rows == 0
    rows = [["Bonn", "120", "7"], ["Kiel", "130", "8"], ["Ulm", "140", "9"]]
    assert table_shape(Grid.of_texts(rows), 3).header_rows == 0
    rows = [["Bonn", "2019"], ["Kiel", "2001"], ["Ulm", "1999"]]  # a year column
    assert table_shape(Grid.of_texts(rows), 2).header_rows == 0
    rows = [["Bonn", "1000", "1000"], ["Kiel", "12.5", "7.5"], ["Ulm", "3.5", "1.5"]]
    assert table_shape(Grid.of_texts(rows), 3).header_rows == 0  # a repeated number


def test_years_running_back_as_in_a_balance_sheet_are_the_header() -> None:
    rows = [["Posten", "2021", "2020", "2019"], ["Umsatz", "12,4", "14,1", "15,0"],
            ["Mitarbeiter", "120", "110", "98"], ["Standorte", "3", "4", "4"]]  # fmt: skip
    shape = table_shape(Grid.of_texts(rows), 4)
    assert (shape.header, shape.header_rows) == (rows[0], 1)
