"""The `chunkwise` command line as a user runs it: a real process, real pipes.

Each test starts the installed console script in a subprocess and checks what
a shell would see: the exit code, what went to stdout and what to stderr.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
_SCRIPT = Path(sys.executable).with_name("chunkwise")
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "chunkwise.cli.main"]
# A progress bar of tqdm always draws "|" around its bar and "n/total".
BAR = "it/s]"


def run(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> Result:
    proc = subprocess.run(
        [*CLI, *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=120,
        env=env,
        check=False,
    )
    return Result(proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"))


class Result:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def records(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.out.splitlines()]


def spans(records: list[dict[str, object]]) -> list[tuple[object, object, object]]:
    return [(r["start"], r["end"], r["body"]) for r in records]


# --------------------------------------------------------------------------- chunk


def test_chunk_extracts_a_pdf_first() -> None:
    res = run("chunk", str(DATA / "manual_en.pdf"))
    assert res.code == 0, res.err
    records = res.records()
    assert records and all("%PDF" not in str(r["body"]) for r in records)
    assert any("X17 Pump Operating Manual" in str(r["body"]) for r in records)
    assert res.err == ""  # stderr is not a terminal here: no bar, no chatter


@pytest.mark.parametrize("name", ["manual_en.pdf", "pricing_en.docx", "preise_de.html"])
def test_extract_piped_into_chunk_stdin_gives_the_same_chunks(name: str) -> None:
    direct = run("chunk", str(DATA / name))
    extracted = run("extract", str(DATA / name))
    piped = run("chunk", "-", stdin=extracted.out.encode("utf-8"))
    assert direct.code == extracted.code == piped.code == 0
    assert spans(piped.records()) == spans(direct.records())
    text = extracted.out
    assert all(text[r["start"] : r["end"]] == r["body"] for r in piped.records())  # type: ignore[misc]


def test_stdin_takes_a_document_too() -> None:
    res = run("chunk", "-", stdin=(DATA / "pricing_en.docx").read_bytes())
    assert res.code == 0 and res.records()


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (DATA / "hostile" / "image.pdf", "UnsupportedFormat"),
        (DATA / "hostile" / "binary.txt", "UnsupportedFormat"),
        (DATA / "hostile" / "encrypted.pdf", "EncryptedDocument"),
        (DATA / "no-such-file.pdf", "cannot read"),
    ],
)
def test_refused_or_unreadable_input_exits_3(path: Path, message: str) -> None:
    res = run("chunk", str(path))
    assert res.code == 3
    assert message in res.err and res.out == ""


def test_one_refused_file_does_not_stop_the_others() -> None:
    res = run("chunk", str(DATA / "hostile" / "image.pdf"), str(DATA / "manual_en.md"))
    assert res.code == 3
    assert res.records() and "image.pdf" in res.err


def test_report_is_json_on_stderr() -> None:
    res = run("chunk", str(DATA / "manual_en.md"), "--report")
    assert res.code == 0
    (line,) = res.err.splitlines()
    report = json.loads(line)
    assert report["chunking"]["chunks"] == len(res.records())
    assert report["extraction"]["format"] == "markdown"


def test_extraction_warnings_go_to_stderr() -> None:
    res = run("chunk", str(DATA / "scanned_en.pdf"))
    assert res.code == 0
    assert "warning: page 2: image only" in res.err
    assert "warning" not in res.out


def test_empty_password_encryption_is_a_warning_on_stderr(tmp_path: Path) -> None:
    from reportlab.lib import pdfencrypt
    from reportlab.pdfgen.canvas import Canvas

    path = tmp_path / "locked.pdf"
    enc = pdfencrypt.StandardEncryption("", ownerPassword="owner", strength=128)
    canvas = Canvas(str(path), invariant=1, encrypt=enc)
    canvas.drawString(72, 720, "Price list for the X17 pump, valid from March.")
    canvas.showPage()
    canvas.save()
    res = run("chunk", str(path))
    assert res.code == 0 and "Price list for the X17 pump" in res.out
    assert "warning: PDF is encrypted with an empty user password" in res.err


# --------------------------------------------------------------------------- limits


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-tokens", "100000"], "above the model's limit of 512"),
        (["--max-tokens", "513"], "above the model's limit of 512"),
        (["--overlap", "1800"], "must be smaller than --max-chars 1800"),
        (["--max-chars", "500", "--overlap", "600"], "must be smaller"),
        (["--lang", "fr"], "invalid choice: 'fr'"),
        (["--max-chars", "10", "--overlap", "0"], "max_chars"),
        (["--tokenizer", "/no/such/tokenizer.json"], "no such file"),
    ],
)
def test_impossible_limits_are_refused_with_exit_2(args: list[str], message: str) -> None:
    res = run("chunk", str(DATA / "manual_en.md"), *args)
    assert res.code == 2
    assert message in res.err and res.out == ""


def test_the_models_own_limit_is_accepted() -> None:
    res = run("chunk", str(DATA / "manual_en.md"), "--max-tokens", "512")
    assert res.code == 0
    records = res.records()
    assert max(int(str(r["token_count"])) for r in records) <= 512
    assert {r["sized_by_model"] for r in records} == {"intfloat/multilingual-e5-small"}


# --------------------------------------------------------------------------- pipes


def test_broken_pipe_ends_quietly_with_141(tmp_path: Path) -> None:
    # Far more output than a pipe buffers, so the writer meets the closed pipe.
    big = tmp_path / "big.md"
    paragraph = (DATA / "manual_en.md").read_text(encoding="utf-8")
    big.write_text("\n\n".join([paragraph] * 60), encoding="utf-8")
    proc = subprocess.Popen(
        [*CLI, "chunk", str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what `| head -1` does
    err = proc.stderr.read().decode("utf-8")
    code = proc.wait(timeout=120)
    assert json.loads(first)["chunk_index"] == 0
    assert code == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err


# --------------------------------------------------------------------------- help, version


def test_help_goes_to_stdout_with_exit_codes_and_und() -> None:
    res = run("--help")
    assert res.code == 0 and res.err == ""
    for text in ("exit codes:", '"und"', "chunk", "extract", "examples:", "--progress"):
        assert text in res.out


def test_subcommand_help_shows_defaults_and_examples() -> None:
    res = run("chunk", "--help")
    assert res.code == 0 and res.err == ""
    assert "(default: 1800)" in res.out and "(default: 150)" in res.out
    assert "chunkwise extract manual.pdf | chunkwise chunk -" in res.out
    assert "3    unreadable or refused input" in res.out


def test_usage_errors_exit_2_on_stderr() -> None:
    for args in ([], ["no-such-command"], ["chunk"], ["chunk", "--max-chars", "x", "f"]):
        res = run(*args)
        assert res.code == 2, args
        assert res.out == "" and res.err


def test_version_names_model_tokenizer_icu_and_client() -> None:
    res = run("--version")
    assert res.code == 0
    lines = res.out.splitlines()
    assert lines[0].startswith("chunkwise 0.")
    assert "intfloat/multilingual-e5-small" in res.out and "512 tokens" in res.out
    assert any(line.startswith("tokenizer: ") for line in lines)
    assert any(line.startswith("ICU: ") and line[5].isdigit() for line in lines)
    assert any(line.startswith("opensearch-py: ") and line[15].isdigit() for line in lines)


# --------------------------------------------------------------------------- other exit codes


def test_config_error_exits_2_and_missing_input_exits_3(tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text('{"id": "q1", "question": "x", "evidence": []}\n', encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[chunker]\nmax_chars = -5\n', encoding="utf-8")
    res = run("eval", str(questions), "--config", str(bad))
    assert res.code == 2, res.err
    res = run("eval", str(tmp_path / "missing.jsonl"), "--config", str(bad))
    assert res.code == 3, res.err


def test_unreachable_service_exits_1() -> None:
    res = run("index", "list", "--url", "http://127.0.0.1:1")
    assert res.code == 1
    assert "OpenSearch unavailable" in res.err and res.out == ""


# --------------------------------------------------------------------------- progress


def test_no_progress_when_stderr_is_not_a_terminal() -> None:
    res = run("chunk", str(DATA / "manual_en.pdf"))
    assert BAR not in res.err


def test_progress_when_asked() -> None:
    res = run("chunk", str(DATA / "manual_en.pdf"), "--progress")
    assert res.code == 0
    assert "chunk: documents" in res.err and "extract: pages" in res.err and BAR in res.err
    assert BAR not in res.out and res.records()


def run_on_terminal(*args: str) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (stdout stays a pipe, as in `| jq`)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen(
        [*CLI, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower
    )
    os.close(follower)
    assert proc.stdout is not None
    out = proc.stdout.read().decode("utf-8")
    code = proc.wait(timeout=120)
    seen = b""
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the terminal's other side is closed
            break
        if not data:
            break
        seen += data
    os.close(leader)
    return code, out, seen.decode("utf-8", "replace")


def test_progress_on_a_terminal_and_not_with_no_progress() -> None:
    code, out, err = run_on_terminal("chunk", str(DATA / "manual_en.pdf"))
    assert code == 0 and BAR in err and "chunk: documents" in err
    assert BAR not in out and out.count("\n") >= 1
    code, out, err = run_on_terminal("chunk", str(DATA / "manual_en.pdf"), "--no-progress")
    assert code == 0 and BAR not in err and out


def test_extract_progress_by_page_on_a_terminal() -> None:
    code, out, err = run_on_terminal("extract", str(DATA / "catalog_en_repeat.pdf"))
    assert code == 0 and "extract: pages" in err and BAR in err
    assert out.startswith("## Page 1")
