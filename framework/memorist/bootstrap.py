"""Bootstrapping the platform without a web console: organizations, projects, users, keys.

Used by ``memorist admin ...`` and by the admin-only ``/api/v1/admin/...`` routes.
"""

from __future__ import annotations

import secrets
from typing import Any

from .auth.api_keys import ApiKeyStore
from .auth.users import UserStore
from .db import Database
from .tenancy import Tenancy


class Bootstrap:
    def __init__(self, db: Database) -> None:
        self.tenancy = Tenancy(db)
        self.users = UserStore(db)
        self.keys = ApiKeyStore(db)

    def ensure_user(self, email: str, name: str | None = None, password: str | None = None) -> str:
        user = self.users.by_email(email)
        if user is not None:
            return user.id
        # A platform-only user gets an unguessable password; an admin can set a real one later.
        return self.users.create(name or email.split("@")[0], email, password or secrets.token_urlsafe(24)).id

    def create_key(self, org_id: str, project_id: str, email: str, label: str = "default") -> dict[str, Any]:
        """A platform key for a member of the project (shown once)."""
        self.tenancy.project(org_id, project_id)
        user = self.users.by_email(email)
        if user is None or self.tenancy.role_of(project_id, user.id) is None:
            from .errors import ValidationError

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
        role: str = "OWNER",
        org_id: str | None = None,
        project_id: str | None = None,
    ) -> dict[str, Any]:
        """Organization + project + member + key in one step; a conflict is found before any write."""
        if project_id is not None and self.tenancy.project_id_taken(project_id):
            from .tenancy import ProjectError

            raise ProjectError(f"project '{project_id}' already exists", 409)
        if org_id is None or not self.tenancy.org_exists(org_id):
            org_id = self.tenancy.create_org(org_name, org_id)["id"]
        project = self.tenancy.create_project(org_id, project_name, project_id=project_id)
        user_id = self.ensure_user(email, name, password)
        self.tenancy.set_member(project.id, user_id, role, create=True)
        return self.create_key(org_id, project.id, email)

    def list_keys(self) -> list[dict[str, Any]]:
        users = {u.id: u.email for u in self.users.list()}
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
