"""Settings: YAML file < environment < runtime overrides.

The YAML file comes from ``--config PATH`` or ``MEMORIST_CONFIG``. Environment
variables override it (``MEMORIST_`` prefix, ``__`` between nesting levels, so
``MEMORIST_EMBEDDER__OPTIONS__BATCH_SIZE=64``). Runtime overrides (what
``POST /configure`` persisted) win over both. Secrets never come from the YAML
file: they are read from the environment or from files in a secrets directory
(``MEMORIST_SECRETS_DIR``), and a secret-looking key in YAML is an error.

Every problem is reported as one ``key.path: message`` line, never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import pydantic
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from ..errors import ConfigurationError, format_validation_error
from ..observability.settings import ObservabilitySettings
from ..plugin.slots import SLOT_NAMES, SLOTS
from .engine_settings import EngineSettings
from .files import BARE_ENV, deep_merge, read_config_file, resolve_config_path

CONFIG_ENV = "MEMORIST_CONFIG"
SECRETS_DIR_ENV = "MEMORIST_SECRETS_DIR"


class ProviderSettings(BaseModel):
    """One provider slot: which registered provider, and its options."""

    model_config = ConfigDict(extra="forbid")

    provider: str
    options: dict[str, Any] = Field(default_factory=dict)


class ServerSettings(BaseModel):
    """``memorist serve``: gunicorn processes, each serving ``threads`` requests at once.

    See :mod:`memorist.serve.thread_worker` for why the worker is threaded and how slow clients are bounded.
    """

    model_config = ConfigDict(extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    #: Worker processes (each loads the providers once; its threads share them).
    workers: int = Field(2, ge=1, le=64)
    #: Requests served at once by each worker process.
    threads: int = Field(8, ge=1, le=256)
    #: A worker whose main loop has not reported for this long is restarted (requests may take longer);
    #: also how long a request made while a worker still builds its engine waits for it (then 503).
    timeout: int = Field(120, ge=1)
    #: An idle kept-alive connection is closed after this many seconds.
    keepalive: int = Field(5, ge=0, le=300)
    #: The request line and headers must arrive within this many seconds of the connection opening
    #: (or of the previous answer on a kept-alive connection); then 408 and close (slow clients).
    header_timeout: float = Field(10.0, gt=0, le=300)
    #: Any one read of a request body or write of a response may stall at most this long.
    io_timeout: float = Field(30.0, gt=0, le=3600)
    #: Longest request line (method, path and query) in bytes; past it: 414 (JSON).
    limit_request_line: int = Field(8190, ge=256, le=8190)
    #: glibc malloc arenas per process (see :mod:`memorist.serve.malloc_arenas`): few arenas keep a
    #: worker's memory flat under a stream of adds. 0 keeps glibc's default (8 per core);
    #: ``MALLOC_ARENA_MAX`` in the environment wins over this.
    malloc_arena_max: int = Field(2, ge=0, le=64)
    #: Once a worker has built its engine, move every object alive then (models, lexicons, the
    #: tokenizer, the app) out of the cyclic garbage collector's generations (``gc.freeze()``),
    #: so no later full collection walks them again (see :func:`memorist.serve.gunicorn_app.freeze_built_heap`).
    #: Served workers only: an embedded ``Memory`` leaves the collector to its process's owner.
    gc_freeze: bool = True
    #: With ``AUTH_DISABLED=true``, the ``Host`` names requests may carry besides IP addresses,
    #: ``localhost`` (and ``*.localhost``) and ``host``; ``*.example.com`` allows its subdomains.
    #: Other names answer 403, so a web page cannot reach an open server through DNS rebinding.
    allowed_hosts: list[str] = Field(default_factory=list)


class DatabaseSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    #: SQLAlchemy URL; default: SQLite (WAL) at ``<data_dir>/memorist.db``.
    url: str | None = None
    #: Longest wait for a free pooled connection; past it the request answers 503 with
    #: ``Retry-After`` (the server is busy), never 500.
    pool_timeout_seconds: float = Field(10.0, gt=0, le=300)


class AuthSettings(BaseModel):
    """Authentication of the self-hosted surface. Secrets come only from the environment.

    The spec's bare names are honoured too: ``JWT_SECRET``, ``ADMIN_API_KEY``,
    ``AUTH_DISABLED`` (``MEMORIST_AUTH__*`` wins when both are set).
    """

    model_config = ConfigDict(extra="forbid")

    disabled: bool = False
    jwt_secret: SecretStr | None = None
    admin_api_key: SecretStr | None = None
    access_token_minutes: int = Field(default=15, ge=1, le=24 * 60)
    refresh_token_days: int = Field(default=30, ge=1, le=365)
    #: Failed logins per account per window (successful logins are not counted).
    login_attempts: int = Field(default=10, ge=1)
    login_window_seconds: int = Field(default=60, ge=1)
    #: Failed logins per client address per window (set it above ``login_attempts``: many
    #: users may share one address behind a NAT); registrations per address per window.
    login_address_attempts: int = Field(default=100, ge=1)
    #: Failed API-key, platform-token and JWT checks per client address per window.
    failed_auth_attempts: int = Field(default=60, ge=1)
    #: Proxies in front of the server whose ``X-Forwarded-For`` entries are trusted (0: use
    #: the socket's address). With one load balancer, 1: its entry names the client.
    trusted_proxy_hops: int = Field(default=0, ge=0, le=10)


class SecuritySettings(BaseModel):
    """What runtime configuration and outbound requests may reach (see docs/security.md)."""

    model_config = ConfigDict(extra="forbid")

    #: Hosts, IP addresses or CIDR ranges that outbound requests (webhooks, provider base
    #: URLs set through ``POST /configure``) may reach although they are loopback, private,
    #: link-local or otherwise internal. Empty: only public addresses.
    outbound_allow: list[str] = Field(default_factory=list)
    #: Environment variables ``POST /configure`` may name as a provider's ``api_key_env``.
    #: The server's own secrets (JWT_SECRET, ADMIN_API_KEY, MEMORIST_*, the database URL)
    #: are refused even when listed.
    configure_key_envs: list[str] = Field(
        default_factory=lambda: ["OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "OLLAMA_API_KEY", "GROQ_API_KEY"]
    )
    #: Directories whose files ``POST /configure`` may name as a provider's ``api_key_file``.
    configure_key_dirs: list[str] = Field(default_factory=list)
    #: Provider clients (OpenAI-compatible) check and pin every host they connect to. The
    #: server and worker turn it on; an embedded ``Memory`` leaves it off (its author wrote
    #: every URL).
    guard_providers: bool = False
    #: Hosts provider clients may reach although internal: filled at startup from the base
    #: URLs in the file and environment (the deployer's own, e.g. a local Ollama).
    provider_trusted_hosts: list[str] = Field(default_factory=list)
    #: Origins (``https://host[:port]``) provider clients may send the deployment's API key to
    #: (from the environment or a key file). At startup the origins of the file's and the
    #: environment's base URLs and https://api.openai.com are added; a base URL set through
    #: ``POST /configure`` elsewhere gets no key (see :mod:`memorist.config.provider_keys`).
    provider_key_origins: list[str] = Field(default_factory=list)


class RequestLogSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    retention_days: int = Field(default=30, ge=1)


class QueueSettings(BaseModel):
    """The durable queue of asynchronous adds."""

    model_config = ConfigDict(extra="forbid")

    #: Worker threads started in each server process (0: only ``memorist worker`` processes work).
    workers: int = Field(default=2, ge=0, le=64)
    #: A claimed event's lease; the processing worker renews it every third of this while it works.
    lease_seconds: float = Field(default=60.0, ge=0.5)
    #: Attempts per event, counted at claim: an event whose last attempt's lease expired is FAILED.
    max_attempts: int = Field(default=5, ge=1, le=100)
    backoff_seconds: float = Field(default=1.0, ge=0.0)
    #: Back-pressure: adds answer 429 while this many events wait or run in the whole deployment ...
    max_pending: int = Field(default=10_000, ge=1)
    #: ... or this many in one organization, over all its projects (so one tenant cannot take
    #: the whole budget, however many projects it creates). ``max_pending_per_project``, the
    #: name of a per-project budget before, is read as this.
    max_pending_per_org: int = Field(
        default=1_000, ge=1, validation_alias=AliasChoices("max_pending_per_org", "max_pending_per_project")
    )
    #: A worker stops renewing a lease after this long on one event (it is then stuck, not slow).
    max_run_seconds: float = Field(default=900.0, ge=1.0)
    #: Finished events (and the copy of the add's messages each holds) are deleted after this many days.
    retention_days: float = Field(default=30.0, gt=0)
    poll_seconds: float = Field(default=0.2, ge=0.01)


class LimitsSettings(BaseModel):
    """Bounds on what one request may ask for."""

    model_config = ConfigDict(extra="forbid")

    max_body_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    max_json_depth: int = Field(default=64, ge=4)
    #: Characters of message content above which an add is queued instead of answered at once
    #: (see :mod:`memorist.queue.admission`).
    sync_add_chars: int = Field(default=8_000, ge=0)
    #: Largest add, in characters of message content and in messages (413 past either).
    max_add_chars: int = Field(default=250_000, ge=1)
    max_add_messages: int = Field(default=1_000, ge=1)
    #: Largest batch add (``POST /memories/batch``, ``POST /v3/memories/add/batch/``): adds in one
    #: batch, and characters of message content over all of them (413 past either). Each add of a
    #: batch also obeys the two limits above.
    max_batch_items: int = Field(default=1_000, ge=1)
    max_batch_chars: int = Field(default=1_000_000, ge=1)


class ExportSettings(BaseModel):
    """Quotas and retention of stored exports (see :mod:`memorist.operations.export_store`)."""

    model_config = ConfigDict(extra="forbid")

    #: Exports a project may create per hour (429 past it).
    per_hour: int = Field(default=20, ge=1, le=100_000)
    #: Exports kept per project; saving another deletes the oldest.
    max_per_project: int = Field(default=10, ge=1, le=10_000)
    #: Exports are deleted this many hours after they were created.
    retention_hours: float = Field(default=24.0 * 7, gt=0)


#: Each provider slot's default provider (from the slot table, :mod:`memorist.plugin.slots`).
DEFAULT_PROVIDERS: dict[str, Any] = {slot.kind: {"provider": slot.default} for slot in SLOTS}


class MultilingualSettings(BaseModel):
    """Search across languages: the multilingual vector space (see ``memorist.spaces``).

    A project's memories live in one vector space. Projects whose ``multilingual``
    setting is true (platform API) keep theirs in the multilingual space: vectors of
    ``embedder`` in the vector store's table named ``<table><table_suffix>``. The
    self-hosted server, ``Memory()`` and MCP act in one project; ``enabled: true``
    puts it in the multilingual space. Nothing here is loaded until a project uses it.
    """

    model_config = ConfigDict(extra="forbid")

    #: The self-hosted server's project (``default``/``default``) searches across languages.
    enabled: bool = False
    #: The embedder of the multilingual space (its weights must be installed: no download).
    embedder: ProviderSettings = Field(default_factory=lambda: ProviderSettings(provider="multilingual-use"))
    #: Appended to the vector store's ``table`` option for the multilingual space's table.
    table_suffix: str = Field("_multilingual", pattern=r"^[A-Za-z0-9_]{1,20}$")


def _default_provider(name: str) -> Any:
    return Field(default_factory=lambda: ProviderSettings(provider=name))


class Settings(BaseSettings):
    """The whole configuration of one Memorist deployment."""

    model_config = SettingsConfigDict(
        env_prefix="MEMORIST_",
        env_nested_delimiter="__",
        extra="forbid",
        case_sensitive=False,
    )

    data_dir: Path = Path("memorist-data")
    language_model: ProviderSettings = _default_provider(DEFAULT_PROVIDERS["language_model"]["provider"])
    embedder: ProviderSettings = _default_provider(DEFAULT_PROVIDERS["embedder"]["provider"])
    vector_store: ProviderSettings = _default_provider(DEFAULT_PROVIDERS["vector_store"]["provider"])
    reranker: ProviderSettings = _default_provider(DEFAULT_PROVIDERS["reranker"]["provider"])
    entity_extractor: ProviderSettings = _default_provider(DEFAULT_PROVIDERS["entity_extractor"]["provider"])
    server: ServerSettings = Field(default_factory=lambda: ServerSettings())
    database: DatabaseSettings = Field(default_factory=lambda: DatabaseSettings())
    engine: EngineSettings = Field(default_factory=lambda: EngineSettings())
    auth: AuthSettings = Field(default_factory=lambda: AuthSettings())
    request_log: RequestLogSettings = Field(default_factory=lambda: RequestLogSettings())
    limits: LimitsSettings = Field(default_factory=lambda: LimitsSettings())
    queue: QueueSettings = Field(default_factory=lambda: QueueSettings())
    exports: ExportSettings = Field(default_factory=lambda: ExportSettings())
    security: SecuritySettings = Field(default_factory=lambda: SecuritySettings())
    observability: ObservabilitySettings = Field(default_factory=lambda: ObservabilitySettings())
    multilingual: MultilingualSettings = Field(default_factory=lambda: MultilingualSettings())

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # First wins: runtime overrides, environment, the spec's bare names, secret files, YAML.
        return (
            init_settings,
            env_settings,
            _BareEnvSource(settings_cls),
            file_secret_settings,
            _YamlSource(settings_cls),
        )

    @property
    def database_url(self) -> str:
        return self.database.url or f"sqlite:///{(self.data_dir / 'memorist.db').resolve()}"

    def provider_slots(self) -> dict[str, ProviderSettings]:
        """Each provider slot's section, in the slot table's order."""
        slots: dict[str, ProviderSettings] = {kind: getattr(self, kind) for kind in SLOT_NAMES}
        return slots


_yaml_data: ContextVar[dict[str, Any] | None] = ContextVar("memorist_yaml_data", default=None)


class _YamlSource(PydanticBaseSettingsSource):
    """Feeds the already-read YAML mapping to pydantic-settings as the lowest source."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return (_yaml_data.get() or {}).get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        # Provider defaults sit under the file, so that an environment variable for a single
        # option (MEMORIST_EMBEDDER__OPTIONS__THREADS) merges into the default slot rather
        # than replacing it: pydantic-settings deep-merges sources, not field defaults.
        return deep_merge(DEFAULT_PROVIDERS, _yaml_data.get() or {})


