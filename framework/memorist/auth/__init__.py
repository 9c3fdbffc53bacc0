"""Authentication: passwords, JWTs, API keys, rate limits, and the request principal."""

from __future__ import annotations
