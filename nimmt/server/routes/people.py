"""People who come back (docs/people.md): a player per browser key, their name, their devices
(another one linked by a one-time code or a passkey), their finished games, export and delete.

Every route that is about a person reads their key from the ``X-Player-Key`` header; the store
keeps only its hash. What these routes share with the groups' (:mod:`.groups`) is here too: the
people store of the app, the current player, and how the people part's refusals are answered.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
from collections.abc import Awaitable
from datetime import datetime
from typing import Annotated, Any, Literal

import segno
from fastapi import APIRouter, Depends, Header, Query, Request, Security
from fastapi.responses import Response
from fastapi.security import APIKeyHeader
from pydantic import BaseModel, Field, StringConstraints
from starlette.requests import HTTPConnection

from nimmt.people import passkeys
from nimmt.people.games import my_game
from nimmt.people.model import NAME_LENGTH, FinishedGame, Group, PeopleError, Player
from nimmt.people.store import PeopleStore

from ..limits import ClientLimits, client_key
from ..models import Name, _Body
from ..pages import site_base
from .common import ApiError, errors
from .pages import keep_language
from .quotas import counted

router = APIRouter(tags=["people"])

KEY_HEADER = "X-Player-Key"
_key_header = APIKeyHeader(name=KEY_HEADER, auto_error=False, scheme_name="playerKey",
                           description="the player key this browser was given (POST /api/players); "
                           "only its hash is stored")

# The HTTP status of each refusal of the people part (docs/people.md).
PEOPLE_STATUS = {
    "no_key": 401, "unknown_key": 401, "unknown_player": 401,
    "code_unknown": 404, "code_used": 409, "code_expired": 410,
    "invite_unknown": 404, "invite_closed": 403, "unknown_group": 404, "not_member": 403, "not_host": 403,
    "not_in_game": 404, "passkey_taken": 409, "passkey_refused": 422, "bad_name": 422, "bad_game": 422,
    "link_same": 409, "bad_language": 422,
    "people_unavailable": 503, "rate_limited": 429, "chat_too_soon": 429, "remove_host": 409,
}
_PEOPLE_TEXTS = {
    401: "no player key, or one nimmt does not know (no_key, unknown_key: signed out, forged or deleted)",
    403: "not allowed for this player (not_member, not_host, invite_closed)",
    404: "no such code, invite, group, game, device or passkey (code_unknown, invite_unknown, unknown_group, "
         "not_in_game, unknown_device, unknown_passkey)",
    409: "already done (code_used, passkey_taken, link_same), or to be confirmed (link_merge)",
    410: "the one-time code has expired (code_expired)",
}


def people_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI description of these refusals (the people part's and the API's common ones)."""
    described = errors(*(status for status in statuses if status not in _PEOPLE_TEXTS))
    described.update({status: {**errors(422)[422], "description": _PEOPLE_TEXTS[status]}
                      for status in statuses if status in _PEOPLE_TEXTS})
    return described


def refusal(error: PeopleError) -> ApiError:
    return ApiError(PEOPLE_STATUS.get(error.code, 422), error.code, str(error), **getattr(error, "params", {}))


def people_of(connection: HTTPConnection) -> PeopleStore:
    people: PeopleStore | None = getattr(connection.app.state, "people", None)
    if people is None:
        raise ApiError(503, "people_unavailable", "this server keeps no players (its store is not SQL)")
    return people


People = Annotated[PeopleStore, Depends(people_of)]


async def current_player(people: People, key: Annotated[str | None, Security(_key_header)] = None) -> Player:
    """The player of the request's key; 401 without one, or with one nimmt does not know."""
    if not key:
        raise ApiError(401, "no_key", f"send the player key in the {KEY_HEADER} header")
    player = await people.player_for_key(key)
    if player is None:
        raise ApiError(401, "unknown_key", "nimmt does not know this key (signed out, deleted, or never given)")
    return player


Me = Annotated[Player, Depends(current_player)]


async def maybe_player(connection: HTTPConnection, key: Annotated[str | None, Header(
        alias=KEY_HEADER, description="the player key of the person, if their browser has one: their finished "
        "games are kept for them (a key nimmt does not know is as none)")] = None) -> Player | None:
    """The player of the request's key, if it has one nimmt knows (a table works without)."""
    people: PeopleStore | None = getattr(connection.app.state, "people", None)
    return None if people is None or not key else await people.player_for_key(key)


MaybeMe = Annotated[Player | None, Depends(maybe_player)]


