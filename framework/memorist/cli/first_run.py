"""What a fresh install needs for its first remembered fact: a JWT secret and an API key.

The REST API's rule stands: an app built without a JWT secret answers 500 on the
auth routes. ``memorist serve`` therefore gives itself one when none is configured:
a random secret kept in the database (``kv_settings``), made once by whichever
process gets there first and read by every later start. The database is what the
nodes of a fleet share, so every node over one PostgreSQL signs and checks
sessions with the same secret: a session made on one node works on the others
(with a secret per data directory, each node answered 401 to the others' sessions).
An install from before keeps its ``<data_dir>/jwt_secret`` file's secret: it is
the candidate stored on first use. A configured secret always wins.

``memorist init`` creates the admin account (or reuses it) and one API key in one
step, writing to the same database the server uses; the key is printed once. Without
``--email`` it reuses the admin the dashboard's first-run setup registered, if there
is one: a second admin (``admin@localhost``) beside it would be an account nobody
asked for, holding a password nobody keeps.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr
from sqlalchemy import insert, select
from sqlalchemy.exc import DBAPIError, IntegrityError

from ..config.settings import Settings
from ..errors import ConfigurationError

if TYPE_CHECKING:
    from sqlalchemy import Select

    from ..db import Database

#: Where earlier versions kept the generated secret (one per data directory).
SECRET_FILE = "jwt_secret"
#: The ``kv_settings`` key of the generated secret.
SECRET_KEY = "auth.generated_jwt_secret"
DEFAULT_ADMIN_EMAIL = "admin@localhost"
MIN_SECRET_CHARS = 32


def _legacy_secret(data_dir: Path) -> str | None:
    """The secret an earlier version wrote to ``<data_dir>/jwt_secret``, if usable."""
    try:
        secret = (data_dir / SECRET_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return secret if len(secret) >= MIN_SECRET_CHARS else None


def shared_secret(settings: Settings) -> tuple[str, bool]:
    """``(secret, created)``: the generated JWT secret stored in the database, made on first use.

    Race-safe: the secret is inserted under its primary key; of processes (or nodes)
    starting together, one insert wins and the others read the winner's value.
    A secret already stored is read without running the migrations first: they load
    Alembic (~0.5 s before ``memorist serve`` can listen), and the workers run them anyway.
    """
    from ..db import Database
    from ..db.schema import kv
    from ..records import utcnow

    db = Database(settings.database_url, pool_size=1)
    try:
        query = select(kv.c.value).where(kv.c.key == SECRET_KEY)
        if (stored := _stored_secret(db, query)) is not None:
            return stored, False
        db.upgrade()
        with db.connect() as conn:
            found = conn.execute(query).scalar()
        if found is None:
            candidate = _legacy_secret(settings.data_dir) or secrets.token_urlsafe(48)
            try:
                with db.begin() as conn:
                    conn.execute(insert(kv).values(key=SECRET_KEY, value={"secret": candidate}, updated_at=utcnow()))
                return candidate, True
            except IntegrityError:
                with db.connect() as conn:
                    found = conn.execute(query).scalar()
        secret = str((found or {}).get("secret") or "")
        if len(secret) < MIN_SECRET_CHARS:
            raise ConfigurationError(
                f"the database's generated JWT secret ({SECRET_KEY} in kv_settings) is unusable; "
                "delete that row (sessions are signed out) or set JWT_SECRET"
            )
        return secret, False
    except ConfigurationError:
        raise
    except Exception as exc:
        raise ConfigurationError(
            f"cannot keep the generated JWT secret in the database ({type(exc).__name__}: {exc}); set JWT_SECRET"
        ) from None
    finally:
        db.dispose()


def _stored_secret(db: Database, query: Select[Any]) -> str | None:
    """The usable secret a migrated database holds, else None (a new database has no table yet)."""
    try:
        with db.connect() as conn:
            found = conn.execute(query).scalar()
    except DBAPIError:
        return None
    secret = str((found or {}).get("secret") or "")
    return secret if len(secret) >= MIN_SECRET_CHARS else None


def with_jwt_secret(settings: Settings) -> tuple[Settings, str | None]:
    """``settings`` with a JWT secret when auth is on and none is configured, and a line saying so."""
    if settings.auth.disabled or settings.auth.jwt_secret is not None:
        return settings, None
    secret, created = shared_secret(settings)
    auth = settings.auth.model_copy(update={"jwt_secret": SecretStr(secret)})
    if created:
        note = (
            "JWT_SECRET is not set: generated one and stored it in the database, where every node "
            "using this database finds it (set JWT_SECRET to choose it)"
        )
    else:
        note = "JWT_SECRET is not set: using the one generated earlier and stored in the database"
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
    from ..auth.api_keys import ApiKeyStore
    from ..auth.users import UserStore, normalize_email
    from ..db import Database

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
