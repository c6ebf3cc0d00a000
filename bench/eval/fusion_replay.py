"""Fusion chosen by measurement (#29): replay many fusions over stored legs, offline.

    python -m bench.eval.fusion_replay verify LEGS.jsonl RUN_DIR
    python -m bench.eval.fusion_replay sweep NAME=LEGS.jsonl [NAME=LEGS.jsonl ...] --out DIR

``LEGS.jsonl``: ``chunkwise eval ... --legs-out DIR`` (both legs of every question, once,
from the real index; `chunkwise.evaluation.replay`). ``verify`` replays ``bm25``,
``vector`` and every ``hybrid[SPEC]`` mode of the same run's report and counts the
questions whose rank or top 3 differ. ``sweep`` scores every candidate below per group
exactly as `bench.eval.fusion_sweep` does (groups of one language; margin = fusion minus
the better leg, hit@1 and hit@3, points; the criterion: no deciding group more than 1 point
below), on all questions and on two halves (A: odd articles / odd question numbers, B: even),
so that a rule chosen on A can be checked on B.

Candidates: the server's techniques (`FusionSpec`: ``minmax:W``, ``l2:W``, ``rrf:K``, W the
BM25 weight 0..1 by 0.05) and rules that are not a neural-search 2.19 pipeline (client-side
only): z-score, CombMNZ, weighted RRF and query-adaptive weights from the legs' own score
distributions (each leg's normalised top-1/top-2 gap, the legs' top-k agreement).
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.eval.fusion_sweep import TOLERANCE, margins

from chunkwise.evaluation.replay import (
    Fuse,
    Legs,
    QuestionLegs,
    first_rank,
    fused_ids,
    grouped,
    leg_ids,
    read_legs,
)
from chunkwise.search.fusion import (
    DEFAULT_FUSION,
    FusionSpec,
    arithmetic_mean,
    f32,
    l2_scores,
    min_max_scores,
    parse_fusion,
    rrf_term,
)

LegList = Sequence[Sequence[tuple[str, float]]]


# --------------------------------------------------------------------------- candidates


def _dedup(leg: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    seen: set[str] = set()
    out = []
    for d, s in leg:
        if d not in seen:
            seen.add(d)
            out.append((d, s))
    return out


def spec(technique: str, w: float) -> Fuse:
    """A server technique with any weight (0 and 1 included: FusionSpec's arithmetic)."""
    t = "min_max" if technique == "minmax" else technique
    return FusionSpec(t, bm25_weight=w).fuse  # type: ignore[arg-type]


def weighted_rrf(k: int, w: float) -> Fuse:
    """RRF with per-leg weights (2w, 2(1-w)): w = 0.5 is plain RRF."""

    def fuse(legs: LegList) -> dict[str, float]:
        out: dict[str, float] = {}
        for j, leg in enumerate(legs):
            weight = 2 * (w if j == 0 else 1 - w)
            for rank, (d, _) in enumerate(_dedup(leg), start=1):
                out[d] = out.get(d, 0.0) + weight * rrf_term(k, rank)
        return out

    return fuse


def zscore(w: float) -> Fuse:
    """Per leg (s - mean) / std over its hits; a hit the leg did not return gets that
    leg's lowest z; weighted sum, BM25 weight w."""

    def fuse(legs: LegList) -> dict[str, float]:
        zs: list[dict[str, float]] = []
        for leg in legs:
            hits = _dedup(leg)
            if not hits:
                zs.append({})
                continue
            vals = [s for _, s in hits]
            mean = sum(vals) / len(vals)
            std = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals)) or 1.0
            zs.append({d: (s - mean) / std for d, s in hits})
        ids = {d for z in zs for d in z}
        floor = [min(z.values(), default=0.0) for z in zs]
        weights = (w, 1 - w)
        return {d: sum(weights[j] * zs[j].get(d, floor[j]) for j in range(len(zs))) for d in ids}

    return fuse


def comb_mnz(w: float) -> Fuse:
    """CombMNZ over min-max: the weighted sum times the number of legs that returned it."""

    def fuse(legs: LegList) -> dict[str, float]:
        norm = [min_max_scores(leg) for leg in legs]
        base = arithmetic_mean(norm, (w, 1 - w))
        return {d: s * sum(d in n for n in norm) for d, s in base.items()}

    return fuse


def _gap(norm: Mapping[str, float]) -> float:
    """A leg's confidence: its normalised top-1 minus top-2 (1 with one hit, 0 with none)."""
    vals = sorted(norm.values(), reverse=True)
    if not vals:
        return 0.0
    return vals[0] - vals[1] if len(vals) > 1 else 1.0


