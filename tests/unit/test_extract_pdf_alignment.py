"""Two-column reading order, whitespace-aligned / booktabs tables and stitching (pure, no PDF)."""

from chunkwise.extract.model import DocFormat, ExtractionReport
from chunkwise.extract.pdf.columns import reading_order
from chunkwise.extract.pdf.items import Item, PageContent, TableFragment
from chunkwise.extract.pdf.lines import Glyph, Line, Segment, segments_of
from chunkwise.extract.pdf.tables.aligned import find_aligned_tables
from chunkwise.extract.pdf.tables.stitch import stitch_tables as _stitch

WIDTH = 595.0


def line(top: float, *parts: tuple[float, str], mono: bool = False, bold: bool = False) -> Line:
    """A line whose segments start at the given x; 5 pt per character."""
    segments = [Segment(x, x + 5.0 * len(text), text, mono) for x, text in parts]
    return Line(
        text=" ".join(t for _x, t in parts),
        top=top,
        bottom=top + 10.0,
        x0=parts[0][0],
        size=10.0,
        bold=bold,
        segments=segments,
    )


def test_segments_split_at_wide_gaps_and_words_at_narrow_ones() -> None:
    glyphs = [Glyph(0, 5, "a", False), Glyph(7, 12, "b", False), Glyph(40, 45, "c", True)]
    assert [(s.text, s.mono) for s in segments_of(glyphs, 10.0)] == [("a b", False), ("c", True)]
    doubled = [Glyph(0, 5, "fi", False), Glyph(0, 5, "fi", False), Glyph(5, 8, "le", False)]
    assert [s.text for s in segments_of(doubled, 10.0)] == ["file"]


def test_two_column_page_reads_left_column_then_right() -> None:
    left = "left column prose that fills its column"  # 39 chars = 195 pt from 50
    right = "right column prose that fills the column"
    lines = [
        line(100.0 + 12 * i, (50.0, f"{left} {i}"), (320.0, f"{right} {i}")) for i in range(12)
    ]
    lines.insert(0, line(80.0, (50.0, "A title over both columns of the page, centred in it")))
    ordered = [ln.text for ln in reading_order(lines, WIDTH)]
    assert ordered[0].startswith("A title")
    assert ordered[1:13] == [f"{left} {i}" for i in range(12)]
    assert ordered[13:] == [f"{right} {i}" for i in range(12)]


def test_one_column_page_and_a_narrow_table_keep_their_order() -> None:
    prose = [line(100.0 + 12 * i, (50.0, "x" * 95)) for i in range(14)]
    assert reading_order(prose, WIDTH) == prose
    table = [line(100.0 + 12 * i, (50.0, f"key{i}"), (320.0, f"v{i}")) for i in range(14)]
    assert reading_order(table, WIDTH) == table


def test_whitespace_aligned_table_with_a_multi_line_cell() -> None:
    lines = [
        line(100.0, (50.0, "Paket"), (150.0, "Antiqua"), (260.0, "Serifenlose")),
        line(125.0, (50.0, "helvet"), (260.0, "Helvetica")),
        line(137.0, (50.0, "fourier"), (150.0, "Utopia Regu-")),
        line(149.0, (150.0, "lar")),
        line(161.0, (50.0, "lmodern"), (150.0, "LM Roman"), (260.0, "LM Sans")),
        line(190.0, (50.0, "A paragraph after the table runs over the whole text width.")),
    ]
    text, tables = find_aligned_tables(lines, 3)
    assert [ln.text for ln in text] == [lines[-1].text]
    (table,) = tables
    rows = table.fragment.rows
    assert rows[0] == ["Paket", "Antiqua", "Serifenlose"]  # set apart by a wider gap
    assert rows[1:] == [
        ["helvet", "", "Helvetica"],
        ["fourier", "Utopia Regular", ""],
        ["lmodern", "LM Roman", "LM Sans"],
    ]


