"""Which scope each credential grants on ``/mcp`` (``memorist.mcp.http.mcp_caller``), on a real SQLite database.

Why: this mapping is the whole of HTTP confinement; the HTTP tests cover the
common principals end to end, this covers every branch, including the ones a
running server makes awkward to reach (a key whose user left the project).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from memorist.auth.errors import PermissionDenied
from memorist.auth.principal import ANONYMOUS_ADMIN, Principal
from memorist.auth.users import PLATFORM
from memorist.bootstrap import Bootstrap
from memorist.db import Database
from memorist.mcp.http import mcp_caller
from memorist.tenancy import Tenancy


@pytest.fixture
def tenancy(tmp_path: Path) -> Tenancy:
    db = Database(f"sqlite:///{tmp_path / 'state.db'}")
    db.upgrade()
    return Tenancy(db)


def test_self_hosted_credentials(tenancy: Tenancy) -> None:
    user = Principal("api_key", "user", user_id="u1", email="ben@x.io", key_id="k1")
    assert dict(mcp_caller(user, tenancy).pinned) == {"user_id": "ben@x.io"}
    jwt_user = Principal("jwt", "user", user_id="u1", email="ben@x.io")
    assert mcp_caller(jwt_user, tenancy).ids({}) == {"user_id": "ben@x.io"}
    admin = mcp_caller(Principal("jwt", "admin", user_id="u0", email="ada@x.io"), tenancy)
    assert not admin.pinned and admin.ids({}) == {"user_id": "ada@x.io"}
    assert admin.ids({"user_id": "ben@x.io"}) == {"user_id": "ben@x.io"}
    for principal in (Principal("admin_key", "admin"), ANONYMOUS_ADMIN):
        open_caller = mcp_caller(principal, tenancy)
        assert not open_caller.pinned and not open_caller.defaults and open_caller.can_write
        assert (open_caller.org_id, open_caller.project_id) == ("default", "default")


def test_platform_keys_follow_membership(tenancy: Tenancy, tmp_path: Path) -> None:
    boot = Bootstrap(Database(f"sqlite:///{tmp_path / 'state.db'}"))
    owner = boot.everything("Acme", "Support", "owner@acme.io", org_id="acme", project_id="support")
    reader = boot.everything("Acme", "Sales", "reader@acme.io", role="READER", org_id="acme", project_id="sales")

    def principal(key: dict[str, str], user_id: str) -> Principal:
        return Principal(
            "platform_key",
            "user",
            user_id=user_id,
            email=key["email"],
            org_id=key["org_id"],
            project_id=key["project_id"],
        )

    owner_id = boot.users.by_email("owner@acme.io", kind=PLATFORM).id
    reader_id = boot.users.by_email("reader@acme.io", kind=PLATFORM).id
    as_owner = mcp_caller(principal(owner, owner_id), tenancy)
    assert (as_owner.org_id, as_owner.project_id, as_owner.can_write) == ("acme", "support", True)
    assert not as_owner.pinned
    as_reader = mcp_caller(principal(reader, reader_id), tenancy)
    assert (as_reader.project_id, as_reader.can_write) == ("sales", False)
    tenancy.remove_member("sales", reader_id)  # the key stays valid; its user left the project
    with pytest.raises(PermissionDenied, match="not a member"):
        mcp_caller(principal(reader, reader_id), tenancy)
