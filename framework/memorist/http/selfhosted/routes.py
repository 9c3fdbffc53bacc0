"""Route table of the self-hosted REST API."""

from __future__ import annotations

from collections.abc import Callable

from ...kernel.core import Kernel
from . import admin, auth_routes, batch, events, keys, memories, users_admin


def add_routes(add: Callable[[str, object], None], kernel: Kernel) -> None:
    """Mount the self-hosted routes over ``kernel``'s parts (nothing is built here)."""
    runtime, ops, limits = kernel.runtime, kernel.operations, kernel.settings.limits
    auth, api_keys, request_log = kernel.serving.accounts, kernel.auth.api_keys, kernel.serving.request_log
    add("/memories", memories.Memories(ops, limits))
    add("/memories/batch", batch.MemoriesBatch(ops, limits))
    add("/memories/{memory_id}", memories.OneMemory(ops, limits))
    add("/memories/{memory_id}/history", memories.History(ops))
    add("/memories/{memory_id}/entities", memories.MemoryEntities(ops))
    add("/graph", memories.EntityGraph(ops))
    add("/search", memories.Search(ops, limits))
    add("/reset", memories.Reset(ops))
    add("/configure", admin.Configure(runtime, limits))
    add("/configure/providers", admin.ProvidersList(kernel.registry))
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
