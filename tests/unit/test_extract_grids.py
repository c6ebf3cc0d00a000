"""Header rows of a grid (extract/grids.py): pure, no files."""

from __future__ import annotations

from chunkwise.extract.grids import Grid, table_shape, trailing_note_rows

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


def test_a_row_of_units_under_the_header_of_a_one_row_table_is_a_header_row() -> None:
    """A second header row of text ("(in kg)") over a table of one data row: the numbers
    of that one row decide which columns are numeric, and the text row over them is a
    header row, not data (a generated case of the class, never a held-out file)."""
    rows = [["Tier", "Art", "Gewicht", "Alter"], ["(Rufname)", "(Gattung)", "(in kg)", "(Jahre)"],
            ["Bello", "Hund", "12,5", "7"]]  # fmt: skip
    shape = table_shape(Grid.of_texts(rows), 4)
    assert (shape.header_rows, shape.first_data_row) == (2, 2)
    assert shape.header[2] == "Gewicht / (in kg)"


def test_a_data_row_with_a_number_under_the_header_stays_data() -> None:
    rows = [["Item", "Unit", "Price", "Stock"], ["Bolt", "(each)", "0.10", "n/a"],
            ["Nut", "(each)", "0.05", "120"], ["Washer", "(pack)", "1.20", "40"]]  # fmt: skip
    shape = table_shape(Grid.of_texts(rows), 4)
    assert (shape.header_rows, shape.first_data_row) == (1, 1)


def test_sparse_note_rows_above_a_full_header_are_caption_not_header() -> None:
    """Notes typed above a table (sparse text rows, more of them than a header has)
    over a row naming every column: that row is the header, the notes the caption."""
    rows = [["Bitte beachten", "", "", ""], ["die Zahlen sind", "", "", "vorläufig"],
            ["Stand", "", "März", ""], ["und", "ohne", "", "Gewähr"],
            ["Ort", "Einwohner", "Fläche", "Dichte"], ["Bonn", "330000", "141,1", "2339"],
            ["Kiel", "247000", "118,6", "2083"], ["Ulm", "126000", "118,7", "1061"]]  # fmt: skip
    shape = table_shape(Grid.of_texts(rows), 4)
    assert shape.header == ["Ort", "Einwohner", "Fläche", "Dichte"]
    assert (shape.header_rows, shape.first_data_row) == (1, 5)
    assert "vorläufig" in shape.caption and "Gewähr" in shape.caption


def test_a_note_that_is_no_group_label_above_a_full_header_is_caption() -> None:
    rows = [["", "", "", "see below"], ["City", "People", "Area", "Density"],
            ["Bonn", "330000", "141.1", "2339"], ["Kiel", "247000", "118.6", "2083"]]
    shape = table_shape(Grid.of_texts(rows), 4)
    assert (shape.header, shape.first_data_row) == (["City", "People", "Area", "Density"], 2)


def test_group_labels_over_a_full_header_stay_header_rows() -> None:
    rows = [["", "Sales", "", "Costs", ""], ["Region", "Q1 s", "Q2 s", "Q1 c", "Q2 c"],
            ["Nord", "1", "2", "3", "4"], ["Süd", "5", "6", "7", "8"]]
    shape = table_shape(Grid.of_texts(rows), 5)
    assert (shape.header_rows, shape.first_data_row) == (2, 2)


def test_sparse_text_rows_under_a_table_of_numbers_are_notes() -> None:
    rows = [["Ort", "Einwohner", "Fläche", "Dichte"], ["Bonn", "330000", "141,1", "2339"],
            ["Kiel", "247000", "118,6", "2083"], ["Quelle:", "", "", ""],
            ["", "Statistikamt", "", ""], ["Summe", "", "", "5483"]]  # fmt: skip
    grid = Grid.of_texts(rows[:5])
    assert trailing_note_rows(grid, 1, 4) == 2
    assert trailing_note_rows(Grid.of_texts(rows), 1, 4) == 0  # a totals row ends it
