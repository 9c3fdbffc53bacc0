"""In-process apps for the security regression tests (issue 14, items 6-17)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import falcon.testing
from memorist.config.files import deep_merge
from memorist.config.settings import load_settings
from memorist.http import create_app
from memorist.plugin.manager import load_plugins

from .conftest import fast_settings
from .plugins import hashing

JWT = "j" * 48
ADMIN_KEY = "admin-key-" + "k" * 24
ADMIN_HEADERS = {"X-API-Key": ADMIN_KEY}
PASSWORD = "correct horse battery"


def settings_for(data_dir: Path, **extra: Any) -> Any:
    base = fast_settings(
        data_dir,
        auth={"jwt_secret": JWT, "admin_api_key": ADMIN_KEY},
        queue={"workers": 0},
    )
    return load_settings(None, deep_merge(base, extra))


def client(data_dir: Path, **extra: Any) -> falcon.testing.TestClient:
    return falcon.testing.TestClient(create_app(settings_for(data_dir, **extra), load_plugins({}, extra=[hashing])))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def register_admin(c: falcon.testing.TestClient, email: str = "ada@example.com") -> dict[str, Any]:
    resp = c.simulate_post("/auth/register", json={"name": "Ada", "email": email, "password": PASSWORD})
    assert resp.status_code == 201, resp.text
    return dict(resp.json)


def make_user(c: falcon.testing.TestClient, email: str, role: str = "user", password: str = PASSWORD) -> dict[str, Any]:
    """Creates an account with the admin key and logs it in: ``{"id", "access_token", "refresh_token"}``."""
    made = c.simulate_post(
        "/auth/users",
        headers=ADMIN_HEADERS,
        json={"name": email.split("@")[0], "email": email, "password": password, "role": role},
    )
    assert made.status_code == 201, made.text
    tokens = login(c, email, password)
    return {"id": made.json["id"], **tokens}


def login(c: falcon.testing.TestClient, email: str, password: str = PASSWORD, addr: str = "10.0.0.1") -> dict[str, Any]:
    resp = c.simulate_post("/auth/login", json={"email": email, "password": password}, remote_addr=addr)
    assert resp.status_code == 200, resp.text
    return dict(resp.json)