def gap_weighted(w0: float, power: float = 1.0, technique: str = "minmax") -> Fuse:
    """Query-adaptive weight: the prior BM25 weight w0 scaled by each leg's own confidence
    (its normalised top-1/top-2 gap, to ``power``): w = w0 g_b / (w0 g_b + (1 - w0) g_k).
    A leg that separates its first hit clearly from the rest gets more say."""
    normalise = min_max_scores if technique == "minmax" else l2_scores

    def fuse(legs: LegList) -> dict[str, float]:
        norm = [normalise(leg) for leg in legs]
        gb, gk = (_gap(n) ** power for n in norm) if len(norm) == 2 else (1.0, 0.0)
        den = w0 * gb + (1 - w0) * gk
        w = w0 if den == 0 else w0 * gb / den
        return arithmetic_mean(norm, (f32(w), f32(1 - w)))

    return fuse


def gap_raw_weighted(w0: float) -> Fuse:
    """As `gap_weighted`, the gap read from raw scores relative to the leg's top-1
    (BM25 (s1 - s2) / s1; k-NN the same on its cosine-derived scores)."""

    def rel_gap(leg: Sequence[tuple[str, float]]) -> float:
        hits = _dedup(leg)
        if len(hits) < 2 or hits[0][1] <= 0:
            return 1.0 if hits else 0.0
        return (hits[0][1] - hits[1][1]) / hits[0][1]

    def fuse(legs: LegList) -> dict[str, float]:
        gb, gk = rel_gap(legs[0]), rel_gap(legs[1])
        den = w0 * gb + (1 - w0) * gk
        w = w0 if den == 0 else w0 * gb / den
        return arithmetic_mean([min_max_scores(leg) for leg in legs], (f32(w), f32(1 - w)))

    return fuse


def agreement_weighted(w_agree: float, w_disagree: float, top: int = 3) -> Fuse:
    """Query-adaptive weight from the legs' agreement: when BM25's top 1 is among k-NN's
    top ``top``, BM25 weight ``w_agree``; otherwise ``w_disagree``."""

    def fuse(legs: LegList) -> dict[str, float]:
        b, k = _dedup(legs[0]), _dedup(legs[1])
        agree = bool(b) and b[0][0] in {d for d, _ in k[:top]}
        w = w_agree if agree else w_disagree
        return arithmetic_mean([min_max_scores(leg) for leg in legs], (f32(w), f32(1 - w)))

    return fuse


def weights(lo: float = 0.0, hi: float = 1.0, step: float = 0.05) -> list[float]:
    n = round((hi - lo) / step)
    return [round(lo + i * step, 4) for i in range(n + 1)]


def candidates() -> dict[str, tuple[Fuse, str]]:
    """name -> (fusion, where it can run: 'both' = a neural-search 2.19 pipeline and the
    client-side fusion; 'client' = client-side only)."""
    out: dict[str, tuple[Fuse, str]] = {}
    for w in weights():
        out[f"minmax:{w:g}"] = (spec("minmax", w), "both")
        out[f"l2:{w:g}"] = (spec("l2", w), "both")
    for k in (1, 2, 5, 10, 20, 40, 60, 100, 200, 500):
        out[f"rrf:{k}"] = (FusionSpec("rrf", rank_constant=k).fuse, "both")
    for w in weights(0.3, 0.9, 0.1):
        out[f"wrrf:60:{w:g}"] = (weighted_rrf(60, w), "client")
        out[f"zscore:{w:g}"] = (zscore(w), "client")
        out[f"combmnz:{w:g}"] = (comb_mnz(w), "client")
        out[f"gap-raw:{w:g}"] = (gap_raw_weighted(w), "client")
    for w in weights(0.6, 0.9, 0.1):
        for p in (0.5, 1.0, 2.0):
            out[f"gap:{w:g}:p{p:g}"] = (gap_weighted(w, p), "client")
    for wa in (0.7, 0.8):
        for wd in weights(0.3, 0.6, 0.1):
            out[f"agree:{wa:g}/{wd:g}"] = (agreement_weighted(wa, wd), "client")
    return out


# --------------------------------------------------------------------------- scoring


def half_of(q: QuestionLegs) -> str:
    """A: odd XQuAD article / odd labelled question number; B: even. Both languages alike."""
    art = next((t for t in q.tags if t.startswith("article-")), None)
    num = int(art.split("-")[1]) if art else int(re.sub(r"\D", "", q.id.split("-")[-1]) or 0)
    return "A" if num % 2 else "B"


