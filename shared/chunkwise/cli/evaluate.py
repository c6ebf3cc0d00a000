"""`chunkwise eval`: the retrieval evaluation's command line.

    chunkwise eval QUESTIONS.jsonl --config A.toml [--config B.toml ...] [--out DIR]

Everything cheap is validated before the node is touched: the questions, the
configurations and the corpus (`chunkwise.evaluation.evaluate`); then
`chunkwise.evaluation.run` ingests, searches and writes the reports.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from chunkwise.cli.common import add_progress_flag, parse_args, parser, showing_progress
from chunkwise.errors import ConfigError
from chunkwise.evaluation.evaluate import (
    MODES,
    load_config,
    load_corpus,
    load_questions,
    render_summary_markdown,
)
from chunkwise.evaluation.run import run_evaluation
from chunkwise.search.fusion import parse_fusion
from chunkwise.settings import cli_settings


def _parser() -> argparse.ArgumentParser:
    p = parser(
        "chunkwise eval",
        "Ingest a labelled corpus with each configuration into its own index "
        "generation on a real OpenSearch node, run the questions through hybrid, BM25-only "
        "and vector-only search, and report hit@k, MRR, citation accuracy, chunk statistics "
        "and latency (markdown + JSON; a side-by-side diff against the first configuration).",
        examples="""\
  chunkwise eval questions.jsonl --config chunkwise.toml --config fixed-1000.toml
  chunkwise eval questions.jsonl --config a.toml --modes bm25 --no-plot --out results/""",
    )
    p.add_argument("questions", type=Path, help="questions JSONL")
    p.add_argument(
        "--config",
        action="append",
        type=Path,
        required=True,
        help="configuration TOML (repeatable; the first is compared to the others)",
    )
    p.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="corpus manifest JSON (default: corpus.json beside the questions)",
    )
    p.add_argument("--out", type=Path, default=Path("eval-results"), help="output directory")
    p.add_argument("--url", default=cli_settings().opensearch_url)
    p.add_argument(
        "--prefix",
        default="eval",
        help="index prefix; each configuration gets <prefix>-<name> with its own generation",
    )
    p.add_argument("--modes", default=",".join(MODES), help="comma-separated: hybrid,bm25,vector")
    p.add_argument(
        "--fusions",
        default="",
        help="comma-separated extra hybrid fusions, each a mode 'hybrid[SPEC]' searched on the "
        "same index: rrf:K, minmax:W, l2:W (W = BM25 weight; chunkwise.search.fusion)",
    )
    _add_legs_args(p)
    p.add_argument("--keep-indices", action="store_true", help="keep the generations afterwards")
    p.add_argument(
        "--plot",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="write hit3.png (needs matplotlib)",
    )
    add_progress_flag(p)
    return p


def _add_legs_args(p: argparse.ArgumentParser) -> None:
    """The offline fusion replay's inputs (`chunkwise.evaluation.replay`)."""
    p.add_argument(
        "--legs-out",
        type=Path,
        default=None,
        help="also store both legs of every question (BM25 and k-NN top N, raw scores, "
        "which chunks answer) as DIR/<config>.jsonl for offline fusion replay "
        "(chunkwise.evaluation.replay)",
    )
    p.add_argument(
        "--legs-depth",
        type=int,
        default=None,
        help="N, each leg's size in --legs-out (default: the search path's window, k x 4)",
    )


def main_eval(argv: Sequence[str]) -> int:
    """`chunkwise eval QUESTIONS.jsonl --config A.toml [--config B.toml ...] [--out DIR]`."""
    args = parse_args(_parser(), argv)
    if isinstance(args, int):
        return args
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        print(
            f"chunkwise eval: --modes: unknown {bad} (choose from {', '.join(MODES)})",
            file=sys.stderr,
        )
        return 2
    try:
        fusions = tuple(parse_fusion(f) for f in args.fusions.split(",") if f.strip())
    except ConfigError as exc:
        print(f"chunkwise eval: --fusions: {exc}", file=sys.stderr)
        return 2
    # Validate everything cheap before touching the node.
    questions = load_questions(args.questions)
    configs = [load_config(c) for c in args.config]
    corpus_path = args.corpus or args.questions.parent / "corpus.json"
    corpus = load_corpus(corpus_path)
    with showing_progress(args.progress):
        reports = run_evaluation(
            questions,
            configs,
            corpus,
            corpus_dir=corpus_path.parent,
            out_dir=args.out,
            url=args.url,
            prefix=args.prefix,
            modes=modes,
            fusions=fusions,
            keep_indices=args.keep_indices,
            plot=args.plot,
            legs_out=args.legs_out,
            legs_depth=args.legs_depth,
        )
    # The summary's mode: hybrid when it was run, else the first one (as run_evaluation).
    print(render_summary_markdown(reports, "hybrid" if "hybrid" in modes else modes[0]))
    print(f"reports written to {args.out}")
    return 0
