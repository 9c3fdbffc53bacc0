"""mem0 configuration dicts translated into Memorist settings (for :class:`memorist.python.memory.Memory`)."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

log = logging.getLogger("memorist.facade")
#: mem0 configuration keys with no Memorist counterpart: accepted and ignored (said once in the log).
IGNORED_MEM0_KEYS = ("version", "graph_store", "custom_update_memory_prompt", "api_version", "enable_graph")


def translate_config(config: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Memorist settings from a config dict written for either library.

    mem0 spells the language model ``llm`` and provider options ``config``;
    ``history_db_path`` becomes the SQLite database and
    ``custom_fact_extraction_prompt`` the instructions every add passes to the
    language model (returned separately). Other mem0-only keys are dropped with
    a log line, so a mem0 config fails only where Memorist lacks the provider it
    names (an error listing the installed ones).
    """
    settings: dict[str, Any] = {}
    instructions: str | None = None
    for key, value in config.items():
        if key == "llm":
            key = "language_model"
        if key in IGNORED_MEM0_KEYS:
            log.info("mem0 setting %r has no Memorist counterpart; ignored", key)
            continue
        if key == "history_db_path":
            settings.setdefault("database", {})["url"] = f"sqlite:///{os.path.abspath(value)}"
            continue
        if key == "custom_fact_extraction_prompt":
            instructions = value
            continue
        if isinstance(value, Mapping) and "provider" in value and "config" in value:
            value = {"provider": value["provider"], "options": dict(value["config"] or {})}
        settings[key] = value
    return settings, instructions
