"""The plot of `chunkwise eval` (matplotlib, the ``bench`` extra): hit@3 per
configuration and group, and what each configuration costs the answer step."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def plot_hit3(reports: Sequence[dict[str, Any]], path: Path, mode: str = "hybrid") -> None:
    """hit@3 per configuration and group, and beside it what each configuration costs:
    the top-5 tokens an answering model reads, their redundant share, the index size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = sorted({g for r in reports for g in r["modes"][mode] if "/" in g})
    n = len(reports)
    width = 0.8 / max(n, 1)
    fig, (ax, cost) = plt.subplots(
        1,
        2,
        figsize=(max(8, 1.6 * len(groups)) + 5, 4.5),
        dpi=120,
        gridspec_kw={"width_ratios": [max(len(groups), 1), 3]},
    )
    for i, r in enumerate(reports):
        vals = [100 * r["modes"][mode].get(g, {}).get("hit@3", 0.0) for g in groups]
        xs = [x + (i - (n - 1) / 2) * width for x in range(len(groups))]
        bars = ax.bar(xs, vals, width, label=r["config"]["name"])
        ax.bar_label(bars, labels=[f"{v:.0f}" for v in vals], fontsize=7, padding=1)
    ax.axhline(95, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([g.replace("/", "\n") for g in groups])
    ax.set_ylim(0, 112)
    ax.set_ylabel("hit@3 (%), correct citation + context")
    ax.set_title(f"hit@3 per configuration and document type ({mode} search)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=max(n, 1))
    _plot_cost(cost, reports, mode)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _plot_cost(ax: Any, reports: Sequence[dict[str, Any]], mode: str) -> None:
    names = [r["config"]["name"] for r in reports]
    tokens = [r["modes"][mode]["all"].get("context_tokens_mean", 0.0) for r in reports]
    bars = ax.bar(range(len(names)), tokens, 0.6, color="tab:gray")
    labels = [
        f"{t:.0f} tok\n{100 * r['modes'][mode]['all'].get('redundant_share_mean', 0):.0f} % red."
        f"\n{r['chunks'].get('index_bytes', 0) / 1e6:.1f} MB"
        for t, r in zip(tokens, reports, strict=True)
    ]
    ax.bar_label(bars, labels=labels, fontsize=7, padding=1)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.35 * max(tokens, default=1) + 1)
    ax.set_ylabel("tokens of the top 5 (mean per question)")
    ax.set_title("what the answer step reads; redundant share; index size", fontsize=9)
