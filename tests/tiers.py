"""Test tiers by directory: each tier directory's conftest marks the tests under it.

Why directories: what a test needs (a spawned server, Chromium, PostgreSQL, a fresh venv, an old
client's environment) is what decides whether it belongs in the everyday run, and a directory
shows it at a glance and keeps it true for a new file dropped beside the others, where a marker
written by hand on each test is forgotten. The markers are declared in pyproject.toml; the fast
tier is ``pytest -m "not (process or browser or postgres or packaging or clients)"``
(docs/testing.md).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from pathlib import Path

import pytest

#: Tiers the everyday run leaves out: each needs something slow or outside the venv.
SLOW_TIERS = ("process", "browser", "postgres", "packaging", "clients")
#: Fixtures that start or use the test PostgreSQL (memorist.testing.fixtures).
POSTGRES_FIXTURES = frozenset({"pg_cluster", "pg_url", "pg_module_url", "pg_fresh_url"})


def mark_directory(conftest: str, marker: str) -> Callable[[list[pytest.Item]], None]:
    """A ``pytest_collection_modifyitems`` hook marking every test below ``conftest``'s directory.

    The hook sees the whole session's items (pytest calls a conftest's collection hooks for all of
    them), so it filters by path itself. It runs first, before ``-m`` deselects.
    """
    directory = Path(conftest).resolve().parent

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
        for item in items:
            if directory in item.path.resolve().parents:
                item.add_marker(marker)

    return pytest_collection_modifyitems


def mark_postgres_users(items: list[pytest.Item]) -> None:
    """Mark ``postgres`` every test that uses the shared PostgreSQL, wherever its file lives.

    A store's or a route's file keeps its one PostgreSQL case beside its SQLite ones (the same
    behaviour on both databases reads best side by side); the fixture it asks for, directly or
    through another fixture, is what puts the case in the postgres tier.
    """
    for item in items:
        if POSTGRES_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker("postgres")


#: The order files start in: the tiers whose files run longest first, so that under
#: ``-n 2 --dist loadfile`` both workers begin with the long files (a fresh install, schemathesis,
#: the benchmarks' smoke runs, the browsers) and the many short files fill in at the end. Before the
#: tiers a table of per-file costs did this (tests/scheduling.py); a directory needs no upkeep.
START_ORDER = ("packaging", "process", "browser", "clients", "postgres", "contracts", "retention", "routes", "unit")


def tier_rank(item: pytest.Item, tests_dir: Path) -> int:
    """Where ``item``'s file starts: the rank of its top directory under tests/ in :data:`START_ORDER`."""
    try:
        top = item.path.resolve().relative_to(tests_dir).parts[0]
    except ValueError:
        return len(START_ORDER)
    return START_ORDER.index(top) if top in START_ORDER else len(START_ORDER)


def order_by_tier(items: list[pytest.Item], tests_dir: Path) -> None:
    """Sort ``items`` by tier, in place; stable, so each file's tests keep their order and stay together."""
    items.sort(key=lambda item: tier_rank(item, tests_dir))


def keep_collection_order(config: pytest.Config) -> None:
    """xdist's ``loadfile`` would hand out the files with the most tests first (``--loadscope-reorder``,
    its default), putting the long one-test files last, run one after the other while the other
    worker idles. Keep the tier order instead."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


#: How a tier directory's conftest names its marker (``mark_directory(__file__, "process")``).
_DIRECTORY_MARKER = re.compile(r'mark_directory\(__file__, "(\w+)"\)')
#: What pytest accepts as a marker name in ``-m`` (its expression scanner's identifier).
_IDENTIFIER = re.compile(r"(?:\w|:|\+|-|\.|\[|\]|\\|/)+")


def directory_marker(directory: Path) -> str | None:
    """The marker ``directory``'s own conftest applies to every test below it, if it applies one."""
    conftest = directory / "conftest.py"
    if not conftest.is_file():
        return None
    found = _DIRECTORY_MARKER.search(conftest.read_text(encoding="utf-8"))
    return found.group(1) if found else None


def excludes_marker(markexpr: str, marker: str) -> bool:
    """Whether ``-m markexpr`` deselects every test carrying ``marker``, whatever other markers it has.

    Why: ``-m`` deselects only after collection, so the fast tier imported the slow tiers' test
    modules (schemathesis, Playwright's pages, the packaging helpers) in each worker and built
    their ~600 items just to drop them. A tier directory whose marker the expression rules out
    on its own is not collected at all (``pytest_ignore_collect`` in tests/conftest.py). The
    answer is exact: the expression is evaluated with ``marker`` set and every combination of
    the other names it mentions; anything it cannot read (keyword arguments) collects as before.
    """
    if not markexpr or "=" in markexpr:
        return False
    try:
        from _pytest.mark.expression import Expression

        expression = Expression.compile(markexpr)
    except (ImportError, SyntaxError):
        return False
    names = sorted({n for n in _IDENTIFIER.findall(markexpr) if n not in ("and", "or", "not")} - {marker})
    if len(names) > 12:  # 4096 evaluations at most
        return False
    for combination in itertools.product((False, True), repeat=len(names)):
        present = {marker, *(name for name, on in zip(names, combination, strict=True) if on)}
        if expression.evaluate(lambda name, /, present=present, **kwargs: name in present and not kwargs):
            return False
    return True
