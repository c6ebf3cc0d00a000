"""The format registry is the one place that names formats: dispatch, the accepted
suffixes, --help and the docs are derived from it, and sniffing follows its rules."""

from __future__ import annotations

import ast
import io
import re
import struct
import zipfile
from dataclasses import replace as dc_replace
from pathlib import Path

import pytest

import chunkwise.extract.formats as formats_module
from chunkwise.extract import (
    DocFormat,
    EncryptedDocument,
    ExtractionError,
    ExtractLimits,
    UnsupportedFormat,
    extract,
)
from chunkwise.extract.context import ReadContext
from chunkwise.extract.formats import REGISTRY, FormatSpec, Registry, TextRule
from chunkwise.extract.sniff import identify, ole2_entries

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "shared" / "chunkwise"
#: (module, literal) pairs that name an extension for another reason than a format.
NOT_FORMAT_EXTENSIONS = {
    ("ingest/config.py", ".md"),  # the artifact written per revision, not an input format
}
_FAKE = re.compile(rb"^FAKE:")


def read_fake(data: bytes, ctx: ReadContext) -> str:
    """The reader of the fake format below (a `Reader`)."""
    ctx.report.warnings.append("read by the fake reader")
    return "# Fake\n\n" + (ctx.text or "").removeprefix("FAKE:").strip() + "\n"


FAKE = FormatSpec(
    DocFormat.EPUB,  # an enum member is needed; the copy replaces EPUB's row
    "FAKE",
    "a fake format",
    extensions=(".fake",),
    mime_types=("text/x-fake",),
    rule=TextRule(_FAKE),
    reader=read_fake,
    libraries=("pydantic",),
)


def fake_registry() -> Registry:
    others = tuple(s for s in REGISTRY.specs if s.format is not DocFormat.EPUB)
    return Registry(others).with_spec(FAKE, before=DocFormat.HTML)


def test_a_new_row_is_dispatched_to_its_reader() -> None:
    result = extract(b"FAKE: hello there", filename="note.fake", registry=fake_registry())
    assert result.text == "# Fake\n\nhello there\n"
    assert result.report.format is DocFormat.EPUB
    assert result.report.warnings == ["read by the fake reader"]
    assert "pydantic" in result.report.libraries
    # by content alone, too (the rule's pattern), and not in the real registry
    assert extract(b"FAKE: x", registry=fake_registry()).text.startswith("# Fake")
    assert extract(b"FAKE: x").report.format is DocFormat.TEXT


