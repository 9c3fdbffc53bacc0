"""Project, member and ping routes; errors here are ``{"message": ...}`` (the spec's shape)."""

from __future__ import annotations

from typing import Any

import falcon

from ...auth.roles import MEMBER_ROLES, Role
from ...auth.users import UserStore
from ...errors import ValidationError
from ...operations import Operations, iso
from ...operations.projects import delete_project
from ...tenancy import IGNORED_SETTINGS, Project, ProjectError, Tenancy, not_found
from ..declaration import operation
from . import models as m
from .access import Access, access, project_access

TAGS = ("projects",)


def project_view(project: Project, tenancy: Tenancy, who: Access) -> dict[str, Any]:
    s = project.settings
    return {
        "project_id": project.id,
        "org_id": project.org_id,
        "name": project.name,
        "description": project.description,
        "created_at": iso(project.created_at),
        "updated_at": iso(project.updated_at),
        "members": [
            {"username": x["username"], "role": x["role"], "email": x["email"]} for x in tenancy.members(project.id)
        ],
        **{
            k: s[k]
            for k in (
                "usecase",
                "memory_depth",
                "inclusion_prompt",
                "exclusion_prompt",
                "custom_categories",
                "custom_instructions",
                "agent_custom_instructions",
                "update_custom_instructions",
                "summary_custom_instructions",
                "summary_batch_size",
                "summary_max_tokens",
                "expiration_date",
                "enable_graph",
                "multilingual",
                "version",
                "active_prompt_profile",
                "decay",
            )
        },
        "is_default": project.is_default,
        "user_role": who.role,
    }


