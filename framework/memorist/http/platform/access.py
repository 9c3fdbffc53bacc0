"""Who may do what on the platform surface.

A platform key belongs to a user. It has a *home* project (the one ``/v1/ping/``
reports and a request naming no project is served in), and it reaches every
project its user is a member of: a request naming another project -- in the
path (project, member and webhook routes) or as ``org_id``/``project_id`` in
the query string or JSON body (as the older platform clients send them) -- is
served in that project with the user's role there. ``READER`` may read (get,
list, search, history, events, members, exports), ``OWNER`` may also change
(add, update, delete, members, settings, webhooks, the project itself). This
module only finds the project and the member's role; what each role may do is
declared once: on the operations (:mod:`memorist.operations.authorize`) for
memories, on the route's ``@operation(role=...)`` for project administration.
A project the user is not a member of answers 404, whether or not it exists,
so a key cannot probe other tenants. Narrowing a person's reach is done with
memberships: a key whose user is a member of one project reaches that project only.
"""

from __future__ import annotations

from dataclasses import dataclass

import falcon

from ...auth.errors import PermissionDenied
from ...auth.principal import Principal
from ...auth.roles import Role
from ...errors import NotFoundError
from ...operations import Caller, authorize_role
from ...tenancy import Project, ProjectError, Tenancy, not_found

NOT_FOUND = "organization or project not found"


@dataclass(frozen=True)
class Access:
    principal: Principal
    org_id: str
    project_id: str
    role: Role

    @property
    def actor(self) -> str | None:
        return self.principal.email

    @property
    def caller(self) -> Caller:
        """The operations layer's view of this caller: the project served, the member's role, as actor."""
        return Caller(self.org_id, self.project_id, self.actor, self.role)


def _named(req: falcon.Request, name: str) -> str | None:
    """``org_id``/``project_id`` the request names (``@operation`` collected them while parsing)."""
    named: dict[str, str] = getattr(req.context, "named_tenant", None) or {}
    return named.get(name)


def _target(req: falcon.Request, tenancy: Tenancy, project_id: str | None) -> tuple[str, str]:
    """The (org, project) a request is for: the one it names, else the key's home project."""
    principal: Principal = req.context.principal
    home_org, home_project = str(principal.org_id), str(principal.project_id)
    named_org = _named(req, "org_id")
    named_project = project_id or _named(req, "project_id")
    if named_project is None or named_project == home_project:
        if named_org is not None and named_org != home_org:
            raise _unknown(req)
        return home_org, home_project
    org = tenancy.org_of(named_project)
    if org is None or (named_org is not None and named_org != org):
        raise _unknown(req)
    return org, named_project


def _unknown(req: falcon.Request) -> Exception:
    return ProjectError(NOT_FOUND, 404) if getattr(req.context, "message_errors", False) else NotFoundError(NOT_FOUND)


def access(
    req: falcon.Request,
    tenancy: Tenancy,
    *,
    message_errors: bool = False,
    project_id: str | None = None,
) -> Access:
    """The project a request is for and the caller's role there; 404 when not a member,
    403 below the role the route's ``@operation(role=...)`` declares.

    ``project_id`` is the project a path names (webhook routes); without it the
    request's ``org_id``/``project_id`` parameters decide, else the key's home project.
    """
    principal: Principal = req.context.principal
    req.context.message_errors = message_errors
    org_id, project = _target(req, tenancy, project_id)
    role = tenancy.role_of(project, str(principal.user_id))
    if role is None:
        if project != principal.project_id:
            raise _unknown(req)  # another project: the same answer whether or not it exists
        if message_errors:
            raise ProjectError("you are not a member of this project", 403)
        raise PermissionDenied("the key's user is not a member of its project")
    return _authorized(req, Access(principal, org_id, project, Role(role)), message_errors)


def _authorized(req: falcon.Request, who: Access, message_errors: bool) -> Access:
    """``who``, if its role reaches the one the route declares (else 403, in the route's error shape)."""
    needed: Role | None = getattr(req.context, "required_role", None)
    if needed is not None:
        try:
            authorize_role(who.caller, needed, "changing this project's resources")
        except PermissionDenied:
            if message_errors:
                raise ProjectError(
                    f"you are not authorized to modify this project's resources; {needed} role required", 403
                ) from None
            raise
    return who


def project_access(req: falcon.Request, tenancy: Tenancy, org_id: str, project_id: str) -> tuple[Access, Project]:
    """Access to the project a path names: one the key's user is a member of (else 404)."""
    principal: Principal = req.context.principal
    if tenancy.org_of(project_id) != org_id or (
        project_id != principal.project_id and tenancy.role_of(project_id, str(principal.user_id)) is None
    ):
        raise not_found()
    project = tenancy.project(org_id, project_id)
    req.context.message_errors = True
    role = tenancy.role_of(project_id, str(principal.user_id))
    if role is None:
        raise ProjectError("you are not a member of this project", 403)
    return _authorized(req, Access(principal, org_id, project_id, Role(role)), True), project