class _BareEnvSource(PydanticBaseSettingsSource):
    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return self().get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        auth = {key: os.environ[name] for name, key in BARE_ENV.items() if os.environ.get(name)}
        return {"auth": auth} if auth else {}


_SETTINGS_CLASSES: dict[tuple[tuple[str, type[BaseModel]], ...], type[Settings]] = {}


def settings_class(sections: Mapping[str, type[BaseModel]] | None = None) -> type[Settings]:
    """``Settings`` plus the plugins' sections (``register_settings``), each validated by its own model.

    Like tox's ``tox_add_core_config``: a plugin's section is read from the YAML file and
    the environment (``MEMORIST_WEBHOOKS__MAX_ATTEMPTS``) like any built-in one, and an
    unknown top-level section is still an error.
    """
    if not sections:
        return Settings
    key = tuple(sorted(sections.items(), key=lambda item: item[0]))
    cls = _SETTINGS_CLASSES.get(key)
    if cls is None:
        clash = sorted(set(sections) & set(Settings.model_fields))
        if clash:
            raise ConfigurationError(f"plugin settings section '{clash[0]}' clashes with a built-in section")
        fields: dict[str, Any] = {name: (model, Field(default_factory=model)) for name, model in key}
        cls = pydantic.create_model("Settings", __base__=Settings, **fields)
        _SETTINGS_CLASSES[key] = cls
    return cls


