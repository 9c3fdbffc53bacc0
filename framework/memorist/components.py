"""Assembling providers from settings.

Validation is separate from building: ``memorist serve`` validates every slot
before gunicorn starts, so all configuration problems are reported together,
one line each, and a bad config never reaches a worker process.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigurationError, MemoristError
from .outbound import OutboundGuard
from .providers import (
    Embedder,
    EntityExtractor,
    LanguageModel,
    Provider,
    ProviderContext,
    Reranker,
    VectorStore,
)
from .registry import ProviderRegistry
from .settings import Settings


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
        return {
            "language_model": self.language_model,
            "embedder": self.embedder,
            "vector_store": self.vector_store,
            "reranker": self.reranker,
            "entity_extractor": self.entity_extractor,
        }


def validate_settings(settings: Settings, registry: ProviderRegistry) -> None:
    """Check every slot names an installed provider with valid options; no I/O."""
    problems: list[str] = []
    for kind, slot in settings.provider_slots().items():
        try:
            registry.validate_options(kind, slot.provider, slot.options)
        except ConfigurationError as exc:
            problems.extend(exc.problems)
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

    def make(kind: str, context: ProviderContext, depends_on: tuple[str, ...] = ()) -> Provider:
        slot = slots[kind]
        same = kind in old_slots and old_slots[kind] == slot and previous is not None
        same_place = previous is not None and (settings.data_dir, settings.database_url) == (
            previous[0].data_dir,
            previous[0].database_url,
        )
        if same and not changed.intersection(depends_on) and same_place:
            return old_built[kind]
        changed.add(kind)
        provider = registry.build(kind, slot.provider, slot.options, context)
        built.append(provider)
        return provider

    guard = provider_guard(settings)
    extras: dict[str, object] = {"outbound_guard": guard} if guard is not None else {}
    try:
        context = ProviderContext(data_dir=settings.data_dir, database_url=settings.database_url, extras=dict(extras))
        embedder = make("embedder", context)
        assert isinstance(embedder, Embedder)
        language_model = make("language_model", context)
        assert isinstance(language_model, LanguageModel)
        store_context = ProviderContext(
            data_dir=settings.data_dir,
            dimension=embedder.dimension,
            database_url=settings.database_url,
            extras=dict(extras),
        )
        vector_store = make("vector_store", store_context, ("embedder",))
        model_context = ProviderContext(
            data_dir=settings.data_dir,
            language_model=language_model,
            database_url=settings.database_url,
            extras=dict(extras),
        )
        reranker = make("reranker", model_context, ("language_model",))
        entity_extractor = make("entity_extractor", context)
    except MemoristError:
        for provider in built:
            provider.close()
        raise
    return Components(
        language_model=language_model,
        embedder=embedder,
        vector_store=vector_store,  # type: ignore[arg-type]
        reranker=reranker,  # type: ignore[arg-type]
        entity_extractor=entity_extractor,  # type: ignore[arg-type]
    )
