"""A throwaway plugin with a misspelled hook: startup must refuse it."""

from __future__ import annotations

from typing import Any

from memorist.plugin.hookspecs import hookimpl


@hookimpl
def register_embeders(register: Any) -> None:  # sic: the typo is the point
    raise AssertionError("never called")
