"""Tagged PDF: the structure tree decides headings and page furniture where it is sound.

Each test's PDF is written by hand (reportlab writes no structure tree): one page of
Helvetica lines, each in its own marked-content sequence (`/P <</MCID n>> BDC`, or
`/Artifact BMC`, or none), and a tree that hangs each MCID under an element. The same
page without its tree shows what the layout rules alone make of it.
"""

from __future__ import annotations

from chunkwise.extract import extract
from tests.raw_pdf import pdf_from_objects

_BODY = [
    "The service chunks every document that is uploaded to the bucket and keeps",
    "the offsets of each chunk exact, so that a citation points at the source text.",
    "It runs in a function that reads one queue message at a time and writes the",
    "chunks of one document to the index in a single request to the search cluster.",
]


def _tagged_pdf(
    lines: list[tuple[str | None, float, str]], *, tree: bool = True, order: str = "page"
) -> bytes:
    """`lines`: (tag, size, text) top to bottom; tag "Artifact" is page furniture,
    None text outside any marked content, else the structure element's type. With
    `order="reversed"` the tree lists the elements bottom to top."""
    stream = b""
    elements: list[tuple[str, int]] = []
    y = 560.0
    for tag, size, text in lines:
        body = b"BT /F1 %.1f Tf 50 %.1f Td (%s) Tj ET" % (size, y, text.encode("latin-1"))
        if tag == "Artifact":
            stream += b"/Artifact BMC " + body + b" EMC\n"
        elif tag is None:
            stream += body + b"\n"
        else:
            mcid = len(elements)
            stream += b"/%s <</MCID %d>> BDC %s EMC\n" % (tag.encode(), mcid, body)
            elements.append((tag, mcid))
        y -= size * 1.25 + (6 if size > 12 else 0)
    if order == "reversed":
        elements.reverse()
    first = 7  # object number of the Document element; its children follow
    kids = b" ".join(b"%d 0 R" % (first + 1 + i) for i in range(len(elements)))
    catalog = b"<< /Type /Catalog /Pages 2 0 R"
    if tree:
        catalog += b" /MarkInfo << /Marked true >> /StructTreeRoot 6 0 R"
    objects = [
        catalog + b" >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 500 600] /StructParents 0"
        b" /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /StructTreeRoot /K [%d 0 R] >>" % first,
        b"<< /Type /StructElem /S /Document /P 6 0 R /K [%s] >>" % kids,
        *(
            b"<< /Type /StructElem /S /%s /P %d 0 R /Pg 3 0 R /K %d >>" % (t.encode(), first, m)
            for t, m in elements
        ),
    ]
    return pdf_from_objects(objects, version="1.7")


def _page(
    heading_tag: str = "H2", body_tag: str | None = "P", title_tag: str = "H1"
) -> list[tuple[str | None, float, str]]:
    return [
        ("Artifact", 9, "Draft for review only"),
        (title_tag, 11, "Introduction to the service"),
        *((body_tag, 11.0, text) for text in _BODY[:2]),
        (heading_tag, 11, "Scope of the service"),
        *((body_tag, 11.0, text) for text in _BODY[2:]),
        ("P", 16, "Call us today"),
        *((body_tag, 11.0, text) for text in _BODY),
    ]


def test_a_heading_tagged_h1_at_the_body_size_is_a_heading() -> None:
    result = extract(_tagged_pdf(_page()), filename="tagged.pdf")
    assert result.report.structure is not None and result.report.structure.startswith("tags")
    # the tree's top level once on page 1 is the title, the next level below the anchors
    assert "\n# Introduction to the service\n" in result.text
    assert "\n### Scope of the service\n" in result.text
    # without its tree the same page has no such heading: the line looks like prose
    untagged = extract(_tagged_pdf(_page(), tree=False), filename="untagged.pdf")
    assert untagged.report.structure == "layout: no structure tree"
    assert "# Scope of the service" not in untagged.text


def test_a_large_line_tagged_p_is_not_a_heading() -> None:
    result = extract(_tagged_pdf(_page()), filename="tagged.pdf")
    assert "# Call us today" not in result.text
    assert "\n\nCall us today\n\n" in result.text
    untagged = extract(_tagged_pdf(_page(), tree=False), filename="untagged.pdf")
    assert "# Call us today" in untagged.text


def test_an_artifact_is_page_furniture_and_left_out() -> None:
    result = extract(_tagged_pdf(_page()), filename="tagged.pdf")
    assert "Draft for review" not in result.text
    assert result.report.headers_footers_removed == 1
    # once on one page, the layout cannot know it is furniture
    untagged = extract(_tagged_pdf(_page(), tree=False), filename="untagged.pdf")
    assert "Draft for review only" in untagged.text


def test_tags_that_reach_little_of_the_text_are_not_used() -> None:
    # only the headings and two lines are tagged: the tree says nothing of the rest
    result = extract(_tagged_pdf(_page(body_tag=None)), filename="sparse.pdf")
    assert result.report.structure is not None
    assert result.report.structure.startswith("layout: tags not sound")
    assert "# Scope of the service" not in result.text
    assert "# Call us today" in result.text  # the layout's heading
    assert "Draft for review only" in result.text


def test_a_tree_without_heading_tags_leaves_headings_to_the_layout() -> None:
    # a writer that tags every block P (headings included) says nothing about headings
    result = extract(_tagged_pdf(_page(heading_tag="P", title_tag="P")), filename="all-p.pdf")
    assert result.report.structure is not None
    assert result.report.structure.startswith("layout: no heading tags")
    assert "# Call us today" in result.text


def test_a_tree_in_another_order_than_the_page_is_not_used() -> None:
    result = extract(_tagged_pdf(_page(), order="reversed"), filename="reversed.pdf")
    assert result.report.structure is not None
    assert result.report.structure.startswith("layout: tag order")
    assert "# Scope of the service" not in result.text


def test_an_untagged_pdf_reads_as_before() -> None:
    result = extract(_tagged_pdf(_page(), tree=False), filename="plain.pdf")
    assert result.report.structure == "layout: no structure tree"


def test_an_unreadable_tree_leaves_the_document_to_the_layout() -> None:
    # a /StructTreeRoot that is no dictionary: nothing can be read from it
    data = _tagged_pdf(_page()).replace(b"/StructTreeRoot 6 0 R", b"/StructTreeRoot 42   ", 1)
    result = extract(data, filename="broken.pdf")
    assert result.report.structure is not None
    assert result.report.structure.startswith("layout: structure tree unreadable")
    assert "# Call us today" in result.text
