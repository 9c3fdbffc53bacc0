"""The runtime overrides a server stored (``POST /configure``), read without building an engine.

``memorist config show`` prints what a server on the same database is really
using: the file and environment, deep-merged with these overrides.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .files import deep_merge
from .settings import Settings, load_settings, plugin_sections

OVERRIDES_KEY = "runtime_overrides"  # the key http.runtime.Runtime stores them under


def stored_overrides(settings: Settings) -> dict[str, Any]:
    """The stored overrides, ``{}`` when there are none (a missing SQLite file is not created)."""
    from sqlalchemy import create_engine, select

    from ..db.schema import kv

    url = settings.database_url
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///") :]).exists():
        return {}
    # A database that does not answer must not hold `config show` up for long.
    engine = create_engine(url, connect_args={"connect_timeout": 3} if url.startswith("postgresql") else {})
    try:
        with engine.connect() as conn:
            value = conn.execute(select(kv.c.value).where(kv.c.key == OVERRIDES_KEY)).scalar()
    finally:
        engine.dispose()
    return dict(value or {})


def effective_settings(settings: Settings) -> tuple[Settings, dict[str, Any], str | None]:
    """``(settings with the stored overrides, the overrides, a note if they could not be read)``."""
    try:
        overrides = stored_overrides(settings)
    except Exception as exc:  # an unreachable database must not hide the rest of the configuration
        return settings, {}, f"runtime overrides not read from the database ({type(exc).__name__}: {exc})"
    if not overrides:
        return settings, {}, None
    merged = deep_merge(settings.model_dump(), overrides)
    return load_settings(None, merged, sections=plugin_sections(settings)), overrides, None
