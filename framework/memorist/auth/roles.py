"""The roles a caller holds: one set of names for every door and the member tables.

``READER`` and ``OWNER`` are what a platform project member is (stored in the
``members`` table); ``ADMIN`` is a self-hosted admin account, the legacy admin
key and an ``AUTH_DISABLED`` server. They are ordered: each role may do what
the ones below it may. An operation declares the least role it needs
(:func:`memorist.operations.authorize.requires`).
"""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    READER = "READER"
    OWNER = "OWNER"
    ADMIN = "ADMIN"

    @property
    def rank(self) -> int:
        return _RANK[self]

    def allows(self, needed: Role) -> bool:
        """Whether a caller holding this role may run what needs ``needed``."""
        return self.rank >= needed.rank


_RANK = {Role.READER: 0, Role.OWNER: 1, Role.ADMIN: 2}
#: The roles a project member may hold (what ``members.role`` stores).
MEMBER_ROLES: tuple[str, ...] = (Role.READER.value, Role.OWNER.value)
