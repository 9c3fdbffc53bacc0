"""Bootstrapping the platform without a web console: organizations, projects, users, keys.

Used by ``memorist admin ...`` and by the admin-only ``/api/v1/admin/...`` routes.
"""

from __future__ import annotations

import secrets
from typing import Any

from .auth.api_keys import ApiKeyStore
from .auth.roles import Role
from .auth.users import PLATFORM, UserStore
from .db import Database
from .errors import ValidationError
from .tenancy import RESERVED_IDS, Project, ProjectError, Tenancy


def check_not_reserved(value: str | None, field: str) -> None:
    if value is not None and value.strip().lower() in RESERVED_IDS:
        raise ValidationError(f"{field}: '{value}' is reserved (default/default is the self-hosted space)")


class Bootstrap:
    def __init__(
        self,
        db: Database,
        tenancy: Tenancy | None = None,
        users: UserStore | None = None,
        keys: ApiKeyStore | None = None,
    ) -> None:
        # A kernel passes its own (Kernel.bootstrap); ``memorist admin`` may open bare ones.
        self.tenancy = tenancy or Tenancy(db)
        self.users = users or UserStore(db)
        self.keys = keys or ApiKeyStore(db)

    def ensure_user(self, email: str, name: str | None = None, password: str | None = None) -> str:
        """The platform account with this email, created if needed.

        Platform accounts are separate from self-hosted dashboard users: they never log in on
        ``/auth/login`` and act only through platform keys (so ``password`` is kept for
        compatibility but gives no dashboard access).
        """
        user = self.users.by_email(email, kind=PLATFORM)
        if user is not None:
            return user.id
        return self.users.create(
            name or email.split("@")[0], email, password or secrets.token_urlsafe(24), kind=PLATFORM
        ).id

    def create_org(self, name: str, org_id: str | None = None) -> dict[str, Any]:
        check_not_reserved(org_id, "org_id")
        return self.tenancy.create_org(name, org_id)

    def create_project(self, org_id: str, name: str, description: str = "", project_id: str | None = None) -> Project:
        check_not_reserved(project_id, "project_id")
        return self.tenancy.create_project(org_id, name, description, project_id)

    def set_owner(self, project_id: str, email: str) -> dict[str, str]:
        """Repair: make ``email`` an OWNER of the project (a member, or a new platform account)."""
        if not self.tenancy.project_id_taken(project_id):
            raise ProjectError(f"project '{project_id}' not found", 404)
        user_id = self.ensure_user(email)
        exists = self.tenancy.role_of(project_id, user_id) is not None
        self.tenancy.set_member(project_id, user_id, Role.OWNER.value, create=not exists)
        return {"project_id": project_id, "email": email, "role": Role.OWNER.value}

    def create_key(self, org_id: str, project_id: str, email: str, label: str = "default") -> dict[str, Any]:
        """A platform key for a member of the project (shown once)."""
        self.tenancy.project(org_id, project_id)
        user = self.users.by_email(email, kind=PLATFORM)
        if user is None or self.tenancy.role_of(project_id, user.id) is None:
            raise ValidationError(f"email: {email} is not a member of project {project_id}")
        key, full = self.keys.create(user.id, label, kind="platform", org_id=org_id, project_id=project_id)
        return {
            "id": key.id,
            "key": full,
            "label": key.label,
            "key_prefix": key.key_prefix,
            "org_id": org_id,
            "project_id": project_id,
            "email": email,
        }

    def everything(
        self,
        org_name: str,
        project_name: str,
        email: str,
        name: str | None = None,
        password: str | None = None,
        role: str = Role.OWNER.value,
        org_id: str | None = None,
        project_id: str | None = None,
    ) -> dict[str, Any]:
        """Organization + project + member + key in one step; a conflict is found before any write."""
        check_not_reserved(org_id, "org_id")
        check_not_reserved(project_id, "project_id")
        if project_id is not None and self.tenancy.project_id_taken(project_id):
            raise ProjectError(f"project '{project_id}' already exists", 409)
        if org_id is None or not self.tenancy.org_exists(org_id):
            org_id = self.tenancy.create_org(org_name, org_id)["id"]
        project = self.tenancy.create_project(org_id, project_name, project_id=project_id)
        user_id = self.ensure_user(email, name, password)
        self.tenancy.set_member(project.id, user_id, role, create=True)
        return self.create_key(org_id, project.id, email)

    def list_keys(self) -> list[dict[str, Any]]:
        users = {u.id: u.email for kind in (PLATFORM, "selfhosted") for u in self.users.list(kind)}
        return [
            {
                **k.public(),
                "org_id": k.org_id,
                "project_id": k.project_id,
                "email": users.get(k.user_id),
                "revoked": k.revoked_at is not None,
            }
            for k in self.keys.list(kind="platform", include_revoked=True)
        ]
