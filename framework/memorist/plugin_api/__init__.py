"""The published plugin API: the one module a Memorist plugin imports.

Everything a plugin needs is here: the ``hookimpl`` marker, the provider
contracts and the records they exchange, filters, errors, the language layer, and
the context hooks receive (settings, database, engine). What only a plugin that adds
HTTP routes needs (the route decorator, tenancy and access checks) is in
:mod:`memorist.plugin_api.http`.
Built-in plugins import nothing else from ``memorist`` (a test checks it), so
what they can do, a third-party plugin can do too.

Every name but ``hookimpl`` is imported on first use: loading a plugin to read
its hooks (``memorist --help`` lists plugin commands) imports only what the plugin
itself uses at import, and a process that never serves HTTP (``memorist worker``)
never imports the web layer.

A minimal plugin::

    from memorist.plugin_api import Reranker, ProviderOptions, hookimpl

    class Shuffle(Reranker):
        name = "shuffle"
        class Options(ProviderOptions):
            seed: int = 0
        def rerank(self, query, hits, top_k): ...

    @hookimpl
    def register_rerankers(register):
        register(Shuffle)
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..plugin.hookspecs import hookimpl as hookimpl
from ._published import Published

# The published names. This block is the one list: type checkers read these imports (the
# ``X as X`` form marks each one a re-export), and at run time ``_published`` reads the same
# block to import each name on first use (``__getattr__``) and to build ``__all__``. Loading a
# plugin to read its hooks (``memorist --help`` loads every plugin to list their commands) then
# imports none of the engine or the database layer, only what the plugin itself uses.
if TYPE_CHECKING:
    from .. import __version__ as __version__
    from ..db import Database as Database
    from ..engine.supersession_rule import states_attribute as states_attribute
    from ..errors import CapabilityError as CapabilityError
    from ..errors import ConfigurationError as ConfigurationError
    from ..errors import DimensionMismatchError as DimensionMismatchError
    from ..errors import InvalidFilterError as InvalidFilterError
    from ..errors import MemoristError as MemoristError
    from ..errors import NotFoundError as NotFoundError
    from ..errors import ProviderError as ProviderError
    from ..errors import ValidationError as ValidationError
    from ..filters import DATE_FIELDS as DATE_FIELDS
    from ..filters import And as And
    from ..filters import Condition as Condition
    from ..filters import Filter as Filter
    from ..filters import Not as Not
    from ..filters import Or as Or
    from ..filters import evaluate as evaluate
    from ..filters import is_metadata_field as is_metadata_field
    from ..filters import parse_filter as parse_filter
    from ..kernel.context import PluginContext as PluginContext
    from ..language import CAPITALS_OPEN_AFTER as CAPITALS_OPEN_AFTER
    from ..language import CASELESS as CASELESS
    from ..language import DEFAULT as DEFAULT
    from ..language import QUESTION_MARKS as QUESTION_MARKS
    from ..language import SPACELESS as SPACELESS
    from ..language import Boundary as Boundary
    from ..language import Form as Form
    from ..language import Lexicon as Lexicon
    from ..language import PersonTable as PersonTable
    from ..language import Phrases as Phrases
    from ..language import Token as Token
    from ..language import at_sentence_start as at_sentence_start
    from ..language import boundaries as boundaries
    from ..language import capitalized as capitalized
    from ..language import fold as fold
    from ..language import has_boundary as has_boundary
    from ..language import join_sentences as join_sentences
    from ..language import language_of as language_of
    from ..language import lexicon as lexicon
    from ..language import opening_break as opening_break
    from ..language import person_table as person_table
    from ..language import phrases as phrases
    from ..language import script_of as script_of
    from ..language import sentences as sentences
    from ..language import shift as shift
    from ..language import split as split
    from ..language import tokens as tokens
    from ..language import user_voice_forms as user_voice_forms
    from ..outbound import OutboundGuard as OutboundGuard
    from ..outbound import OutboundRefused as OutboundRefused
    from ..outbound import guarded_transport as guarded_transport
    from ..outbound import pinned_connection as pinned_connection
    from ..plugin.contracts import PROVIDER_KINDS as PROVIDER_KINDS
    from ..plugin.contracts import Embedder as Embedder
    from ..plugin.contracts import EntityExtractor as EntityExtractor
    from ..plugin.contracts import LanguageModel as LanguageModel
    from ..plugin.contracts import ModelT as ModelT
    from ..plugin.contracts import Provider as Provider
    from ..plugin.contracts import ProviderContext as ProviderContext
    from ..plugin.contracts import ProviderOptions as ProviderOptions
    from ..plugin.contracts import Reranker as Reranker
    from ..plugin.contracts import VectorStore as VectorStore
    from ..plugin.contracts import account_for_messages as account_for_messages
    from ..plugin.model_weights import resolve_model_path as resolve_model_path
    from ..records import CandidateMemory as CandidateMemory
    from ..records import ChatMessage as ChatMessage
    from ..records import ContextWanted as ContextWanted
    from ..records import EntityMention as EntityMention
    from ..records import ExtractedFact as ExtractedFact
    from ..records import Extraction as Extraction
    from ..records import ExtractionRequest as ExtractionRequest
    from ..records import FactWithCandidates as FactWithCandidates
    from ..records import MemoryRecord as MemoryRecord
    from ..records import Message as Message
    from ..records import RecentMemory as RecentMemory
    from ..records import Scope as Scope
    from ..records import SkippedInput as SkippedInput
    from ..records import StoreHit as StoreHit
    from ..records import StoreMatch as StoreMatch
    from ..records import as_utc as as_utc
    from ..records import utcnow as utcnow

_PUBLISHED = Published(__name__, always=("LazyExports", "hookimpl"))


class LazyExports:
    """Names a plugin package exports from its own submodules, each imported on first use.

    Why: every ``memorist`` process loads every plugin (``memorist --help`` to list
    their commands, the gunicorn master before it forks), so a plugin whose package
    imports its providers at the top makes all of them pay for its model library or
    database driver. With this, the package registers ``_exports.load("Name")`` from its
    hook and keeps ``from the_plugin import Name`` working through a module
    ``__getattr__`` (PEP 562)::

        _exports = LazyExports(__name__, {"MyStore": ".store"})

        @hookimpl
        def register_vector_stores(register):
            register(_exports.load("MyStore"))

        def __getattr__(name):
            return _exports.attribute(name)
    """

    def __init__(self, package: str, homes: Mapping[str, str]) -> None:
        self.package = package
        #: Exported name -> the (relative) module that defines it.
        self.homes = dict(homes)

    def load(self, name: str) -> Any:
        """The exported object ``name``, importing its module if needed."""
        return getattr(importlib.import_module(self.homes[name], self.package), name)

    def attribute(self, name: str) -> Any:
        """:meth:`load` for a module ``__getattr__``: an unknown name is an ``AttributeError``."""
        if name in self.homes:
            return self.load(name)
        raise AttributeError(f"module {self.package!r} has no attribute {name!r}")


def __getattr__(name: str) -> Any:
    return _PUBLISHED.attribute(name)


def __dir__() -> list[str]:
    return _PUBLISHED.dir()