def test_booktabs_header_is_what_lies_above_the_midrule() -> None:
    lines = [
        line(100.0, (150.0, "Artikel")),
        line(112.0, (50.0, "Tier"), (150.0, "Beschreibung"), (260.0, "Preis")),
        line(126.0, (50.0, "Gnu"), (150.0, "ausgestopft"), (260.0, "92.50")),
        line(138.0, (50.0, "Emu"), (150.0, "ausgestopft"), (260.0, "33.33")),
        line(150.0, (50.0, "Mücke"), (150.0, "pro Gramm"), (260.0, "13.65")),
    ]
    rules = [(98.0, 45.0, 300.0), (110.0, 145.0, 215.0), (124.0, 45.0, 300.0), (162.0, 45.0, 300.0)]
    _text, (table,) = find_aligned_tables(lines, 2, rules)
    assert table.fragment.rows[0] == ["Tier", "Artikel / Beschreibung", "Preis"]
    assert table.fragment.rows[1] == ["Gnu", "ausgestopft", "92.50"]


def test_listings_lists_and_contents_are_not_tables() -> None:
    listing = [line(100.0 + 12 * i, (50.0, "int x"), (150.0, "= 1;"), mono=True) for i in range(4)]
    bullets = [line(100.0 + 12 * i, (50.0, "\u2022"), (70.0, f"item {i}")) for i in range(4)]
    contents = [line(100.0 + 12 * i, (50.0, f"Chapter {i}"), (400.0, str(i + 3))) for i in range(4)]
    for lines in (listing, bullets, contents):
        text, tables = find_aligned_tables(lines, 1)
        assert tables == [] and text == lines


def test_headerless_table_is_stitched_over_a_continued_note_and_a_repeated_caption() -> None:
    def table(rows: list[list[str]], page: int) -> Item:
        frag = TableFragment(rows=[["", ""], *rows], page=page, header_rows=0)
        return Item("table", 100.0, 700.0, table=frag)

    caption = "Tabelle 2: Klassenoptionen"
    first = table([["a4paper", "für Papier"]], 12)
    first.table.caption = caption  # type: ignore[union-attr]
    pages = [
        PageContent(12, [Item("para", 90.0, 99.0, text=caption), first], True, False),
        PageContent(13, [table([["twoside", "zweiseitig"]], 13)], True, False),
    ]
    pages[0].items.append(Item("para", 710.0, 720.0, text="Fortsetzung nächste Seite"))
    pages[1].items.insert(0, Item("para", 90.0, 99.0, text=caption))
    report = ExtractionReport(format=DocFormat.PDF, source_bytes=0, source_sha256="")
    (stitched,) = _stitch(pages, report).values()
    assert stitched.rows == [["a4paper", "für Papier"], ["twoside", "zweiseitig"]]
    assert stitched.header == ["", ""] and (stitched.page_start, stitched.page_end) == (12, 13)
    assert pages[1].items == []  # the repeated caption went with the fragment


def test_contents_with_dot_leaders_is_not_a_table() -> None:
    lines = [
        line(100.0 + 12 * i, (50.0, f"1.{i}"), (90.0, "Section title . . . . . . ."), (400.0, "17"))
        for i in range(5)
    ]
    assert find_aligned_tables(lines, 6)[1] == []


def test_rows_are_cut_at_the_table_columns_when_a_column_frame_is_missing() -> None:
    # colortbl-DE p4: the middle column has no coloured panel, so pdfplumber's row
    # has cells for the outer columns only and "bbb" fell into no cell.
    from chunkwise.extract.pdf.tables.ruled import _edge_grid, _uncovered

    grid: list[list[tuple[float, float, float, float] | None]] = [
        [(182.0, 125.0, 244.0, 139.0), (347.0, 125.0, 430.0, 139.0)],
        [(182.0, 139.0, 430.0, 153.0), None],
    ]
    bbb = {"x0": 253.0, "x1": 270.0, "top": 127.0, "bottom": 137.0}
    assert _uncovered([bbb], grid)
    cut = _edge_grid(grid, [182.0, 244.0, 347.0, 430.0])
    assert [len(row) for row in cut] == [3, 3]
    assert cut[0][1] == (244.0, 125.0, 347.0, 139.0)