class Ping:
    def __init__(self, tenancy: Tenancy) -> None:
        self._tenancy = tenancy

    @operation(
        "Check a platform key; answers its organization and project", auth="platform", tags=TAGS, response=m.PingOut
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        who = access(req, self._tenancy)
        resp.media = {
            "status": "ok",
            "org_id": who.org_id,
            "project_id": who.project_id,
            "user_email": who.principal.email,
        }


class ProjectResource:
    def __init__(self, tenancy: Tenancy, limits: Any, ops: Operations | None = None) -> None:
        self._tenancy, self._limits, self._ops = tenancy, limits, ops

    @operation(
        "Project details (``fields`` narrows them)",
        auth="platform",
        tags=TAGS,
        query=m.ProjectQuery,
        project_errors=True,
        response=m.ProjectOut,
        errors=(400, 403, 404),
    )
    def on_get(
        self, req: falcon.Request, resp: falcon.Response, org_id: str, project_id: str, query: m.ProjectQuery
    ) -> None:
        who, project = project_access(req, self._tenancy, org_id, project_id)
        view = project_view(project, self._tenancy, who)
        if query.fields:
            unknown = [f for f in query.fields if f not in view]
            if unknown:
                raise ProjectError(f"fields: unknown project field '{unknown[0]}'; known: {', '.join(view)}", 400)
            view = {k: v for k, v in view.items() if k in query.fields}
        resp.media = view

    @operation(
        "Change project settings (OWNER); ``enable_graph`` is ignored and answered under ``ignored``",
        auth="platform",
        role=Role.OWNER,
        tags=TAGS,
        body=m.ProjectPatch,
        project_errors=True,
        response=m.ProjectOut,
        errors=(400, 403, 404, 409, 422),
    )
    def on_patch(
        self, req: falcon.Request, resp: falcon.Response, org_id: str, project_id: str, body: m.ProjectPatch
    ) -> None:
        who, _ = project_access(req, self._tenancy, org_id, project_id)
        changes = {k: v for k, v in body.model_dump().items() if k not in ("org_id", "project_id")}
        switch = changes.get("multilingual")
        if isinstance(switch, bool) and self._ops is not None:
            problem = self._ops.space_change_problem(who.caller, switch)
            if problem is not None:
                raise ProjectError(problem, 409)
        try:
            project = self._tenancy.update_project(org_id, project_id, changes)
        except ValidationError as exc:
            raise ProjectError(exc.message, 400) from None
        if self._ops is not None:
            self._ops.space_changed(who.caller)
        view = project_view(project, self._tenancy, who)
        ignored = {k: why for k, why in IGNORED_SETTINGS.items() if k in changes}
        resp.media = {**view, "ignored": ignored} if ignored else view

    @operation(
        "Delete the project with its memories, entities, history, events, members and webhooks (OWNER)",
        auth="platform",
        role=Role.OWNER,
        tags=TAGS,
        project_errors=True,
        response=m.ProjectDeleted,
        errors=(403, 404),
        description=(
            "Nothing of another project is touched. API keys whose home project this was move to another "
            "project of their user (the organization's default first); a key whose user has no other project "
            "is revoked. When the organization's default project is deleted, its oldest project becomes the default."
        ),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, org_id: str, project_id: str) -> None:
        who, _ = project_access(req, self._tenancy, org_id, project_id)
        assert self._ops is not None, "the route table passes the operations layer"
        engine = self._ops.engine_of(who.caller)
        done = delete_project(engine, self._tenancy, org_id, project_id, who.actor)
        resp.media = {
            "message": "Project deleted successfully.",
            "project_id": project_id,
            "memories_deleted": done.memories,
            "keys_rehomed": done.keys_rehomed,
            "keys_revoked": done.keys_revoked,
        }


class Projects:
    def __init__(self, tenancy: Tenancy, limits: Any) -> None:
        self._tenancy, self._limits = tenancy, limits

    @operation(
        "Create a project in the caller's organization (OWNER of the caller's project)",
        auth="platform",
        role=Role.OWNER,
        tags=TAGS,
        body=m.ProjectCreate,
        response=m.ProjectCreated,
        status=201,
        errors=(400, 403, 404, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, org_id: str, body: m.ProjectCreate) -> None:
        principal = req.context.principal
        if org_id != principal.org_id:
            raise not_found()
        who = access(req, self._tenancy, message_errors=True)
        project = self._tenancy.create_project(org_id, body.name, body.description)
        self._tenancy.set_member(project.id, str(principal.user_id), Role.OWNER, create=True)
        resp.media = {
            "message": "Project created successfully.",
            "project_id": project.id,
            "name": project.name,
            "org_id": org_id,
            "user_role": who.role,
        }
        resp.status = falcon.HTTP_201


class Members:
    def __init__(self, tenancy: Tenancy, users: UserStore, limits: Any) -> None:
        self._tenancy, self._users, self._limits = tenancy, users, limits

    def _user_id(self, org_id: str, email: str) -> str:
        """A member of the caller's organization, else one uniform 404 (see ``Tenancy.org_member``).

        The same answer for an unknown email and for someone of another organization:
        an OWNER can neither probe other tenants' accounts nor add them silently.
        """
        user_id = self._tenancy.org_member(org_id, email)
        if user_id is None:
            raise ProjectError(
                f"no member of this organization has the email '{email}'; "
                "a deployment admin adds new people (memorist admin add-member)",
                404,
            )
        return user_id

    @operation("Members of the project", auth="platform", tags=TAGS, response=m.MembersOut, errors=(403, 404))
    def on_get(self, req: falcon.Request, resp: falcon.Response, org_id: str, project_id: str) -> None:
        project_access(req, self._tenancy, org_id, project_id)
        # The spec reserves ``email`` for the project details; the member list carries username and role.
        resp.media = {
            "members": [{"username": x["username"], "role": x["role"]} for x in self._tenancy.members(project_id)]
        }

    def _change(self, req: falcon.Request, org_id: str, project_id: str, body: m.Member) -> m.Member:
        try:
            project_access(req, self._tenancy, org_id, project_id)
        except ProjectError as exc:
            if exc.status == 403:
                raise ProjectError("you are not authorized to modify project members", 403) from None
            raise
        if body.role not in MEMBER_ROLES:
            raise ProjectError(f"role: one of {', '.join(MEMBER_ROLES)}", 400)
        return body

    @operation(
        "Add a member of the organization to the project (OWNER)",
        auth="platform",
        role=Role.OWNER,
        tags=TAGS,
        body=m.Member,
        project_errors=True,
        response=m.ProjectMessage,
        errors=(400, 403, 404, 409),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, org_id: str, project_id: str, body: m.Member) -> None:
        body = self._change(req, org_id, project_id, body)
        self._tenancy.set_member(project_id, self._user_id(org_id, body.email), body.role, create=True)
        resp.media = {"message": f"User {body.email} added to the project."}

    @operation(
        "Change a member's role (OWNER; 409 for the last OWNER)",
        auth="platform",
        role=Role.OWNER,
        tags=TAGS,
        body=m.Member,
        project_errors=True,
        response=m.ProjectMessage,
        errors=(400, 403, 404, 409),
    )
    def on_put(self, req: falcon.Request, resp: falcon.Response, org_id: str, project_id: str, body: m.Member) -> None:
        body = self._change(req, org_id, project_id, body)
        self._tenancy.set_member(project_id, self._user_id(org_id, body.email), body.role, create=False)
        resp.media = {"message": f"User {body.email} role updated to {body.role}."}

    @operation(
        "Remove a member (OWNER; 409 for the last OWNER); the email is in the query string",
        auth="platform",
        role=Role.OWNER,
        tags=TAGS,
        query=m.MemberQuery,
        project_errors=True,
        response=m.ProjectMessage,
        errors=(400, 403, 404, 409),
    )
    def on_delete(
        self, req: falcon.Request, resp: falcon.Response, org_id: str, project_id: str, query: m.MemberQuery
    ) -> None:
        email = query.email
        try:
            project_access(req, self._tenancy, org_id, project_id)
        except ProjectError as exc:
            if exc.status == 403:
                raise ProjectError("you are not authorized to modify project members", 403) from None
            raise
        self._tenancy.remove_member(project_id, self._user_id(org_id, email))
        resp.media = {"message": f"User {email} removed from the project."}
