"""The printed table and the latency/memory plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def print_table(rows: list[dict[str, Any]]) -> None:
    header = (
        f"{'store':<8} {'index':<5} {'size':>8} {'load s':>7} {'rows/s':>8} {'build s':>7} "
        f"{'search p50/p95 ms':>18} {'vector p50/p95 ms':>18} {'recall':>6} {'http p50/p95 ms':>16} "
        f"{'rss open/after/peak MB':>23} {'server MB':>9} {'disk MB':>8}"
    )
    print(header)
    for r in rows:
        build = r.get("build_s")
        http = f"{r['http_p50_ms']}/{r['http_p95_ms']}" if "http_p50_ms" in r else "-"
        print(
            f"{r['store']:<8} {r['index']:<5} {r['size']:>8} {r['load_s']:>7} {r['rows_per_s']:>8} "
            f"{build if build is not None else '-':>7} "
            f"{str(r['search_p50_ms']) + '/' + str(r['search_p95_ms']):>18} "
            f"{str(r['vector_p50_ms']) + '/' + str(r['vector_p95_ms']):>18} {r['recall_at_k']!s:>6} {http:>16} "
            f"{str(r['rss_open_mb']) + '/' + str(r['rss_after_mb']) + '/' + str(r['rss_peak_mb']):>23} "
            f"{r.get('server_rss_mb', '-')!s:>9} {r['disk_mb']:>8}"
        )
    for r in rows:
        print(f"  {r['store']} {r['index']} {r['size']}: {r['check']}")


def plot(rows: list[dict[str, Any]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import ScalarFormatter

    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    panels = (("search", "Memory.search (in-process)"), ("http", "POST /search (HTTP, 1 worker)"))
    configs = sorted({(r["store"], r["index"]) for r in rows})
    colors = {c: f"C{i}" for i, c in enumerate(configs)}
    for ax, (key, title) in zip(axes, panels, strict=False):
        for config in configs:
            points = sorted(
                (r["size"], r.get(f"{key}_p50_ms"), r.get(f"{key}_p95_ms"))
                for r in rows
                if (r["store"], r["index"]) == config and r.get(f"{key}_p50_ms") is not None
            )
            if not points:
                continue
            sizes = [p[0] for p in points]
            label = f"{config[0]} {'exact' if config[1] == 'none' else 'ANN'}"
            ax.plot(sizes, [p[1] for p in points], "o-", color=colors[config], label=f"{label} p50")
            ax.plot(sizes, [p[2] for p in points], "s--", color=colors[config], alpha=0.7, label=f"{label} p95")
        ax.set(xscale="log", yscale="log", xlabel="memories in the store", ylabel="latency (ms)", title=title)
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(ScalarFormatter())
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    ax = axes[2]
    for config in configs:
        points = sorted(
            (r["size"], r["rss_after_mb"], r.get("server_rss_mb")) for r in rows if (r["store"], r["index"]) == config
        )
        label = f"{config[0]} {'exact' if config[1] == 'none' else 'ANN'}"
        ax.plot([p[0] for p in points], [p[1] for p in points], "o-", color=colors[config], label=f"{label} in-process")
        served = [p for p in points if p[2] is not None]
        if served:
            ax.plot([p[0] for p in served], [p[2] for p in served], "^:", color=colors[config], label=f"{label} server")
    ax.set(
        xscale="log",
        xlabel="memories in the store",
        ylabel="RSS after searches (MiB)",
        title="resident memory (PostgreSQL's own not included)",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.suptitle("Memorist search latency and memory against store size")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
