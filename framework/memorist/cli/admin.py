"""``memorist admin``: bootstrap organizations, projects, users and platform keys from a shell."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..auth.roles import MEMBER_ROLES, Role
from .console import data_dir_option

if TYPE_CHECKING:
    from ..bootstrap import Bootstrap

F = TypeVar("F", bound=Callable[..., Any])


def _bootstrap(config: str | None) -> Bootstrap:
    """Open the database the way every process does (migrations, ``database_ready``); no engine is built."""
    from ..bootstrap import Bootstrap
    from ..kernel.core import open_context
    from .console import writable_settings

    settings, plugins = writable_settings(config)
    context = open_context(settings, plugins)
    return Bootstrap(context.db, context.tenancy)


def _run(action: object) -> None:
    from ..errors import MemoristError
    from .console import fail

    try:
        result = action()  # type: ignore[operator]
    except MemoristError as exc:
        fail(exc)
        return
    click.echo(json.dumps(result, indent=2, default=str))


_config = click.option(
    "--config", envvar="MEMORIST_CONFIG", help="YAML config file, or a shipped one by name (default: built-ins)."
)


def config_option(fn: F) -> F:
    """``--config`` and ``--data-dir``: admin commands must write where the server reads."""
    return _config(data_dir_option(fn))


@click.group()
def admin() -> None:
    """Create organizations, projects, users and platform keys (keys are printed once)."""


@admin.command("create-org")
@config_option
@click.argument("name")
@click.option("--id", "org_id", help="Organization id (default: generated).")
def create_org(config: str | None, name: str, org_id: str | None) -> None:
    """Create an organization; prints its id."""
    _run(lambda: _bootstrap(config).create_org(name, org_id))


@admin.command("create-project")
@config_option
@click.argument("org_id")
@click.argument("name")
@click.option("--id", "project_id", help="Project id (default: generated).")
@click.option("--description", default="")
def create_project(config: str | None, org_id: str, name: str, project_id: str | None, description: str) -> None:
    """Create a project in an organization; prints its id."""

    def action() -> dict[str, object]:
        project = _bootstrap(config).create_project(org_id, name, description, project_id)
        return {"org_id": project.org_id, "project_id": project.id, "name": project.name}

    _run(action)


@admin.command("create-user")
@config_option
@click.argument("email")
@click.option("--name")
@click.option("--password", help="Dashboard password (default: an unguessable one).")
def create_user(config: str | None, email: str, name: str | None, password: str | None) -> None:
    """Create an account (or find it by email); prints its id."""
    _run(lambda: {"user_id": _bootstrap(config).ensure_user(email, name, password), "email": email})


@admin.command("add-member")
@config_option
@click.argument("project_id")
@click.argument("email")
@click.option("--role", type=click.Choice(MEMBER_ROLES), default=Role.OWNER.value)
def add_member(config: str | None, project_id: str, email: str, role: str) -> None:
    """Make an account a member of a project (READER or OWNER)."""

    def action() -> dict[str, str]:
        boot = _bootstrap(config)
        boot.tenancy.set_member(project_id, boot.ensure_user(email), role, create=True)
        return {"project_id": project_id, "email": email, "role": role}

    _run(action)


@admin.command("set-owner")
@config_option
@click.argument("project_id")
@click.argument("email")
def set_owner(config: str | None, project_id: str, email: str) -> None:
    """Repair a project nobody can administer: make EMAIL an OWNER (adding the member if needed)."""
    _run(lambda: _bootstrap(config).set_owner(project_id, email))


@admin.command("create-key")
@config_option
@click.argument("org_id")
@click.argument("project_id")
@click.argument("email")
@click.option("--label", default="default")
def create_key(config: str | None, org_id: str, project_id: str, email: str, label: str) -> None:
    """Print a new platform key for a member of the project (shown only now)."""
    _run(lambda: _bootstrap(config).create_key(org_id, project_id, email, label))


@admin.command("bootstrap")
@config_option
@click.option("--org", "org_name", required=True)
@click.option("--project", "project_name", required=True)
@click.option("--email", required=True)
@click.option("--role", type=click.Choice(MEMBER_ROLES), default=Role.OWNER.value)
def bootstrap_all(config: str | None, org_name: str, project_name: str, email: str, role: str) -> None:
    """Organization, project, member and key in one step."""
    _run(lambda: _bootstrap(config).everything(org_name, project_name, email, role=role))


@admin.command("list-keys")
@config_option
def list_keys(config: str | None) -> None:
    """List platform keys (never the full value)."""
    _run(lambda: _bootstrap(config).list_keys())


@admin.command("revoke-key")
@config_option
@click.argument("key_id")
def revoke_key(config: str | None, key_id: str) -> None:
    """Revoke a platform key; it fails at once."""

    def action() -> dict[str, str]:
        if not _bootstrap(config).keys.revoke(key_id):
            from ..errors import NotFoundError

            raise NotFoundError(f"key '{key_id}' not found or already revoked")
        return {"message": "key revoked", "id": key_id}

    _run(action)
