"""Organizations, projects and members of the platform surface.

Organizations contain projects; users are members of a project as ``READER``
(view project resources) or ``OWNER`` (full administration). Project settings
(custom instructions, categories, inclusion/exclusion prompts, default
expiration, multilingual) feed every add made in the project.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .auth.roles import MEMBER_ROLES, Role
from .db import Database
from .db.schema import api_keys, events, exports, feedback, members, organizations, projects, users
from .errors import MemoristError, ValidationError
from .records import as_utc, utcnow

ROLES = MEMBER_ROLES
OWNER = Role.OWNER.value
#: Ids a platform organization or project may not take: ``default/default`` is the self-hosted space.
RESERVED_IDS = frozenset({"default"})
DEFAULT_SETTINGS: dict[str, Any] = {
    "usecase": None,
    "memory_depth": "standard",
    "inclusion_prompt": None,
    "exclusion_prompt": None,
    "custom_categories": [],
    "custom_instructions": "",
    #: Added to the instructions of adds that carry an ``agent_id`` (the 2.2.1 client's ``project.update``).
    "agent_custom_instructions": None,
    "update_custom_instructions": None,
    "summary_custom_instructions": None,
    "summary_batch_size": 100,
    "summary_max_tokens": None,
    "expiration_date": None,
    "enable_graph": True,
    "multilingual": False,
    "version": "v3",
    "active_prompt_profile": None,
    "decay": False,
}
MEMORY_DEPTHS = ("minimal", "standard", "deep")
#: Settings a PATCH may send but that change nothing, with why (answered as ``ignored``).
#: The platform's rule: graph memory is built in and always on; ``enable_graph`` is ignored if sent.
IGNORED_SETTINGS = {
    "enable_graph": "graph memory is always on (the platform's v3 rule): the setting is ignored and not stored",
}


class ProjectError(MemoristError):
    """Errors of the project routes, answered as ``{"message": ...}`` (the spec's shape)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


LAST_OWNER = "a project needs at least one OWNER: make another member OWNER first"


def not_found() -> ProjectError:
    return ProjectError("organization or project not found", 404)


def _id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


@dataclass(frozen=True)
class Project:
    id: str
    org_id: str
    name: str
    description: str
    settings: dict[str, Any]
    is_default: bool
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_row(cls, row: Any) -> Project:
        return cls(
            row["id"],
            row["org_id"],
            row["name"],
            row["description"],
            # A legacy stored ``enable_graph: false`` is not reported: the graph is always on.
            {**DEFAULT_SETTINGS, **(row["settings"] or {}), "enable_graph": True},
            bool(row["is_default"]),
            as_utc(row["created_at"]),
            as_utc(row["updated_at"]),
        )


def validate_settings(changes: dict[str, Any]) -> dict[str, Any]:
    """Known project settings with checked types; an unknown key is a clear error."""
    clean: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in DEFAULT_SETTINGS:
            raise ValidationError(f"{key}: not a project setting")
        if key in ("enable_graph", "multilingual", "decay") and not isinstance(value, bool):
            raise ValidationError(f"{key}: must be true or false")
        if key == "custom_categories" and not (
            isinstance(value, list) and all(isinstance(c, dict | str) for c in value)
        ):
            raise ValidationError("custom_categories: must be a list of {name: description} objects")
        if key == "memory_depth" and value not in MEMORY_DEPTHS:
            raise ValidationError(f"memory_depth: one of {', '.join(MEMORY_DEPTHS)}")
        if (
            key in ("summary_batch_size", "summary_max_tokens")
            and value is not None
            and (not isinstance(value, int) or isinstance(value, bool) or value < 1)
        ):
            raise ValidationError(f"{key}: must be a positive integer")
        if key in ("custom_instructions",) and not isinstance(value, str):
            raise ValidationError(f"{key}: must be a string")
        if key == "agent_custom_instructions" and not isinstance(value, str | None):
            raise ValidationError(f"{key}: must be a string or null")
        clean[key] = value
    return clean


class Tenancy:
    def __init__(self, db: Database) -> None:
        self._db = db

    # -- organizations and projects --------------------------------------------------
    def create_org(self, name: str, org_id: str | None = None) -> dict[str, Any]:
        org_id = org_id or _id("org")
        if not re.fullmatch(r"[A-Za-z0-9_\-]{1,64}", org_id):
            raise ValidationError("org_id: letters, digits, '-' and '_' only (at most 64)")
        row = {"id": org_id, "name": name.strip()[:255] or org_id, "created_at": utcnow()}
        try:
            with self._db.begin() as conn:
                conn.execute(insert(organizations).values(**row))
        except IntegrityError:
            raise ProjectError(f"organization '{org_id}' already exists", 409) from None
        return row

    def org_exists(self, org_id: str) -> bool:
        with self._db.connect() as conn:
            return conn.execute(select(organizations.c.id).where(organizations.c.id == org_id)).first() is not None

    def project_id_taken(self, project_id: str) -> bool:
        with self._db.connect() as conn:
            return conn.execute(select(projects.c.id).where(projects.c.id == project_id)).first() is not None

    def create_project(
        self,
        org_id: str,
        name: str,
        description: str = "",
        project_id: str | None = None,
        settings: dict[str, Any] | None = None,
    ) -> Project:
        if not self.org_exists(org_id):
            raise not_found()
        project_id = project_id or _id("proj")
        if not re.fullmatch(r"[A-Za-z0-9_\-]{1,64}", project_id):
            raise ValidationError("project_id: letters, digits, '-' and '_' only (at most 64)")
        now = utcnow()
        with self._db.connect() as conn:
            first = conn.execute(select(projects.c.id).where(projects.c.org_id == org_id)).first() is None
        row = {
            "id": project_id,
            "org_id": org_id,
            "name": (name or "").strip()[:255] or project_id,
            "description": description or "",
            "settings": validate_settings(settings or {}),
            "is_default": int(first),
            "created_at": now,
            "updated_at": now,
        }
        try:
            with self._db.begin() as conn:
                conn.execute(insert(projects).values(**row))
        except IntegrityError:
            raise ProjectError(f"project '{project_id}' already exists", 409) from None
        return Project.from_row(row)

    def org_of(self, project_id: str) -> str | None:
        """The organization of a project, None when there is no such project."""
        with self._db.connect() as conn:
            return conn.execute(select(projects.c.org_id).where(projects.c.id == project_id)).scalar()

    def project(self, org_id: str, project_id: str) -> Project:
        with self._db.connect() as conn:
            row = (
                conn.execute(select(projects).where(projects.c.id == project_id, projects.c.org_id == org_id))
                .mappings()
                .first()
            )
        if row is None:
            raise not_found()
        return Project.from_row(row)

    def update_project(self, org_id: str, project_id: str, changes: dict[str, Any]) -> Project:
        project = self.project(org_id, project_id)
        values: dict[str, Any] = {"updated_at": utcnow()}
        settings_changes = {k: v for k, v in changes.items() if k not in ("name", "description")}
        validate_settings(settings_changes)  # an ignored setting of the wrong type is still a 400
        settings_changes = {k: v for k, v in settings_changes.items() if k not in IGNORED_SETTINGS}
        if "name" in changes:
            if not isinstance(changes["name"], str) or not changes["name"].strip():
                raise ValidationError("name: must be a non-empty string")
            values["name"] = changes["name"].strip()[:255]
        if "description" in changes:
            values["description"] = str(changes["description"] or "")
        stored = {k: v for k, v in project.settings.items() if k in DEFAULT_SETTINGS}
        values["settings"] = {**stored, **validate_settings(settings_changes)}
        with self._db.begin() as conn:
            conn.execute(update(projects).where(projects.c.id == project_id).values(**values))
        return self.project(org_id, project_id)

    # -- members ---------------------------------------------------------------------
    def role_of(self, project_id: str, user_id: str) -> str | None:
        with self._db.connect() as conn:
            return conn.execute(
                select(members.c.role).where(members.c.project_id == project_id, members.c.user_id == user_id)
            ).scalar()

    def members(self, project_id: str) -> list[dict[str, Any]]:
        with self._db.connect() as conn:
            rows = conn.execute(
                select(users.c.name, users.c.email, members.c.role, members.c.user_id)
                .join(users, users.c.id == members.c.user_id)
                .where(members.c.project_id == project_id)
                .order_by(members.c.created_at, users.c.email)
            ).mappings()
            return [
                {"username": r["name"], "email": r["email"], "role": r["role"], "user_id": r["user_id"]} for r in rows
            ]

    def org_member(self, org_id: str, email: str) -> str | None:
        """The user id of the member of some project of ``org_id`` with this email, if any.

        The member routes look people up only inside the caller's organization, so an
        OWNER can neither probe whether an email exists elsewhere nor pull in someone
        from another organization; new people are added by a deployment admin.
        """
        with self._db.connect() as conn:
            return conn.execute(
                select(users.c.id)
                .join(members, members.c.user_id == users.c.id)
                .join(projects, projects.c.id == members.c.project_id)
                .where(projects.c.org_id == org_id, users.c.email == (email or "").strip().lower())
                .limit(1)
            ).scalar()

    @staticmethod
    def _other_owners(project_id: str, user_id: str) -> Any:
        return (
            select(func.count())
            .select_from(members)
            .where(members.c.project_id == project_id, members.c.role == OWNER, members.c.user_id != user_id)
            .scalar_subquery()
        )

    def _lock_owners(self, conn: Connection, project_id: str) -> None:
        """Lock the project's OWNER memberships until this transaction ends (PostgreSQL).

        Why: a demotion or removal checks, in its own statement, that another OWNER remains.
        Under READ COMMITTED two OWNERs demoting each other at once each saw the other still
        OWNER (the other's change was not committed yet) and both went through, leaving the
        project with none (write skew; 2-3 of 10 projects in a concurrent test). With the
        OWNER rows locked first, the second change waits for the first to commit, then its
        check sees the result and refuses (409). SQLite serializes writers already and takes
        no row locks (a read before the write would only make it upgrade its lock).
        """
        if not self._db.is_sqlite:
            conn.execute(
                select(members.c.user_id)
                .where(members.c.project_id == project_id, members.c.role == OWNER)
                .order_by(members.c.user_id)  # one order for every locker: no deadlock between them
                .with_for_update()
            ).all()

    def set_member(self, project_id: str, user_id: str, role: str, *, create: bool) -> None:
        """Add a member or change a role; the project's last OWNER cannot be demoted (409)."""
        if role not in ROLES:
            raise ValidationError(f"role: one of {', '.join(ROLES)}")
        with self._db.begin() as conn:
            if role != OWNER:
                self._lock_owners(conn, project_id)
            exists = (
                conn.execute(
                    select(members.c.role).where(members.c.project_id == project_id, members.c.user_id == user_id)
                ).first()
                is not None
            )
            if create and exists:
                raise ProjectError("the user is already a member of this project", 409)
            if not create and not exists:
                raise ProjectError("the user is not a member of this project", 404)
            if exists:
                stmt = update(members).where(members.c.project_id == project_id, members.c.user_id == user_id)
                if role != OWNER:  # one statement checks and demotes: no race leaves the project ownerless
                    stmt = stmt.where((members.c.role != OWNER) | (self._other_owners(project_id, user_id) > 0))
                if not conn.execute(stmt.values(role=role)).rowcount:
                    raise ProjectError(LAST_OWNER, 409)
            else:
                conn.execute(
                    insert(members).values(project_id=project_id, user_id=user_id, role=role, created_at=utcnow())
                )

    def remove_member(self, project_id: str, user_id: str) -> None:
        """Remove a member; the project's last OWNER cannot be removed (409)."""
        if self.role_of(project_id, user_id) is None:
            raise ProjectError("the user is not a member of this project", 404)
        with self._db.begin() as conn:
            self._lock_owners(conn, project_id)
            gone = conn.execute(
                delete(members).where(
                    members.c.project_id == project_id,
                    members.c.user_id == user_id,
                    (members.c.role != OWNER) | (self._other_owners(project_id, user_id) > 0),
                )
            ).rowcount
        if not gone:
            raise ProjectError(LAST_OWNER, 409)

    # -- deleting a project -------------------------------------------------------------
    def drop_events(self, org_id: str, project_id: str) -> None:
        """The project's add events, queued ones too: nothing is added to a project being deleted."""
        with self._db.begin() as conn:
            conn.execute(delete(events).where(events.c.org_id == org_id, events.c.project_id == project_id))

    def delete_project(self, org_id: str, project_id: str) -> dict[str, int]:
        """The project's relational rows: feedback, exports, members, the project; its keys re-homed or revoked.

        A key belongs to a user and reaches every project of theirs; its *home* project
        (what ``/v1/ping/`` answers) moves to another project of the user (the
        organization's default first, then the oldest membership); a key whose user has no
        other project is revoked. When the organization's default project goes, its oldest
        remaining project becomes the default.
        """
        self.project(org_id, project_id)  # 404 before any write
        now = utcnow()
        rehomed = revoked = 0
        with self._db.begin() as conn:
            keys = conn.execute(
                select(api_keys.c.id, api_keys.c.user_id).where(
                    api_keys.c.project_id == project_id, api_keys.c.kind == "platform", api_keys.c.revoked_at.is_(None)
                )
            ).all()
            for key_id, user_id in keys:
                home = conn.execute(
                    select(projects.c.id, projects.c.org_id)
                    .join(members, members.c.project_id == projects.c.id)
                    .where(members.c.user_id == user_id, projects.c.id != project_id)
                    .order_by((projects.c.org_id != org_id), projects.c.is_default.desc(), members.c.created_at)
                    .limit(1)
                ).first()
                change = {"revoked_at": now} if home is None else {"project_id": home[0], "org_id": home[1]}
                conn.execute(update(api_keys).where(api_keys.c.id == key_id).values(**change))
                rehomed, revoked = rehomed + (home is not None), revoked + (home is None)
            for table in (feedback, exports):
                conn.execute(delete(table).where(table.c.org_id == org_id, table.c.project_id == project_id))
            conn.execute(delete(members).where(members.c.project_id == project_id))
            default = conn.execute(select(projects.c.is_default).where(projects.c.id == project_id)).scalar()
            conn.execute(delete(projects).where(projects.c.id == project_id))
            if default:
                successor = conn.execute(
                    select(projects.c.id).where(projects.c.org_id == org_id).order_by(projects.c.created_at).limit(1)
                ).scalar()
                if successor is not None:
                    conn.execute(update(projects).where(projects.c.id == successor).values(is_default=1))
        return {"keys_rehomed": rehomed, "keys_revoked": revoked}
