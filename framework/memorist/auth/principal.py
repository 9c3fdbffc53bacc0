"""Who is calling: the principal every protected request carries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AuthType = Literal["jwt", "api_key", "admin_key", "disabled", "platform_key", "none"]


@dataclass(frozen=True)
class Principal:
    """The caller of one request.

    ``user_id`` is None for the legacy admin key and the auth-disabled mode,
    which are not tied to a dashboard user.
    """

    auth_type: AuthType
    role: Literal["admin", "user"]
    user_id: str | None = None
    email: str | None = None
    #: For platform keys: the one organization and project they may touch.
    org_id: str | None = None
    project_id: str | None = None
    key_id: str | None = None
    #: For JWTs: the login (refresh-token family) the access token belongs to.
    session: str | None = None

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def label(self) -> str:
        """What the request log records as the principal."""
        return self.email or self.auth_type


ANONYMOUS_ADMIN = Principal(auth_type="disabled", role="admin")
