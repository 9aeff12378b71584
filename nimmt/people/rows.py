"""What the people stores share: the clock, and how a row is read back or a name checked before
it is kept (times in UTC, names cleaned, rows made into :mod:`nimmt.people.model` objects)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row

from nimmt.i18n import UnknownLanguage, check_language
from nimmt.names import NameRefused, clean_name

from .model import Group, Passkey, PeopleError, Player

Clock = Callable[[], datetime]


def now() -> datetime:
    return datetime.now(UTC)


def utc(value: datetime) -> datetime:
    """A time read back from the database, in UTC (SQLite gives it back without its zone)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def maybe_utc(value: datetime | None) -> datetime | None:
    return None if value is None else utc(value)


def iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def cleaned(name: str, longest: int, what: str) -> str:
    """A name as nimmt keeps names (:func:`nimmt.names.clean_name`), or ``bad_name``."""
    try:
        name = clean_name(name, longest)
        name.encode()  # a lone surrogate (from a JSON escape) is no text a database keeps
    except NameRefused as error:
        raise PeopleError("bad_name", f"a {what}: {error}") from None
    except UnicodeEncodeError:
        raise PeopleError("bad_name", f"a {what} is text (no lone surrogate)") from None
    return name


def checked_language(language: str | None) -> str | None:
    """A language nimmt speaks, in its own spelling; anything else is refused (``bad_language``)."""
    if language is None:
        return None
    try:
        return check_language(language)
    except UnknownLanguage:
        raise PeopleError("bad_language", f"unknown language {language[:16]!r}") from None


def player_of(row: Row[Any]) -> Player:
    return Player(row.id, row.name, utc(row.created_at), bool(row.public), row.language)


def passkey_of(row: Row[Any]) -> Passkey:
    return Passkey(row.credential_id, row.player_id, row.public_key, row.sign_count, utc(row.created_at),
                   maybe_utc(row.last_used_at))


def group_of(row: Row[Any]) -> Group:
    return Group(row.id, row.name, row.host_id, row.invite, bool(row.invite_open), utc(row.created_at))