def test_the_last_line_of_the_paragraph_above_is_not_the_tables_header() -> None:
    prose = "Table 2 lists all token classes and their"
    lines = [
        line(100.0, (50.0, prose + " corresponding numbers, as the text above says")),
        line(112.0, (50.0, "corresponding numbers.")),  # the paragraph ends: a short line
        line(130.0, (80.0, "token"), (200.0, "class"), (320.0, "number")),
        line(148.0, (80.0, "c"), (200.0, "0"), (320.0, "0")),
        line(160.0, (80.0, "l"), (200.0, "0"), (320.0, "1")),
        line(172.0, (80.0, "m-arg"), (200.0, "0"), (320.0, "3")),
    ]
    text, (table,) = find_aligned_tables(lines, 10)
    assert [ln.text for ln in text] == [lines[0].text, "corresponding numbers."]
    assert table.fragment.rows[0] == ["token", "class", "number"]
    assert table.fragment.rows[1:] == [["c", "0", "0"], ["l", "0", "1"], ["m-arg", "0", "3"]]


def test_p_columns_join_their_wrapped_lines_and_one_word_rows_stay_rows() -> None:
    # ctable's Table 2: a title between the top rule and a midrule, column heads over
    # cmidrules (one per column group, trimmed at the gutters), cells of several lines.
    lines = [
        line(84.0, (140.0, "Example using tabularx across")),
        line(100.0, (100.0, "Multicolumn entry!"), (220.0, "THREE"), (270.0, "FOUR")),
        line(
            117.0,
            (50.0, "one"),
            (80.0, "The width of this"),
            (220.0, "three"),
            (270.0, "Column four"),
        ),
        line(129.0, (80.0, "column depends on the"), (270.0, "acts in the")),
        line(141.0, (80.0, "width of the table."), (270.0, "same way.")),
        line(153.0, (50.0, "two"), (80.0, "short"), (220.0, "3"), (270.0, "x")),
        line(165.0, (80.0, "word"), (220.0, "4"), (270.0, "y")),
    ]
    rules = [
        (80.0, 45.0, 330.0),
        (97.0, 45.0, 330.0),
        (114.0, 45.0, 205.0),
        (114.0, 215.0, 250.0),
        (114.0, 265.0, 330.0),
        (180.0, 45.0, 330.0),
    ]
    _text, (table,) = find_aligned_tables(lines, 7, rules)
    rows = table.fragment.rows
    assert rows[0][1:] == [
        "Example using tabularx across / Multicolumn entry!",
        "Example using tabularx across / THREE",
        "Example using tabularx across / FOUR",
    ]
    assert rows[1] == [
        "one",
        "The width of this column depends on the width of the table.",
        "three",
        "Column four acts in the same way.",
    ]
    assert rows[2:] == [["two", "short", "3", "x"], ["", "word", "4", "y"]]


def test_a_table_between_two_captions_takes_the_one_on_the_documents_side() -> None:
    from chunkwise.extract.pdf.blocks import attach_captions, captions_below

    def para(text: str, top: float) -> Item:
        return Item("para", top, top + 10, text=text)

    def table(top: float) -> Item:
        frag = TableFragment(rows=[["", ""], ["\\textdegree", "176"]], page=1, header_rows=0)
        return Item("table", top, top + 30, table=frag)

    first, second = table(100.0), table(200.0)
    items = [
        first,
        para("Table 3: Symbols in all sub-encodings", 140.0),
        para("\\textcircled acc", 160.0),  # a one-row table read as text
        para("Table 4: Symbol unavailable in sub-encoding 1", 180.0),
        second,
        para("Table 5: Symbols unavailable in sub-encoding 2", 240.0),
    ]
    below = captions_below([items])
    assert below
    attach_captions(items, below)
    assert first.table is not None and second.table is not None
    assert first.table.caption.startswith("Table 3")
    assert second.table.caption.startswith("Table 5")
    assert [it.text for it in items if it.kind == "para"][2].startswith("Table 4")


