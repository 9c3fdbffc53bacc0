"""How `pytest -n N --dist loadfile` hands out this suite: the longest files first, one long file per worker.

Why: xdist's ``loadfile`` keeps a file's tests on one worker in file order (module
fixtures, "runs last" tests), but it starts the files with the *most tests* first
(``--loadscope-reorder``), so the files with one or two long tests -- the fresh-venv
install, the schemathesis run, kill -9 and restart, the retention suite -- came
last and ran one after another at the end while the other worker sat idle. And a
worker is always handed work in pairs (it runs a test only once it knows the next
one), so two long single-test files could queue on the same worker.

:class:`CostFirstScheduling` keeps ``loadfile``'s units and in-file order, and

- orders units by :data:`COST` (seconds, longest first; unknown files count
  :data:`DEFAULT_COST`), so long files start at once on all workers;
- gives a worker that is still busy with a long unit (cost >= :data:`LONG`) the
  *cheapest* waiting unit as its companion, never a second long one;
- runs the tests of the files in :data:`PER_TEST` as units of their own: files
  whose tests share no module fixture and no order (the retention suite's doors,
  the two multi-node tests), so their long tests run side by side.

Keep :data:`COST` roughly true when a file becomes much slower or faster (the
figures are the junit sums of each file in a quiet ``-n 2`` run; only the order
matters).
"""

from __future__ import annotations

from typing import Any

#: Seconds per file (sum of its tests' junit times, the mean of two fresh-clone `-n 2 --dist loadfile`
#: runs in round 5's last session, a slow hour of the host); only the order counts.
COST: dict[str, float] = {
    "tests/test_docker.py": 97,
    "tests/test_benchmarks.py": 65,
    "tests/test_fuzz_schema.py": 58,
    "tests/test_lancedb_store.py": 51,
    "tests/test_hostile_input.py": 49,
    "tests/test_dashboard_browser.py": 45,
    "tests/test_pgvector_store.py": 33,
    "tests/test_embedder.py": 28,
    "tests/test_docs_browser.py": 25,
    "tests/test_scope_index.py": 23,
    "tests/test_engine.py": 21,
    "tests/test_testing_kit.py": 18,
    "tests/test_auth_matrix.py": 16,
    "tests/test_multinode.py::test_kill9_mid_way_loses_nothing_on_postgres": 14,
    "tests/test_mcp_stdio.py": 15,
    "tests/test_server_availability.py": 15,
    "tests/test_crash.py": 14,
    "tests/retention/test_retention.py::test_platform_api_in_process_through_the_event_queue": 10,
    "tests/test_app.py": 12,
    "tests/test_webhooks.py": 10,
    "tests/test_mcp_http.py": 10,
    "tests/test_rerankers.py": 9,
    "tests/test_batch_durability.py": 9,
    "tests/test_security_outbound.py": 9,
    "tests/test_relational.py": 9,
    "tests/test_old_clients.py": 8,
    "tests/test_quickstart.py": 8,
    "tests/test_queue_availability.py": 8,
    "tests/test_multinode.py::test_two_nodes_share_memories_events_and_sessions": 8,
    "tests/test_bulk_import.py": 7,
    "tests/test_lancedb_journal.py": 5,
    "tests/test_ingest_durability.py": 5,
}
#: A file not in COST (a new one) is assumed short.
DEFAULT_COST = 5.0
#: A unit at least this long is not paired with another long one on the same worker.
LONG = 30.0
#: Files whose tests are independent units (no module-scoped fixture, no reliance on order).
PER_TEST = frozenset({"tests/retention/test_retention.py", "tests/test_multinode.py"})


def scope_of(nodeid: str) -> str:
    """The unit a test belongs to: its file, or the test itself for :data:`PER_TEST` files."""
    path = nodeid.split("::", 1)[0]
    return nodeid if path in PER_TEST else path


def cost(scope: str) -> float:
    """Expected seconds of a unit: its own entry, else its file's, else :data:`DEFAULT_COST`."""
    return COST.get(scope) or COST.get(scope.split("::", 1)[0], DEFAULT_COST)


def make_scheduler(config: Any, log: Any) -> Any:
    """The scheduler for ``--dist loadfile`` (``pytest_xdist_make_scheduler`` in conftest.py)."""
    from xdist.scheduler import LoadFileScheduling

    class CostFirstScheduling(LoadFileScheduling):  # type: ignore[misc]
        def __init__(self, config: Any, log: Any = None) -> None:
            config.option.loadscopereorder = False  # keep collection order; sorted by cost below
            super().__init__(config, log)
            self._sorted = False

        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            if not self._sorted:  # the first assignment: the queue is complete, put it in cost order
                for scope in sorted(self.workqueue, key=lambda unit: -cost(unit)):
                    self.workqueue.move_to_end(scope)
                self._sorted = True
            busy_long = any(
                cost(scope) >= LONG and not all(done.values())
                for scope, done in self.assigned_work.get(node, {}).items()
            )
            if busy_long and len(self.workqueue) > 1:
                scope, unit = self.workqueue.popitem(last=True)  # the cheapest as companion
                self.workqueue[scope] = unit
                self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return CostFirstScheduling(config, log)
