"""Deleting a platform project: every door's one way to remove a project and all it holds.

Order matters for a delete that may be interrupted and retried: plugins drop
their per-project state first (the webhooks plugin its webhooks and pending
deliveries, so the memory deletes below notify nobody), then queued add events
go (nothing new lands in the project), then the memories with their history,
entities and counts, and last the project row with its members, feedback and
exports, and its keys re-homed or revoked. Until that last step the project
still exists, so repeating the delete finishes the job.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.memory import MemoryEngine
from ..tenancy import Tenancy


@dataclass(frozen=True)
class ProjectRemoval:
    memories: int
    keys_rehomed: int
    keys_revoked: int


def delete_project(
    engine: MemoryEngine, tenancy: Tenancy, org_id: str, project_id: str, actor: str | None
) -> ProjectRemoval:
    """Remove the project and everything of it; 404 (``ProjectError``) for an unknown one, before any write."""
    tenancy.project(org_id, project_id)
    engine.emit("project_deleted", org_id=org_id, project_id=project_id)
    tenancy.drop_events(org_id, project_id)
    memories = engine.purge_project(org_id, project_id, actor)
    keys = tenancy.delete_project(org_id, project_id)
    return ProjectRemoval(memories, keys["keys_rehomed"], keys["keys_revoked"])
