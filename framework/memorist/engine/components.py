"""Assembling providers from settings.

Validation is separate from building: ``memorist serve`` validates every slot
before gunicorn starts, so all configuration problems are reported together,
one line each, and a bad config never reaches a worker process.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.provider_keys import KeyOrigins
from ..config.settings import Settings
from ..errors import ConfigurationError, MemoristError
from ..outbound import OutboundGuard
from ..plugin.contracts import (
    PROVIDER_KINDS,
    Embedder,
    EntityExtractor,
    LanguageModel,
    Provider,
    ProviderContext,
    Reranker,
    VectorStore,
)
from ..plugin.registry import ProviderRegistry
from ..plugin.slots import SLOT_NAMES, build_order


def provider_guard(settings: Settings) -> OutboundGuard | None:
    """The outbound guard for provider clients, when the server or worker asked for one.

    Hosts of the base URLs configured at startup stay reachable (a local Ollama);
    a base URL set later through ``POST /configure`` must pass the guard.
    """
    security = settings.security
    if not security.guard_providers:
        return None
    return OutboundGuard([*security.outbound_allow, *security.provider_trusted_hosts])


@dataclass
class Components:
    """One built provider per slot; what the engine runs on."""

    language_model: LanguageModel
    embedder: Embedder
    vector_store: VectorStore
    reranker: Reranker
    entity_extractor: EntityExtractor

    def describe(self) -> dict[str, str]:
        return {slot: p.describe() for slot, p in self._slots().items()}

    def close(self, keep: Components | None = None) -> None:
        """Close every provider, except those ``keep`` shares (after a reconfiguration)."""
        kept = {id(p) for p in keep._slots().values()} if keep else set()
        for provider in self._slots().values():
            if id(provider) not in kept:
                provider.close()

    def _slots(self) -> dict[str, Provider]:
        """Each slot's provider, in the slot table's order."""
        return {kind: getattr(self, kind) for kind in SLOT_NAMES}


def validate_settings(settings: Settings, registry: ProviderRegistry) -> None:
    """Check every slot names an installed provider with valid options; no I/O."""
    problems: list[str] = []
    for kind, slot in settings.provider_slots().items():
        try:
            registry.validate_options(kind, slot.provider, slot.options)
        except ConfigurationError as exc:
            problems.extend(exc.problems)
    spaced = settings.multilingual.embedder  # built on first use; its mistakes are reported now
    try:
        registry.validate_options("embedder", spaced.provider, spaced.options)
    except ConfigurationError as exc:
        problems.extend(f"multilingual.{p}" if p.startswith("embedder") else p for p in exc.problems)
    if problems:
        raise ConfigurationError(problems)


def build_components(
    settings: Settings,
    registry: ProviderRegistry,
    previous: tuple[Settings, Components] | None = None,
) -> Components:
    """Build providers in dependency order: the store needs the embedder's dimension,
    rerankers may need the language model.

    With ``previous``, a slot whose configuration did not change keeps its built
    provider (a reconfiguration does not reload an unchanged embedding model).
    """
    validate_settings(settings, registry)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    slots = settings.provider_slots()
    built: list[Provider] = []
    old_slots = previous[0].provider_slots() if previous else {}
    old_built = previous[1]._slots() if previous else {}
    changed: set[str] = set()

    same_place = previous is not None and (settings.data_dir, settings.database_url) == (
        previous[0].data_dir,
        previous[0].database_url,
    )
    guard = provider_guard(settings)
    extras: dict[str, object] = {}
    if guard is not None:
        extras["outbound_guard"] = guard
        extras["provider_key_origins"] = KeyOrigins(settings.security.provider_key_origins)
    providers: dict[str, Provider] = {}
    try:
        for entry in build_order():
            kind, slot = entry.kind, slots[entry.kind]
            same = previous is not None and old_slots.get(kind) == slot and same_place
            if same and not changed.intersection(entry.depends_on):
                providers[kind] = old_built[kind]
                continue
            changed.add(kind)
            provider = registry.build(
                kind, slot.provider, slot.options, _context(settings, entry.depends_on, providers, extras)
            )
            built.append(provider)
            providers[kind] = provider
    except MemoristError:
        for provider in built:
            provider.close()
        raise
    for kind, provider in providers.items():
        if not isinstance(provider, PROVIDER_KINDS[kind]):
            contract = PROVIDER_KINDS[kind].__name__
            raise ConfigurationError(f"{kind}.provider: {type(provider).__name__} is not a {contract}")
    return Components(**providers)  # type: ignore[arg-type]


def _context(
    settings: Settings, depends_on: tuple[str, ...], providers: dict[str, Provider], extras: dict[str, object]
) -> ProviderContext:
    """What a slot's provider receives: the embedder's dimension, the language model, when it depends on them.

    ``extras`` carries the outbound guard (``security.guard_providers``) and the origins the
    deployment's API keys may go to (``provider_key_origins``) to every provider.
    """
    embedder = providers.get("embedder") if "embedder" in depends_on else None
    language_model = providers.get("language_model") if "language_model" in depends_on else None
    return ProviderContext(
        data_dir=settings.data_dir,
        database_url=settings.database_url,
        dimension=embedder.dimension if isinstance(embedder, Embedder) else None,
        language_model=language_model if isinstance(language_model, LanguageModel) else None,
        extras=dict(extras),
    )
