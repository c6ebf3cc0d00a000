"""The reports of `chunkwise eval`: one configuration's JSON and markdown, the
per-question diff of two configurations, and the summary table (pure).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from chunkwise.evaluation.inputs import EvalConfig
from chunkwise.evaluation.judging import Judgement
from chunkwise.evaluation.metrics import MODES, grouped_metrics

# --------------------------------------------------------------------------- reports


def _pct(v: Any) -> str:
    return "–" if v is None else f"{100 * v:.1f} %"


def config_report(
    config: EvalConfig,
    judgements: Mapping[str, Sequence[Judgement]],
    stats: Mapping[str, Any],
    timings: Mapping[str, float],
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report of one configuration (every search mode, every group, per question)."""
    return {
        "config": config.as_dict(),
        "meta": dict(meta or {}),
        "chunks": dict(stats),
        "timings": dict(timings),
        "modes": {mode: grouped_metrics(js) for mode, js in judgements.items()},
        "questions": {
            mode: [
                {
                    "id": j.qid,
                    "lang": j.lang,
                    "doc_type": j.doc_type,
                    "rank": j.rank,
                    "evidence_rank": j.evidence_rank,
                    "citation_ok": j.citation_ok,
                    "superseded_citations": j.superseded_citations,
                    "latency_ms": round(j.latency_ms, 3),
                    "context_tokens": j.context_tokens,
                    "redundant_share": round(j.redundant_share, 4),
                    "top3": j.top,
                }
                for j in js
            ]
            for mode, js in judgements.items()
        },
    }


def _group_order(groups: Iterable[str]) -> list[str]:
    pairs = sorted(g for g in groups if "/" in g)
    others = sorted(g for g in groups if "/" not in g and g != "all")
    return ["all", *pairs, *others]


