"""Where the deployment's provider API keys may be sent: the origins they were configured for.

``POST /configure`` may point a provider at another ``base_url``; the red team set
an attacker's URL, and the next add sent ``Authorization: Bearer <OPENAI_API_KEY>``
there. A key from the environment or a key file is the deployer's, so it goes only
to an origin (scheme, host and port) the deployer chose: the base URLs of the config
file and environment at startup, OpenAI's own API, and
``security.provider_key_origins``. Two checks enforce it: ``/configure`` refuses a
change that would send a key elsewhere (400 naming the option and the setting),
and a guarded provider client (server and worker) sends a placeholder instead of
the key to any other origin, whatever the path that configured it. A keyless local
server at a new origin still works (it gets the placeholder, as before).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

#: Where an OpenAI-compatible client goes without a base URL (and its default key variable).
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"


def origin_of(url: str | None) -> str | None:
    """``scheme://host:port`` of an http(s) URL (the port always written), else None."""
    if not isinstance(url, str) or not url.strip():
        return None
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname.lower().rstrip(".")
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{port or (443 if scheme == 'https' else 80)}"


def destination(options: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> str:
    """The base URL an OpenAI-compatible client with ``options`` talks to."""
    env = os.environ if environ is None else environ
    url = options.get("base_url") or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    return str(url)


def key_source(
    options: Mapping[str, Any], environ: Mapping[str, str] | None = None, default_env: str | None = DEFAULT_KEY_ENV
) -> str | None:
    """What real key a client with ``options`` would send (a file, a set variable), or None.

    ``default_env``: the variable read when the options name none (the ``openai``
    provider's ``OPENAI_API_KEY``; None for providers without such a default).
    """
    env = os.environ if environ is None else environ
    for name, value in options.items():
        if str(name).lower().endswith("_file") and isinstance(value, str) and value.strip():
            return f"the key file {name}"
    named = [v for k, v in options.items() if str(k).lower().endswith("_env") and isinstance(v, str) and v]
    for variable in named or ([default_env] if default_env else []):
        if (env.get(variable) or "").strip():
            return variable
    return None


def startup_origins(urls: Iterable[Any], configured: Iterable[str] = ()) -> list[str]:
    """The origins keys may go to: the startup base URLs, OpenAI's API and ``configured``."""
    found = [origin_of(u) for u in [*urls, DEFAULT_BASE_URL, *configured]]
    return sorted({o for o in found if o})


class KeyOrigins:
    """The origins the deployment's provider keys may be sent to."""

    def __init__(self, origins: Iterable[str]) -> None:
        self.origins = frozenset(o for o in map(origin_of, origins) if o)

    def allows(self, url: str) -> bool:
        return origin_of(url) in self.origins
