"""Groups and their league, real-deck games saved into a group, and the ratings (docs/people.md).

A group's own page (members, invite) is for its members; its league, form chart and big-screen
page are read by the group's id alone (unguessable, like a table's watch link), so a screen in
the room needs no player.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field, StringConstraints

from nimmt.i18n import LANGUAGES, catalog
from nimmt.names import told_apart
from nimmt.people.chart import form_svg
from nimmt.people.games import from_sheet
from nimmt.people.model import GROUP_NAME_LENGTH, Group, Member, PeopleError
from nimmt.people.rated import EVERYONE
from nimmt.people.ratings import Rating
from nimmt.people.standings import Standings, bot_references, group_standings, overall_ratings
from nimmt.scoresheet import ScoreSheet, ScoreSheetError

from ..models import _Body
from .common import ApiError
from .people import MaybeMe, Me, People, base_url, limited, member_of, people_errors, qr_data_uri, refusal, the_group
from .quotas import counted

router = APIRouter(tags=["groups"])
GroupId = Annotated[str, StringConstraints(min_length=1, max_length=40)]
GroupName = Annotated[str, StringConstraints(min_length=1, max_length=GROUP_NAME_LENGTH)]


class GroupOut(BaseModel):
    id: str
    name: str
    host: bool = Field(description="whether the asking player is the host")
    invite_open: bool
    invite_url: str | None = Field(description="the link that lets anyone join (null: the invite is closed)")
    invite_qr: str | None = Field(description="a QR code of invite_url, as a data: URI")
    screen_url: str = Field(description="the big-screen page of the group's league (read by its link alone)")


MARK = ("when another member's name looks alike (the same letters in another script, another case...): "
        "its number among those names, in the order they joined; else null (nimmt/names.py, told_apart)")


class MemberOut(BaseModel):
    id: str
    name: str | None
    host: bool
    joined_at: datetime
    mark: int | None = Field(default=None, description=MARK)


class FormPoint(BaseModel):
    when: datetime
    value: float


class LeagueRowOut(BaseModel):
    player: str
    name: str | None
    games: int
    wins: float = Field(description="a shared lowest total shares the win: 1/k each")
    bullheads_per_round: float | None
    best_round: int | None
    worst_round: int | None
    past_66: int = Field(description="games in which their total went above the end")
    rating: int | None = Field(description="their rating from this group's games (1000 for a newcomer, 20 points "
                               "per point of openskill's ordinal)")
    form: list[FormPoint]
    mark: int | None = Field(default=None, description=MARK)
    left: int = Field(default=0, description="games they left before the end (counted as lost)")


class LeagueOut(BaseModel):
    group: str
    name: str
    games: int
    unrated: int = Field(default=0, description="games that count for nobody: bots finished them after every "
                         "person left, or a table of people left them unfinished")
    rows: list[LeagueRowOut]


class GroupDetail(BaseModel):
    you: str = Field(description="the asking player's id (their row in the league)")
    marks: dict[str, int] = Field(default_factory=dict, description=(
        "by player id, everyone shown on the group's page (its members, and who wrote in its chat and left) "
        "whose name looks like another's there: their number, as each member's and league row's mark"))
    group: GroupOut
    members: list[MemberOut]
    league: LeagueOut


class RatingOut(BaseModel):
    player: str
    name: str | None
    rating: int = Field(description="1000 + 20 x openskill's ordinal (mu - 3 sigma), rounded: 1000 for a newcomer")
    provisional: bool = Field(default=False, description="fewer than 10 rated games: it still moves a lot")
    public: bool = Field(default=True, description="false: the asking player's own row, shown to them alone")
    mu: float
    sigma: float
    games: int
    bot: bool
    you: bool


class RatingsOut(BaseModel):
    games: int
    rows: list[RatingOut]


class NewGroup(_Body):
    name: GroupName


class JoinGroup(_Body):
    invite: Annotated[str, StringConstraints(min_length=1, max_length=40)]


class InviteChange(_Body):
    open: bool
    renew: bool = Field(default=False, description="a new code: the old link stops working")


class SheetGame(_Body):
    sheet: dict[str, object] = Field(description="the finished nimmt-scores/1 sheet, as the score sheet API gives it")
    players: list[Annotated[str, StringConstraints(max_length=40)] | None] = Field(
        max_length=10, description="per seat, the member who sat there (null: somebody else)")


def group_out(request: Request, group: Group, player_id: str) -> GroupOut:
    base = base_url(request)
    link = f"{base}/join/{group.invite}" if group.invite_open else None
    return GroupOut(id=group.id, name=group.name, host=group.host_id == player_id, invite_open=group.invite_open,
                    invite_url=link, invite_qr=qr_data_uri(link) if link else None,
                    screen_url=f"{base}/groups/{group.id}/screen")


def member_marks(members: list[Member], writers: Sequence[tuple[str, str | None]] = ()) -> dict[str, int]:
    """Whose names look like another's shown with them, and their numbers: the members in the order
    they joined, then those who wrote in the chat and left (in the order of their first message)."""
    people = [(member.player_id, member.name) for member in members]
    known = {person for person, _ in people}
    people += [(person, name) for person, name in writers if person not in known]
    marks = told_apart([name for _, name in people])
    return {person: mark for (person, _), mark in zip(people, marks, strict=True) if mark is not None}


def league_out(group: Group, standings: Standings, marks: dict[str, int]) -> LeagueOut:
    rows = [LeagueRowOut(player=row.person, name=standings.names.get(row.person), games=row.games, wins=row.wins,
                         bullheads_per_round=row.bullheads_per_round, best_round=row.best_round,
                         worst_round=row.worst_round, past_66=row.past_66,
                         rating=standings.ratings[row.person].display if row.person in standings.ratings else None,
                         form=[FormPoint(when=when, value=value) for when, value in row.form],
                         mark=marks.get(row.person), left=row.left)
            for row in standings.rows]
    return LeagueOut(group=group.id, name=group.name, games=standings.games, unrated=standings.unrated, rows=rows)


@router.post("/api/groups", response_model=GroupOut, status_code=201, responses=people_errors(401, 422, 429, 503))
async def new_group(body: NewGroup, request: Request, me: Me, people: People) -> GroupOut:
    """A new group, with this player as its host and first member, and an open invite."""
    await counted(request, people, "groups", me.id)
    try:
        group = await people.new_group(me.id, body.name)
    except PeopleError as error:
        raise refusal(error) from None
    return group_out(request, group, me.id)


@router.post("/api/invites", response_model=GroupOut, responses=people_errors(401, 403, 404, 429, 503))
async def join_group(body: JoinGroup, request: Request, me: Me, people: People) -> GroupOut:
    """Join the group of an invite code (refused once its host closed the invite)."""
    limited(request, "invites")
    await counted(request, people, "joins", me.id)
    try:
        group = await people.join(body.invite, me.id)
    except PeopleError as error:
        raise refusal(error) from None
    return group_out(request, group, me.id)


class InviteOut(BaseModel):
    name: str = Field(description="the group's name, shown before joining")
    members: int
    invite_open: bool = Field(description="false: the host closed the invite (joining is refused)")


@router.get("/api/invites/{invite}", response_model=InviteOut, responses=people_errors(404, 429, 503))
async def invite_info(invite: Annotated[str, StringConstraints(max_length=40)], request: Request,
                      people: People) -> InviteOut:
    """The group an invite code opens (its name and size, never its id or members), for the page
    that asks "Join …?" before the person has a player. Counted as a try at an invite."""
    limited(request, "invites")
    found = await people.invited(invite)
    if found is None:
        raise ApiError(404, "invite_unknown", "no group has this invite (the host may have made a new one)")
    group, members = found
    return InviteOut(name=group.name, members=members, invite_open=group.invite_open)


@router.get("/api/groups/{group_id}", response_model=GroupDetail, responses=people_errors(401, 403, 404, 503))
async def group_detail(group_id: GroupId, request: Request, me: Me, people: People) -> GroupDetail:
    """A group for its members: the invite, the members and the league."""
    group = await member_of(people, group_id, me.id)
    members = await people.members(group_id)
    marks = member_marks(members, await people.chat.writers(group_id))
    return GroupDetail(you=me.id, group=group_out(request, group, me.id), marks=marks,
                       members=[MemberOut(id=m.player_id, name=m.name, host=m.player_id == group.host_id,
                                          joined_at=m.joined_at, mark=marks.get(m.player_id)) for m in members],
                       league=league_out(group, await group_standings(people, group_id), marks))


@router.post("/api/groups/{group_id}/leave", status_code=204, response_class=Response,
             responses=people_errors(401, 403, 404, 503))
async def leave_group(group_id: GroupId, me: Me, people: People) -> Response:
    """Leave a group (a leaving host hands it to the member who joined first after them)."""
    await the_group(people, group_id)
    try:
        await people.leave(group_id, me.id)
    except PeopleError as error:
        raise refusal(error) from None
    return Response(status_code=204)


@router.delete("/api/groups/{group_id}/members/{player_id}", status_code=204, response_class=Response,
               responses=people_errors(401, 403, 404, 409, 503))
async def remove_member(group_id: GroupId, player_id: Annotated[str, StringConstraints(max_length=40)], me: Me,
                        people: People) -> Response:
    """The host removes a member (403 ``not_host`` for anyone else, 403 ``not_member`` for someone not in
    it, 409 ``remove_host`` for the host: a host leaves). Their games stay in the league; a new invite
    link keeps them from joining again."""
    await the_group(people, group_id)
    try:
        await people.remove_member(group_id, me.id, player_id)
    except PeopleError as error:
        raise refusal(error) from None
    return Response(status_code=204)


@router.patch("/api/groups/{group_id}/invite", response_model=GroupOut,
               responses=people_errors(401, 403, 404, 429, 503))
async def change_invite(group_id: GroupId, body: InviteChange, request: Request, me: Me, people: People) -> GroupOut:
    """The host closes or opens the invite, or makes a new code (the old link then opens nothing)."""
    await the_group(people, group_id)
    if body.renew:
        await counted(request, people, "invites", me.id)
    try:
        group = await people.set_invite(group_id, me.id, open=body.open, renew=body.renew)
    except PeopleError as error:
        raise refusal(error) from None
    return group_out(request, group, me.id)


@router.get("/api/groups/{group_id}/league", response_model=LeagueOut, responses=people_errors(404, 503))
async def group_league(group_id: GroupId, people: People) -> LeagueOut:
    """A group's league, by the group's id alone (its big screen reads it)."""
    group = await the_group(people, group_id)
    marks = member_marks(await people.members(group_id), await people.chat.writers(group_id))
    return league_out(group, await group_standings(people, group_id), marks)


@router.get("/api/groups/{group_id}/form.svg", response_class=Response,
            responses={200: {"content": {"image/svg+xml": {}}}, **people_errors(404, 503)})
async def group_form(group_id: GroupId, people: People,
                     lang: Annotated[str, Query(json_schema_extra={"enum": list(LANGUAGES)})] = "en") -> Response:
    """The group's form over time as an SVG chart, its texts in ``lang``."""
    if lang not in LANGUAGES:
        raise ApiError(422, "bad_request", f"lang: must be one of {', '.join(LANGUAGES)}")
    group = await the_group(people, group_id)
    standings = await group_standings(people, group_id)
    texts = catalog(lang, "people")
    marks = member_marks(await people.members(group_id), await people.chat.writers(group_id))

    def named(person: str) -> str:
        name = standings.names.get(person) or texts["former_player"]
        return f"{name} ({marks[person]})" if person in marks else name

    series = [(named(row.person), list(row.form)) for row in standings.rows if row.games]
    svg = form_svg(series, title=f"{group.name}: {texts['form_heading']}", axis=texts["form_axis"], language=lang)
    return Response(svg, media_type="image/svg+xml",
                    headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                             "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})


@router.post("/api/groups/{group_id}/sheets", status_code=201,
             responses=people_errors(401, 403, 404, 422, 429, 503))
async def save_sheet(group_id: GroupId, body: SheetGame, request: Request, me: Me, people: People) -> dict[str, Any]:
    """Save a finished real-deck game (a score sheet) into the group's league. It counts in the group
    alone (never in anyone's overall rating), and for each member named on it only once they confirm
    it (the saver's own seat is confirmed by saving it)."""
    await member_of(people, group_id, me.id)
    await counted(request, people, "sheets", me.id)
    try:
        sheet = ScoreSheet.from_json(body.sheet)
    except ScoreSheetError as error:
        raise ApiError(422, "bad_sheet", str(error)) from None
    members = {member.player_id for member in await people.members(group_id)}
    chosen = [player for player in body.players if player is not None]
    if len(body.players) != len(sheet.players) or not set(chosen) <= members or len(set(chosen)) != len(chosen):
        raise ApiError(422, "bad_game", "one entry per seat: a member of the group (each once) or null")
    try:
        game = from_sheet(sheet, finished_at=datetime.now(UTC), players=body.players, group_id=group_id,
                          saved_by=me.id)
        await people.record_game(game)
    except PeopleError as error:
        raise refusal(error) from None
    return {"id": game.id}


@router.get("/api/ratings", response_model=RatingsOut, responses=people_errors(503))
async def ratings(people: People, me: MaybeMe) -> RatingsOut:
    """The ratings from the games played at nimmt's tables of everyone whose profile is public (and of
    the asking player, marked ``you``, public or not: shown to them alone), and the bots' fixed
    references (``name``: the level, as ``/api/bots`` names it)."""
    rated, games = await overall_ratings(people)
    rows = [RatingOut(player=player.id, name=player.name, rating=rating.display, mu=rating.mu, sigma=rating.sigma,
                      games=rating.games, bot=False, you=me is not None and player.id == me.id,
                      provisional=rating.provisional)
            for player in await people.public_players() if (rating := rated.get(player.id)) is not None]
    if me is not None and not any(row.you for row in rows):
        own = await people.rated.standing_of(EVERYONE, me.id)
        rating = own.rating if own is not None else Rating()
        rows.append(RatingOut(player=me.id, name=me.name, rating=rating.display, mu=rating.mu, sigma=rating.sigma,
                              games=rating.games, bot=False, you=True, provisional=rating.provisional,
                              public=me.public))
    for bot, rating in bot_references().items():
        rows.append(RatingOut(player=bot, name=bot.split(":", 1)[1], rating=rating.display, mu=rating.mu,
                              sigma=rating.sigma, games=0, bot=True, you=False))
    rows.sort(key=lambda row: (-row.rating, row.player))
    return RatingsOut(games=games, rows=rows)