def test_a_paragraph_with_notes_in_the_margin_is_not_a_table() -> None:
    prose = [
        "Each of the commands starting with font sets one of the font attri-",
        "butes; fontsize also sets the baselineskip. The linespread command",
        "prepares to multiply the current (or newly defined) baselineskip with",
        "its factor, which spreads the lines apart for values greater than one.",
        "The actual font in use is not altered by these commands, but the cur-",
        "rent attributes are used to determine which font to use after that.",
    ]
    notes = ["New", "description", "1998/12/01"]
    lines = [
        line(100.0 + 12 * i, (50.0, text), *([(410.0, notes[i])] if i < len(notes) else []))
        for i, text in enumerate(prose)
    ]
    text, tables = find_aligned_tables(lines, 8)
    assert tables == [] and text == lines


def test_a_command_ending_in_a_comma_is_a_row_of_its_own() -> None:
    # l2kurz Tabelle 10: "\," (a thin space) is a command, not a first cell that
    # goes on in the next line; "amsmath," is.
    lines = [
        line(100.0, (50.0, "\\,"), (150.0, "ein sehr kleiner Abstand")),
        line(112.0, (50.0, "\\enspace"), (150.0, "so breit wie eine Ziffer")),
        line(124.0, (50.0, "\\quad"), (150.0, "so breit, wie ein Buchstabe hoch ist")),
        line(136.0, (50.0, "amsmath,"), (150.0, "Mathematischer Formelsatz")),
        line(148.0, (50.0, "amssymb"), (150.0, "und Symbole")),
    ]
    _text, tables = find_aligned_tables(lines, 47)
    (table,) = tables
    first_cells = [row[0] for row in table.fragment.rows]
    assert "\\," in first_cells and "\\enspace" in first_cells
    assert "amsmath, amssymb" in first_cells


def test_cmidrules_under_the_heads_close_the_header_without_a_midrule() -> None:
    # l2tabu's Table 1: top rule, "Ersatz" over a cmidrule spanning two columns, the
    # column heads over one cmidrule each (no midrule), the body, the bottom rule and
    # a table footnote below it, starting left of the table.
    lines = [
        line(100.0, (50.0, "veraltet"), (150.0, "Ersatz in LaTeX")),
        line(114.0, (150.0, "lokal"), (250.0, "global")),
        line(128.0, (50.0, "{\\bf ...}"), (150.0, "\\textbf{...}"), (250.0, "\\bfseries")),
        line(140.0, (50.0, "{\\it ...}"), (150.0, "\\textit{...}"), (250.0, "\\itshape")),
        line(152.0, (50.0, "{\\rm ...}"), (150.0, "\\textrm{...}"), (250.0, "\\rmfamily")),
        line(168.0, (30.0, "a Nur in Makros")),
    ]
    rules = [
        (97.0, 50.0, 300.0),
        (111.0, 150.0, 300.0),
        (125.0, 50.0, 100.0),
        (125.0, 150.0, 210.0),
        (125.0, 250.0, 300.0),
        (165.0, 50.0, 300.0),
    ]
    text, (table,) = find_aligned_tables(lines, 10, rules)
    assert table.fragment.rows[0] == [
        "veraltet",
        "Ersatz in LaTeX / lokal",
        "Ersatz in LaTeX / global",
    ]
    assert table.fragment.rows[1:] == [
        ["{\\bf ...}", "\\textbf{...}", "\\bfseries"],
        ["{\\it ...}", "\\textit{...}", "\\itshape"],
        ["{\\rm ...}", "\\textrm{...}", "\\rmfamily"],
    ]
    assert [ln.text for ln in text] == ["a Nur in Makros"]