def test_a_new_row_appears_in_suffixes_help_and_docs(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkwise.cli.extract import _parser as extract_parser
    from chunkwise.cli.main import _chunk_parser

    monkeypatch.setattr(formats_module, "REGISTRY", fake_registry())
    assert ".fake" in formats_module.accepted_suffixes()
    from chunkwise.ingest.config import PipelineConfig

    assert ".fake" in PipelineConfig(bucket="docs", artifacts_bucket="derived").allowed_suffixes
    for parser in (extract_parser(), _chunk_parser()):
        assert "FAKE" in " ".join(parser.format_help().split())
    assert "| FAKE | `.fake` |" in formats_module.REGISTRY.docs_table()


def test_pipeline_and_settings_take_the_registry_suffixes() -> None:
    from chunkwise.ingest.config import PipelineConfig
    from chunkwise.settings import SourceSettings

    assert SourceSettings().allowed_suffixes is None  # None: the pipeline's default
    config = PipelineConfig(bucket="docs", artifacts_bucket="derived")
    assert config.allowed_suffixes == REGISTRY.suffixes()
    expected = {".csv", ".tsv", ".xlsx", ".xlsm", ".xls", ".pdf", ".docx"}
    assert expected <= set(config.allowed_suffixes)


def test_help_names_every_read_format_once() -> None:
    sentence = formats_module.formats_sentence()
    for spec in REGISTRY.read_formats():
        assert spec.name in sentence
    assert sentence.endswith(" or plain text")


def _extension_literals(path: Path, extensions: set[str]) -> list[tuple[int, str]]:
    """String constants that are an extension; f-string pieces name files chunkwise
    writes (``f"{stem}.md"``), not formats it reads, and are left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pieces = {
        id(value)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for value in node.values
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in pieces:
            continue
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.lower() in extensions
        ):
            found.append((node.lineno, node.value))
    return found


def test_no_module_but_the_registry_names_an_extension() -> None:
    extensions = set(REGISTRY.suffixes())
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "extract/formats.py":
            continue
        for line, literal in _extension_literals(path, extensions):
            if (rel, literal) not in NOT_FORMAT_EXTENSIONS:
                offenders.append(f"{rel}:{line}: {literal!r}")
    assert offenders == []


def test_the_literal_scan_finds_extensions() -> None:
    """The scan above can fail: it sees the registry's own literals."""
    found = _extension_literals(PACKAGE / "extract" / "formats.py", set(REGISTRY.suffixes()))
    assert {lit for _, lit in found} == set(REGISTRY.suffixes())


def test_registry_refuses_a_taken_extension() -> None:
    clash = FormatSpec(
        DocFormat.EPUB, "X", "x", (".csv",), (), TextRule(), reader=None, refusal="no"
    )
    with pytest.raises(ValueError, match="taken"):
        Registry((*REGISTRY.specs, clash))


# ----------------------------------------------------------------------------- sniffing


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return buf.getvalue()


def _types(main: str) -> bytes:
    return f'<Types><Override PartName="/x" ContentType="{main}"/></Types>'.encode()


_OOXML = "application/vnd.openxmlformats-officedocument."
_ODF = "application/vnd.oasis.opendocument."
_MACRO = "application/vnd.ms-excel.sheet.macroEnabled.main+xml"


def _ooxml(main_type: str, part: str, *extra: str) -> dict[str, bytes]:
    return {"[Content_Types].xml": _types(main_type), part: b"<x/>"} | dict.fromkeys(extra, b"")


ZIP_SAMPLES = {
    DocFormat.DOCX: _ooxml(_OOXML + "wordprocessingml.document.main+xml", "word/document.xml"),
    DocFormat.XLSX: _ooxml(_OOXML + "spreadsheetml.sheet.main+xml", "xl/workbook.xml"),
    DocFormat.XLSM: _ooxml(_MACRO, "xl/workbook.xml", "xl/vbaProject.bin"),
    DocFormat.PPTX: _ooxml(_OOXML + "presentationml.presentation.main+xml", "ppt/pres.xml"),
    DocFormat.ODT: {"mimetype": (_ODF + "text").encode(), "content.xml": b"<c/>"},
    DocFormat.ODS: {"mimetype": (_ODF + "spreadsheet").encode(), "content.xml": b"<c/>"},
    DocFormat.ODP: {"mimetype": (_ODF + "presentation").encode(), "content.xml": b"<c/>"},
    DocFormat.EPUB: {"mimetype": b"application/epub+zip", "META-INF/container.xml": b"<c/>"},
}


@pytest.mark.parametrize("fmt", sorted(ZIP_SAMPLES))
def test_zip_containers_told_apart_by_their_members(fmt: DocFormat) -> None:
    sniffed = identify(_zip(ZIP_SAMPLES[fmt]), "upload.bin")
    assert sniffed.spec is not None and sniffed.spec.format is fmt
    assert sniffed.container is not None and sniffed.container.label == sniffed.spec.name


def test_an_odf_template_or_unknown_mimetype_is_named() -> None:
    data = _zip({"mimetype": b"application/vnd.oasis.opendocument.graphics", "content.xml": b""})
    with pytest.raises(UnsupportedFormat) as e:
        extract(data, filename="drawing.odg")
    assert "opendocument.graphics" in e.value.reason


@pytest.mark.parametrize("fmt", [DocFormat.PPTX, DocFormat.ODT, DocFormat.EPUB])
def test_formats_without_a_reader_are_refused_by_name(fmt: DocFormat) -> None:
    """A row without a reader (a deployment that switches a format off) is refused
    with its description and its refusal."""
    spec = dc_replace(REGISTRY.spec(fmt), reader=None, refusal="switched off here")
    registry = Registry(tuple(spec if s.format is fmt else s for s in REGISTRY.specs))
    with pytest.raises(UnsupportedFormat) as e:
        extract(_zip(ZIP_SAMPLES[fmt]), filename="upload", registry=registry)
    assert spec.description in e.value.reason and "switched off here" in e.value.reason


@pytest.mark.parametrize("fmt", [DocFormat.PPTX, DocFormat.ODT, DocFormat.ODS, DocFormat.ODP,
                                 DocFormat.EPUB])  # fmt: skip
def test_a_container_with_the_marker_but_no_content_is_a_typed_error(fmt: DocFormat) -> None:
    """The sniffing samples hold no real parts: each reader says so with a typed error."""
    with pytest.raises(ExtractionError) as e:
        extract(_zip(ZIP_SAMPLES[fmt]), filename="upload")
    assert not isinstance(e.value, UnsupportedFormat)


def ole2(*entries: tuple[str, int]) -> bytes:
    """A compound-file header and one directory sector holding these entries."""
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    sector = bytearray()
    for name, kind in (("Root Entry", 5), *entries):
        encoded = name.encode("utf-16-le") + b"\0\0"
        entry = encoded.ljust(64, b"\0") + struct.pack("<HB", len(encoded), kind)
        sector += entry.ljust(128, b"\0")
    unaligned = b"xx" + "WordDocument".encode("utf-16-le") + b"\0\0"  # a name in content
    return header + bytes(sector.ljust(512, b"\0")) + unaligned


@pytest.mark.parametrize(
    "stream,fmt",
    [("WordDocument", DocFormat.DOC), ("Workbook", DocFormat.XLS), ("Book", DocFormat.XLS),
     ("PowerPoint Document", DocFormat.PPT)],
)  # fmt: skip
def test_ole2_files_told_apart_by_their_directory(stream: str, fmt: DocFormat) -> None:
    sniffed = identify(ole2((stream, 2)), None)
    assert sniffed.spec is not None and sniffed.spec.format is fmt


def test_ole2_names_in_content_are_not_entries() -> None:
    data = ole2(("Workbook", 2))
    assert ole2_entries(data, ("WordDocument",)) == set()  # the trailing text is unaligned
    assert ole2_entries(data, ("Workbook",)) == {"Workbook"}


@pytest.mark.parametrize(
    "stream,ext,advice",
    [
        ("WordDocument", "doc", "--convert-to docx"),
        ("PowerPoint Document", "ppt", "--convert-to pptx"),
    ],
)
def test_legacy_doc_and_ppt_refused_with_the_conversion(stream: str, ext: str, advice: str) -> None:
    with pytest.raises(UnsupportedFormat) as e:
        extract(ole2((stream, 2)), filename=f"old.{ext}")
    assert advice in e.value.reason and "libreoffice --headless" in e.value.reason
    assert "97-2003" in e.value.reason


def test_password_protected_ooxml_is_encrypted() -> None:
    with pytest.raises(EncryptedDocument):
        extract(ole2(("EncryptionInfo", 2), ("EncryptedPackage", 2)), filename="secret.xlsx")


def test_unknown_ole2_is_refused_as_legacy_office() -> None:
    with pytest.raises(UnsupportedFormat) as e:
        extract(ole2(("Something", 2)), filename="x.bin")
    assert "OLE2" in e.value.reason


def test_name_saying_binary_but_content_text_is_refused() -> None:
    with pytest.raises(UnsupportedFormat) as e:
        extract(b"plain words", filename="sheet.xlsx")
    assert "not a ZIP container" in e.value.reason and "XLSX" in e.value.reason
    with pytest.raises(UnsupportedFormat) as e:
        extract(b"plain words", filename="old.xls")
    assert "OLE2" in e.value.reason


def test_text_byte_limit_comes_from_the_rule() -> None:
    from chunkwise.extract import LimitExceeded

    with pytest.raises(LimitExceeded) as e:
        extract(b"<html><body>" + b"x" * 2000, limits=ExtractLimits(max_html_bytes=1000))
    assert e.value.limit == "max_html_bytes"


@pytest.mark.parametrize(
    "doc,block",
    [("samdocs/extraction.md", "formats-table"), ("README.md", "formats-list")],
)
def test_docs_show_the_registry_as_it_is(doc: str, block: str) -> None:
    """Regenerate with `python -m chunkwise.extract` and paste between the markers."""
    from chunkwise.extract.__main__ import BLOCKS
    from chunkwise.extract.formats import generated_block

    text = (ROOT / doc).read_text(encoding="utf-8")
    assert generated_block(text, block) == BLOCKS[block]()
