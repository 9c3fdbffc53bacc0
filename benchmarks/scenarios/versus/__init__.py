"""Memorist beside mem0 OSS in one process: the pieces of ``benchmarks/versus_mem0.py``.

- :mod:`.netguard`: proof that nothing left the machine (mem0 is given an LLM it must never call);
- :mod:`.mem0_side`: mem0 OSS built from the same packaged MiniLM and its local on-disk Qdrant;
- :mod:`.http`: Memorist's searches over HTTP, a real ``memorist serve`` on the data just loaded.
"""
