"""``reference_date`` anchors relative time in a query; ``as_of`` is covered in test_supersession."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from memorist.engine.relative_time import anchored
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine

from tests.conftest import fast_settings
from tests.plugins import hashing

REFERENCE = datetime(2026, 3, 10, 12, tzinfo=UTC)  # a Tuesday


@pytest.mark.parametrize(
    ("query", "written"),
    [
        ("What did I do last week?", "What did I do last week (the week of 2 March 2026)?"),
        ("Where was I yesterday?", "Where was I yesterday (9 March 2026)?"),
        ("What happened three days ago?", "What happened three days ago (7 March 2026)?"),
        ("What did I buy last month?", "What did I buy last month (February 2026)?"),
        ("Where did I travel last year?", "Where did I travel last year (in 2025)?"),
        ("What is my phone number?", "What is my phone number?"),
    ],
)
def test_relative_time_is_written_out_at_the_reference_date(query: str, written: str) -> None:
    assert anchored(query, REFERENCE) == written


def test_reference_date_favours_memories_of_the_period_it_names(tmp_path: Path) -> None:
    mem = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    try:
        mem.add(
            "The user went to a jazz concert downtown.",
            user_id="ana",
            infer=False,
            timestamp="2026-01-13T20:00:00Z",
        )
        mem.add("The user went to a rock concert uptown.", user_id="ana", infer=False, timestamp="2026-03-03T20:00:00Z")
        query = "Which concert did I go to last week?"
        plain = {h.record.text: h.details for h in mem.search(query, user_id="ana", threshold=0.0, explain=True)}
        assert all(details is not None and details["temporal"] == 0.0 for details in plain.values())
        for reference, named in (("2026-03-10", "rock"), ("2026-01-20", "jazz")):
            hits = mem.search(query, user_id="ana", threshold=0.0, reference_date=reference, explain=True)
            temporal = {
                ("rock" if "rock" in h.record.text else "jazz"): h.details["temporal"] for h in hits if h.details
            }
            assert temporal[named] == 1.0 and max(v for k, v in temporal.items() if k != named) < 0.5, reference
        with pytest.raises(ValueError, match="reference_date"):
            mem.search(query, user_id="ana", reference_date="not a date")
    finally:
        mem.close()
