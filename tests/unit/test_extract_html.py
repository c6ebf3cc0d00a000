"""HTML to canonical text."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from chunkwise.extract import DocFormat, ExtractLimits, LimitExceeded, extract

pytest.importorskip("lxml")

DATA = Path(__file__).resolve().parents[1] / "data"

PAGE = b"""<!DOCTYPE html>
<html lang="en"><head><title>Pricing</title>
<style>body { color: red }</style><script>var secret = "SCRIPTTEXT";</script></head>
<body>
<header><nav><a href="/">Home</a> <a href="/docs">Docs NAVTEXT</a></nav></header>
<main>
<h1>Plans and pricing</h1>
<p>All plans include <b>unlimited</b> projects.<br>Prices are per user.</p>
<h2>Features</h2>
<ul><li>Single sign-on<ul><li>SAML</li></ul></li><li>Audit log</li></ul>
<ol><li>Sign up</li><li>Invite your team</li></ol>
<table>
<caption>Feature matrix</caption>
<thead><tr><th>Feature</th><th>Free</th><th>Team</th></tr></thead>
<tbody><tr><td>SSO</td><td>No</td><td>Yes</td></tr>
<tr><td colspan="2">Backups | daily</td><td>Yes</td></tr></tbody>
</table>
<pre><code>pip install chunkwise</code></pre>
</main>
<footer>Copyright FOOTERTEXT</footer>
</body></html>
"""


def test_html_structure() -> None:
    r = extract(PAGE, filename="pricing.html")
    t = r.text
    assert r.report.format is DocFormat.HTML
    assert "# Plans and pricing\n" in t
    assert "\n## Features\n" in t
    assert "All plans include unlimited projects.\nPrices are per user." in t
    assert "- Single sign-on\n  - SAML\n- Audit log" in t
    assert "1. Sign up\n2. Invite your team" in t
    assert (
        "**Feature matrix**\n\n| Feature | Free | Team |\n| --- | --- | --- |\n"
        "| SSO | No | Yes |\n| Backups \\| daily |  | Yes |"
    ) in t
    assert "```\npip install chunkwise\n```" in t
    for dropped in ("SCRIPTTEXT", "NAVTEXT", "FOOTERTEXT", "color: red", "Pricing\n"):
        assert dropped not in t
    assert r.report.tables_found == 1
    assert r.report.tables[0].header == "| Feature | Free | Team |"


def test_html_sniffed_without_extension() -> None:
    r = extract(PAGE)
    assert r.report.format is DocFormat.HTML


def test_html_latin1_meta_charset() -> None:
    page = '<html><head><meta charset="iso-8859-1"></head><body><p>Größe \u00d7</p></body></html>'
    r = extract(page.encode("latin-1"), filename="de.html")
    assert "Größe \u00d7" in r.text
    assert r.report.encoding == "iso-8859-1"


def test_html_sample_files() -> None:
    for name, expected in {
        "pricing_en.html": [
            "# Pricing and Features\n",
            "## Plans and prices\n\nTable 1: Plans and prices\n\n"
            "| Plan | Price per user | Storage | Support |\n",
            "| Single sign-on | No | Yes | Yes |",
        ],
        "preise_de.html": [
            "# Preise und Funktionen\n",
            "Tabelle 2: Funktionen nach Tarif\n\n| Funktion | Kostenlos | Team | Enterprise |\n",
            "| Aufbewahrung der Backups | 7 Tage | 30 Tage | 365 Tage |",
        ],
    }.items():
        path = DATA / name
        if not path.exists():
            pytest.skip("samples not generated")
        r = extract(path.read_bytes(), filename=name)
        for e in expected:
            assert e in r.text, (name, e)
        for dropped in ("tracking-code", "Impressum", "Startseite", "Home |", "border-collapse"):
            assert dropped not in r.text
        assert len(r.report.tables) == 2


def test_50mb_html_rejected_quickly() -> None:
    chunk = b"<p>" + b"lorem ipsum dolor sit amet " * 37 + b"</p>\n"
    data = b"<!DOCTYPE html><html><body>" + chunk * (50 * 1024 * 1024 // len(chunk) + 1)
    assert len(data) >= 50 * 1024 * 1024
    t0 = time.monotonic()
    with pytest.raises(LimitExceeded) as e:
        extract(data, filename="huge.html")
    assert time.monotonic() - t0 < 2.0
    assert e.value.limit == "max_html_bytes"
    assert "HTML" in e.value.reason
    # with a raised limit the same page parses in bounded time
    small = data[: 5 * 1024 * 1024]
    t0 = time.monotonic()
    r = extract(small, filename="big.html", limits=ExtractLimits(max_html_bytes=6 * 1024 * 1024))
    assert time.monotonic() - t0 < 30
    assert r.text.startswith("lorem ipsum")


# --- what is not content: landmarks, navigation containers, layout tables ------


def _html(body: str) -> bytes:
    return f"<!DOCTYPE html><html><body>{body}</body></html>".encode()


def test_html_page_banner_footer_and_complementary_parts_are_dropped() -> None:
    page = _html(
        "<header><a href='/'>ACME</a> BANNERTEXT</header>"
        "<div role='banner'>ROLEBANNER</div>"
        "<main><article><header><h1>Wartung</h1><p>Von Anna, 3. März</p></header>"
        "<p>Die Pumpe jährlich prüfen.</p><footer>Teilen ARTICLEFOOTER</footer></article>"
        "<aside>Verwandte Artikel ASIDETEXT</aside></main>"
        "<div role='complementary'>COMPLEMENTARY</div><div role='contentinfo'>CONTENTINFO</div>"
    )
    r = extract(page, filename="x.html")
    # the header of an article is its title, not the page banner
    assert r.text == "# Wartung\n\nVon Anna, 3. März\n\nDie Pumpe jährlich prüfen.\n"


def test_html_navigation_containers_named_by_class_or_id_are_dropped() -> None:
    page = _html(
        "<div class='site-nav'>Start NAVCLASS</div><div id='breadcrumbs'>Start &gt; Hilfe</div>"
        "<ul class='navbar'><li>Produkte</li></ul>"
        "<div class='toc'><p><b>Inhalt</b></p><dl><dt>1. Wartung</dt></dl></div>"
        "<div id='main-navigation'>Menü</div><div class='topnav'>Oben</div>"
        "<p class='canvas-text'>Inhalt bleibt.</p>"
        "<section class='navigation-system'><p>Das Navi zeigt die Route.</p></section>"
    )
    assert extract(page, filename="x.html").text == "Inhalt bleibt.\n\nDas Navi zeigt die Route.\n"


DOCBOOK_PAGE = _html(
    """<div class="navheader"><table width="100%" summary="Navigation header">
