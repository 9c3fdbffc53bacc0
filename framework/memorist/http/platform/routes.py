"""Route table of the platform API (trailing slashes, as the platform client sends them)."""

from __future__ import annotations

from collections.abc import Callable

from ...kernel.core import Kernel
from . import admin, batch, events, extras, legacy, memories, profiles, projects

ORG = "/api/v1/orgs/organizations/{org_id}"
PROJECT = ORG + "/projects/{project_id}"


def add_routes(add: Callable[[str, object], None], kernel: Kernel) -> None:
    """Mount the platform routes over ``kernel``'s parts (nothing is built here)."""
    tenancy, ops, limits, users = kernel.tenancy, kernel.operations, kernel.settings.limits, kernel.auth.users
    add("/v1/ping/", projects.Ping(tenancy))
    add(PROJECT + "/", projects.ProjectResource(tenancy, limits, ops))
    add(ORG + "/projects/", projects.Projects(tenancy, limits))
    add(PROJECT + "/members/", projects.Members(tenancy, users, limits))
    add("/v3/memories/add/", memories.AddV3(ops, tenancy, limits))
    add("/v3/memories/add/batch/", batch.AddV3BatchResource(ops, tenancy, limits))
    add("/v3/memories/search/", memories.SearchV3(ops, tenancy, limits))
    add("/v3/memories/", memories.ListV3(ops, tenancy, limits))
    add("/v1/memories/", legacy.MemoriesV1(ops, tenancy))
    add("/v1/memories/search/", legacy.SearchLegacy(ops, tenancy))
    add("/v2/memories/search/", legacy.SearchLegacy(ops, tenancy))
    add("/v2/memories/", legacy.ListV2Resource(ops, tenancy))
    add("/v1/memories/{memory_id}/", memories.MemoryV1(ops, tenancy, limits))
    add("/v1/memories/{memory_id}/history/", memories.HistoryV1(ops, tenancy))
    add("/v1/entities/", memories.EntitiesV1(ops, tenancy))
    add("/v2/entities/{entity_type}/{entity_name}/", memories.EntityV2(ops, tenancy))
    add("/v1/batch/", memories.BatchV1(ops, tenancy, limits))
    add("/v1/event/{event_id}/", events.EventResource(ops, tenancy))
    add("/v1/events/", events.EventList(ops, tenancy))
    bootstrap = kernel.bootstrap
    add("/api/v1/admin/bootstrap/", admin.BootstrapResource(bootstrap, limits))
    add("/api/v1/admin/keys/", admin.PlatformKeys(bootstrap))
    add("/api/v1/admin/keys/{key_id}/", admin.PlatformKey(bootstrap))
    extras.add_routes(add, ops, tenancy, limits)
    profiles.add_routes(add, tenancy)
