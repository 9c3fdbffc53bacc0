"""The self-hosted REST API: paths without a version prefix (``/memories``, ``/search``, ...)."""

from __future__ import annotations
