"""The canonical text keeps source characters where chunkwise's grammar allows.

Pinned choice: escaping is avoided in the canonical text itself (never undone
later), so `text[start:end] == body` holds and a cited command reads as in the
source. A heading starts a block; a "#" line inside a paragraph is prose and
stays unescaped; fenced code is literal; only a paragraph whose first line
would read as a heading keeps its backslash.
"""

from __future__ import annotations

from chunkwise import chunk_text
from chunkwise.chunking.blocks import BlockType, parse_blocks
from chunkwise.extract import extract
from chunkwise.extract.markdown import separate_headings

HTML = (
    b"<html><body><h1>Setup</h1>"
    b"<p>Run this as root:<br># apt-get install chunkwise</p>"
    b"<pre># the config file\nport = 9200</pre>"
    b"<p># 1 priority</p>"
    b"</body></html>"
)


def test_a_hash_line_inside_a_paragraph_is_cited_as_in_the_source() -> None:
    text = extract(HTML, filename="setup.html").text
    assert "Run this as root:\n# apt-get install chunkwise" in text
    chunks = chunk_text(text, "en")
    cited = [c for c in chunks if "apt-get install" in c.body]
    assert cited and "\\#" not in cited[0].body.split("Run this")[1].split("```")[0]
    assert all("apt-get" not in " ".join(c.heading_path) for c in chunks)
    assert all(text[c.start : c.end] == c.body for c in chunks)


def test_code_blocks_are_literal() -> None:
    text = extract(HTML, filename="setup.html").text
    assert "```\n# the config file\nport = 9200\n```" in text
    assert "\\# the config" not in text


def test_a_paragraph_starting_like_a_heading_keeps_its_escape() -> None:
    # Here the grammar does not allow the plain "#": it would be a heading.
    text = extract(HTML, filename="setup.html").text
    assert "\n\n\\# 1 priority" in text
    assert [b.type for b in parse_blocks("\\# 1 priority\n")] == [BlockType.PARAGRAPH]


def test_a_heading_line_does_not_interrupt_a_paragraph() -> None:
    blocks = parse_blocks("Run this as root:\n# apt-get install chunkwise\n\n# Next\n")
    assert [b.type for b in blocks] == [BlockType.PARAGRAPH, BlockType.HEADING]
    assert blocks[1].heading_title == "Next"


def test_markdown_headings_under_a_text_line_stay_headings() -> None:
    source = "Intro line\n# Heading\ntext\n```\nx\n# comment\n```\n"
    text = extract(source.encode(), filename="notes.md").text
    assert text == "Intro line\n\n# Heading\ntext\n```\nx\n# comment\n```\n"
    headings = [b.heading_title for b in parse_blocks(text) if b.type is BlockType.HEADING]
    assert headings == ["Heading"]
    assert separate_headings("# A\n## B\ntext") == "# A\n## B\ntext"