def render_config_markdown(report: Mapping[str, Any]) -> str:
    cfg = report["config"]
    st = report["chunks"]
    tm = report["timings"]
    lines = [
        f"# Evaluation: {cfg['name']}",
        "",
        f"Baseline `{cfg['baseline']}`; chunker `max_chars={cfg['chunker']['max_chars']}`, "
        f"`overlap_chars={cfg['chunker']['overlap_chars']}`."
        + (f" {cfg['description']}" if cfg.get("description") else ""),
        "",
        "hit@k / MRR: strict (cited span of the current revision covers the evidence and the "
        "chunk's indexed text has the required context). evidence@3: a top-3 body shows the "
        "evidence string. citation accuracy: of those, share whose citation verifies.",
        "",
        "## Chunks and timings",
        "",
        "| chunks | chars p1 | p5 | p50 | p95 | runts | mean tokens | max tokens | over cap "
        "| indexing s | chunking s | embedding s | bulk s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {st['chunks']} | {st['chars_p1']:.0f} | {st['chars_p5']:.0f} | {st['chars_p50']:.0f} "
        f"| {st['chars_p95']:.0f} | {st['runts']} | {st['mean_tokens']:.1f} | {st['max_tokens']} "
        f"| {st['over_token_cap']} | {tm.get('indexing_s', 0):.1f} | {tm.get('chunking_s', 0):.2f} "
        f"| {tm.get('embedding_s', 0):.1f} | {tm.get('bulk_s', 0):.1f} |",
        "",
    ]
    for mode, groups in report["modes"].items():
        lines += [
            f"## Search mode: {mode}",
            "",
            "| group | n | hit@1 | hit@3 | hit@5 | MRR@10 | evidence@3 | citation acc. "
            "| superseded cited | top-5 tokens | top-5 redundant | latency p50 ms | p95 ms |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for g in _group_order(groups):
            m = groups[g]
            lines.append(
                f"| {g} | {m['questions']} | {_pct(m['hit@1'])} | {_pct(m['hit@3'])} "
                f"| {_pct(m['hit@5'])} | {m['mrr@10']:.3f} | {_pct(m['evidence@3'])} "
                f"| {_pct(m['citation_accuracy'])} | {m['superseded_citations']} "
                f"| {m.get('context_tokens_mean', 0):.0f} "
                f"| {_pct(m.get('redundant_share_mean'))} "
                f"| {m['latency_ms_p50']:.1f} | {m['latency_ms_p95']:.1f} |"
            )
        lines.append("")
    misses = [
        q for q in report["questions"].get("hybrid", []) if not (q["rank"] and q["rank"] <= 3)
    ]
    if misses:
        lines += ["## Hybrid misses (not answered in the top 3)", ""]
        for q in misses:
            why = (
                "evidence shown but citation/context fails"
                if q["evidence_rank"] and q["evidence_rank"] <= 3
                else "evidence not in top 3"
            )
            lines.append(f"- `{q['id']}` rank {q['rank']}: {why}")
        lines.append("")
    return "\n".join(lines)


def diff_reports(
    a: Mapping[str, Any], b: Mapping[str, Any], mode: str = "hybrid"
) -> dict[str, Any]:
    """Per-question wins/losses of A against B (strict hit@3, then rank)."""
    qa = {q["id"]: q for q in a["questions"][mode]}
    qb = {q["id"]: q for q in b["questions"][mode]}
    wins, losses, better, worse = [], [], [], []
    for qid in sorted(set(qa) & set(qb)):
        ra, rb = qa[qid]["rank"], qb[qid]["rank"]
        a3, b3 = bool(ra and ra <= 3), bool(rb and rb <= 3)
        row = {
            "id": qid,
            "doc_type": qa[qid]["doc_type"],
            "lang": qa[qid]["lang"],
            "a": ra,
            "b": rb,
        }
        if a3 and not b3:
            wins.append(row)
        elif b3 and not a3:
            losses.append(row)
        elif ra and (rb is None or ra < rb):
            better.append(row)
        elif rb and (ra is None or rb < ra):
            worse.append(row)
    groups = sorted(set(a["modes"][mode]) & set(b["modes"][mode]))
    return {
        "a": a["config"]["name"],
        "b": b["config"]["name"],
        "mode": mode,
        "groups": {
            g: {
                metric: [a["modes"][mode][g].get(metric), b["modes"][mode][g].get(metric)]
                for metric in (
                    "questions",
                    "hit@1",
                    "hit@3",
                    "hit@5",
                    "mrr@10",
                    "citation_accuracy",
                    "superseded_citations",
                )
            }
            for g in groups
        },
        "chunks": {k: [a["chunks"][k], b["chunks"][k]] for k in a["chunks"]},
        "wins": wins,
        "losses": losses,
        "better_rank": better,
        "worse_rank": worse,
    }


def render_diff_markdown(d: Mapping[str, Any]) -> str:
    a, b = d["a"], d["b"]
    lines = [
        f"# {a} vs {b} ({d['mode']} search)",
        "",
        f"| group | n | hit@3 {a} | hit@3 {b} | Δ | MRR@10 {a} | MRR@10 {b} | citation acc. {a} "
        f"| citation acc. {b} |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for g in _group_order(d["groups"]):
        m = d["groups"][g]
        ha, hb = m["hit@3"]
        lines.append(
            f"| {g} | {m['questions'][0]} | {_pct(ha)} | {_pct(hb)} | {100 * (ha - hb):+.1f} "
            f"| {m['mrr@10'][0]:.3f} | {m['mrr@10'][1]:.3f} | {_pct(m['citation_accuracy'][0])} "
            f"| {_pct(m['citation_accuracy'][1])} |"
        )
    ch = d["chunks"]
    lines += [
        "",
        f"Chunks: {ch['chunks'][0]} vs {ch['chunks'][1]}; mean tokens "
        f"{ch['mean_tokens'][0]:.1f} vs {ch['mean_tokens'][1]:.1f}; runts {ch['runts'][0]} vs "
        f"{ch['runts'][1]}; over the token cap {ch['over_token_cap'][0]} vs "
        f"{ch['over_token_cap'][1]}.",
        "",
        f"## Wins of {a} ({len(d['wins'])}: answered in the top 3 by {a}, not by {b})",
        "",
    ]
    lines += [f"- `{r['id']}` rank {r['a']} vs {r['b']}" for r in d["wins"]] or ["none"]
    lines += ["", f"## Losses of {a} ({len(d['losses'])})", ""]
    lines += [f"- `{r['id']}` rank {r['a']} vs {r['b']}" for r in d["losses"]] or ["none"]
    lines += [
        "",
        f"Rank changes inside/outside the top 3: {len(d['better_rank'])} better, "
        f"{len(d['worse_rank'])} worse for {a}.",
        "",
    ]
    return "\n".join(lines)


def render_summary_markdown(reports: Sequence[Mapping[str, Any]], mode: str = "hybrid") -> str:
    """One table: hit@3 per configuration and (document type, language), plus chunk stats."""
    groups = sorted({g for r in reports for g in r["modes"][mode] if "/" in g})
    head = (
        "| configuration | "
        + " | ".join(groups)
        + " | all | MRR@10 | citation acc. | superseded cited |"
    )
    lines = [
        f"## hit@3 ({mode} search, strict: correct citation + required context)",
        "",
        head,
        "|---|" + "---:|" * (len(groups) + 4),
    ]
    for r in reports:
        m = r["modes"][mode]
        cells = [_pct(m[g]["hit@3"]) if g in m else "–" for g in groups]
        sup = sum(r["modes"][md]["all"]["superseded_citations"] for md in r["modes"])
        lines.append(
            f"| {r['config']['name']} | "
            + " | ".join(cells)
            + f" | {_pct(m['all']['hit@3'])} | {m['all']['mrr@10']:.3f} "
            f"| {_pct(m['all']['citation_accuracy'])} | {sup} |"
        )
    lines += _summary_by_mode(reports, groups)
    lines += _summary_chunks(reports, mode)
    lines.append("")
    return "\n".join(lines)


def _summary_by_mode(reports: Sequence[Mapping[str, Any]], groups: Sequence[str]) -> list[str]:
    lines = [
        "",
        "## hit@3 by search mode",
        "",
        "| configuration | mode | " + " | ".join(groups) + " | all |",
        "|---|---|" + "---:|" * (len(groups) + 1),
    ]
    for r in reports:
        for md in MODES:
            if md not in r["modes"]:
                continue
            m = r["modes"][md]
            cells = [_pct(m[g]["hit@3"]) if g in m else "–" for g in groups]
            lines.append(
                f"| {r['config']['name']} | {md} | "
                + " | ".join(cells)
                + f" | {_pct(m['all']['hit@3'])} |"
            )
    return lines


def _summary_chunks(reports: Sequence[Mapping[str, Any]], mode: str) -> list[str]:
    lines = [
        "",
        "## Chunks, tokens, latency",
        "",
        "| configuration | chunks | chars p1 | p5 | p50 | p95 | runts | mean tokens | over cap "
        "| embedded truncated | index MB | indexing s | hybrid p50 ms | hybrid p95 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in reports:
        st, tm, m = r["chunks"], r["timings"], r["modes"][mode]["all"]
        lines.append(
            f"| {r['config']['name']} | {st['chunks']} | {st['chars_p1']:.0f} "
            f"| {st['chars_p5']:.0f} | {st['chars_p50']:.0f} | {st['chars_p95']:.0f} "
            f"| {st['runts']} "
            f"| {st['mean_tokens']:.1f} | {st['over_token_cap']} "
            f"| {st.get('embedded_truncated', 0)} | {st.get('index_bytes', 0) / 1e6:.2f} "
            f"| {tm.get('indexing_s', 0):.1f} "
            f"| {m['latency_ms_p50']:.1f} | {m['latency_ms_p95']:.1f} |"
        )
    lines += _summary_cost(reports)
    return lines


def _summary_cost(reports: Sequence[Mapping[str, Any]]) -> list[str]:
    """What the answer step pays per configuration and mode: the tokens of the top 5
    hits' indexed text and the share of their text that repeats another top-5 hit."""
    lines = [
        "",
        "## What the answer step reads (top 5 per question, mean)",
        "",
        "| configuration | mode | hit@3 | tokens | redundant text | latency p95 ms |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in reports:
        for md, groups in r["modes"].items():
            m = groups["all"]
            lines.append(
                f"| {r['config']['name']} | {md} | {_pct(m['hit@3'])} "
                f"| {m.get('context_tokens_mean', 0):.0f} "
                f"| {_pct(m.get('redundant_share_mean'))} | {m['latency_ms_p95']:.1f} |"
            )
    return lines
