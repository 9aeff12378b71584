"""The secrets people hold: player keys, one-time codes and group invites.

A player key is 256 random bits held by the browser; the server keeps only its SHA-256. A slow
hash (bcrypt, argon2) protects guessable passwords; a key nobody chose cannot be guessed, so one
fast hash is as safe and lets the store find the key's player by an index on the hash.

>>> key = new_key()
>>> len(key) >= 43 and hash_secret(key) == hash_secret(key) != hash_secret(key + "x")
True
>>> normal_code(" ab12-cd34-ef ") == "AB12CD34EF"
True
"""

from __future__ import annotations

import hashlib
import secrets

KEY_PREFIX = "nk1_"  # tells a nimmt player key from any other secret (and from a seat token)
KEY_LENGTH = 80  # the longest key (or anything sent as one) worth hashing
# One-time device-link codes are typed by people on a phone: no 0/O, 1/I/L, U.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 10  # 30**10 ≈ 2**49 codes, each alive a few minutes and tried under a rate limit
INVITE_LENGTH = 10


def new_key() -> str:
    """A new player key, to be given to its browser once."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def new_id(prefix: str) -> str:
    """A public id (of a player, a group, a finished game): unguessable, though not a secret."""
    return f"{prefix}_{secrets.token_urlsafe(12)}"


def hash_secret(secret: str) -> str:
    """What the store keeps of a key or a code (hex SHA-256)."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def new_code(length: int = CODE_LENGTH) -> str:
    """A one-time code in letters and digits a person can read and type."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def normal_code(code: str) -> str:
    """A typed code as it was made: upper case, without the spaces and dashes people add."""
    return "".join(ch for ch in code.upper() if ch not in " -")


def looks_like_key(key: str) -> bool:
    """Whether ``key`` could be a player key at all (anything else is refused without a look-up)."""
    return key.startswith(KEY_PREFIX) and len(key) <= KEY_LENGTH and key.isascii() and key.isprintable()
