"""The soak's figures (per operation, per fault window) and the printed report."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from harness import percentile

from .state import OPERATIONS, SoakState


def summarize(state: SoakState, load_seconds: float) -> dict[str, Any]:
    ops: dict[str, Any] = {}
    for op in (*OPERATIONS, "event"):
        values = state.latencies.get(op, [])
        errors = sum(1 for _, o, _ in state.errors if o == op)
        ops[op] = {
            "ok": len(values),
            "errors": errors,
            "per_s": round(len(values) / load_seconds, 2),
            **({f"p{q}_ms": round(percentile(values, q / 100), 1) for q in (50, 95, 99)} if values else {}),
            **({"max_ms": round(max(values), 1)} if values else {}),
        }
    outside: Counter[str] = Counter()
    for t, op, kind in state.errors:
        window = state.window_of(t)
        if window is None:
            outside[f"{op}: {kind}"] += 1
        else:
            window.errors[f"{op}: {kind}"] += 1
    windows = [
        {
            "kind": w.kind,
            "start_s": round(w.start, 1),
            "recovery_s": round((w.end or w.start) - w.start, 1),
            "detail": w.detail,
            "errors": sum(w.errors.values()),
            "errors_by_kind": dict(w.errors),
        }
        for w in state.windows
    ]
    by_fault: dict[str, int] = Counter()
    for w in state.windows:
        by_fault[w.kind] += sum(w.errors.values())
    return {
        "load_seconds": round(load_seconds, 1),
        "operations": ops,
        "windows": windows,
        "errors_by_fault": dict(by_fault),
        "errors_outside_windows": sum(outside.values()),
        "errors_outside_by_kind": dict(outside),
    }


def print_report(summary: dict[str, Any], verdict: dict[str, Any]) -> None:
    print(f"\nload phase {summary['load_seconds']} s")
    print(
        f"{'operation':<9} {'ok':>6} {'ops/s':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7}"
    )
    for op, row in summary["operations"].items():
        print(
            f"{op:<9} {row['ok']:>6} {row['per_s']:>7} {row.get('p50_ms', '-'):>8} {row.get('p95_ms', '-'):>8} "
            f"{row.get('p99_ms', '-'):>8} {row.get('max_ms', '-'):>8} {row['errors']:>7}"
        )
    print("\nfault windows (errors from the fault until recovery + grace)")
    for i, w in enumerate(summary["windows"], 1):
        kinds = ", ".join(f"{k} x{v}" for k, v in sorted(w["errors_by_kind"].items())) or "-"
        print(
            f"  {i:>2}. {w['kind']:<11} at {w['start_s']:>6} s, recovered in {w['recovery_s']:>5} s, "
            f"{w['errors']:>4} errors: {kinds}"
        )
    print(f"  errors per fault kind: {summary['errors_by_fault'] or '-'}")
    outside = ", ".join(f"{k} x{v}" for k, v in sorted(summary["errors_outside_by_kind"].items())) or "-"
    print(f"  errors outside fault windows: {summary['errors_outside_windows']} ({outside})")
    print("\nverification")
    for key in (
        "adds_attempted",
        "adds_acknowledged",
        "adds_refused",
        "adds_uncertain",
        "adds_uncertain_stored",
        "events_succeeded",
        "events_retried",
        "queue_latency_p50_ms",
        "queue_latency_p95_ms",
        "memories_listed",
        "deletes_acknowledged",
        "deletes_uncertain",
        "drain_seconds",
    ):
        print(f"  {key:<24} {verdict[key]}")
    for name, items in verdict["problems"].items():
        print(f"  DEFECT {name}: {len(items)}; first: {json.dumps(items[:3])}")
    print(f"\nverdict: {verdict['verdict']}")
