"""Configuration files: reading YAML without its secrets, finding shipped configurations, merging.

Why apart from :mod:`memorist.config.settings`: these are plain functions over files and
mappings (``memorist config check`` reads a file to report every problem, the
runtime merges overrides) with no pydantic model in them; the settings models
use them, never the other way round.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from ..errors import ConfigurationError

_SECRET_KEY = re.compile(r"(^|_)(api_key|secret|password|token)$", re.IGNORECASE)

#: Environment names the self-hosted server documents without the MEMORIST_ prefix.
BARE_ENV = {"JWT_SECRET": "jwt_secret", "ADMIN_API_KEY": "admin_api_key", "AUTH_DISABLED": "disabled"}


def parse_config_file(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The YAML mapping without its secret-looking keys, and one line per problem found.

    ``memorist config check`` goes on with what is usable, so that one problem in the
    file does not hide the others; :func:`read_config_file` refuses on any problem.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return {}, [f"config file {path}: {exc.strerror or exc}"]
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}:" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return {}, [f"config file {path}:{where} {problem}"]
    if data is None:
        return {}, []
    if not isinstance(data, dict):
        return {}, [f"config file {path}: top level must be a mapping of sections"]
    problems = _secret_keys(data, "")
    return _without_secrets(data), problems


def read_config_file(path: Path) -> dict[str, Any]:
    """Parse a YAML config file; a problem becomes one line naming the file."""
    data, problems = parse_config_file(path)
    if problems:
        raise ConfigurationError(problems)
    return data


def _without_secrets(data: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            out[key] = _without_secrets(value)
        elif not (isinstance(key, str) and _SECRET_KEY.search(key) and value not in (None, "")):
            out[key] = value
    return out


def secret_advice(path: str) -> str:
    """Where a secret at ``path`` (``a.b.c``) should come from, naming a setting that is accepted.

    Provider options take the *name* of an environment variable (``api_key_env``) or a
    file (``api_key_file``), never the value; kernel sections read their environment
    variable (``MEMORIST_AUTH__JWT_SECRET``, or the spec's bare ``JWT_SECRET``).
    """
    parts = path.split(".")
    if len(parts) >= 3 and parts[1] == "options":
        option = parts[-1]
        return (
            f"put the value in an environment variable and name it with {'.'.join(parts[:-1])}.{option}_env "
            f"(e.g. {option}_env: OPENAI_API_KEY), or a file with {option}_file"
        )
    env = "MEMORIST_" + path.upper().replace(".", "__")
    bare = [name for name, key in BARE_ENV.items() if path == f"auth.{key}"]
    return f"set {env}" + (f" (or {bare[0]})" if bare else "") + " in the environment or a secrets file"


def _secret_keys(data: Mapping[str, Any], prefix: str) -> list[str]:
    found = []
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            found.extend(_secret_keys(value, f"{path}."))
        elif isinstance(key, str) and _SECRET_KEY.search(key) and value not in (None, ""):
            found.append(f"{path}: secrets are not read from the config file; {secret_advice(path)}")
    return found


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` updated with ``override``, merging nested mappings key by key."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


#: Where ``--config NAME`` finds the shipped configurations (``default``, ``openai``, ...):
#: bundled in the package, or the ``configs/`` folder of a source checkout.
SHIPPED_CONFIG_DIRS = (
    Path(__file__).resolve().parent.parent / "configs",
    Path(__file__).resolve().parent.parent.parent.parent / "configs",
)


def resolve_config_path(config: str | os.PathLike[str]) -> Path:
    """A config file path; a shipped configuration by name works from any directory.

    ``--config default`` (or ``default.yaml``, or ``configs/default.yaml`` outside the
    repository root) names ``configs/default.yaml``; an existing path always wins.
    """
    path = Path(config)
    if path.exists():
        return path
    if len(path.parts) == 1 or (len(path.parts) == 2 and path.parts[0] == "configs"):
        name = path.name if path.suffix in (".yaml", ".yml") else f"{path.name}.yaml"
        for folder in SHIPPED_CONFIG_DIRS:
            if (folder / name).is_file():
                return folder / name
    return path