<tr><th colspan="3" align="center">Chapter 7. GUI System</th></tr>
<tr><td align="left"><a accesskey="p" href="ch06.html"><img src="prev.png" alt="Prev"/></a></td>
<th width="60%" align="center"> </th>
<td align="right"><a accesskey="n" href="ch08.html"><img src="next.png" alt="Next"/></a></td></tr>
</table><hr/></div>
<div class="chapter"><h1 class="title">Chapter 7. GUI System</h1>
<div class="tip"><table border="0" summary="Tip">
<tr><td rowspan="2" align="center" valign="top" width="25"><img alt="[Tip]" src="tip.png"/></td>
<th align="left">Tip</th></tr>
<tr><td align="left" valign="top"><p>Start aptitude as follows:</p>
<ol><li>Press "g".</li><li>Press "q".</li></ol></td></tr></table></div>
<div class="table"><p class="title"><b>Table 7.1. Desktops</b></p><div class="table-contents">
<table class="table" summary="Desktops" border="1"><thead><tr><th>package</th><th>popcon</th>
</tr></thead><tbody><tr><td>task-gnome-desktop</td><td>I:179</td></tr></tbody></table></div></div>
</div>
<div class="navfooter"><hr/><table width="100%" summary="Navigation footer">
<tr><td align="left"><a accesskey="p" href="ch06.html"><img src="prev.png" alt="Prev"/></a></td>
<td align="center"> </td><td align="right"><a accesskey="n" href="ch08.html">Next</a></td></tr>
<tr><td align="left" valign="top">Chapter 6. Network applications</td>
<td align="center"><a accesskey="h" href="index.html">Home</a></td>
<td align="right" valign="top">Chapter 8. I18N and L10N</td></tr></table></div>"""
)


def test_html_docbook_navigation_and_admonition_tables_are_not_tables() -> None:
    """As the DocBook XSL stylesheets write them (debian-reference)."""
    r = extract(DOCBOOK_PAGE, filename="ch07.html")
    assert r.text == (
        "# Chapter 7. GUI System\n\nTip\n\nStart aptitude as follows:\n\n"
        '1. Press "g".\n2. Press "q".\n\nTable 7.1. Desktops\n\n'
        "| package | popcon |\n| --- | --- |\n| task-gnome-desktop | I:179 |\n"
    )
    assert [t.header for t in r.report.tables] == ["| package | popcon |"]


def test_html_presentation_and_one_row_layout_tables_are_read_as_blocks() -> None:
    page = _html(
        "<table role='presentation'><tr><td>Links</td><td>Rechts</td></tr>"
        "<tr><td>a</td><td>b</td></tr></table>"
        "<table><tr><td><h2>Spalte 1</h2><p>Erster Text.</p></td>"
        "<td><p>Zweiter Text.</p><ul><li>Punkt</li></ul></td></tr></table>"
    )
    r = extract(page, filename="x.html")
    assert r.text == (
        "Links\n\nRechts\n\na\n\nb\n\n## Spalte 1\n\nErster Text.\n\nZweiter Text.\n\n- Punkt\n"
    )
    assert r.report.tables_found == 0


def test_html_table_holding_a_table_is_layout_and_the_inner_one_is_data() -> None:
    page = _html(
        "<table><tr><td><p>Preise:</p><table><tr><th>Tarif</th><th>Preis</th></tr>"
        "<tr><td>Basis</td><td>6 €</td></tr></table></td><td>Seitenleiste</td></tr></table>"
    )
    r = extract(page, filename="x.html")
    assert r.text == (
        "Preise:\n\n| Tarif | Preis |\n| --- | --- |\n| Basis | 6 € |\n\nSeitenleiste\n"
    )


def test_html_data_tables_without_th_and_one_column_tables_with_th_stay_tables() -> None:
    page = _html(
        "<table><tr><td>Modus</td><td>Wirkung</td></tr><tr><td>0</td><td>Standard</td></tr>"
        "<tr><td>1</td><td>Immer</td></tr></table>"
        "<table><tr><th>Befehl</th></tr><tr><td>ls</td></tr><tr><td>cd</td></tr></table>"
    )
    r = extract(page, filename="x.html")
    assert r.text == (
        "| Modus | Wirkung |\n| --- | --- |\n| 0 | Standard |\n| 1 | Immer |\n\n"
        "| Befehl |\n| --- |\n| ls |\n| cd |\n"
    )


def test_html_several_header_rows_name_each_column() -> None:
    page = _html(
        "<table><thead><tr><th rowspan='2'>Tarif</th><th colspan='2'>Preis</th></tr>"
        "<tr><th>Monat</th><th>Jahr</th></tr></thead>"
        "<tbody><tr><td>Basis</td><td>6 €</td><td>60 €</td></tr></tbody></table>"
        "<table><tr><th colspan='2'>Liste der Methoden</th></tr>"
        "<tr><td>Append</td><td>Sort</td></tr></table>"
    )
    r = extract(page, filename="x.html")
    assert r.text == (
        "| Tarif | Preis / Monat | Preis / Jahr |\n| --- | --- | --- |\n| Basis | 6 € | 60 € |\n\n"
        "| Liste der Methoden |  |\n| --- | --- |\n| Append | Sort |\n"
    )


def test_html_cell_spanning_rows_is_written_in_each_row_and_keeps_columns() -> None:
    page = _html(
        "<table><tr><th>Kategorie</th><th>Artikel</th><th>Preis</th></tr>"
        "<tr><td rowspan='2'>Filter</td><td>FF-10</td><td>24,90</td></tr>"
        "<tr><td>FF-20</td><td>29,90</td></tr>"
        "<tr><td>Zubehör</td><td>Schlauch</td><td rowspan='0'>32,00</td></tr></table>"
    )
    r = extract(page, filename="x.html")
    assert r.text.split("\n")[2:5] == [
        "| Filter | FF-10 | 24,90 |",
        "| Filter | FF-20 | 29,90 |",
        "| Zubehör | Schlauch | 32,00 |",
    ]


def test_html_no_break_spaces_are_characters_of_the_text() -> None:
    page = _html(
        "<p>&nbsp;Preis:   10&nbsp;000&nbsp;€</p>"
        "<table><tr><th>Gewicht</th><th>&nbsp;</th></tr><tr><td>12&nbsp;kg</td><td>x</td></tr>"
        "<tr><td>20&nbsp;kg</td><td>y</td></tr></table>"
    )
    r = extract(page, filename="x.html")
    assert r.text == (
        "Preis: 10\u00a0000\u00a0€\n\n"
        "| Gewicht |  |\n| --- | --- |\n| 12\u00a0kg | x |\n| 20\u00a0kg | y |\n"
    )


def test_html_platform_switch_shows_its_default_variant() -> None:
    """LibreOffice help: hidden variants per platform, a script unhides one."""
    page = _html(
        '<p>Wählen Sie <span class="switchinline">'
        '<span hidden="true" id="MACtext_1" class="MAC">LibreOffice – Einstellungen</span>'
        '<span hidden="true" id="defaulttext_1">Extras – Optionen…</span></span>'
        " – Laden/Speichern.</p>"
        '<span class="switch"><span hidden="true" id="CALCtext_2" class="CALC">'
        "<p>Nur in Calc.</p></span></span>"
        '<p hidden id="defaultnote">Versteckt bleibt versteckt.</p>'
    )
    assert extract(page, filename="x.html").text == (
        "Wählen Sie Extras – Optionen… – Laden/Speichern.\n"
    )


def test_html_hostile_spans_are_capped_at_the_table_column_limit() -> None:
    from chunkwise.extract.tables import MAX_TABLE_COLUMNS

    row = "<tr>" + "<td rowspan='500' colspan='50'>x</td>" * 20 + "</tr>"
    page = _html("<table><tr><th>A</th><th colspan='9999'>B</th></tr>" + row * 30 + "</table>")
    r = extract(page, filename="x.html")
    lines = r.text.rstrip("\n").split("\n")
    assert lines[0].startswith("| A | B | B |")
    assert {line.count(" | ") + 1 for line in lines} == {MAX_TABLE_COLUMNS}
    assert len(lines) == 2 + 30