def test_group_titles_inside_a_table_become_a_column_of_their_rows() -> None:
    # longtable's summary: centred group titles, each over a rule across the table
    # that opens its rows; no column heads. Read as rows, a title continued the
    # row above it and the first group's rows were taken for the header.
    lines = [
        line(80.0, (150.0, "Parameters"), bold=True),
        line(92.0, (50.0, "\\LTleft"), (150.0, "Glue to the left"), (250.0, "(fill)")),
        line(104.0, (50.0, "\\LTpre"), (150.0, "Glue before it"), (250.0, "(skip)")),
        line(121.0, (125.0, "Optional arguments"), bold=True),
        line(133.0, (50.0, "[c]"), (150.0, "Centre the table.")),
        line(145.0, (50.0, "[l]"), (150.0, "Flush left.")),
        line(170.0, (50.0, "A paragraph after the table runs over the whole text width.")),
    ]
    rules = [(91.0, 50.0, 280.0), (132.0, 50.0, 280.0)]
    text, (table,) = find_aligned_tables(lines, 9, rules)
    assert [ln.text for ln in text] == [lines[-1].text]
    assert table.fragment.header_rows == 0
    assert table.fragment.rows[1:] == [
        ["Parameters", "\\LTleft", "Glue to the left", "(fill)"],
        ["Parameters", "\\LTpre", "Glue before it", "(skip)"],
        ["Optional arguments", "[c]", "Centre the table.", ""],
        ["Optional arguments", "[l]", "Flush left.", ""],
    ]


def glyph_line(top: float, *words: tuple[float, str], bold: bool = False) -> Line:
    """A line of glyphs, 5 pt per character, split into segments as the readers do."""
    glyphs = [
        Glyph(x + 5.0 * i, x + 5.0 * (i + 1), ch, False, 10.0)
        for x, word in words
        for i, ch in enumerate(word)
    ]
    segments = segments_of(glyphs, 10.0)
    text = " ".join(s.text for s in segments)
    return Line(text, top, top + 10.0, segments[0].x0, 10.0, bold, segments=segments)


def test_cells_closer_than_a_cell_gap_are_cut_where_their_column_starts() -> None:
    # fontspec's feature tables: a small \tabcolsep leaves 5 pt between the widest
    # option and its tag, less than a cell gap: "WordInitial init" was one segment,
    # crossed the gutter and ended the table.
    lines = [
        glyph_line(100.0, (50.0, "Feature"), (120.0, "Option"), (180.0, "Tag"), bold=True),
        glyph_line(116.0, (50.0, "Contextuals ="), (120.0, "Swash"), (180.0, "cswh")),
        glyph_line(128.0, (120.0, "Alternate"), (180.0, "calt")),
        glyph_line(140.0, (120.0, "WordInitial"), (180.0, "init")),
        glyph_line(152.0, (120.0, "LineFinal"), (180.0, "falt")),
        glyph_line(164.0, (120.0, "Inner"), (180.0, "medi")),
    ]
    assert len(lines[3].segments) == 1  # the 5 pt gap is no segment gap
    _text, (table,) = find_aligned_tables(lines, 40)
    assert table.fragment.rows == [
        ["Feature", "Option", "Tag"],
        ["Contextuals =", "Swash", "cswh"],
        ["", "Alternate", "calt"],
        ["", "WordInitial", "init"],
        ["", "LineFinal", "falt"],
        ["", "Inner", "medi"],
    ]