async def the_group(people: PeopleStore, group_id: str) -> Group:
    group = await people.group(group_id)
    if group is None:
        raise ApiError(404, "unknown_group", "there is no such group")
    return group


async def member_of(people: PeopleStore, group_id: str, player_id: str) -> Group:
    """The group, if ``player_id`` is one of its members: 404 ``unknown_group``, 403 ``not_member``."""
    group = await the_group(people, group_id)
    if player_id not in {member.player_id for member in await people.members(group_id)}:
        raise ApiError(403, "not_member", "only the group's members see this")
    return group


async def check_member(connection: HTTPConnection, group_id: str, me: Player | None) -> None:
    """A table in a group: its creator has a player, and is one of the group's members."""
    if me is None:
        raise ApiError(401, "no_key", f"a group's table needs its creator's player key ({KEY_HEADER})")
    await member_of(people_of(connection), group_id, me.id)


def limited(request: Request, what: str) -> None:
    """A try at a code, an invite or a passkey counts as joining a table (the app's limits per
    address, nimmt/server/limits.py; 60 a minute by default): 429 past them, so codes cannot be
    guessed by the thousand."""
    limits: ClientLimits = request.app.state.limits
    wait = limits.joins.take(client_key(request.scope))
    if wait > 0:
        raise ApiError(429, "rate_limited", f"too many tries: wait {wait:.0f} s", retry_after=round(wait + 0.5))


def qr_data_uri(link: str) -> str:
    """A QR code of ``link`` as a ``data:`` URI (the pages' policy allows images from data: and self)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=4, border=4, dark="#000", light="#fff",
                                     xmldecl=False, svgclass=None, lineclass=None)
    return "data:image/svg+xml;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def base_url(request: Request) -> str:
    """The address links and QR codes are made of (``--public-url``, else one phones can open)."""
    return site_base(request)


async def adopt_name(connection: HTTPConnection, me: Player | None, name: str) -> None:
    """The name a person types at a table is their player's name (docs/people.md, "A player")."""
    people: PeopleStore | None = getattr(connection.app.state, "people", None)
    if people is None or me is None or me.name == name:
        return
    with contextlib.suppress(PeopleError):  # both are held to names.py: a table's name is a player's
        await people.rename(me.id, name)


def with_language(response: Response, language: str | None) -> None:
    """A device that becomes a player's (a code, a passkey) reads in that player's chosen language."""
    if language is not None:
        keep_language(response, language)


# -- the shapes of answers ---------------------------------------------------------------------


class PlayerOut(BaseModel):
    id: str
    name: str | None = Field(description="null until the person chooses a name")
    public: bool = Field(description="whether the public ratings page shows this player")
    language: str | None = Field(description="the language the person chose (null: their browser's)")
    created_at: datetime

    @classmethod
    def of(cls, player: Player) -> PlayerOut:
        return cls(id=player.id, name=player.name, public=player.public, language=player.language,
                   created_at=player.created_at)


class PlayerWithKey(BaseModel):
    player: PlayerOut
    key: str = Field(description="this device's player key: keep it, it is shown only once")


class DeviceOut(BaseModel):
    id: str
    how: Literal["first", "code", "passkey"]
    created_at: datetime
    last_used_at: datetime | None = Field(description="at most an hour out of date")


class PasskeyOut(BaseModel):
    id: str = Field(description="a short id of the passkey (DELETE /api/me/passkey/{id} removes it)")
    created_at: datetime
    last_used_at: datetime | None


class GroupBrief(BaseModel):
    id: str
    name: str
    host: bool


class MeOut(BaseModel):
    player: PlayerOut
    devices: list[DeviceOut]
    passkeys: int
    passkey_list: list[PasskeyOut] = Field(description="the passkeys themselves, oldest first")
    groups: list[GroupBrief]


class SeatOut(BaseModel):
    seat: int
    name: str | None = Field(description="the name at the table; null: a former player (deleted)")
    bot: str | None
    player: str | None
    total: int
    left: bool = Field(default=False, description="its person left before the end (a bot played on, or it stopped)")


