"""Who is calling: one caller model for every door (REST, platform, MCP, dashboard, Python).

A door decides a :class:`Caller` once, from its credentials, before any
operation runs; arguments never pick the scope. A caller holds:

- the organization and project it is confined to (``default``/``default`` off the platform);
- its :class:`~memorist.auth.roles.Role` (what it may do, see :mod:`.authorize`);
- ``pinned`` identifiers (e.g. ``user_id`` for a self-hosted user's key): every read
  and write is confined to them; an argument naming another value is refused, never
  widened, and a memory outside them answers "not found" exactly like a missing one,
  so a caller cannot probe for other users' memory ids;
- ``defaults``: identifiers used when a call omits them (MCP gives an admin its own account);
- ``actor``: who history records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..auth.errors import PermissionDenied
from ..auth.principal import Principal
from ..auth.roles import Role
from ..errors import NotFoundError, ValidationError
from ..records import DEFAULT_ORG, DEFAULT_PROJECT, ENTITY_SCOPE_FIELDS, MemoryRecord

if TYPE_CHECKING:
    from ..tenancy import Tenancy


class ScopeError(ValidationError):
    """An argument tried to leave the caller's pinned identifiers."""


@dataclass(frozen=True)
class Caller:
    """An operation's caller: where it acts, what it may do, and who history names."""

    org_id: str = DEFAULT_ORG
    project_id: str = DEFAULT_PROJECT
    actor: str | None = None
    role: Role = Role.OWNER
    pinned: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in (*self.pinned, *self.defaults):
            if name not in ENTITY_SCOPE_FIELDS:
                raise ValueError(f"{name} is not one of {', '.join(ENTITY_SCOPE_FIELDS)}")

    @property
    def tenant(self) -> dict[str, str]:
        return {"org_id": self.org_id, "project_id": self.project_id}

    @property
    def can_write(self) -> bool:
        return self.role.allows(Role.OWNER)

    @property
    def may_span(self) -> bool:
        """Whether a delete may reach beyond one named entity (a wildcard, filters alone):
        an unconfined OWNER or admin; a confined user never."""
        return self.can_write and not self.pinned

    def ids(self, requested: Mapping[str, str | None]) -> dict[str, str]:
        """The identifiers a call runs with: the pins, the caller's choices, then the defaults.

        A requested value that differs from a pin raises :class:`ScopeError`
        naming the field: silently replacing it would let a caller believe it
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

    def describe(self) -> dict[str, Any]:
        """What MCP's ``whoami`` tool and its server instructions show the model."""
        out: dict[str, Any] = {"org_id": self.org_id, "project_id": self.project_id}
        if self.pinned:
            out["confined_to"] = dict(self.pinned)
        if self.defaults:
            out["defaults"] = dict(self.defaults)
        out["can_write"] = self.can_write
        return out


def caller_for(principal: Principal | None, tenancy: Tenancy | None = None) -> Caller:
    """The caller a credential makes, the same on every door (docs/security.md, "Who sees what").

    - a platform ``Token`` key: its organization and project, with its user's member role there;
    - a self-hosted user (a dashboard session or an ``svcsk_`` key) whose role is ``user``:
      an OWNER of its own memories, confined to ``user_id`` = the account's email;
    - a self-hosted admin account, the legacy admin key, ``AUTH_DISABLED``: ADMIN, not confined.
    """
    if principal is None:
        return Caller(role=Role.ADMIN)
    if principal.auth_type == "platform_key":
        if tenancy is None:
            raise RuntimeError("a platform key's caller needs the tenancy to read its role")
        org_id, project_id = str(principal.org_id), str(principal.project_id)
        role = tenancy.role_of(project_id, str(principal.user_id))
        if role is None:
            raise PermissionDenied("the key's user is not a member of its project")
        return Caller(org_id, project_id, principal.email, Role(role))
    own = principal.email or principal.user_id
    if principal.is_admin or principal.user_id is None or own is None:
        return Caller(actor=principal.label, role=Role.ADMIN)
    return Caller(actor=principal.label, role=Role.OWNER, pinned={"user_id": own})