def test_a_caption_in_the_margin_and_notes_under_the_bottom_rule_stay_out_of_the_table() -> None:
    # microtype's Table 3: "Table 3:" and its text in the margin beside the heads,
    # notes ("a Aliases: ...", smaller, across the gutters) under the bottom rule.
    lines = [
        line(100.0, (20.0, "Table 3:"), (100.0, "Font family"), (250.0, "Shapes"), bold=True),
        line(112.0, (20.0, "Type 1 fonts")),
        *(line(128.0 + 12 * k, (100.0, f"Family {k}"), (250.0, "n, it")) for k in range(4)),
        *(
            line(182.0 + 10 * k, (100.0, f"{m} Alias: a long note running across the gutter"))
            for k, m in enumerate("abc")
        ),
    ]
    for note in lines[-3:]:
        note.size = 8.0
    rules = [(126.0, 100.0, 300.0), (178.0, 100.0, 300.0)]
    text, (table,) = find_aligned_tables(lines, 21, rules)
    assert table.caption is not None and table.caption.text == "Table 3: Type 1 fonts"
    assert table.fragment.rows == [
        ["Font family", "Shapes"],
        *(["Family " + str(k), "n, it"] for k in range(4)),
    ]
    assert [ln.text for ln in text] == ["Table 3: Type 1 fonts"] + [ln.text for ln in lines[-3:]]


def test_a_rule_between_two_lines_parts_their_rows_and_notes_do_not_count_as_rows() -> None:
    # fontspec's Table 7: two of five rows have cells closer than a cell gap, a
    # cmidrule sets "ResetAll" apart, two lines of notes follow the bottom rule.
    lines = [
        glyph_line(100.0, (50.0, "Feature"), (120.0, "Option"), (180.0, "Tag"), bold=True),
        glyph_line(116.0, (50.0, "Diacritics ="), (120.0, "MarkToBase"), (180.0, "mark")),
        glyph_line(128.0, (120.0, "MarkToMark"), (180.0, "mkmk")),
        glyph_line(140.0, (120.0, "Above"), (180.0, "abvm")),
        glyph_line(152.0, (120.0, "Below"), (180.0, "blwm")),
        glyph_line(168.0, (120.0, "ResetAll")),
        line(186.0, (30.0, "\u2020 These feature options can be disabled with Off variants,")),
        line(195.0, (40.0, "and reset to default state with Reset.")),
    ]
    for note in lines[-2:]:
        note.size = 8.0
    rules = [(98.0, 50.0, 210.0), (113.0, 50.0, 210.0), (165.0, 120.0, 210.0), (182.0, 50.0, 210.0)]
    text, (table,) = find_aligned_tables(lines, 40, rules)
    assert table.fragment.rows[1:] == [
        ["Diacritics =", "MarkToBase", "mark"],
        ["", "MarkToMark", "mkmk"],
        ["", "Above", "abvm"],
        ["", "Below", "blwm"],
        ["", "ResetAll", ""],
    ]
    assert [ln.text for ln in text] == [ln.text for ln in lines[-2:]]