class MyGameOut(BaseModel):
    id: str
    source: Literal["table", "sheet"]
    finished_at: datetime
    group_id: str | None
    seat: int
    place: int = Field(description="1 for the lowest total; tied totals share the place; last for a seat that left")
    win: float = Field(description="1, or 1/k when k players share the lowest total, else 0")
    bullheads: int
    end_above: int
    rounds: int
    seats: list[SeatOut]
    replay_url: str | None = Field(description="the replay page (a web table's game only)")
    record_url: str | None = Field(description="the nimmt/1 record (a web table's game only)")
    ending: Literal["played", "bots", "abandoned"] = Field(
        default="played", description="played to the end by somebody; finished by bots after every person left; "
        "or abandoned with nobody left to play it")
    rated: bool = Field(default=True, description="whether it moved ratings and counts in leagues")
    left: bool = Field(default=False, description="this player left before the end: rated as last place")
    confirmed: bool = Field(default=True, description="false: a score sheet names this player and awaits their "
                            "word (POST /api/me/games/{id}/seat); it counts for them once they confirm it")


class MyGamesOut(BaseModel):
    games: list[MyGameOut]
    next_before: datetime | None = Field(description="ask again with before= this for older games (null: none)")


class LinkCodeOut(BaseModel):
    code: str = Field(description="ten letters and digits, for the other device: once, within expires_at")
    expires_at: datetime
    link_url: str
    qr: str = Field(description="a QR code of link_url, as a data: URI")


class Ceremony(BaseModel):
    token: str = Field(description="send it back with the authenticator's answer")
    options: dict[str, Any] = Field(description="WebAuthn options, base64url-encoded binary fields")


# -- request bodies ----------------------------------------------------------------------------


_Language = Annotated[str, StringConstraints(max_length=16)]


class NewPlayer(_Body):
    name: Name | None = Field(default=None, description="the name others see (may be chosen later)")
    language: _Language | None = Field(default=None, description="the language the person chose, if they "
                                       "did (en, pt-PT, pt-BR, fr, de, es); by default their browser's")


class ChangePlayer(_Body):
    name: Name | None = None
    public: bool | None = None
    language: _Language | None = Field(default=None, description="the language the person chose: every device "
                                       "of theirs follows it; \"\" forgets it (their browser's again)")


class UseCode(_Body):
    code: Annotated[str, StringConstraints(min_length=1, max_length=40)]
    merge: bool = Field(default=False, description=(
        "for a device that already holds a player (its key in X-Player-Key): true makes that player part of "
        "the code's player (its games, groups, messages and devices move there, docs/people.md); without it "
        "such a device is answered 409 link_merge, saying what would move, and the code stays unused"))


class PasskeyAnswer(_Body):
    token: Annotated[str, StringConstraints(min_length=1, max_length=120)]
    credential: dict[str, Any] = Field(description="the PublicKeyCredential as JSON (base64url binary fields)")


# -- routes ------------------------------------------------------------------------------------


async def with_key(given: Awaitable[tuple[Player, str]]) -> PlayerWithKey:
    """A player and this device's new key (a new player, a used code, a passkey), or the refusal."""
    try:
        player, key = await given
    except PeopleError as error:
        raise refusal(error) from None
    return PlayerWithKey(player=PlayerOut.of(player), key=key)


@router.post("/api/players", response_model=PlayerWithKey, status_code=201,
             responses=people_errors(422, 429, 503))
async def new_player(body: NewPlayer, request: Request, people: People) -> PlayerWithKey:
    """A new player for this browser, and its key (given once: nimmt keeps only its hash). The
    pages ask for one at a person's first step (play now, a table, an invite, the lobby), so it
    is held by the store's quota alone (60 an hour from one address: nimmt/people/counts.py), not
    by the per-minute rate of tables it once shared, which a group behind one router could reach."""
    await counted(request, people, "players")
    return await with_key(people.new_player(body.name, body.language))


@router.get("/api/me", response_model=MeOut, responses=people_errors(401, 503))
async def who_am_i(me: Me, people: People) -> MeOut:
    """The player of this key: their name, devices, passkeys and groups."""
    devices = await people.devices(me.id)
    groups = await people.groups_of(me.id)
    keys = await people.passkeys(me.id)
    return MeOut(player=PlayerOut.of(me),
                 devices=[DeviceOut(id=d.id, how=d.how, created_at=d.created_at, last_used_at=d.last_used_at)
                          for d in devices],
                 passkeys=len(keys), passkey_list=[PasskeyOut(id=k.short_id, created_at=k.created_at,
                                                              last_used_at=k.last_used_at) for k in keys],
                 groups=[GroupBrief(id=g.id, name=g.name, host=g.host_id == me.id) for g in groups])


