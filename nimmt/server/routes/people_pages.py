"""The people pages (docs/people.md): you and your games (also where a device-link code or a group
invite is opened), a group, its big screen, the ratings. Their texts are ``people.json``'s."""

from __future__ import annotations

import math

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from nimmt.people.keys import CODE_ALPHABET, normal_code
from nimmt.people.store import PeopleStore

from ..limits import ClientLimits, client_key
from .pages import page
from .people import People, the_group

router = APIRouter(include_in_schema=False)
DOMAINS = ("people",)


def _code(text: str) -> str:
    """A code from a link as the page may show it: its own letters only, at most 40."""
    return "".join(ch for ch in normal_code(text) if ch in CODE_ALPHABET)[:40]


def _tries(request: Request) -> int:
    """0 when this address may look one more invite up, else the seconds to wait: the same count as
    ``GET /api/invites/{code}`` and joining (nimmt/server/limits.py), so a page is no way around it."""
    limits: ClientLimits = request.app.state.limits
    wait = limits.joins.take(client_key(request.scope))
    return max(1, math.ceil(wait)) if wait > 0 else 0


@router.get("/me", response_class=HTMLResponse)
async def me_page(request: Request) -> HTMLResponse:
    return page("me", request, {}, DOMAINS)


@router.get("/link/{code}", response_class=HTMLResponse)
async def link_page(code: str, request: Request) -> HTMLResponse:
    """Opened from another device's QR code: the code is offered to this device."""
    return page("me", request, {"link": _code(code)}, DOMAINS)


@router.get("/join/{invite}", response_class=HTMLResponse)
async def join_page(invite: str, request: Request) -> HTMLResponse:
    """A group's invite link: the page names the group before anybody joins (or says the link is
    closed or unknown), from the page's data, so nothing moves once it is drawn; its Join button is
    on the first screen, for a person with a player or without (static/js/join.js)."""
    code = _code(invite)
    wait = _tries(request)
    if wait:  # as many tries as the API's invite look-up allows: the page says when to try again
        response = page("join", request, {"invite": code, "invited": None, "limited": wait}, DOMAINS)
        response.status_code = 429
        response.headers["Retry-After"] = str(wait)
        return response
    people: PeopleStore | None = getattr(request.app.state, "people", None)
    found = await people.invited(code) if people is not None and code else None
    group = None if found is None else {"name": found[0].name, "members": found[1], "open": found[0].invite_open}
    return page("join", request, {"invite": code, "invited": group}, DOMAINS)


@router.get("/groups/{group_id}", response_class=HTMLResponse)
async def group_page(group_id: str, request: Request, people: People) -> HTMLResponse:
    group = await the_group(people, group_id[:40])
    return page("group", request, {"group": group.id}, (*DOMAINS, "chat"))  # its members' chat


@router.get("/groups/{group_id}/screen", response_class=HTMLResponse)
async def screen_page(group_id: str, request: Request, people: People) -> HTMLResponse:
    """A group's league on a big screen: by the group's link alone."""
    group = await the_group(people, group_id[:40])
    return page("screen", request, {"group": group.id}, DOMAINS)


@router.get("/ratings", response_class=HTMLResponse)
async def ratings_page(request: Request) -> HTMLResponse:
    return page("ratings", request, {}, DOMAINS)
