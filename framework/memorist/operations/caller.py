"""Who is calling: the tenant an operation is confined to, and the actor history records."""

from __future__ import annotations

from dataclasses import dataclass

from ..records import DEFAULT_ORG, DEFAULT_PROJECT


@dataclass(frozen=True)
class Caller:
    """An operation's caller: its organization and project, and who to name in history.

    The self-hosted surface, the Python API and MCP act in ``default``/``default``;
    a platform key carries its own organization and project.
    """

    org_id: str = DEFAULT_ORG
    project_id: str = DEFAULT_PROJECT
    actor: str | None = None

    @property
    def tenant(self) -> dict[str, str]:
        return {"org_id": self.org_id, "project_id": self.project_id}
