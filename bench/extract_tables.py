"""Big tables and ZIP bombs: time and peak memory of extraction, each in a fresh process.

Cases (each a child process, so the peak RSS is the case's own: interpreter,
input bytes, text and parser together, as in one Lambda invocation):

- ``csv-200mb-default``: a 200 MB German price-list CSV (cp1252, ';') under the
  default limits: refused up front (``max_bytes``) -- how fast, how small;
- ``csv-200mb-raised``: the same file with every limit raised far enough to read
  it whole: what reading it would cost (time, memory, rows, output size);
- ``csv-16mb-default``: a 16 MB file of the same rows (188,000 rows: under the
  default ``max_text_bytes`` and ``max_table_rows``) read under the default
  limits: the most the defaults let through;
- ``xlsx-100k``: a generated 100,000-row x 10-column XLSX (openpyxl write-only)
  under the default limits;
- ``bombs``: every ZIP bomb of bench/faults/zip_bombs.py in every container
  format, refused (time and RSS of the slowest and largest);
- ``ingest-*`` (``--cases ingest``): the same files through the ingest pipeline's
  document path (chunkwise.ingest.Pipeline with the default PipelineConfig and
  limits, the in-memory fakes of tests/fakes for S3, the index and the embedder):
  refused up front by the declared size (extract/preflight.py), by the object size
  from the HEAD, or read, chunked and checked; plus a 100,000-row x 4-column order
  list (``xlsx-100k-4col``) that fits the chunk budget and is indexed. The fake
  embedder costs nothing: the time is extraction and chunking, not embedding.

    python -m bench.extract_tables [--out bench/results/extract_tables.md] [--cases csv,xlsx,bombs]

The generated inputs are cached under $TMPDIR/chunkwise-bench-tables.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CACHE = Path(tempfile.gettempdir()) / "chunkwise-bench-tables"
MIB = 1024 * 1024
_KINDS = ("Kreiselpumpe", "Absperrventil", "Feinfilter", "Flachdichtung", "Gleitringdichtung")


def big_csv(target_bytes: int = 200 * 1000 * 1000) -> Path:
    path = CACHE / f"preisliste_{target_bytes // 1_000_000}mb.csv"
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(200)
    size = 0
    with path.open("wb") as out:
        head = "Artikelnummer;Bezeichnung;Kategorie;Preis netto;Preis brutto;Lager;Lieferzeit\r\n"
        out.write(head.encode("cp1252"))
        i = 0
        while size < target_bytes:
            rows = []
            for _ in range(10_000):
                net = rnd.randint(100, 999_999) / 100
                kind = _KINDS[i % 5]
                price = f"{net:.2f}".replace(".", ",")
                gross = f"{net * 1.19:.2f}".replace(".", ",")
                rows.append(
                    f"A-{i:08d};{kind} Größe {i % 97};{kind}n;{price} €;{gross} €;"
                    f"Lager {i % 13};{i % 9 + 1} Tage\r\n"
                )
                i += 1
            chunk = "".join(rows).encode("cp1252")
            out.write(chunk)
            size += len(chunk)
    return path


def big_xlsx(rows: int = 100_000) -> Path:
    path = CACHE / f"sheet_{rows}.xlsx"
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Artikel")
    ws.append(["Nr", "Bezeichnung", "Kategorie", "Preis", "Rabatt", "Datum", "Lager", "Menge",
               "Gewicht", "Hinweis"])  # fmt: skip
    rnd = random.Random(100)
    import datetime

    for i in range(rows):
        price = WriteOnlyCell(ws, rnd.randint(100, 99_999) / 100)
        price.number_format = "#,##0.00 €"
        share = WriteOnlyCell(ws, rnd.randint(0, 30) / 100)
        share.number_format = "0%"
        day = WriteOnlyCell(ws, datetime.datetime(2024, 1, 1) + datetime.timedelta(days=i % 365))
        day.number_format = "dd.mm.yyyy"
        ws.append([f"A-{i}", f"{_KINDS[i % 5]} {i}", _KINDS[i % 5], price, share, day,
                   f"L{i % 13}", i % 500, round(rnd.random() * 20, 2), "ab Lager"])  # fmt: skip
    wb.save(path)
    return path


def orders_xlsx(rows: int = 100_000) -> Path:
    """bench/formats' generated order list: 100,000 rows x 4 columns."""
    path = CACHE / f"orders_{rows}.xlsx"
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    from openpyxl import Workbook

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Bestellungen")
    ws.append(["Bestellnummer", "Kunde", "Ort", "Betrag"])
    for n in range(1, rows + 1):
        ws.append([f"B{n:06d}", f"Kunde {n % 5000:04d}", ("Bonn", "Kiel", "Ulm")[n % 3], n % 997])
    wb.save(path)
    return path


