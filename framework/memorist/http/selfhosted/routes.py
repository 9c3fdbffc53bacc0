"""Route table of the self-hosted REST API."""

from __future__ import annotations

from collections.abc import Callable

from ...auth.api_keys import ApiKeyStore
from ...kernel.context import PluginContext
from ..request_log import RequestLog
from . import admin, auth_routes, batch, events, keys, memories, users_admin
from .auth_routes import AuthServices


def add_routes(
    add: Callable[[str, object], None],
    services: PluginContext,
    auth: AuthServices,
    api_keys: ApiKeyStore,
    request_log: RequestLog,
) -> None:
    runtime, ops, limits = services.runtime, services.operations, services.settings.limits
    assert runtime is not None and ops is not None, "routes are added to an assembled kernel"
    add("/memories", memories.Memories(ops, limits))
    add("/memories/batch", batch.MemoriesBatch(ops, limits))
    add("/memories/{memory_id}", memories.OneMemory(ops, limits))
    add("/memories/{memory_id}/history", memories.History(ops))
    add("/memories/{memory_id}/entities", memories.MemoryEntities(ops))
    add("/graph", memories.EntityGraph(ops))
    add("/search", memories.Search(ops, limits))
    add("/reset", memories.Reset(ops))
    add("/configure", admin.Configure(runtime, limits))
    add("/configure/providers", admin.ProvidersList(services.registry))
    add("/auth/setup-status", auth_routes.SetupStatus(auth))
    add("/auth/register", auth_routes.Register(auth))
    add("/auth/login", auth_routes.Login(auth))
    add("/auth/refresh", auth_routes.Refresh(auth))
    add("/auth/me", auth_routes.Me(auth))
    add("/auth/change-password", auth_routes.ChangePassword(auth))
    add("/auth/logout", auth_routes.Logout(auth))
    add("/auth/users", auth_routes.Users(auth))
    add("/users", users_admin.UsersList(auth))
    add("/users/{user_id}", users_admin.OneUser(auth))
    add("/users/{user_id}/password", users_admin.UserPassword(auth))
    add("/users/{user_id}/api-keys", users_admin.UserKeys(api_keys, auth))
    add("/api-keys", keys.ApiKeys(api_keys, auth, limits))
    add("/api-keys/{key_id}", keys.OneApiKey(api_keys, auth))
    add("/requests", admin.Requests(request_log))
    add("/entities", admin.Entities(ops))
    add("/entities/{entity_type}/{entity_id}", admin.OneEntity(ops))
    add("/events/{event_id}", events.OneEvent(ops))
