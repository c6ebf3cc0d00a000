"""Table rows for row-level BM25: every row's cells named by their column."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chunkwise.chunking.rows import header_cells, name_cells, split_cells, table_rows

HEADER = "| Plan | Monthly price | Storage |\n| --- | --- | --- |"


def test_rows_under_a_header_in_the_body() -> None:
    body = (
        "Table 1: Plans and prices\n\n"
        + HEADER
        + "\n| Free | 0 USD | 5 GB |\n| Team | 14 USD | 100 GB |\n\nContact sales."
    )
    assert table_rows(body) == [
        "Plan: Free; Monthly price: 0 USD; Storage: 5 GB",
        "Plan: Team; Monthly price: 14 USD; Storage: 100 GB",
    ]
    # The repeated header of the fragment does not add a row of its own.
    assert table_rows(body, HEADER) == table_rows(body)


def test_continuation_fragment_uses_the_repeated_header() -> None:
    body = "| Business | 25 USD | 1 TB |\n| Enterprise | 49 USD | Unlimited |"
    assert table_rows(body, HEADER) == [
        "Plan: Business; Monthly price: 25 USD; Storage: 1 TB",
        "Plan: Enterprise; Monthly price: 49 USD; Storage: Unlimited",
    ]
    # No known header: the cells cannot be named, no rows.
    assert table_rows(body) == []


def test_second_table_in_a_chunk_gets_its_own_header() -> None:
    body = HEADER + "\n| Free | 0 USD | 5 GB |\n\n| Feature | Free |\n|---|---|\n| SSO | No |"
    assert table_rows(body) == [
        "Plan: Free; Monthly price: 0 USD; Storage: 5 GB",
        "Feature: SSO; Free: No",
    ]


def test_ragged_rows_empty_cells_and_linear_rows() -> None:
    body = HEADER + "\n| Free |  | 5 GB | extra |\n| Team |"
    assert table_rows(body) == ["Plan: Free; Storage: 5 GB; extra", "Plan: Team"]
    linear = "Name: Free | Price: 0 USD\nName: Team | Price: 14 USD"
    assert table_rows(linear) == ["Name: Free | Price: 0 USD", "Name: Team | Price: 14 USD"]


def test_prose_has_no_rows() -> None:
    assert table_rows("A paragraph. Another one, with a | pipe.\n\nAnd more.") == []
    assert table_rows("") == []
    assert header_cells("") is None
    assert header_cells("| a | b |") is None  # no separator: not a header


def test_cells() -> None:
    assert split_cells("| a | b |") == ["a", "b"]
    assert split_cells("a | b") == ["a", "b"]
    assert name_cells(["x", "y"], ["1", "2", "3"]) == "x: 1; y: 2; 3"


@given(
    st.lists(
        st.lists(st.text("abcXYZ 019€", min_size=1, max_size=6), min_size=2, max_size=2),
        max_size=6,
    )
)
def test_one_row_per_table_line(cells: list[list[str]]) -> None:
    lines = ["| " + " | ".join(c) + " |" for c in cells]
    body = "| h1 | h2 |\n| --- | --- |\n" + "\n".join(lines)
    rows = table_rows(body)
    assert len(rows) == sum(any(x.strip() for x in c) for c in cells)


def test_rows_of_a_table_without_outer_pipes() -> None:
    body = "Plan | Monthly | Yearly\n--- | --- | ---\nStarter | 6 | 60\nTeam | 12 | 120"
    assert table_rows(body) == [
        "Plan: Starter; Monthly: 6; Yearly: 60",
        "Plan: Team; Monthly: 12; Yearly: 120",
    ]


def test_escaped_pipes_stay_inside_their_cell() -> None:
    assert split_cells(r"| `a \| b` | pipe a into b |") == ["`a | b`", "pipe a into b"]
    body = "| Cmd | Meaning |\n| --- | --- |\n" + r"| `a \| b` | pipe a into b |"
    assert table_rows(body) == ["Cmd: `a | b`; Meaning: pipe a into b"]