def ingest_child(path: str) -> dict[str, Any]:
    """One document through the ingest pipeline's document path (fakes around it)."""
    from tests.fakes.pipeline import BUCKET, make_rig

    from chunkwise.extract import ExtractionError
    from chunkwise.ingest.messages import ObjectChange
    from chunkwise.models.counter import load_counter

    rig = make_rig(load_counter())
    key = "incoming/" + Path(path).name
    data = Path(path).read_bytes()
    rig.store.put(key, data)
    del data
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        rig.pipeline.ingest(ObjectChange(BUCKET, key, raw_key=key))
        outcome = f"indexed ({len(rig.index.stored):,} chunks)"
    except ExtractionError as exc:
        outcome = f"{type(exc).__name__}: {exc.reason}"[:220]
    return {
        "outcome": outcome,
        "seconds": round(time.perf_counter() - t0, 2),
        "cpu_seconds": round(time.process_time() - c0, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "input_mb": round(Path(path).stat().st_size / 1e6, 1),
    }


def child(case: str, path: str) -> dict[str, Any]:
    """Run one case in this process; return its figures."""
    from chunkwise.extract import ExtractionError, ExtractLimits, extract

    limits = ExtractLimits()
    if case == "csv-200mb-raised":
        limits = ExtractLimits(
            max_bytes=512 * MIB,
            max_text_bytes=512 * MIB,
            max_table_rows=50_000_000,
            max_cells=500_000_000,
            max_output_chars=2_000_000_000,
            max_seconds=3600,
        )
    t0, c0 = time.perf_counter(), time.process_time()
    data = Path(path).read_bytes()
    outcome: dict[str, Any] = {}
    try:
        result = extract(data, filename=Path(path).name, limits=limits)
        table = result.report.tables[0]
        outcome = {"outcome": "read", "rows": table.rows, "chars": len(result.text)}
    except ExtractionError as exc:
        outcome = {"outcome": f"{type(exc).__name__}: {exc.reason}"[:160]}
    outcome["seconds"] = round(time.perf_counter() - t0, 2)
    outcome["cpu_seconds"] = round(time.process_time() - c0, 2)
    outcome["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    outcome["input_mb"] = round(len(data) / 1e6, 1)
    return outcome


def bombs_child() -> dict[str, Any]:
    from bench.faults.zip_bombs import FORMATS, KINDS, bomb
    from chunkwise.extract import ExtractionError, extract

    worst = 0.0
    refused = 0
    for fmt in FORMATS:
        for kind in KINDS:
            data = bomb(fmt, kind)
            t0 = time.perf_counter()
            try:
                extract(data, filename=f"bomb.{fmt}")
            except ExtractionError:
                refused += 1
            worst = max(worst, time.perf_counter() - t0)
    return {
        "outcome": f"{refused} of {len(FORMATS) * len(KINDS)} refused",
        "seconds": round(worst, 3),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def _spawn(args: list[str]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "bench.extract_tables", *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=3600,
    )
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--cases", default="csv,csv16,xlsx,bombs")
    ap.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:
        case = args.child[0]
        if case == "bombs":
            print(json.dumps(bombs_child()))
        elif case.startswith("ingest-"):
            print(json.dumps(ingest_child(args.child[1])))
        else:
            print(json.dumps(child(case, args.child[1])))
        return 0
    wanted = args.cases.split(",")
    rows = []
    if "csv" in wanted:
        path = str(big_csv())
        for case in ("csv-200mb-default", "csv-200mb-raised"):
            rows.append((case, _spawn(["--child", case, path])))
    if "csv16" in wanted:
        small = str(big_csv(16 * 1000 * 1000))
        rows.append(("csv-16mb-default", _spawn(["--child", "csv-16mb-default", small])))
    if "xlsx" in wanted:
        rows.append(("xlsx-100k", _spawn(["--child", "xlsx-100k", str(big_xlsx())])))
    if "bombs" in wanted:
        rows.append(("bombs (7 formats x 5 kinds)", _spawn(["--child", "bombs"])))
    if "ingest" in wanted:
        for case, file in (
            ("ingest-xlsx-100k", big_xlsx()),
            ("ingest-xlsx-100k-4col", orders_xlsx()),
            ("ingest-csv-200mb", big_csv()),
            ("ingest-csv-16mb", big_csv(16 * 1000 * 1000)),
        ):
            rows.append((case, _spawn(["--child", case, str(file)])))
    table = [
        "| case | input | outcome | wall s | CPU s | peak RSS |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for case, r in rows:
        size = f"{r['input_mb']} MB" if "input_mb" in r else "in memory"
        extra = f" ({r['rows']:,} rows, {r['chars']:,} chars)" if "rows" in r else ""
        table.append(
            f"| {case} | {size} | {r['outcome']}{extra} | {r['seconds']} | "
            f"{r.get('cpu_seconds', '-')} | {r['peak_rss_mib']} MiB |"
        )
    load = os.getloadavg()[0]
    text = (
        f"Python {platform.python_version()}, {platform.machine()}, load average {load:.1f}\n\n"
        + "\n".join(table)
    )
    print(text)
    if args.out:
        Path(args.out).write_text("# Big tables and ZIP bombs\n\n" + text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
