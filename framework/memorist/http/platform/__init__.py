"""The platform API: organizations, projects, members, v3 memories, events, and the v1/v2
routes the existing platform client calls. Authenticated with ``Authorization: Token <key>``."""

from __future__ import annotations
