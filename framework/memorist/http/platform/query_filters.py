"""A ``filters`` document sent in a query string, as the published clients render it.

``mem0ai`` 2.x's ``delete_all(filters={"user_id": "carol"})`` puts the dict in the
query string through httpx, which renders a dict with ``str()``: the server receives
``filters={'user_id': 'carol'}`` -- a Python literal, not JSON. Both spellings are
accepted: JSON first, then :func:`ast.literal_eval` (which builds literals only and
never runs code; never ``eval``). The text is bounded before either parser sees it
(:data:`MAX_CHARS`), so one request's parse cost is bounded too; the filter parser
bounds depth and condition count after that (:mod:`memorist.filters`).
"""

from __future__ import annotations

import ast
import json
from typing import Any

from ...errors import ValidationError
from . import models as m

#: Longest ``filters`` query value accepted (a filter document in a URL is small; URLs past ~8 KB
#: are refused by many proxies anyway).
MAX_CHARS = 8192


def parse_query_filters(raw: str) -> dict[str, Any]:
    """The filter document of a ``filters`` query value (JSON or a Python dict literal); 400 otherwise."""
    text = raw.strip()
    if len(text) > MAX_CHARS:
        raise ValidationError(f"filters: {len(text)} characters, more than the {MAX_CHARS} a query string may carry")
    try:
        value: Any = json.loads(text)
    except ValueError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise ValidationError(
                "filters: not a JSON object (nor a Python dict literal, as mem0ai 2.x sends it); "
                'send e.g. filters={"user_id": "alice"}'
            ) from None
    if not isinstance(value, dict):
        raise ValidationError(f"filters: must be an object, got {type(value).__name__}")
    return value


def split_entity_ids(filters: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any] | None]:
    """Entity ids given as plain strings at the top level of ``filters``, and the rest of the document.

    The ids become the delete's identifiers (so the entity's queued adds are stopped too, and
    ``"*"`` is the wildcard); anything else (metadata, operators, ``AND``/``OR``) stays a filter.
    """
    ids: dict[str, str] = {}
    rest: dict[str, Any] = {}
    for key, value in filters.items():
        if key == "AND" and isinstance(value, list) and value and all(_plain_id(item) for item in value):
            # {"AND": [{"user_id": "carol"}, {"run_id": "r1"}]}, as the clients' docs spell it: ids too.
            for item in value:
                (field, given), *_ = item.items()
                if ids.setdefault(field, given) != given:
                    raise ValidationError(f"filters.AND: {field} is both '{ids[field]}' and '{given}'")
        elif key in m.ENTITY_KEYS and isinstance(value, str):
            ids[key] = value
        elif key in m.ENTITY_KEYS and value is not None and not isinstance(value, (dict, list)):
            raise ValidationError(f"filters.{key}: must be a string, got {type(value).__name__} {value!r}")
        else:
            rest[str(key)] = value
    return ids, (rest or None)


def _plain_id(item: Any) -> bool:
    """``{"user_id": "carol"}``: one entity id, as a plain string."""
    return (
        isinstance(item, dict)
        and len(item) == 1
        and all(k in m.ENTITY_KEYS and isinstance(v, str) for k, v in item.items())
    )
