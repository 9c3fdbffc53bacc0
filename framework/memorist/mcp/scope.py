"""How an MCP request carries its caller, and which tool arguments name entities.

A model chooses tool arguments, so arguments never pick the scope: the caller
(:class:`memorist.operations.Caller`) is fixed before any tool runs (by the
``memorist mcp`` command line on stdio, by the credentials on HTTP, through
:func:`memorist.operations.caller_for` like every other door) and the
operations layer keeps each call inside it.
"""

from __future__ import annotations

from ..records import ENTITY_SCOPE_FIELDS

#: ASGI scope key under which the HTTP bridge hands each request's caller to the tools.
CALLER_KEY = "memorist.caller"


def entity_args(**values: str | None) -> dict[str, str | None]:
    """Keep only the entity identifiers (``user_id``, ``agent_id``, ...) of tool arguments."""
    return {k: v for k, v in values.items() if k in ENTITY_SCOPE_FIELDS}
