"""The languages a local model reads, from its model card.

A sentence-transformers model directory ships the Hugging Face model card (``README.md``)
whose YAML front matter names the languages it was trained on (``language: en`` for
all-MiniLM-L6-v2; a list, or ``multilingual``, for the multilingual models). The engine
weighs an agent's turn by meaning only in a language the embedder reads
(:attr:`memorist.plugin_api.Embedder.languages`), so the card's word is what the embedder
declares unless the configuration says otherwise (``embedder.options.languages``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

#: A card value that means "many languages" without listing them.
_ANY = frozenset({"multilingual", "multi", "any"})
#: The front matter is the card's first lines; a card is read once per process start.
_MAX_CARD_BYTES = 64 * 1024


def card_languages(model_dir: str | Path) -> frozenset[str] | None:
    """The ISO 639-1 codes ``model_dir``'s model card lists under ``language``; None when the
    card is missing, unreadable, lists none, or says ``multilingual`` (every language)."""
    card = Path(model_dir) / "README.md"
    try:
        with card.open(encoding="utf-8", errors="replace") as handle:
            text = handle.read(_MAX_CARD_BYTES)
    except OSError:
        return None
    front = _front_matter(text)
    return normalized(front.get("language") if front else None)


def normalized(value: Any) -> frozenset[str] | None:
    """Codes from a card's or a configuration's ``language`` value ("en", ["de", "fr"],
    "zh-TW" -> "zh"), None for none or for a value that means every language."""
    if value is None:
        return None
    items = [value] if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else []
    codes = {str(item).strip().lower().replace("_", "-").split("-")[0] for item in items if str(item).strip()}
    if not codes or codes & _ANY:
        return None
    return frozenset(codes)


def _front_matter(text: str) -> dict[str, Any] | None:
    if not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    if end < 0:
        return None
    try:
        data = yaml.safe_load(text[3:end])
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None
