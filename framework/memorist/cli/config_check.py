"""``memorist config check``: every configuration problem at once, one line each.

A problem in one place must not hide the others: a bad top-level key does not stop
the provider options from being checked (the offending sections are set aside and
the rest is validated again), and the checks below look at what no model
validates: environment variables that nothing reads (``MEMORIST_DATADIR``,
``MEMORIST_EMBEDER__...``, ``AUTH_DISABLE``), authentication without a secret, a
data directory that cannot be created.

Adding a check is adding a function to :data:`CHECKS` (or calling
:func:`register_check`): it receives a :class:`CheckContext` and yields
:class:`Problem` lines.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pydantic
from pydantic import BaseModel

from ..config.files import BARE_ENV, parse_config_file, resolve_config_path
from ..config.settings import CONFIG_ENV, SECRETS_DIR_ENV, Settings, build_settings, settings_class
from ..errors import ConfigurationError, MemoristError
from ..plugin.registry import format_validation_error

ENV_PREFIX = "MEMORIST_"
#: ``MEMORIST_*`` variables read outside ``Settings`` (plugin selection, caches, plugins' own policies).
OTHER_ENV = {
    CONFIG_ENV,
    SECRETS_DIR_ENV,
    "MEMORIST_PLUGINS",
    "MEMORIST_DISABLE_PLUGINS",
    "MEMORIST_PLUGIN_MODULES",
    "MEMORIST_MODEL_CACHE",
}
#: Prefixes of variable families read elsewhere (the webhooks plugin's policy, test and benchmark knobs).
OTHER_ENV_PREFIXES = ("MEMORIST_WEBHOOKS_", "MEMORIST_PG_", "MEMORIST_FUZZ_", "MEMORIST_TEST_", "MEMORIST_BENCH_")


@dataclass(frozen=True)
class Problem:
    message: str
    level: Literal["error", "warning"] = "error"


@dataclass
class CheckContext:
    """What the checks look at: the best settings that could be built, and the raw inputs."""

    settings: Settings | None
    environ: Mapping[str, str]
    overrides: Mapping[str, Any] = field(default_factory=dict)


Check = Callable[[CheckContext], Iterable[Problem]]
CHECKS: list[Check] = []


def register_check(check: Check) -> Check:
    """Add a check (usable as a decorator); checks run in the order they were added."""
    CHECKS.append(check)
    return check


@contextmanager
def _environ_without(names: Iterable[str]) -> Iterator[None]:
    """``os.environ`` minus ``names`` for a moment (pydantic-settings reads it directly)."""
    saved = {name: os.environ.pop(name) for name in list(names) if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


def lenient_settings(
    config: str | None,
    overrides: Mapping[str, Any] | None,
    environ: Mapping[str, str],
    sections: Mapping[str, type[BaseModel]] | None = None,
) -> tuple[Settings | None, list[str]]:
    """Settings built from whatever is valid, and a line for every invalid part.

    Each failing top-level section is reported, then dropped from the file, the
    overrides and the environment, and the rest is built again: the sections that
    are fine still get their provider options checked.
    """
    path = config if config is not None else environ.get(CONFIG_ENV)
    data: dict[str, Any] = {}
    problems: list[str] = []
    if path:
        data, problems = parse_config_file(resolve_config_path(path))
    overrides = dict(overrides or {})
    dropped: set[str] = set()
    for _ in range(len(Settings.model_fields) + 1):
        env_names = [n for n in os.environ if any(n.upper().startswith(f"{ENV_PREFIX}{d.upper()}") for d in dropped)]
        with _environ_without(env_names):
            try:
                return build_settings(data, overrides, environ, sections), problems
            except pydantic.ValidationError as exc:
                lines = format_validation_error(exc, model=settings_class(sections))
                problems.extend(line for line in lines if line not in problems)
                bad = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
                if not bad - dropped:
                    return None, problems
                dropped |= bad
                data = {k: v for k, v in data.items() if k not in dropped}
                overrides = {k: v for k, v in overrides.items() if k not in dropped}
    return None, problems


def run_checks(
    config: str | None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[Settings | None, list[Problem]]:
    """Every problem of the configuration, errors and warnings, in a stable order."""
    from ..engine.components import validate_settings
    from ..plugin.manager import Plugins, load_plugins
    from ..plugin.registry import ProviderRegistry

    env = os.environ if environ is None else environ
    plugins: Plugins | None = None
    early: list[Problem] = []
    try:
        plugins = load_plugins()
        sections = plugins.settings_sections()
    except MemoristError as exc:
        early.append(Problem(exc.message))
        sections = {}
    settings, lines = lenient_settings(config, overrides, env, sections)
    problems = early + [Problem(line) for line in lines]
    if settings is not None and plugins is not None:
        try:
            validate_settings(settings, ProviderRegistry.from_plugins(plugins))
        except ConfigurationError as exc:
            problems.extend(Problem(line) for line in exc.problems)
        except MemoristError as exc:
            problems.append(Problem(exc.message))
    context = CheckContext(settings, env, dict(overrides or {}))
    for check in CHECKS:
        problems.extend(check(context))
    return settings, problems


# -- the checks -------------------------------------------------------------------------


def _known_top_level(settings: Settings | None) -> dict[str, str]:
    """``DATA_DIR`` -> ``data_dir`` for every settings field (plugins' sections included)."""
    fields = type(settings).model_fields if settings is not None else Settings.model_fields
    return {name.upper(): name for name in fields}


@register_check
def unknown_memorist_variables(context: CheckContext) -> Iterator[Problem]:
    """``MEMORIST_*`` variables that no setting reads (a typo is otherwise silently ignored)."""
    fields = _known_top_level(context.settings)
    for name in sorted(context.environ):
        upper = name.upper()
        if not upper.startswith(ENV_PREFIX) or upper in OTHER_ENV or upper.startswith(OTHER_ENV_PREFIXES):
            continue
        head, _, rest = upper[len(ENV_PREFIX) :].partition("__")
        if head in fields:
            continue
        known = list(fields) + [n[len(ENV_PREFIX) :] for n in OTHER_ENV]
        guess = difflib.get_close_matches(head, known, n=1, cutoff=0.6)
        hint = f"; did you mean {ENV_PREFIX}{guess[0]}{'__' + rest if rest else ''}?" if guess else ""
        yield Problem(f"{name}: no setting reads this variable{hint}")


@register_check
def misspelled_bare_variables(context: CheckContext) -> Iterator[Problem]:
    """``AUTH_DISABLE`` for ``AUTH_DISABLED`` and the like: near misses of the spec's bare names."""
    for name in sorted(context.environ):
        if name in BARE_ENV:
            continue
        guess = difflib.get_close_matches(name.upper(), list(BARE_ENV), n=1, cutoff=0.8)
        if guess:
            yield Problem(f"{name}: not read; did you mean {guess[0]}?")


def _first_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


@register_check
def data_dir_usable(context: CheckContext) -> Iterator[Problem]:
    """The data directory exists and is writable, or could be created (nothing is created here)."""
    if context.settings is None:
        return
    data_dir = context.settings.data_dir.expanduser().absolute()
    yield from (Problem(line) for line in data_dir_problems(data_dir))


def data_dir_problems(data_dir: Path) -> list[str]:
    """One line when ``data_dir`` cannot be used (also what ``memorist serve`` checks before starting)."""
    existing = _first_existing(data_dir)
    if existing == data_dir and not existing.is_dir():
        return [f"data_dir {data_dir}: exists and is not a directory; use --data-dir or MEMORIST_DATA_DIR"]
    if not existing.is_dir():
        return [f"data_dir {data_dir}: {existing} is not a directory, so it cannot be created"]
    if not os.access(existing, os.W_OK | os.X_OK):
        verb = "is not writable" if existing == data_dir else f"cannot be created ({existing} is not writable)"
        return [f"data_dir {data_dir}: {verb}; use --data-dir or MEMORIST_DATA_DIR to pick another"]
    return []


@register_check
def auth_secret(context: CheckContext) -> Iterator[Problem]:
    """Authentication on and no JWT secret configured: a warning saying what ``serve`` will do.

    ``memorist serve`` generates a secret once and keeps it in the database, so every
    node over one database uses the same one (see :mod:`memorist.cli.first_run`); the check
    does not open the database to see whether it already holds one.
    """
    settings = context.settings
    if settings is None or settings.auth.disabled or settings.auth.jwt_secret is not None:
        return
    yield Problem(
        "auth: JWT_SECRET is not set; `memorist serve` will generate one (or reuse the one it generated) "
        "and keep it in the database, shared by every node using that database (set JWT_SECRET to choose it)",
        "warning",
    )


@register_check
def weak_secrets(context: CheckContext) -> Iterator[Problem]:
    """Short JWT secrets, short admin keys, auth disabled: the startup warnings, before starting.

    A missing JWT secret is :func:`auth_secret`'s to report (it knows whether one will be generated).
    """
    if context.settings is None:
        return
    from ..auth.warnings import secret_warnings

    for warning in secret_warnings(context.settings.auth):
        if not warning.startswith("JWT_SECRET is not set"):
            yield Problem(warning, "warning")
