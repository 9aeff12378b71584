"""Notices by Web Push (docs/push.md): the site's public key, a person's devices that get notices
(turned on from one device, off from any), and the service worker that shows them.

The service worker is served at ``/sw.js`` (not under ``/static/``) so that it may control every
page of the site: a notice's click opens or focuses the table it names.
"""

from __future__ import annotations

from datetime import datetime
from importlib import resources
from typing import Annotated

from fastapi import APIRouter, Header, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from nimmt.i18n import UnknownLanguage, check_language
from nimmt.people.model import PeopleError
from nimmt.people.subscriptions import ENDPOINT_LENGTH, Subscription

from ..models import _Body, _Strict
from ..push import Notices
from .common import ApiError, errors
from .people import KEY_HEADER, Me, People, people_errors, refusal

router = APIRouter(tags=["people"])
SubscriptionId = Annotated[str, Path(max_length=40, pattern=r"^[A-Za-z0-9_-]+$")]


def notices_of(request: Request) -> Notices:
    notices: Notices | None = getattr(request.app.state, "notices", None)
    if notices is None or not notices.public_key:
        raise ApiError(503, "people_unavailable", "this server sends no notices (its store keeps no players)")
    return notices


class PushKeyOut(BaseModel):
    key: str = Field(description="the site's VAPID public key (applicationServerKey), base64url")


class PushKeys(_Strict):
    p256dh: str = Field(max_length=200, description="the browser's P-256 public key, base64url")
    auth: str = Field(max_length=64, description="the browser's authentication secret, base64url")


class NewSubscription(_Body):
    endpoint: str = Field(max_length=ENDPOINT_LENGTH, description="the push service's URL for this device (https)")
    keys: PushKeys
    groups: bool = Field(default=False, description="also the person's groups' news: a new table, a finished game")
    language: str | None = Field(default=None, max_length=8, description="the page's language (the person's own, "
                                 "when they chose one, wins)")


class SubscriptionChange(_Body):
    groups: bool


class SubscriptionOut(BaseModel):
    id: str
    endpoint: str = Field(description="the push service's URL (a page finds its own device by it)")
    groups: bool
    created_at: datetime
    last_sent_at: datetime | None

    @classmethod
    def of(cls, sub: Subscription) -> SubscriptionOut:
        return cls(id=sub.id, endpoint=sub.endpoint, groups=sub.groups, created_at=sub.created_at,
                   last_sent_at=sub.last_sent_at)


@router.get("/api/push/key", response_model=PushKeyOut, responses=errors(503))
async def push_key(request: Request) -> PushKeyOut:
    """The key a page subscribes with (``pushManager.subscribe``'s ``applicationServerKey``)."""
    return PushKeyOut(key=notices_of(request).public_key)


@router.get("/api/me/push", response_model=list[SubscriptionOut], responses=people_errors(401, 503))
async def my_subscriptions(me: Me, people: People) -> list[SubscriptionOut]:
    """The devices this person gets notices on."""
    return [SubscriptionOut.of(sub) for sub in await people.push.of_player(me.id)]


@router.post("/api/me/push", response_model=SubscriptionOut, status_code=201,
             responses=people_errors(401, 422, 503))
async def subscribe(body: NewSubscription, me: Me, people: People, request: Request,
                    key: Annotated[str | None, Header(alias=KEY_HEADER, include_in_schema=False)] = None,
                    ) -> SubscriptionOut:
    """Notices on this device: its browser's subscription (turning them on again replaces it). It
    belongs to this device's key: signing the device out ends its notices."""
    notices = notices_of(request)
    try:
        language = check_language(body.language) if body.language else None
    except UnknownLanguage:
        language = None
    try:
        sub = await people.push.add(me.id, body.endpoint, body.keys.p256dh, body.keys.auth, language=language,
                                    groups=body.groups, loopback_http=notices.config.loopback_http, key=key)
    except PeopleError as error:
        if error.code == "bad_subscription":
            raise ApiError(422, "bad_subscription", str(error)) from None
        raise refusal(error) from None
    return SubscriptionOut.of(sub)


@router.patch("/api/me/push/{subscription_id}", status_code=204, response_class=Response,
              responses=people_errors(401, 404, 503))
async def change_subscription(subscription_id: SubscriptionId, body: SubscriptionChange, me: Me,
                              people: People) -> Response:
    """Group notices on or off for one device."""
    if not await people.push.set_groups(me.id, subscription_id, body.groups):
        raise ApiError(404, "unknown_subscription", "no such device among this person's notices")
    return Response(status_code=204)


@router.delete("/api/me/push/{subscription_id}", status_code=204, response_class=Response,
               responses=people_errors(401, 404, 503))
async def unsubscribe(subscription_id: SubscriptionId, me: Me, people: People) -> Response:
    """No more notices on that device (any device of the person may turn any of theirs off)."""
    if not await people.push.remove(me.id, subscription_id):
        raise ApiError(404, "unknown_subscription", "no such device among this person's notices")
    return Response(status_code=204)


@router.get("/sw.js", include_in_schema=False)
async def service_worker() -> Response:
    """The service worker, for the whole site (its scope is ``/``)."""
    script = (resources.files("nimmt.web") / "static" / "js" / "sw.js").read_text(encoding="utf-8")
    return Response(script, media_type="text/javascript", headers={
        "Cache-Control": "no-cache", "Service-Worker-Allowed": "/", "X-Content-Type-Options": "nosniff"})
