"""Who may do what on the platform surface.

A platform key belongs to a user and to one organization/project; every
operation is confined to that project. The key's user must still be a member:
``READER`` may read (get, list, search, history, events, members, exports),
``OWNER`` may also change (add, update, delete, members, settings, webhooks).
A path naming another organization or project answers 404, whether or not it
exists, so a key cannot probe other tenants.
"""

from __future__ import annotations

from dataclasses import dataclass

import falcon

from ...auth.errors import PermissionDenied
from ...auth.principal import Principal
from ...operations import Caller
from ...tenancy import Project, ProjectError, Tenancy, not_found


@dataclass(frozen=True)
class Access:
    principal: Principal
    org_id: str
    project_id: str
    role: str

    @property
    def actor(self) -> str | None:
        return self.principal.email

    @property
    def caller(self) -> Caller:
        """The operations layer's view of this caller: the key's project, the member as actor."""
        return Caller(self.org_id, self.project_id, self.actor)


def access(req: falcon.Request, tenancy: Tenancy, *, write: bool = False, message_errors: bool = False) -> Access:
    """The caller's project and role; 403 when the role does not allow ``write``."""
    principal: Principal = req.context.principal
    org_id, project_id = str(principal.org_id), str(principal.project_id)
    role = tenancy.role_of(project_id, str(principal.user_id))
    if role is None:
        if message_errors:
            raise ProjectError("you are not a member of this project", 403)
        raise PermissionDenied("the key's user is not a member of its project")
    if write and role != "OWNER":
        if message_errors:
            raise ProjectError("you are not authorized to modify this project's resources; OWNER role required", 403)
        raise PermissionDenied("READER members may not change project resources; OWNER role required")
    return Access(principal, org_id, project_id, role)


def project_access(
    req: falcon.Request, tenancy: Tenancy, org_id: str, project_id: str, *, write: bool = False
) -> tuple[Access, Project]:
    """Access to the project a path names: it must be the key's own project (else 404)."""
    principal: Principal = req.context.principal
    if org_id != principal.org_id or project_id != principal.project_id:
        raise not_found()
    project = tenancy.project(org_id, project_id)
    return access(req, tenancy, write=write, message_errors=True), project
