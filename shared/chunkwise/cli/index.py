"""`chunkwise index ...` and `chunkwise search ...` entry points (wired by chunkwise.cli.main).

    chunkwise index create [--generation G] [--swap]      build a new generation index
    chunkwise index swap G                               move write+read alias atomically
    chunkwise index drop G [--force]                     delete a generation index
    chunkwise index sweep --older-than 30d               purge superseded/deleted chunks
    chunkwise index list                                 generations and the live one
    chunkwise search "query" [--k 5] [--json] [--doc ID] [--key-prefix P]
                     [--lang de] [--kind table] [--fusion auto|server|client]
                     [--filter JSON|@file] [--token T | --as SUBJECT --groups a,b]

Common options: --url (default $OPENSEARCH_URL or http://127.0.0.1:9200),
--prefix (default $CHUNKWISE_INDEX_PREFIX or "chunks"), --embedder (default
$CHUNKWISE_EMBEDDER or the local multilingual-e5-small).

Exit codes: 0 ok, 1 operational error (OpenSearch down, bad generation), 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from chunkwise.cli.common import EXIT_INPUT, HelpFormatter, parse_args, parser
from chunkwise.cli.search_identity import add_identity_args, search_as
from chunkwise.errors import ChunkwiseError, ConfigError
from chunkwise.index.names import IndexNames, new_generation_id
from chunkwise.index.revision_queries import parse_duration_seconds
from chunkwise.settings import cli_settings

DEFAULT_URL = "http://127.0.0.1:9200"


def _common(p: argparse.ArgumentParser) -> None:
    env = cli_settings()
    p.add_argument("--url", default=env.opensearch_url, help="OpenSearch URL")
    p.add_argument("--prefix", default=env.index_prefix, help="index name prefix")
    p.add_argument(
        "--embedder", default=None, help="local | bedrock:<model-id> (default: local MiniLM)"
    )


def _index_parser() -> argparse.ArgumentParser:
    p = parser(
        "chunkwise index",
        "Index generations: each is one OpenSearch index; the write and read aliases "
        "point at the live one, so a swap switches search atomically.",
        examples="""\
  chunkwise index create --swap
  chunkwise index list
  chunkwise index swap 20260101t000000
  chunkwise index sweep --older-than 30d""",
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("create", formatter_class=HelpFormatter, help="create a generation index")
    c.add_argument("--generation", default=None, help="id (default: from the clock)")
    c.add_argument("--dimension", type=int, default=None, help="default: the embedder's")
    env = cli_settings()
    c.add_argument(
        "--shards",
        type=int,
        default=env.index_shards,
        help="primary shards (default: CHUNKWISE_INDEX_SHARDS, else 1)",
    )
    c.add_argument(
        "--replicas",
        type=int,
        default=env.index_replicas,
        help="replicas per shard (default: CHUNKWISE_INDEX_REPLICAS, else 0)",
    )
    c.add_argument("--swap", action="store_true", help="swap the aliases to it afterwards")
    s = sub.add_parser(
        "swap", formatter_class=HelpFormatter, help="point write and read alias at a generation"
    )
    s.add_argument("generation")
    d = sub.add_parser("drop", formatter_class=HelpFormatter, help="delete a generation index")
    d.add_argument("generation")
    d.add_argument("--force", action="store_true", help="even if it is live")
    w = sub.add_parser(
        "sweep",
        formatter_class=HelpFormatter,
        help="delete superseded/deleted chunks older than a duration",
    )
    w.add_argument("--older-than", required=True, help="e.g. 30d, 12h")
    sub.add_parser("list", formatter_class=HelpFormatter, help="list generations")
    for sp in (c, s, d, w, sub.choices["list"]):
        _common(sp)
    return p


def main_index(argv: list[str]) -> int:
    parser = _index_parser()
    args = parse_args(parser, argv)
    if isinstance(args, int):
        return args
    from chunkwise.adapters.opensearch.client import connect
    from chunkwise.adapters.opensearch.index import OpenSearchIndex

    try:
        names = IndexNames(args.prefix)
        ix = OpenSearchIndex(connect(args.url), names)
        if args.cmd == "create":
            dimension = args.dimension
            model = tokenizer = ""
            if dimension is None or args.embedder:
                from chunkwise.index.generation_model import GenerationModel
                from chunkwise.wiring.embedders import get_embedder

                emb = get_embedder(args.embedder)
                dimension = dimension or emb.dimension
                model = emb.name
                tokenizer = GenerationModel.of(emb).tokenizer
            gen = args.generation or new_generation_id()
            index = ix.create_generation(
                gen,
                dimension=dimension,
                embedder_name=model,
                tokenizer_id=tokenizer,
                shards=args.shards,
                replicas=args.replicas,
            )
            print(index)
            if args.swap:
                ix.swap(gen)
                print(f"aliases {names.write_alias}, {names.read_alias} -> {index}")
        elif args.cmd == "swap":
            ix.swap(args.generation)
            print(
                f"aliases {names.write_alias}, {names.read_alias} -> {names.index(args.generation)}"
            )
        elif args.cmd == "drop":
            ix.drop(args.generation, force=args.force)
            print(f"dropped {names.index(args.generation)}")
        elif args.cmd == "sweep":
            n = ix.sweep(parse_duration_seconds(args.older_than))
            print(f"swept {n} chunks")
        elif args.cmd == "list":
            live = ix.live_generation()
            for g in ix.generations():
                idx = names.index(g)
                print(f"{idx}{'  (live)' if idx == live else ''}")
    except ChunkwiseError as exc:
        print(f"chunkwise index: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 1
    return 0


def _search_parser() -> argparse.ArgumentParser:
    p = parser(
        "chunkwise search",
        "Hybrid search (BM25 over the language-analysed fields + k-NN, fused by "
        "reciprocal rank fusion) of the live generation; every hit with its citation.",
        examples="""\
  chunkwise search "maximum inlet pressure" --k 3
  chunkwise search "Wartungsintervall" --lang de --json | jq .citation
  chunkwise search "notice period" --filter '{"equals": {"key": "department", "value": "legal"}}'
  chunkwise search "notice period" --as alice --groups legal,staff   # local test issuer
  chunkwise search "notice period" --token "$ID_TOKEN"
