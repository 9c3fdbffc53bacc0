"""What a fresh install needs for its first remembered fact: a JWT secret and an API key.

The REST API's rule stands: an app built without a JWT secret answers 500 on the
auth routes. ``memorist serve`` therefore gives itself one when none is configured:
a random secret written once to ``<data_dir>/jwt_secret`` (owner-only), read again
on every later start on that directory, so sessions survive restarts and no one
has to find ``JWT_SECRET`` before the first login. A configured secret always wins.

``memorist init`` creates the admin account (or reuses it) and one API key in one
step, writing to the same database the server uses; the key is printed once. Without
``--email`` it reuses the admin the dashboard's first-run setup registered, if there
is one: a second admin (``admin@localhost``) beside it would be an account nobody
asked for, holding a password nobody keeps.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from pydantic import SecretStr

from .errors import ConfigurationError
from .settings import Settings

SECRET_FILE = "jwt_secret"
DEFAULT_ADMIN_EMAIL = "admin@localhost"


def read_or_create_secret(data_dir: Path) -> tuple[str, bool]:
    """``(secret, created)``: the secret stored in ``data_dir``, made on first use.

    Created with ``O_EXCL`` and mode 0600, so two processes starting together
    agree on one value (the loser reads the winner's file).
    """
    path = data_dir / SECRET_FILE
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            secret = path.read_text(encoding="utf-8").strip()
            if len(secret) >= 32:
                return secret, False
            raise ConfigurationError(
                f"{path}: holds no usable JWT secret; delete the file (sessions are signed out) or set JWT_SECRET"
            ) from None
        secret = secrets.token_urlsafe(48)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(secret + "\n")
        return secret, True
    except OSError as exc:
        raise ConfigurationError(
            f"data directory {data_dir}: cannot keep the JWT secret there ({exc.strerror or exc}); "
            "make it writable, use --data-dir, or set JWT_SECRET"
        ) from None


def with_jwt_secret(settings: Settings) -> tuple[Settings, str | None]:
    """``settings`` with a JWT secret when auth is on and none is configured, and a line saying so."""
    if settings.auth.disabled or settings.auth.jwt_secret is not None:
        return settings, None
    secret, created = read_or_create_secret(settings.data_dir)
    auth = settings.auth.model_copy(update={"jwt_secret": SecretStr(secret)})
    path = settings.data_dir / SECRET_FILE
    if created:
        note = f"JWT_SECRET is not set: generated one in {path} (kept for later starts; set JWT_SECRET to choose it)"
    else:
        note = f"JWT_SECRET is not set: using the one generated earlier in {path}"
    return settings.model_copy(update={"auth": auth}), note


@dataclass
class InitResult:
    email: str
    key: str
    created_account: bool
    password: str | None  # only when this call generated it


def init_admin(settings: Settings, email: str | None, password: str | None, label: str) -> InitResult:
    """A new self-hosted API key for the admin account, made first if there is none.

    ``email`` names the account (created as an admin when missing); ``None`` means the
    earliest enabled admin, or a new ``admin@localhost`` on a database without one.
    """
    from .auth.api_keys import ApiKeyStore
    from .auth.users import UserStore, normalize_email
    from .db import Database

    db = Database(settings.database_url)
    try:
        db.upgrade()
        users = UserStore(db)
        if email is None:
            admins = [u for u in users.list() if u.role == "admin" and not u.disabled]
            user = admins[0] if admins else users.by_email(DEFAULT_ADMIN_EMAIL)
            email = user.email if user is not None else DEFAULT_ADMIN_EMAIL
        else:
            user = users.by_email(normalize_email(email))
        generated = None
        created = user is None
        if user is None:
            if password is None:
                password = generated = secrets.token_urlsafe(12)
            user = users.create(email.split("@")[0] or "admin", email, password, role="admin")
        _, key = ApiKeyStore(db).create(user.id, label)
        return InitResult(user.email, key, created, generated)
    finally:
        db.dispose()
