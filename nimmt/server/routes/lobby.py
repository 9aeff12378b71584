"""The lobby API: the bots, creating and joining a table, a table's public state, its invite QR code."""

from __future__ import annotations

import hashlib
import io

import segno
from fastapi import APIRouter, Request
from fastapi.responses import Response

from nimmt.bots import BOTS
from nimmt.i18n import LANGUAGES

from ..models import BotInfo, CreateTable, JoinTable, SeatToken, TableInfo
from ..render import public_info
from .common import ApiError, Service, errors, links, the_table
from .people import MaybeMe, Me, People, adopt_name, check_member, people_errors
from .playing import answering

router = APIRouter(tags=["lobby"])


@router.get("/api/bots", response_model=list[BotInfo])
async def bots() -> list[BotInfo]:
    """The bots a table can seat."""
    return [BotInfo(name=name, description=cls.description) for name, cls in sorted(BOTS.items())]


@router.post("/api/tables", response_model=SeatToken, status_code=201,
             responses=people_errors(401, 403, 404, 409, 422, 503))
async def create_table(body: CreateTable, request: Request, service: Service, me: MaybeMe) -> SeatToken:
    """Create a table. The creator sits in seat 0; bots take the last seats. With the creator's
    player key (``X-Player-Key``) their finished games are kept for them (docs/people.md); a
    ``group`` needs it, and the creator must be a member. A group's table is never public (422
    ``public_group``): the lobby is for strangers, and a public table shows nobody's group."""
    if body.group is not None:
        if body.options.public:
            raise ApiError(422, "public_group", "a group's table is for its members: it cannot be public too")
        await check_member(request, body.group, me)
    table, token = await service.create(body, me.id if me is not None else None)
    await adopt_name(request, me, body.name)
    return SeatToken(table_id=table.id, seat=0, token=token, **links(request, table))


@router.get("/api/tables/{table_id}", response_model=TableInfo, responses=errors(404))
async def table_info(table_id: str, service: Service) -> TableInfo:
    """A table's public state: seats, options, status (never a hand)."""
    return TableInfo.model_validate(public_info(await the_table(service, table_id)))


@router.post("/api/tables/{table_id}/join", response_model=SeatToken, status_code=201,
             responses=errors(404, 409, 503))
async def join_table(table_id: str, body: JoinTable, request: Request, service: Service, me: MaybeMe) -> SeatToken:
    """Take the first free seat of a table that has not started (with a player key: the person's
    finished games are kept for them)."""
    table = await the_table(service, table_id)
    seat, token = await service.join(table, body.name, me.id if me is not None else None)
    await adopt_name(request, me, body.name)
    return SeatToken(table_id=table.id, seat=seat, token=token, **links(request, table))


@router.post("/api/tables/{table_id}/seat", response_model=SeatToken, status_code=201,
             responses=people_errors(401, 404, 503))
async def take_my_seat(table_id: str, request: Request, service: Service, me: Me, people: People) -> SeatToken:
    """A person's other device takes their own seat, at any stage of the game: the player key
    (``X-Player-Key``) names the person, and the seat they sat down in with it gets a new token for
    this device (the seat's other devices keep theirs), the seat of a player merged into theirs by
    a one-time code too. 404 ``not_seated``: this player holds no seat at the table."""
    table = await the_table(service, table_id)
    seat, token = await service.add_device(table, await answering(people, table, me.id))
    return SeatToken(table_id=table.id, seat=seat, token=token, **links(request, table))


@router.get("/api/tables/{table_id}/invite.svg", response_class=Response,
            responses={200: {"content": {"image/svg+xml": {}}}, 304: {"description": "If-None-Match: unchanged"},
                       **errors(404)})
async def invite_qr(table_id: str, request: Request, service: Service, lang: str | None = None) -> Response:
    """A QR code (SVG) of the table's invite link, as the table page shows it. The link carries no
    language: whoever opens it reads the table in their own (``lang`` is checked, for older pages,
    and changes nothing)."""
    table = await the_table(service, table_id)
    if lang is not None and lang not in LANGUAGES:
        raise ApiError(422, "bad_request", f"lang: must be one of {', '.join(LANGUAGES)}", lang=lang[:16])
    link = links(request, table)["invite_url"]
    svg = invite_svg(link)
    etag = '"' + hashlib.sha256(svg.encode("utf-8")).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": "private, max-age=86400", "Vary": "Host",
               "Content-Security-Policy": "default-src 'none'; frame-ancestors 'self'",
               "X-Content-Type-Options": "nosniff"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(svg, media_type="image/svg+xml", headers=headers)


def invite_svg(link: str) -> str:
    """A QR code of ``link`` as an SVG document: dark on white with its quiet zone, so it scans on a
    dark page too; a viewBox and a size, so a page can scale it."""
    code = segno.make(link, error="m")
    out = io.BytesIO()
    code.save(out, kind="svg", scale=1, border=4, dark="#000", light="#fff", xmldecl=False, omitsize=True,
              title=link, svgclass=None, lineclass=None)
    size = code.symbol_size(scale=4)[0]
    return out.getvalue().decode("utf-8").replace("<svg ", f'<svg width="{size}" height="{size}" ', 1)
