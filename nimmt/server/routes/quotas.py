"""What one key or address may make, asked of the store before it is made (nimmt/people/counts.py):
``429 rate_limited`` with ``Retry-After`` past a quota. Each route that makes something calls
:func:`counted` first; the quotas themselves and their defaults are the people store's."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from nimmt.people.counts import Limited, Thing
from nimmt.people.store import PeopleStore

from ..limits import client_key
from .common import ApiError


def limited_error(error: Limited) -> ApiError:
    return ApiError(429, error.code, str(error), **error.params)


async def counted(connection: HTTPConnection, people: PeopleStore, thing: Thing, player_id: str | None = None) -> None:
    """Count one ``thing`` made by ``player_id`` (when there is one) from the request's address;
    ``429`` (nothing counted) when either has made as many as it may."""
    try:
        await people.counts.take(thing, player=player_id, address=client_key(connection.scope))
    except Limited as error:
        raise limited_error(error) from None
