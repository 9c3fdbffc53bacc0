"""Password hashing with argon2id (argon2-cffi), and the password policy."""

from __future__ import annotations

import functools

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ..errors import ValidationError

MIN_LENGTH = 8
MAX_LENGTH = 1024
_hasher = PasswordHasher()  # argon2id with the library's recommended parameters


def check_policy(password: str, field: str = "password") -> None:
    if not isinstance(password, str) or len(password) < MIN_LENGTH:
        raise ValidationError(f"{field}: must be at least {MIN_LENGTH} characters")
    if len(password) > MAX_LENGTH:
        raise ValidationError(f"{field}: must be at most {MAX_LENGTH} characters")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(stored_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False


@functools.cache
def dummy_hash() -> str:
    """A real hash to verify against when the account does not exist, so a login for an
    unknown email costs the same time as a wrong password (no account enumeration).

    Made on first use, not at import: hashing costs about a second under load, which every
    command (``memorist mcp`` included) would otherwise pay at start."""
    return _hasher.hash("memorist-timing-equaliser")
