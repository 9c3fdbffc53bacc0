"""``/openapi.json``: generated from the ``@operation`` declarations of every route.

The pydantic models that validate a request are the ones documented, so the
document cannot drift from what the server accepts.
"""

from __future__ import annotations

import re
from typing import Any

import falcon
from pydantic import BaseModel, TypeAdapter

from .. import __version__
from .declaration import Operation, operations_of

REF = "#/components/schemas/{model}"
_PARAM = re.compile(r"{(\w+)}")
SECURITY: dict[str, list[dict[str, list[str]]]] = {
    "open": [],
    "user": [{"bearerAuth": []}, {"apiKeyAuth": []}],
    "admin": [{"bearerAuth": []}, {"apiKeyAuth": []}],
    "jwt": [{"bearerAuth": []}],
    "platform": [{"platformToken": []}],
}
ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "detail": {"type": "string"},
        "message": {"type": "string"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
            },
        },
        "request_id": {"type": ["string", "null"]},
    },
    "required": ["detail"],
}
#: Project and member routes answer their own errors as ``{"message"}`` (the platform spec's shape);
#: their authentication and body-parsing errors still come from the shared ``{"detail"}`` path.
PROJECT_ERROR_SCHEMA = {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}
PROJECT_ROUTES = "/api/v1/orgs/"
STATUS_TEXT = {
    400: "Bad request",
    401: "Not authenticated",
    403: "Forbidden",
    404: "Not found",
    409: "Conflict",
    413: "Body too large",
    422: "Invalid field",
    429: "Too many requests",
    500: "Server misconfigured",
}


class OpenAPIBuilder:
    def __init__(self, title: str) -> None:
        self._title = title
        self._routes: list[tuple[str, object]] = []
        self._schemas: dict[str, Any] = {"Error": ERROR_SCHEMA, "ProjectError": PROJECT_ERROR_SCHEMA}

    def add(self, path: str, resource: object) -> None:
        self._routes.append((path, resource))

    def _schema(self, annotation: Any) -> dict[str, Any]:
        schema = TypeAdapter(annotation).json_schema(ref_template=REF)
        self._schemas.update(schema.pop("$defs", {}))
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            self._schemas[annotation.__name__] = schema
            return {"$ref": REF.format(model=annotation.__name__)}
        return schema

    def _operation(self, path: str, method: str, op: Operation) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "summary": op.summary,
            "operationId": f"{method}_{re.sub(r'[^a-zA-Z0-9]+', '_', path).strip('_') or 'root'}",
            "tags": list(op.tags),
            "security": SECURITY[op.auth],
            "parameters": [
                {"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in _PARAM.findall(path)
            ],
        }
        if op.description:
            doc["description"] = op.description
        if op.query is not None:
            schema = op.query.model_json_schema(ref_template=REF)
            for name, prop in schema.get("properties", {}).items():
                doc["parameters"].append(
                    {"name": name, "in": "query", "required": name in schema.get("required", []), "schema": prop}
                )
        if op.body is not None:
            doc["requestBody"] = {
                "required": op.body_required,
                "content": {"application/json": {"schema": self._schema(op.body)}},
            }
        ok: dict[str, Any] = {"description": "OK"}
        ok["content"] = {"application/json": {"schema": self._schema(op.response)}}
        doc["responses"] = {str(op.status): ok}
        errors = set(op.errors) | ({401} if op.auth != "open" else set()) | {500}
        if op.auth == "admin":
            errors.add(403)
        if op.body is not None:
            errors |= {400, 413, 422}
        if op.query is not None:
            errors.add(422)
        error: dict[str, Any] = {"$ref": REF.format(model="Error")}
        if path.startswith(PROJECT_ROUTES):
            error = {"anyOf": [error, {"$ref": REF.format(model="ProjectError")}]}
        for status in sorted(errors):
            doc["responses"][str(status)] = {
                "description": STATUS_TEXT.get(status, "Error"),
                "content": {"application/json": {"schema": error}},
            }
        return doc

    def build(self) -> dict[str, Any]:
        paths: dict[str, Any] = {}
        for path, resource in self._routes:
            for method, op in operations_of(resource).items():
                paths.setdefault(path, {})[method] = self._operation(path, method, op)
        return {
            "openapi": "3.1.0",
            "info": {"title": self._title, "version": __version__},
            "paths": paths,
            "components": {
                "schemas": self._schemas,
                "securitySchemes": {
                    "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
                    "apiKeyAuth": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                    "platformToken": {
                        "type": "apiKey",
                        "in": "header",
                        "name": "Authorization",
                        "description": "Platform key, sent as: Token &lt;key&gt;",
                    },
                },
            },
        }


class OpenAPIResource:
    def __init__(self, builder: OpenAPIBuilder) -> None:
        self._builder = builder
        self._document: dict[str, Any] | None = None

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        if self._document is None:  # built on first use, after every plugin added its routes
            self._document = self._builder.build()
        resp.media = self._document
