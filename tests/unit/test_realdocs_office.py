"""The office-PDF builder of the real-document corpus (bench/realdocs/office.py), pure parts."""

from __future__ import annotations

import json

import pytest
from bench.realdocs import office

_STYLES = (
    '<office:document-styles xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:master-styles>'
    '<style:master-page style:name="Standard" style:page-layout-name="Mpm1"/>'
    '<style:master-page style:name="HTML" style:page-layout-name="Mpm2"/>'
    "</office:master-styles></office:document-styles>"
)


def test_every_master_page_gets_the_header_and_a_page_number_footer() -> None:
    out = office.with_running_lines(_STYLES, "Debian Reference", "Page {page} of {pages}")
    assert out.count("<style:header>") == 2 and out.count("<style:footer>") == 2
    assert "Page <text:page-number/> of <text:page-count/>" in out
    assert '<style:master-page style:name="HTML" style:page-layout-name="Mpm2">' in out


def test_no_running_lines_leave_the_styles_as_they_are() -> None:
    assert office.with_running_lines(_STYLES, "", "") == _STYLES


def test_styles_without_the_text_namespace_are_refused() -> None:
    with pytest.raises(ValueError, match="namespace"):
        office.with_running_lines("<style:master-page a='b'/>", "", "Seite {page}")


def test_the_pdf_filter_asks_for_tagged_pdf_only_when_listed() -> None:
    for tagged, value in ((True, "true"), (False, "false")):
        kind, name, options = office._pdf_filter(tagged).split(":", 2)
        assert (kind, name) == ("pdf", "writer_pdf_Export")
        assert json.loads(options) == {"UseTaggedPDF": {"type": "boolean", "value": value}}


def test_dev_and_heldout_office_documents_are_apart() -> None:
    from bench.realdocs import fetch

    names = {s.name for s in office.SOURCES}
    listed = {d.name for d in fetch.DOCUMENTS if d.path.startswith("office:")}
    assert names == listed and len(names) == len(office.SOURCES)  # no name twice
    assert len({s.html for s in office.SOURCES}) == len(office.SOURCES)  # no source page twice