@router.patch("/api/me", response_model=PlayerOut, responses=people_errors(401, 422, 503))
async def change_me(body: ChangePlayer, me: Me, people: People, response: Response) -> PlayerOut:
    """Choose or change the name, the language (this device keeps it at once, the others when they
    next look), or whether the public ratings page shows this player."""
    try:
        if body.name is not None:
            me = await people.rename(me.id, body.name)
        if body.public is not None:
            me = await people.set_public(me.id, body.public)
        if body.language is not None:
            me = await people.set_language(me.id, body.language or None)
            with_language(response, me.language)
    except PeopleError as error:
        raise refusal(error) from None
    return PlayerOut.of(me)


@router.delete("/api/me", status_code=204, response_class=Response, responses=people_errors(401, 503))
async def delete_me(me: Me, people: People) -> Response:
    """Delete this player: keys, passkeys, codes and memberships. Their seats in past games stay for
    the others, without their id or name ("a former player")."""
    await people.delete_player(me.id)
    return Response(status_code=204)


@router.get("/api/me/export", responses={200: {"content": {"application/json": {}}}, **people_errors(401, 503)})
async def export_me(request: Request, me: Me, people: People) -> Response:
    """Everything nimmt holds about this player, as one JSON document (``nimmt-people/1``)."""
    data = await people.export(me.id)
    seated = getattr(request.app.state, "seated", None)  # the tables where they sit (nimmt/server/seated.py)
    if seated is not None:
        data["seated_tables"] = await seated.export(me.id)
    return Response(json.dumps(data, ensure_ascii=False, indent=1), media_type="application/json",
                    headers={"Content-Disposition": 'attachment; filename="nimmt-my-data.json"',
                             "Cache-Control": "no-store"})


def game_out(game: FinishedGame, player_id: str, base: str) -> MyGameOut:
    mine = my_game(game, player_id)
    table = game.table_id is not None and game.game is not None
    return MyGameOut(
        id=game.id, source=game.source, finished_at=game.finished_at, group_id=game.group_id, seat=mine.seat,
        place=mine.place, win=mine.win, bullheads=mine.bullheads, end_above=game.end_above, rounds=len(game.rounds),
        seats=[SeatOut(seat=s.seat, name=s.name, bot=s.bot, player=s.player_id, total=s.total, left=s.left)
               for s in game.seats],
        replay_url=f"{base}/replay/{game.table_id}/{game.game}" if table else None,
        record_url=f"{base}/api/tables/{game.table_id}/games/{game.game}/record" if table else None,
        ending=game.ending, rated=game.rated, left=mine.left, confirmed=mine.confirmed)


@router.get("/api/me/games", response_model=MyGamesOut, responses=people_errors(401, 503))
async def my_games(request: Request, me: Me, people: People,
                   before: Annotated[datetime | None, Query(description="only games that ended before this")] = None,
                   limit: Annotated[int, Query(ge=1, le=100)] = 20) -> MyGamesOut:
    """This player's finished games, newest first: when, with whom, their place, their bullheads."""
    if before is not None and before.tzinfo is None:
        raise ApiError(422, "bad_request", "before: give a time with its zone (2026-11-27T20:00:00Z)")
    games = await people.games_of(me.id, limit=limit + 1, before=before)
    base = base_url(request)
    shown = [game_out(game, me.id, base) for game in games[:limit]]
    return MyGamesOut(games=shown, next_before=games[limit - 1].finished_at if len(games) > limit else None)


@router.post("/api/me/link", response_model=LinkCodeOut, status_code=201, responses=people_errors(401, 429, 503))
async def link_code(request: Request, me: Me, people: People) -> LinkCodeOut:
    """A one-time code for another device of this player: valid once, for five minutes."""
    await counted(request, people, "links", me.id)
    try:
        code, expires = await people.new_link_code(me.id)
    except PeopleError as error:
        raise refusal(error) from None
    link = f"{base_url(request)}/link/{code}"
    return LinkCodeOut(code=code, expires_at=expires, link_url=link, qr=qr_data_uri(link))


@router.post("/api/link", response_model=PlayerWithKey, status_code=201,
             responses=people_errors(404, 409, 410, 422, 429, 503))