def test_typewriter_rows_under_text_font_heads_over_rules_are_a_table() -> None:
    # A table of option names: bold heads in the text font, each over its own rule, every
    # cell below in typewriter; one option lists its fields over several lines, so
    # most lines have one segment.
    heads = line(100.0, (50.0, "Option"), (150.0, "Fields"), (250.0, "Counter"), bold=True)
    body = [
        line(116.0, (50.0, "alpha"), (150.0, "alpha"), (250.0, "extraalpha"), mono=True),
        line(128.0, (50.0, "dateparts"), (150.0, "year"), (250.0, "extrayear"), mono=True),
        *(line(140.0 + 12 * i, (150.0, f"field{i}"), mono=True) for i in range(6)),
        line(212.0, (50.0, "title"), (150.0, "-"), (250.0, "extratitle"), mono=True),
    ]
    rules = [(112.0, 50.0, 140.0), (112.0, 150.0, 240.0), (112.0, 250.0, 310.0)]
    rules.append((224.0, 50.0, 310.0))
    _text, (table,) = find_aligned_tables([heads, *body], 3, rules)
    assert table.fragment.rows[0] == ["Option", "Fields", "Counter"]
    fields = " ".join(["year", *(f"field{i}" for i in range(6))])
    assert table.fragment.rows[1:] == [
        ["alpha", "alpha", "extraalpha"],
        ["dateparts", fields, "extrayear"],
        ["title", "-", "extratitle"],
    ]
    # The same lines in the text font keep the share of two-segment lines: two rows
    # over a rule, a numbered section title and its prose are no table.
    plain = [
        heads,
        line(116.0, (50.0, "eins"), (150.0, "zwei")),
        line(128.0, (50.0, "4"), (70.0, "Title")),
    ]
    plain += [line(142.0 + 12 * i, (50.0, f"A line of prose number {i}")) for i in range(6)]
    text, tables = find_aligned_tables(plain, 5, rules)
    assert tables == [] and text == plain
    # Code under a rule has no text-font heads: it stays a listing.
    code = [line(100.0 + 12 * i, (50.0, "int x"), (150.0, "= 1;"), mono=True) for i in range(4)]
    text, tables = find_aligned_tables(code, 1, [(111.0, 50.0, 180.0)])
    assert tables == [] and text == code


def test_rules_under_each_head_give_the_columns() -> None:
    # A language table: one rule under each head, none across the gutters. A cell
    # wraps with its hyphen touching the next column's text ("An-" "catalan", no
    # gap), and a justified line of the last column leaves a gap wider than a cell
    # gap inside it ("american,    USenglish,").
    heads = glyph_line(100.0, (50.0, "Sprache"), (150.0, "Region"), (250.0, "Babel"), bold=True)
    lines = [
        heads,
        glyph_line(114.0, (50.0, "Bulgarisch"), (150.0, "Bulgarien"), (250.0, "bulgarian")),
        glyph_line(126.0, (50.0, "Katalanisch"), (150.0, "Spanien, Frankr, An-catalan")),
        glyph_line(138.0, (150.0, "dorra")),
        glyph_line(150.0, (50.0, "Englisch"), (150.0, "USA"), (250.0, "american,"), (320.0, "US")),
        glyph_line(162.0, (50.0, "Ungarisch"), (150.0, "Ungarn"), (250.0, "magyar, hungarian")),
        glyph_line(174.0, (50.0, "Polnisch"), (150.0, "Polen"), (250.0, "polish")),
    ]
    rules = [(111.0, 50.0, 145.0), (111.0, 150.0, 245.0), (111.0, 250.0, 340.0)]
    rules.append((186.0, 50.0, 345.0))
    _text, (table,) = find_aligned_tables(lines, 28, rules)
    assert table.fragment.rows == [
        ["Sprache", "Region", "Babel"],
        ["Bulgarisch", "Bulgarien", "bulgarian"],
        ["Katalanisch", "Spanien, Frankr, Andorra", "catalan"],
        ["Englisch", "USA", "american, US"],
        ["Ungarisch", "Ungarn", "magyar, hungarian"],
        ["Polnisch", "Polen", "polish"],
    ]


def test_group_heads_over_cmidrules_do_not_give_the_columns() -> None:
    # Two group heads, each over a rule spanning several columns: the rows' gutters
    # find the columns (five), not the two rules.
    lines = [
        line(100.0, (50.0, "Engine"), (200.0, "Features"), bold=True),
        line(
            114.0, (50.0, "pdfTeX"), (100.0, "1.40"), (200.0, "yes"), (250.0, "no"), (300.0, "no")
        ),
        line(
            126.0, (50.0, "LuaTeX"), (100.0, "0.62"), (200.0, "yes"), (250.0, "yes"), (300.0, "no")
        ),
        line(138.0, (50.0, "XeTeX"), (100.0, "0.99"), (200.0, "yes"), (250.0, "no"), (300.0, "no")),
    ]
    rules = [(111.0, 50.0, 130.0), (111.0, 200.0, 320.0), (150.0, 50.0, 320.0)]
    _text, (table,) = find_aligned_tables(lines, 4, rules)
    assert table.fragment.rows[1] == ["pdfTeX", "1.40", "yes", "no", "no"]