def plugin_sections(settings: Settings) -> dict[str, type[BaseModel]]:
    """The plugin sections ``settings`` was loaded with (name -> model)."""
    return {
        name: info.annotation
        for name, info in type(settings).model_fields.items()
        if name not in Settings.model_fields and isinstance(info.annotation, type)
    }


def load_settings(
    config: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    sections: Mapping[str, type[BaseModel]] | None = None,
    *,
    data: Mapping[str, Any] | None = None,
) -> Settings:
    """Build settings from the YAML file, the environment and ``overrides``.

    ``sections`` are the plugins' own settings sections (see :func:`settings_class`);
    ``data`` stands in for the file's contents when the caller has read it already.
    Raises :class:`ConfigurationError` whose ``problems`` are one line each.
    """
    env = os.environ if environ is None else environ
    if data is None:
        path = config if config is not None else env.get(CONFIG_ENV)
        data = read_config_file(resolve_config_path(path)) if path else {}
    try:
        return build_settings(data, overrides, env, sections)
    except pydantic.ValidationError as exc:
        raise ConfigurationError(format_validation_error(exc, model=settings_class(sections))) from None


def build_settings(
    data: Mapping[str, Any],
    overrides: Mapping[str, Any] | None,
    env: Mapping[str, str],
    sections: Mapping[str, type[BaseModel]] | None = None,
) -> Settings:
    """``Settings`` (with the plugins' ``sections``) from file data, environment and overrides.

    pydantic's error propagates: :func:`load_settings` turns it into one line per problem.
    """
    token = _yaml_data.set(dict(data))
    kwargs: dict[str, Any] = dict(overrides or {})
    if secrets_dir := env.get(SECRETS_DIR_ENV):
        kwargs["_secrets_dir"] = secrets_dir
    try:
        return settings_class(sections)(**kwargs)
    finally:
        _yaml_data.reset(token)