def rankings(legs: Legs, fusions: Mapping[str, Fuse]) -> dict[str, dict[str, Sequence[str]]]:
    """Every question's post-processed top k: modes bm25, vector and ``hybrid[name]``."""
    out: dict[str, dict[str, Sequence[str]]] = {
        "bm25": {q.id: leg_ids(q, legs, "bm25") for q in legs.questions},
        "vector": {q.id: leg_ids(q, legs, "knn") for q in legs.questions},
    }
    for name, fuse in fusions.items():
        out[f"hybrid[{name}]"] = {q.id: fused_ids(q, legs, fuse) for q in legs.questions}
    return out


def _lookup(per_q: Mapping[str, Sequence[str]]) -> Callable[[QuestionLegs], Sequence[str]]:
    def rank(q: QuestionLegs) -> Sequence[str]:
        return per_q[q.id]

    return rank


def report_for(
    questions: Sequence[QuestionLegs], ranked: Mapping[str, Mapping[str, Sequence[str]]]
) -> dict[str, Any]:
    """A `fusion_sweep`-shaped report of ``questions`` from precomputed rankings."""
    return {"modes": {mode: grouped(questions, _lookup(per_q)) for mode, per_q in ranked.items()}}


def score(
    sets: Mapping[str, Legs], fusions: Mapping[str, Fuse], halves: Mapping[str | None, int]
) -> dict[str | None, dict[str, dict[str, Any]]]:
    """Per half (None = all questions; its min n) and fusion: failing (set:group metric
    margin), worst margin, overall hit@1/3 per set and every deciding margin row."""
    out: dict[str | None, dict[str, dict[str, Any]]] = {
        h: {n: {"fails": [], "worst": 0.0, "overall": {}, "rows": []} for n in fusions}
        for h in halves
    }
    for set_name, legs in sets.items():
        ranked = rankings(legs, fusions)
        for half, min_n in halves.items():
            qs = [q for q in legs.questions if half is None or half_of(q) == half]
            report = report_for(qs, ranked)
            for n in fusions:
                mode, res = f"hybrid[{n}]", out[half][n]
                a = report["modes"][mode]["all"]
                res["overall"][set_name] = (100 * a["hit@1"], 100 * a["hit@3"])
                for r in margins(report, mode, min_n):
                    if not r["decides"]:
                        continue
                    res["rows"].append({**r, "set": set_name})
                    res["worst"] = min(res["worst"], r["margin"])
                    if r["margin"] < -TOLERANCE:
                        res["fails"].append(
                            f"{set_name}:{r['group']} {r['metric']} {r['margin']:+.1f}"
                        )
    return out


def _fused_ranker(legs: Legs, fuse: Fuse) -> Callable[[QuestionLegs], Sequence[str]]:
    def rank(q: QuestionLegs) -> Sequence[str]:
        return fused_ids(q, legs, fuse)

    return rank


def rank_key(s: Mapping[str, Any]) -> tuple[int, float, float]:
    total = sum(v[0] for v in s["overall"].values())
    return (len(s["fails"]), -s["worst"], -total)


# --------------------------------------------------------------------------- verify