async def use_link_code(body: UseCode, request: Request, people: People, me: MaybeMe, response: Response,
                        key: Annotated[str | None, Security(_key_header)] = None) -> PlayerWithKey:
    """Trade a one-time code from another device for a key of that device's player. A device that
    already holds another player with games or groups of its own is first told what would happen to
    it (409 ``link_merge``: the code's player's name, and how many games and groups would move); with
    ``merge`` (or when that player has nothing yet) it becomes part of the code's player and keeps
    its key. The same player: 409 ``link_same``. The device then reads in the player's chosen
    language, if they chose one."""
    limited(request, "codes")
    if me is None or key is None:
        given = await with_key(people.use_link_code(body.code))
        with_language(response, given.player.language)
        return given
    try:
        if not body.merge:
            target = await people.link_code_player(body.code)
            if target.id == me.id:
                raise PeopleError("link_same", "this device already plays as the player of this code")
            games = len(await people.games_of(me.id, limit=500))
            groups = len(await people.groups_of(me.id))
            if games or groups:  # a player with nothing of its own yet (a first visit's) is not asked about
                raise ApiError(409, "link_merge", "this device holds another player: send merge: true to make it "
                               "part of the code's player", name=target.name or "", mine=me.name or "",
                               games=games, groups=groups)
        player = await people.merge_by_code(body.code, me.id)
    except PeopleError as error:
        raise refusal(error) from None
    with_language(response, player.language)
    return PlayerWithKey(player=PlayerOut.of(player), key=key)


@router.delete("/api/me/devices/{device_id}", status_code=204, response_class=Response,
               responses=people_errors(401, 404, 503))
async def sign_out(device_id: Annotated[str, StringConstraints(max_length=40)], me: Me, people: People) -> Response:
    """Sign a device out (a lost phone): its key opens nothing from now on."""
    if not await people.sign_out(me.id, device_id):
        raise ApiError(404, "unknown_device", "this player has no such device")
    return Response(status_code=204)


def _relying_party(request: Request) -> tuple[str, str]:
    """The WebAuthn relying party: this site's host name, and the origin pages are served from."""
    url = request.base_url
    return url.hostname or "localhost", f"{url.scheme}://{url.netloc}"


@router.post("/api/me/passkeys/options", response_model=Ceremony, responses=people_errors(401, 429, 503))
async def passkey_add_options(request: Request, me: Me, people: People) -> Ceremony:
    """Start adding a passkey: options for ``navigator.credentials.create``."""
    await counted(request, people, "challenges", me.id)
    token, options = await passkeys.add_options(people, me, _relying_party(request)[0])
    return Ceremony(token=token, options=options)


@router.post("/api/me/passkeys", status_code=201, response_class=Response,
             responses=people_errors(401, 404, 409, 410, 422, 503))
async def passkey_add(body: PasskeyAnswer, request: Request, me: Me, people: People) -> Response:
    """Keep the new passkey, once the authenticator's answer checks out."""
    rp_id, origin = _relying_party(request)
    try:
        await passkeys.add(people, me, body.token, body.credential, rp_id=rp_id, origin=origin)
    except PeopleError as error:
        raise refusal(error) from None
    return Response(status_code=201)


@router.delete("/api/me/passkey/{passkey_id}", status_code=204, response_class=Response,
               responses=people_errors(401, 404, 503))
async def passkey_remove(passkey_id: Annotated[str, StringConstraints(max_length=40)], me: Me,
                         people: People) -> Response:
    """Remove one passkey (a lost phone's keychain): it signs nobody in from now on. The devices that
    signed in with it keep their keys (each is signed out on its own)."""
    for passkey in await people.passkeys(me.id):
        if passkey.short_id == passkey_id and await people.remove_passkey(me.id, passkey.credential_id):
            return Response(status_code=204)
    raise ApiError(404, "unknown_passkey", "this player has no such passkey")


@router.post("/api/passkeys/options", response_model=Ceremony, responses=people_errors(429, 503))
async def passkey_sign_in_options(request: Request, people: People) -> Ceremony:
    """Start signing in with a passkey: options for ``navigator.credentials.get``."""
    limited(request, "passkeys")
    await counted(request, people, "challenges")
    token, options = await passkeys.sign_in_options(people, _relying_party(request)[0])
    return Ceremony(token=token, options=options)


@router.post("/api/passkeys/sign-in", response_model=PlayerWithKey, status_code=201,
             responses=people_errors(404, 409, 410, 422, 503))
async def passkey_sign_in(body: PasskeyAnswer, request: Request, people: People,
                          response: Response) -> PlayerWithKey:
    """Sign in with a passkey: this device is given a key of the passkey's player."""
    rp_id, origin = _relying_party(request)
    given = await with_key(passkeys.sign_in(people, body.token, body.credential, rp_id=rp_id, origin=origin))
    with_language(response, given.player.language)
    return given


__all__ = ["KEY_HEADER", "NAME_LENGTH", "MaybeMe", "Me", "People", "adopt_name", "router"]
