"""Excel number-format codes rendered as a spreadsheet shows them (extract/numfmt.py)."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest

from chunkwise.extract.numfmt import ENGLISH, GERMAN, NumberLocale, format_value, workbook_locale

E, G = ENGLISH, GERMAN
CASES: list[tuple[object, str, NumberLocale, str]] = [
    (1234.5, "#,##0.00", E, "1,234.50"),
    (1234.5, "#,##0.00", G, "1.234,50"),
    (1234.5, '#,##0.00 "€"', G, "1.234,50 €"),
    (1234.5, "#,##0.00\\ [$€-407]", G, "1.234,50 €"),
    (-1234.5, "#,##0.00 €;[Red]-#,##0.00 €", G, "-1.234,50 €"),
    (15, '_-* #,##0.00 €_-;-* #,##0.00 €_-;_-* "-"?? €_-;_-@_-', G, "15,00 €"),
    (0, '_-* #,##0.00 €_-;-* #,##0.00 €_-;_-* "-"?? €_-;_-@_-', G, "- €"),
    (0.125, "0.00%", E, "12.50%"),
    (0.125, "0%", G, "13%"),
    (0.0525, "0.0%", G, "5,3%"),
    (datetime(2024, 3, 1), "dd.mm.yyyy", G, "01.03.2024"),
    (45292, "dd.mm.yyyy", G, "01.01.2024"),
    (datetime(2024, 3, 1, 14, 5), "yyyy-mm-dd hh:mm", E, "2024-03-01 14:05"),
    (datetime(2024, 3, 1), "mm-dd-yy", G, "01.03.2024"),
    (datetime(2024, 3, 1), "mm-dd-yy", E, "2024-03-01"),
    (datetime(2024, 3, 1), "d. mmmm yyyy", G, "1. März 2024"),
    (datetime(2024, 3, 1), "dddd, d. mmm yy", G, "Freitag, 1. Mär 24"),
    (datetime(2024, 3, 1), "mmm d, yyyy", E, "Mar 1, 2024"),
    (time(14, 5, 9), "h:mm:ss AM/PM", E, "2:05:09 PM"),
    (time(9, 30), "hh:mm", G, "09:30"),
    (timedelta(hours=30, minutes=15), "[h]:mm", E, "30:15"),
    (42, "General", E, "42"),
    (0.1 + 0.2, "General", G, "0,3"),
    (1e20, "General", E, "1E+20"),
    (12345678, "#,##0", E, "12,345,678"),
    (12345678, "#,##0,", E, "12,346"),
    (0.5, "# ?/?", E, "1/2"),
    (1.25, "# ?/?", E, "1 1/4"),
    (123456, "0.00E+00", E, "1.23E+05"),
    (-5, "0", E, "-5"),
    (-5, "0;(0)", E, "(5)"),
    (0, '#,##0.00;-#,##0.00;"-"', E, "-"),
    ("abc", "@", E, "abc"),
    ("Nr. 7", '"Artikel "@', E, "Artikel Nr. 7"),
    (True, "General", G, "WAHR"),
    (False, "General", E, "FALSE"),
    (7, "00000", E, "00007"),
    (0.5, "#.00", E, ".50"),
    (3.0, "0.0#", E, "3.0"),
    (3.14159, "0.0#", E, "3.14"),
    (1500, '[>=1000]#,##0,"k";0', E, "2k"),
    (None, "0.00", E, ""),
    (5, "@", E, "5"),
    (1234.5, "@", G, "1234,5"),
    (-2, "", E, "-2"),
]


# What LibreOffice 7.4.7 shows (its "as shown" CSV export of an openpyxl workbook with
# these codes, en-US), where chunkwise showed otherwise: the sign, empty sections,
# conditions, a locale tag.
AS_SHOWN: list[tuple[object, str, NumberLocale, str]] = [
    # the minus of a one-section code is added only when a non-zero digit shows
    (-0.004, "-0.00", E, "-0.00"),
    (-0.004, '#,##0.00 "€"', E, "0.00 €"),
    (-20.42, "-0.00", E, "--20.42"),  # and then beside the code's own minus, as Excel does
    # an empty section shows nothing (the "hide zeros" idiom 0;-0;;@)
    (-20.42, "0.00;;", E, ""),
    (0, "0.00;;", E, ""),
    (0, "0;-0;;@", E, ""),
    (5, "0;-0;;@", E, "5"),
    # a condition in a later section is tried before an unconditioned first section
    (-20.42, "#,##0.00;[<0]-#,##0.00", E, "-20.42"),
    (-20.42, '[>=100]"big" 0;[<0]"neg" 0;0', E, "neg 20"),
    # a locale tag in the code names the month names
    (datetime(2024, 3, 5), "[$-407]d. mmmm yyyy", E, "5. März 2024"),
    (datetime(2024, 3, 5), "[$-409]mmmm d, yyyy", G, "March 5, 2024"),
    # built-in format 22 is the locale's short date and the time, as format 14 is
    (datetime(2024, 1, 7, 9, 5), "m/d/yy h:mm", G, "07.01.2024 9:05"),
    # a date with a time format keeps the hour without a leading zero (h), as LibreOffice
    (datetime(2024, 1, 7), "yyyy\\-mm\\-dd\\ h:mm:ss", E, "2024-01-07 0:00:00"),
]


@pytest.mark.parametrize("value,code,locale,shown", AS_SHOWN)
def test_as_libreoffice_shows_it(
    value: object, code: str, locale: NumberLocale, shown: str
) -> None:
    assert format_value(value, code, locale) == shown


@pytest.mark.parametrize("value,code,locale,shown", CASES)
def test_format_code(value: object, code: str, locale: NumberLocale, shown: str) -> None:
    assert format_value(value, code, locale) == shown


@pytest.mark.parametrize(
    "codes,locale",
    [
        (["#,##0.00\\ [$€-407]"], G),
        (["dd.mm.yyyy"], G),
        (['#,##0.00 "€"'], G),
        (["[$$-409]#,##0.00", "mm-dd-yy"], E),
        (["0.00%", "General"], E),
        ([], E),
    ],
)
def test_workbook_locale(codes: list[str], locale: NumberLocale) -> None:
    assert workbook_locale(codes) is locale
