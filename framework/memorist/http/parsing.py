"""Reading request bodies and query strings into pydantic models, with limits.

Only ``@operation`` (:mod:`.operations`) calls these: a responder receives the
parsed models, it never reads the request itself.

A body not declared ``application/json`` (415), malformed JSON, invalid UTF-8,
a body past the size limit (413), nesting past the depth limit, wrong types and
out-of-range values all become 4xx answers whose message names the field;
nothing reaches the engine unvalidated.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, TypeVar

import falcon
import pydantic
from pydantic import BaseModel

from ..errors import MemoristError

ModelT = TypeVar("ModelT", bound=BaseModel)


class RequestError(MemoristError):
    status = 400


class NotAnObject(RequestError):
    """The body is JSON but not an object."""


class PayloadTooLarge(MemoristError):
    status = 413


class UnsupportedMediaType(MemoristError):
    status = 415


#: Media types a JSON body may be declared as (``application/merge-patch+json`` and the like too).
JSON_MEDIA_TYPE = "application/json"


def require_json_media_type(req: falcon.Request) -> None:
    """415 unless the body is declared ``application/json`` (or a ``+json`` type).

    Why: a web page may send another site a ``text/plain`` POST without asking first (no
    CORS preflight), but not an ``application/json`` one. Reading a body only when it says
    it is JSON means a page on another origin cannot make a browser write or wipe memories
    on a server it can reach (a local one with ``AUTH_DISABLED=true``, say).
    """
    media = (req.content_type or "").split(";", 1)[0].strip().lower()
    if media != JSON_MEDIA_TYPE and not (media.startswith("application/") and media.endswith("+json")):
        shown = f"'{media[:80]}'" if media else "none"
        raise UnsupportedMediaType(f"request body: Content-Type must be {JSON_MEDIA_TYPE} (got {shown})")


class UnprocessableEntity(MemoristError):
    status = 422

    def __init__(self, message: str, errors: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.errors = errors


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of a JSON value, stopping as soon as it passes ``limit``."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    deepest = 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _reject_constant(name: str) -> Any:
    raise RequestError(f"request body: {name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # 1e400: it would be stored as inf and answered as Infinity, which is not JSON
        raise RequestError(f"request body: the number {text[:40]} is out of range")
    return value


def read_json(req: falcon.Request, *, max_bytes: int, max_depth: int, required: bool = True) -> Any:
    """The request's JSON body; 400/413 with a clear message when it is not usable."""
    length = req.content_length
    if length is not None and length > max_bytes:
        raise PayloadTooLarge(f"request body is {length} bytes; the limit is {max_bytes}")
    if length is None and req.env.get("wsgi.input_terminated"):
        # A chunked body has no Content-Length, and Falcon's bounded_stream then reads nothing;
        # the server (gunicorn) decodes the chunks and ends this stream, so read it, still bounded.
        raw = req.stream.read(max_bytes + 1)
    else:
        raw = req.bounded_stream.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise PayloadTooLarge(f"request body exceeds the limit of {max_bytes} bytes")
    if not raw.strip():
        if required:
            raise RequestError("request body: a JSON object is required")
        return {}
    require_json_media_type(req)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError(f"request body: invalid UTF-8 at byte {exc.start}") from None
    try:
        data = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except RecursionError:
        raise RequestError(f"request body: JSON nested deeper than {max_depth} levels") from None
    except json.JSONDecodeError as exc:
        raise RequestError(
            f"request body: malformed JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except ValueError:  # an integer past Python's digit limit (4300) for str -> int conversion
        raise RequestError("request body: a JSON number has too many digits") from None
    if _depth(data, max_depth) > max_depth:
        raise RequestError(f"request body: JSON nested deeper than {max_depth} levels")
    if "\\u" in text:
        # Valid UTF-8 bytes can still escape a lone surrogate ("\ud800"): not text, and it fails
        # later (storage, validation) as a 500 or a poisoned queued event, so refuse it here.
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise RequestError("request body: a string holds an unpaired surrogate escape (\\ud800-\\udfff)") from None
    return data


def _loc(error: Mapping[str, Any]) -> str:
    return ".".join(str(p) for p in error.get("loc", ())) or "body"


def validate(model: type[ModelT], data: Any, where: str = "body") -> ModelT:
    """``model`` from ``data``; 422 naming every bad field (the first in ``detail``)."""
    if where == "body" and not isinstance(data, dict):
        raise NotAnObject("request body: a JSON object is required")
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        errors = [{"field": _loc(e), "message": e["msg"]} for e in exc.errors(include_url=False)]
        first = errors[0]
        prefix = "" if where == "body" else f"{where} "
        raise UnprocessableEntity(f"{prefix}{first['field']}: {first['message']}", errors) from None


def query_params(req: falcon.Request) -> dict[str, Any]:
    """Query parameters as a dict; repeated ones become lists."""
    return {k: v for k, v in req.params.items()}


def query(req: falcon.Request, model: type[ModelT]) -> ModelT:
    return validate(model, query_params(req), where="query")
