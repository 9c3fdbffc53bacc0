"""Request-scoped middleware every route shares."""

from __future__ import annotations

import uuid

import falcon

REQUEST_ID_HEADER = "X-Request-ID"


class RequestIdMiddleware:
    """Gives every request an id (the caller's, if sane) and echoes it on the response."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        incoming = req.get_header(REQUEST_ID_HEADER)
        if incoming and len(incoming) <= 128 and incoming.isprintable():
            req.context.request_id = incoming
        else:
            req.context.request_id = uuid.uuid4().hex

    def process_response(
        self, req: falcon.Request, resp: falcon.Response, resource: object, req_succeeded: bool
    ) -> None:
        resp.set_header(REQUEST_ID_HEADER, getattr(req.context, "request_id", ""))