def test_margin_notes_set_below_a_booktabs_table_go_with_the_display_after_it() -> None:
    # fancyhdr's option table: \marginpar notes beside the display that follows the
    # table start level with its bottom rule, in the gap below its last row; put
    # before the table's block they split its head from its rows.
    prose = [line(60.0 + 12 * i, (145.0, f"Prose line {i} of the page runs on")) for i in range(8)]
    head = line(160.0, (150.0, "Option"), (215.0, "Meaning"))
    keys = ("nocheck", "compatV3", "twoside", "headings")
    rows = [
        line(177.0 + 12 * k, (150.0, k_), (215.0, f"what {k_} does")) for k, k_ in enumerate(keys)
    ]
    notes = [line(228.0 + 12 * k, (87.0, f"\\cmd{k}"), mono=True) for k in range(3)]
    code = [line(248.0 + 12 * k, (150.0, f"\\cmd{k}[{{field}}]"), mono=True) for k in range(3)]
    rules = [(158.0, 145.0, 400.0), (175.0, 145.0, 400.0), (226.0, 145.0, 400.0)]
    ordered = reading_order([*prose, head, *rows, *notes, *code], WIDTH)
    assert [ln.text for ln in ordered[9:14]] == [row.text for row in rows] + ["\\cmd0"]
    _text, (table,) = find_aligned_tables(ordered, 3, rules)
    assert table.fragment.rows == [["Option", "Meaning"], *([k, f"what {k} does"] for k in keys)]


def test_margin_notes_below_a_paragraph_open_a_paragraph_of_their_own() -> None:
    # fancyhdr p4: the notes of a display start in the gap under the paragraph above
    # it, closer than a paragraph gap; they must not run on that paragraph's sentence.
    from chunkwise.extract.pdf.blocks import group

    prose = [line(60.0 + 12 * i, (145.0, f"Prose line {i} of the page runs on")) for i in range(10)]
    notes = [line(182.0 + 12 * k, (87.0, f"\\cmd{k}"), mono=True) for k in range(3)]
    code = [line(200.0 + 12 * k, (150.0, f"\\cmd{k}[{{field}}]"), mono=True) for k in range(3)]
    items = group(reading_order([*prose, *notes, *code], WIDTH), 10.0, [])
    assert [it.text for it in items] == [
        " ".join(ln.text for ln in prose),
        " ".join(ln.text for ln in notes + code),
    ]


def test_margin_notes_level_with_a_tables_head_stay_out_of_its_head_and_rows() -> None:
    # microtype's Table 4: a caption in the margin beside the two head lines, its
    # last line reaching down to the first row: not in a gap between blocks, it keeps
    # its place before the block it stands beside, not between the head and the rows.
    prose = [line(20.0 + 12 * i, (145.0, f"Prose line {i} of the page runs on")) for i in range(8)]
    notes = [line(124.0, (34.0, "Table 4:"), mono=True), line(144.0, (34.0, "OpenType"), mono=True)]
    notes.append(line(154.0, (34.0, "with settings"), mono=True))
    heads = [line(124.0, (145.0, "Font family"), (300.0, "Features"))]
    heads.append(line(144.0, (300.0, "Scripts"), (440.0, "Shapes")))
    rows = [
        line(162.0 + 12 * k, (145.0, f"Font {k}"), (300.0, "Latin"), (440.0, "n, it"))
        for k in range(4)
    ]
    ordered = [ln.text for ln in reading_order([*prose, *notes, *heads, *rows], WIDTH)]
    at = ordered.index("Scripts Shapes")
    assert ordered[at + 1 :] == [row.text for row in rows]
