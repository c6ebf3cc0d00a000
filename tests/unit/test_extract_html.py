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
