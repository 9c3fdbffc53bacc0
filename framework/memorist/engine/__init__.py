"""The memory engine: ADD-only add pipeline, entity graph, hybrid search.

Both HTTP surfaces are thin doors onto :class:`memorist.engine.memory.MemoryEngine`.
"""

from __future__ import annotations
