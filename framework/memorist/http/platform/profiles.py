"""Memory profiles: the platform client's profile methods, answered "not supported", clearly.

``mem0ai`` 2.2.1 has ``get_profile``, ``generate_profile``, ``get_profile_settings``,
``update_profile_settings``, ``sample_profiles`` and ``get_profile_job``. Memorist does not
build profiles. Unserved, those paths answered a bare 404 that the client turns into
``MemoryNotFoundError`` -- as if the user or memory were missing. Here every profile path
answers 400 with a ``detail`` saying profiles are not supported (the client raises its
``ValidationError``, the exception it documents for "profiles are not enabled for the
project") and ``errors[0].code`` = ``profiles_not_supported``, stable for a program to branch on.
The key is still checked first: a bad key stays a 401, a non-member a 403.
"""

from __future__ import annotations

from collections.abc import Callable

import falcon

from ...errors import ValidationError
from ...tenancy import Tenancy
from ..declaration import operation
from . import models as m
from .access import access

TAGS = ("memory profiles (not supported)",)
CODE = "profiles_not_supported"
DETAIL = (
    "Memory profiles are not supported by this Memorist server: it stores and searches memories but does "
    "not generate per-user profiles (see docs/platform.md, 'Memory profiles'). Summarize a user's memories "
    "with POST /v1/summary/ instead."
)
DESCRIPTION = f"Always answers 400 with `detail` and `errors[0].code` = `{CODE}` (after the key check)."


class ProfilesNotSupported(ValidationError):
    """A 400 whose ``detail`` says the feature is absent (not that the entity is missing)."""

    def __init__(self) -> None:
        super().__init__(DETAIL)
        self.errors = [{"field": "profiles", "code": CODE, "message": "not supported"}]


def _refuse(req: falcon.Request, tenancy: Tenancy) -> None:
    access(req, tenancy)
    raise ProfilesNotSupported()


def _responder(summary: str) -> Callable[..., None]:
    @operation(
        summary, auth="platform", tags=TAGS, response=m.PlatformMessage, errors=(400, 401, 403), description=DESCRIPTION
    )
    def respond(self: _Refusing, req: falcon.Request, resp: falcon.Response, **params: str) -> None:
        _refuse(req, self._tenancy)

    return respond


class _Refusing:
    def __init__(self, tenancy: Tenancy) -> None:
        self._tenancy = tenancy


class UserProfile(_Refusing):
    """``GET /v2/entities/user/{entity_id}/profile/`` (``get_profile``)."""

    on_get = _responder("A user's memory profile (not supported)")


class ProfileJobs(_Refusing):
    """``POST /v2/profiles/jobs/`` (``generate_profile``, ``sample_profiles``)."""

    on_post = _responder("Start a profile generation job (not supported)")


class ProfileJob(_Refusing):
    """``GET /v2/profiles/jobs/{job_id}/`` (``get_profile_job``)."""

    on_get = _responder("A profile generation job (not supported)")


class ProfileSettings(_Refusing):
    """``GET`` / ``POST /v2/profiles/settings/`` (``get_profile_settings``, ``update_profile_settings``)."""

    on_get = _responder("The project's profile settings (not supported)")
    on_post = _responder("Change the project's profile settings (not supported)")
    on_patch = _responder("Change the project's profile settings (not supported)")


def add_routes(add: Callable[[str, object], None], tenancy: Tenancy) -> None:
    add("/v2/entities/user/{entity_id}/profile/", UserProfile(tenancy))
    add("/v2/profiles/jobs/", ProfileJobs(tenancy))
    add("/v2/profiles/jobs/{job_id}/", ProfileJob(tenancy))
    add("/v2/profiles/settings/", ProfileSettings(tenancy))
