"""What each operation needs: declared once here, checked by one ``authorize()`` for every door.

Every method of :class:`~.service.Operations` that acts for a caller carries
``@requires(Role...)``: reads need ``READER``, changes ``OWNER``. The doors
(self-hosted REST, platform, MCP, dashboard, Python) decide *who* is calling
(:func:`~.caller.caller_for`) and never test a role by hand; changing a
requirement here changes it on every door at once. Routes outside the
operations layer (platform project administration) declare theirs on the HTTP
``@operation(role=...)``, which calls the same :func:`authorize_role`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ..auth.errors import PermissionDenied
from ..auth.roles import Role
from .caller import Caller

F = TypeVar("F", bound=Callable[..., Any])

#: The least role each operation needs, by :class:`~.service.Operations` method name.
REQUIRED: dict[str, Role] = {}


def requires(role: Role) -> Callable[[F], F]:
    """Declare the least role an operation needs; the call is refused (403) below it.

    The requirement is read from :data:`REQUIRED` at call time, so the table is
    the one place it lives (and a test may change it for every door at once).
    """

    def wrap(method: F) -> F:
        name = method.__name__
        REQUIRED[name] = role

        @functools.wraps(method)
        def checked(self: Any, caller: Caller, *args: Any, **kwargs: Any) -> Any:
            authorize(caller, name)
            return method(self, caller, *args, **kwargs)

        return checked  # type: ignore[return-value]

    return wrap


def authorize(caller: Caller, operation: str) -> None:
    """Refuse ``caller`` the ``operation`` (403 naming the role needed) unless its role suffices."""
    authorize_role(caller, REQUIRED[operation], _described(operation))


def _described(operation: str) -> str:
    """``delete_all`` -> "delete all" (what a refusal names; method names are not wire names)."""
    return operation.replace("_", " ").strip()


def authorize_role(caller: Caller, needed: Role, what: str) -> None:
    if caller.role.allows(needed):
        return
    if caller.role is Role.READER:
        raise PermissionDenied(f"these credentials are read-only (a READER member); {what} needs the {needed} role")
    raise PermissionDenied(f"{what} needs the {needed} role; these credentials hold {caller.role}")