""",
    )
    p.add_argument("query")
    p.add_argument("--k", type=int, default=5, help="hits to return")
    p.add_argument("--json", action="store_true", help="one JSON object per hit")
    p.add_argument("--doc", action="append", default=[], help="doc_id filter (repeatable)")
    p.add_argument("--key-prefix", default=None, help="only objects whose S3 key starts so")
    p.add_argument("--lang", action="append", default=[], help="chunk language filter")
    p.add_argument("--kind", action="append", default=[], help="chunk kind filter")
    p.add_argument(
        "--filter",
        default=None,
        help="metadata filter in the grammar of Bedrock's Retrieve filter: JSON, or @FILE",
    )
    p.add_argument(
        "--fusion",
        choices=["auto", "server", "client"],
        default="auto",
        help="fuse (CHUNKWISE_FUSION, default minmax:0.7) in the search pipeline (server), in "
        "chunkwise (client), or server when its pipeline is there",
    )
    p.add_argument(
        "--query-embedding",
        choices=["client", "cluster"],
        default="client",
        help="cluster: send the text, the cluster's query model embeds it (ML Commons)",
    )
    _common(p)
    add_identity_args(p)
    return p


def _metadata_clause(raw: str | None, readers_key: str, bucket: str) -> dict[str, Any] | None:
    """The translated ``--filter`` (FilterError with the JSON path, ConfigError for JSON
    that does not parse)."""
    from chunkwise.metadata import translate

    if raw is None:
        return None
    text = Path(raw[1:]).read_text(encoding="utf-8") if raw.startswith("@") else raw
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--filter: not JSON ({exc.msg})") from None
    return translate(data, readers_key=readers_key, source_bucket=bucket or None)


def main_search(argv: list[str]) -> int:
    parser = _search_parser()
    args = parse_args(parser, argv)
    if isinstance(args, int):
        return args
    if args.k < 1:
        print("chunkwise search: --k must be >= 1", file=sys.stderr)
        return 2
    from chunkwise.access import AuthError
    from chunkwise.adapters.opensearch.client import connect
    from chunkwise.adapters.opensearch.search import Searcher
    from chunkwise.search.hybrid import SearchFilters, format_hit
    from chunkwise.settings import AccessSettings, OpenSearchSettings, load_settings
    from chunkwise.wiring.embedders import get_embedder

    try:
        who = search_as(args)
        access = load_settings(AccessSettings)
        metadata = _metadata_clause(args.filter, access.readers_key, access.source_bucket)
        if who.identity is not None:
            groups = ", ".join(sorted(who.identity.groups)) or "none"
            print(f"searching as {who.identity.subject} (groups: {groups})", file=sys.stderr)
        searcher = Searcher(
            connect(args.url),
            get_embedder(args.embedder),
            IndexNames(args.prefix),
            fusion=args.fusion,
            query_embedding=args.query_embedding,
            spec=load_settings(OpenSearchSettings).fusion_spec,  # CHUNKWISE_FUSION
        )
        filters = SearchFilters(
            doc_ids=tuple(args.doc),
            key_prefix=args.key_prefix,
            langs=tuple(args.lang),
            kinds=tuple(args.kind),
            metadata_filter=metadata,
        )
        hits = searcher.search(
            args.query, args.k, filters, identity=who.identity, access=who.policy
        )
    except AuthError as exc:
        print(f"chunkwise search: {exc.public}: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except OSError as exc:
        print(f"chunkwise search: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except ChunkwiseError as exc:
        print(f"chunkwise search: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 1
    if args.json:
        for h in hits:
            print(json.dumps(h.model_dump(mode="json", exclude={"text"}), ensure_ascii=False))
    else:
        if not hits:
            print("no results")
        for i, h in enumerate(hits, start=1):
            print(format_hit(h, i))
    return 0
