"""Request limits every door shares, named once so a change reaches REST, the platform
surface, MCP and the Python API together (the models bake these into their OpenAPI
``maximum``, so they are read at import, not patched at run time).

Where the doors differ it is deliberate: MCP pages are smaller because an agent's context
window pays for every row a tool returns; the platform surface keeps its hosted-API maximum
so clients written against it see the same bounds."""

from __future__ import annotations

#: Most results one search returns (and the widest candidate pool it asks the stores for).
MAX_TOP_K = 1000
#: Longest search query, in characters.
MAX_QUERY_CHARS = 10_000
#: Largest page of the self-hosted REST list and the Python API.
MAX_PAGE_SIZE = 1000
#: Largest page on the platform (v1/v2/v3) surface: the hosted API's documented maximum.
MAX_PLATFORM_PAGE_SIZE = 200
#: Most results an MCP search returns: each one costs the calling agent context tokens.
MAX_MCP_TOP_K = 100
#: Largest page an MCP tool returns: every row costs the calling agent context tokens.
MAX_MCP_PAGE_SIZE = 100
#: Highest page number of any paged list: an unbounded page overflowed SQLite's 64-bit OFFSET (a 500).
MAX_PAGE = 1_000_000
#: Most memories one platform batch update or delete (``PUT``/``DELETE /v1/batch/``) names: the hosted API's bound.
MAX_BATCH_CHANGES = 1000
