"""The HTTP side of authentication: hands the kernel's authenticator to every request.

The authenticator itself (:class:`memorist.auth.authenticator.Authenticator`) is built
once by the kernel and knows no web framework; ``@operation`` calls it per the
route's policy.
"""

from __future__ import annotations

import falcon

from ..auth.authenticator import Authenticator


class AuthenticatorMiddleware:
    """Hands the authenticator to responders (``@operation`` calls it)."""

    def __init__(self, authenticator: Authenticator) -> None:
        self._authenticator = authenticator

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.authenticator = self._authenticator
        req.context.principal = None