def verify(legs: Legs, report: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """Per recorded mode: questions whose replayed rank / top 3 equal the recorded ones."""
    by_id = {q.id: q for q in legs.questions}
    rankers: dict[str, Callable[[QuestionLegs], Sequence[str]]] = {
        "bm25": lambda q: leg_ids(q, legs, "bm25"),
        "vector": lambda q: leg_ids(q, legs, "knn"),
        "hybrid": _fused_ranker(legs, DEFAULT_FUSION.fuse),  # the default pipeline's spec
    }

    for mode in report["questions"]:
        m = re.fullmatch(r"hybrid\[(.+)\]", mode)
        if m:
            rankers[mode] = _fused_ranker(legs, parse_fusion(m.group(1)).fuse)
    out: dict[str, dict[str, int]] = {}
    for mode, rank in rankers.items():
        if mode not in report["questions"]:
            continue
        same_rank = same_top = n = 0
        for rec in report["questions"][mode]:
            q = by_id[rec["id"]]
            ids = list(rank(q))
            n += 1
            same_rank += first_rank(ids, q.correct) == rec["rank"]
            same_top += ids[:3] == rec["top3"]
        out[mode] = {"questions": n, "same_rank": same_rank, "same_top3": same_top}
    return out


# --------------------------------------------------------------------------- rendering


def render_summary(
    results: Mapping[str, Mapping[str, dict[str, Any]]],
    where: Mapping[str, str],
    sets: Sequence[str],
    names: Sequence[str],
) -> str:
    """One row per fusion: overall hit@1/3 per set, failing counts and worst margin on
    all questions, on half A and on half B."""
    full, a, b = results["all"], results["A"], results["B"]
    head = "| fusion | path | " + " | ".join(f"{s} hit@1 / @3" for s in sets)
    lines = [
        head + " | fails (all) | worst Δ (all) | fails A | worst Δ A | fails B | worst Δ B |",
        "|---|---|" + "---:|" * len(sets) + "---:|---:|---:|---:|---:|---:|",
    ]
    for n in names:
        s = full[n]
        cells = [f"{s['overall'][x][0]:.1f} / {s['overall'][x][1]:.1f}" for x in sets]
        lines.append(
            f"| {n} | {where[n]} | "
            + " | ".join(cells)
            + f" | {len(s['fails'])} | {s['worst']:+.1f} | {len(a[n]['fails'])} | "
            f"{a[n]['worst']:+.1f} | {len(b[n]['fails'])} | {b[n]['worst']:+.1f} |"
        )
    return "\n".join(lines) + "\n"


def render_groups(full: Mapping[str, dict[str, Any]], names: Sequence[str]) -> str:
    """Every deciding group in which some listed fusion is more than 1 point below, or
    every group when few: margins hit@1 / hit@3 per fusion."""
    rows: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for n in names:
        for r in full[n]["rows"]:
            rows.setdefault((r["set"], r["group"]), {}).setdefault(n, {})[r["metric"]] = r
    lines = [
        "| set | group | n | better leg hit@1 / hit@3 | " + " | ".join(names) + " |",
        "|---|---|---:|---:|" + "---:|" * len(names),
    ]
    for (set_name, g), per in sorted(rows.items()):
        first = per[names[0]]
        if not any(r["margin"] < -TOLERANCE for n in names for r in per[n].values()):
            continue
        cells = [
            f"{per[n]['hit@1']['margin']:+.1f} / {per[n]['hit@3']['margin']:+.1f}" for n in names
        ]
        lines.append(
            f"| {set_name} | {g} | {first['hit@1']['n']} | {first['hit@1']['leg']:.1f} / "
            f"{first['hit@3']['leg']:.1f} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("verify")
    v.add_argument("legs", type=Path)
    v.add_argument("run", type=Path)
    s = sub.add_parser("sweep")
    s.add_argument("sets", nargs="+", help="NAME=LEGS.jsonl")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--min-n", type=int, default=10)
    s.add_argument("--half-min-n", type=int, default=5)
    s.add_argument("--only", default="", help="comma-separated candidate names")
    args = p.parse_args(argv)
    if args.cmd == "verify":
        report = json.loads(next(iter(sorted(args.run.glob("chunkwise.json")))).read_text())
        print(json.dumps(verify(read_legs(args.legs), report), indent=1))
        return 0
    sets = {}
    for item in args.sets:
        name, path = item.split("=", 1)
        sets[name] = read_legs(Path(path))
    cands = candidates()
    if args.only:
        cands = {n: cands[n] for n in args.only.split(",")}
    fusions = {n: f for n, (f, _) in cands.items()}
    where = {n: w for n, (_, w) in cands.items()}
    scored = score(sets, fusions, {None: args.min_n, "A": args.half_min_n, "B": args.half_min_n})
    results = {"all": scored[None], "A": scored["A"], "B": scored["B"]}
    args.out.mkdir(parents=True, exist_ok=True)
    slim = {
        h: {n: {k: v for k, v in s.items() if k != "rows"} for n, s in r.items()}
        for h, r in results.items()
    }
    (args.out / "sweep.json").write_text(json.dumps(slim, indent=1) + "\n", encoding="utf-8")
    order = sorted(fusions, key=lambda n: rank_key(results["all"][n]))
    (args.out / "sweep_all.md").write_text(
        render_summary(results, where, list(sets), order), encoding="utf-8"
    )
    by_a = sorted(fusions, key=lambda n: rank_key(results["A"][n]))
    (args.out / "sweep_by_half_a.md").write_text(
        render_summary(results, where, list(sets), by_a[:30]), encoding="utf-8"
    )
    shown: list[str] = [n for n in ("minmax:0.7", "rrf:60") if n in fusions]
    shown += [n for n in [*order[:6], *by_a[:3]] if n not in shown]
    (args.out / "groups.md").write_text(
        "Margins hit@1 / hit@3 (points, fusion minus the better leg), all questions; the "
        "groups where some listed fusion is more than 1 point below.\n\n"
        + render_groups(results["all"], shown),
        encoding="utf-8",
    )
    print(render_summary(results, where, list(sets), order[:25]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
