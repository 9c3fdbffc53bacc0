"""Who an MCP connection acts for, and the rule that keeps every tool call inside it.

A model chooses tool arguments, so arguments are never trusted to pick the
scope. A :class:`Caller` is fixed before any tool runs (by the ``memorist mcp``
command line on stdio, by the credentials on HTTP) and holds:

- the organization and project (``default``/``default`` off the platform);
- ``pinned`` identifiers (e.g. ``user_id``): every read and write is confined
  to them; an argument naming another value is refused, never widened;
- ``defaults``: identifiers used when the model omits them (an admin's own
  account), which the model may replace;
- ``can_write``: False for a platform READER.

The same checks apply to memories reached by id: one outside the pinned
identifiers answers "not found", exactly like one that does not exist, so a
caller cannot probe for other users' memory ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import NotFoundError, ValidationError
from ..records import DEFAULT_ORG, DEFAULT_PROJECT, ENTITY_SCOPE_FIELDS, MemoryRecord

#: ASGI scope key under which the HTTP bridge hands each request's caller to the tools.
CALLER_KEY = "memorist.caller"


class ScopeError(ValidationError):
    """A tool argument tried to leave the connection's scope."""


class ReadOnlyError(ValidationError):
    """A write on a read-only connection (a platform READER key)."""


@dataclass(frozen=True)
class Caller:
    """The fixed scope of one MCP connection (stdio) or request (HTTP)."""

    label: str
    org_id: str = DEFAULT_ORG
    project_id: str = DEFAULT_PROJECT
    pinned: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, str] = field(default_factory=dict)
    can_write: bool = True

    def __post_init__(self) -> None:
        for name in (*self.pinned, *self.defaults):
            if name not in ENTITY_SCOPE_FIELDS:
                raise ValueError(f"{name} is not one of {', '.join(ENTITY_SCOPE_FIELDS)}")

    def ids(self, requested: Mapping[str, str | None]) -> dict[str, str]:
        """The identifiers a call runs with: the pins, the caller's choices, then the defaults.

        A requested value that differs from a pin raises :class:`ScopeError`
        naming the field: silently replacing it would let a model believe it
        wrote to, or read from, somebody else.
        """
        out: dict[str, str] = {}
        for name in ENTITY_SCOPE_FIELDS:
            value = requested.get(name)
            pin = self.pinned.get(name)
            if pin is not None:
                if value is not None and value != pin:
                    raise ScopeError(
                        f"{name}: this connection is confined to {name}='{pin}'; omit {name} or pass '{pin}'"
                    )
                out[name] = pin
            elif value is not None:
                out[name] = value
            elif name in self.defaults:
                out[name] = self.defaults[name]
        return out

    def narrowed(self, extra: Mapping[str, str]) -> Caller:
        """This caller with more identifiers pinned (e.g. ``?agent_id=cursor`` on ``/mcp``).

        Narrowing only: a new pin on a field that is already pinned to another value
        raises :class:`ScopeError`; a pin replaces that field's default."""
        pinned = dict(self.pinned)
        for name, value in extra.items():
            if name not in ENTITY_SCOPE_FIELDS:
                raise ValidationError(f"{name}: not one of {', '.join(ENTITY_SCOPE_FIELDS)}")
            if pinned.get(name, value) != value:
                raise ScopeError(f"{name}: these credentials are confined to {name}='{pinned[name]}'")
            pinned[name] = value
        defaults = {k: v for k, v in self.defaults.items() if k not in pinned}
        return replace(self, pinned=pinned, defaults=defaults)

    def owns(self, record: MemoryRecord) -> bool:
        """Whether a stored memory lies inside this caller's scope."""
        if (record.org_id, record.project_id) != (self.org_id, self.project_id):
            return False
        return all(getattr(record, name) == value for name, value in self.pinned.items())

    def check_owned(self, record: MemoryRecord) -> MemoryRecord:
        if not self.owns(record):
            raise NotFoundError(f"memory '{record.id}' not found")
        return record

    def require_write(self) -> None:
        if not self.can_write:
            raise ReadOnlyError("this connection is read-only (a READER key); an OWNER key may change memories")

    def describe(self) -> dict[str, Any]:
        """What the ``whoami`` tool and the server instructions show the model."""
        out: dict[str, Any] = {"org_id": self.org_id, "project_id": self.project_id}
        if self.pinned:
            out["confined_to"] = dict(self.pinned)
        if self.defaults:
            out["defaults"] = dict(self.defaults)
        out["can_write"] = self.can_write
        return out


def entity_args(**values: str | None) -> dict[str, str | None]:
    """Keep only the entity identifiers (``user_id``, ``agent_id``, ...) of tool arguments."""
    return {k: v for k, v in values.items() if k in ENTITY_SCOPE_FIELDS}
