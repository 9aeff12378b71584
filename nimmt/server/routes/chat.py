"""A group's chat (docs/people.md): its members send and read free text; nobody else sees it, and
there is no chat anywhere else (public tables and the lobby have only the reactions).

The page asks for the messages after the last one it has every few seconds; every answer comes
from the store (nimmt/people/chat.py), so any server process gives it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from nimmt.people.chat import BURST, LENGTH, PAGE, WINDOW, ChatMessage, ChatRefused
from nimmt.people.model import PeopleError

from ..limits import client_key
from ..models import _Body
from .common import ApiError, errors
from .groups import GroupId
from .people import Me, People, member_of, people_errors, refusal

router = APIRouter(tags=["groups"])
_LARGEST = 2**31 - 1  # the id column's largest value on PostgreSQL


def _responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    described = people_errors(*statuses)
    if 422 in statuses:
        described[422] = {**errors(422)[422], "description": "the message is refused: chat_empty, chat_long "
                          "(params most, count), chat_control (a control character: a new line is one), "
                          "chat_direction, chat_marks (params most); or the request is not valid (bad_request)"}
    if 429 in statuses:
        described[429] = {**errors(429)[429], "description": f"chat_too_soon: this person sent {BURST} messages "
                          f"within {WINDOW.seconds} s, or this address its own most (docs/deploy/README.md, "
                          "Limits): params thing, by, most, seconds, retry_after (also the Retry-After header)"}
    return described


class ChatMessageOut(BaseModel):
    id: int = Field(description="the message's place: ask for the messages after it")
    player: str = Field(description="the sender's player id")
    name: str | None = Field(description="the sender's name now (null: they have not chosen one)")
    you: bool = Field(description="whether the asking player sent it")
    text: str
    sent_at: datetime


class ChatOut(BaseModel):
    messages: list[ChatMessageOut] = Field(description="oldest first")
    cursor: int = Field(description="the last message's id (ask again with after=cursor for newer ones)")
    more: bool = Field(description="more messages follow these: ask again at once")


class NewMessage(_Body):
    text: str = Field(description=f"one line of at most {LENGTH} characters once its spaces are made plain; "
                      "no control characters (no new line) and no direction controls")


def _out(message: ChatMessage, me: str) -> ChatMessageOut:
    return ChatMessageOut(id=message.id, player=message.player_id, name=message.name, you=message.player_id == me,
                          text=message.text, sent_at=message.sent_at)


@router.get("/api/groups/{group_id}/chat", response_model=ChatOut, responses=_responses(401, 403, 404, 503))
async def chat(group_id: GroupId, me: Me, people: People,
               after: Annotated[int | None, Query(ge=0, le=_LARGEST, description=(
                   f"the last message's id the page has: the messages after it, at most {PAGE}; "
                   f"without it, the last {PAGE}"))] = None) -> ChatOut:
    """The group's chat, for its members only."""
    await member_of(people, group_id, me.id)
    messages, more = await people.chat.messages(group_id, after)
    cursor = messages[-1].id if messages else (after or 0)
    return ChatOut(messages=[_out(message, me.id) for message in messages], cursor=cursor, more=more)


@router.post("/api/groups/{group_id}/chat", response_model=ChatMessageOut, status_code=201,
             responses=_responses(401, 403, 404, 422, 429, 503))
async def send(group_id: GroupId, body: NewMessage, request: Request, me: Me, people: People) -> ChatMessageOut:
    """A member sends a message to the group's chat (refused, and nothing kept, when it breaks a rule)."""
    try:
        message = await people.chat.post(group_id, me.id, body.text, address=client_key(request.scope))
    except ChatRefused as error:
        status = 429 if error.code == "chat_too_soon" else 422
        raise ApiError(status, error.code, str(error), **error.params) from None
    except PeopleError as error:
        raise refusal(error) from None
    return _out(message, me.id)
