"""Notices by Web Push (docs/push.md): a person's phone is told when a turn-based table asks them
for a decision, and, if they chose so, when their group gets a new table or a game of it ends.

:class:`Notices` hears every change of a table (:meth:`Notices.hear`, subscribed in ``app.py``) and
works out, from the table alone, what is due: for each person whose decision a table with a long
clock (:func:`~nimmt.server.public.turn_based`, an hour or more) awaits, who is not at the table now, one notice when
the decision begins (only if they were away then: somebody who saw it at the table needs no
notice) and one reminder once a quarter of the clock is left; and when a bot takes the seat of a
person who is away (their clock ran out, or the absent rule), one notice that a bot plays for them
and that opening the table (the notice's tap) takes their seat back: it is theirs again at their
next decision once they are here. Nothing is ever chosen for a person at the table: a seat handed
while its person is here (``keep``) gets no notice. Each notice is claimed in the store
first (:meth:`~nimmt.people.subscriptions.SubscriptionStore.claim`): however many processes see its
moment, one sends it. Sending runs in a small pool of threads (:class:`Sender`) with a bounded
queue and a timeout per request, never on the event loop: a slow or dead push service never slows
a table; one that says the subscription is gone (404, 410) has it removed.

The site's VAPID key comes from ``NIMMT_PUSH_KEY`` (a PEM, or a file holding one) or is made once
and kept in the store. ``NIMMT_PUSH_SUBJECT`` is the contact push services see (a ``mailto:`` or
``https:`` URL). ``NIMMT_PUSH_LOOPBACK=1`` accepts http endpoints on this machine: tests' local
push endpoint only.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02  # type: ignore[import-untyped]
from pywebpush import WebPushException, webpush  # type: ignore[import-untyped]

from nimmt.core import Phase
from nimmt.i18n import UnknownLanguage, check_language, translator
from nimmt.people.subscriptions import Subscription, SubscriptionStore

from .journal import SeatToBot
from .public import turn_based
from .tables.clock import deadlines

if TYPE_CHECKING:
    from nimmt.people.store import PeopleStore

    from .tables.changes import TableChanged
    from .tables.table import Table

logger = logging.getLogger("nimmt.server.push")

WORKERS = 4  # threads that send
QUEUE = 500  # notices waiting for a thread at most: past it, new ones are dropped (and logged)
TIMEOUT = 10.0  # seconds one request to a push service may take
REMIND_AT = 0.25  # the reminder: when this share of the clock is left
GROUP_TTL = 24 * 3600  # a group notice is worth delivering for a day
MOST_TTL = 7 * 24 * 3600
REMEMBERED = 4096  # notices this process knows it has handled (the store is asked about the others)
RESCAN = 300.0  # seconds between two looks at every table in memory
ICON = "/static/icons/icon-192.png"
SUBJECT = "mailto:nimmt@localhost"  # set NIMMT_PUSH_SUBJECT on a real site


@dataclass(frozen=True, slots=True)
class PushConfig:
    """Where the site's VAPID key comes from, the contact push services see, and the tests' door."""

    key: str | None = None  # a PEM; None: the one kept in the store (made on first use)
    subject: str = SUBJECT
    loopback_http: bool = False  # tests only: http endpoints on this machine are accepted

    @classmethod
    def from_env(cls, public_url: str | None = None) -> PushConfig:
        key = os.environ.get("NIMMT_PUSH_KEY") or None
        if key is not None and "-----BEGIN" not in key and Path(key).is_file():
            key = Path(key).read_text(encoding="ascii")
        subject = os.environ.get("NIMMT_PUSH_SUBJECT") or (
            public_url if public_url and public_url.startswith("https://") else SUBJECT)
        return cls(key, subject, os.environ.get("NIMMT_PUSH_LOOPBACK") == "1")


def new_private_key() -> str:
    """A new VAPID private key (P-256), as PEM."""
    key = ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode("ascii")


def application_server_key(pem: str) -> str:
    """The public half of the site's key as browsers take it (``applicationServerKey``): base64url."""
    private = serialization.load_pem_private_key(pem.encode("ascii"), password=None)
    raw = private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def time_left(seconds: float, language: str) -> str:
    """"23 h", "45 min", "3 days": how long is left, in the person's language."""
    _ = translator(language, "push")
    if seconds >= 48 * 3600:
        days = int(seconds // 86400)
        return _("left_days.one" if days == 1 else "left_days.other", count=days)
    if seconds >= 3600:
        return _("left_hours", count=int(seconds // 3600))
    return _("left_minutes", count=max(1, int(seconds // 60)))


def _language(language: str | None) -> str:
    try:
        return check_language(language) if language else "en"
    except UnknownLanguage:
        return "en"


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice for one person: its store key (sent once per subscription), what it says, and how
    the push service is asked to carry it."""

    key: str  # "turn/<table>/<version>/<seat>/asked", "group/<table>/new", ...
    player: str
    texts: Callable[[str], tuple[str, str]]  # language -> (title, body)
    url: str  # the page it opens
    ttl: int  # seconds the push service keeps it for an unreachable device
    urgency: str  # "high" for a decision, "normal" for a group's news
    tag: str  # a later notice with the same tag replaces this one on the device

    def payload(self, language: str) -> str:
        title, body = self.texts(language)
        return json.dumps({"title": title, "body": body, "url": self.url, "tag": self.tag, "icon": ICON},
                          ensure_ascii=False)

    @property
    def topic(self) -> str:
        """The push service's Topic (32 base64url characters at most): a waiting notice for the same
        decision is replaced, not added."""
        return base64.urlsafe_b64encode(hashlib.sha256(self.tag.encode()).digest()[:24]).decode("ascii")


class Sender:
    """Sends notices in a pool of threads, at most :data:`QUEUE` waiting; a subscription its push
    service says is gone (404, 410) is removed."""

    def __init__(self, store: SubscriptionStore, private_key: str, subject: str, *, workers: int = WORKERS,
                 queue: int = QUEUE, timeout: float = TIMEOUT) -> None:
        self.store = store
        self.vapid = Vapid02.from_pem(private_key.encode("ascii"))
        self.subject = subject
        self.timeout = timeout
        self.most = queue
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nimmt-push")
        self.waiting = 0
        self.dropped = 0
        self.tasks: set[asyncio.Task[None]] = set()

    def send(self, subscription: Subscription, notice: Notice) -> bool:
        """Queue one notice (False: the queue is full, it is dropped)."""
        if self.waiting >= self.most:
            self.dropped += 1
            logger.warning("a notice was dropped: %d are waiting to be sent", self.waiting)
            return False
        self.waiting += 1
        task = asyncio.get_running_loop().create_task(self._send(subscription, notice))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return True

    async def _send(self, subscription: Subscription, notice: Notice) -> None:
        try:
            status = await asyncio.get_running_loop().run_in_executor(
                self.pool, self._post, subscription, notice)
        finally:
            self.waiting -= 1
        if status in (404, 410):
            with contextlib.suppress(Exception):
                await self.store.remove_endpoint(subscription.endpoint)
            logger.info("a push subscription is gone (%d): removed", status)

    def _post(self, subscription: Subscription, notice: Notice) -> int:
        """In a thread: the request to the push service; its status (0: no answer)."""
        try:
            response = webpush(subscription.info(), notice.payload(_language(subscription.speaks)),
                               vapid_private_key=self.vapid, vapid_claims={"sub": self.subject},
                               timeout=self.timeout, ttl=notice.ttl,
                               headers={"Urgency": notice.urgency, "Topic": notice.topic})
            return int(response.status_code)
        except WebPushException as error:
            status = int(getattr(error.response, "status_code", 0) or 0)
            if status not in (404, 410):
                logger.warning("a push service refused a notice: %s", str(error)[:200])
            return status
        except Exception as error:  # a dead endpoint, a timeout: the table never waits for it
            logger.warning("a notice was not delivered: %s: %s", type(error).__name__, str(error)[:200])
            return 0

    async def close(self) -> None:
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=self.timeout + 1)
        self.pool.shutdown(wait=False, cancel_futures=True)


@dataclass
class _Watch:
    """One table's reminder timer in this process."""

    due: float
    task: asyncio.Task[None]


@dataclass
class Notices:
    """What is due, when a table changes; who gets it; the sender. ``note`` is the tables' listener."""

    people: PeopleStore
    config: PushConfig = field(default_factory=PushConfig)
    clock: Callable[[], float] = time.time
    sender: Sender | None = None
    public_key: str = ""
    handled: OrderedDict[str, None] = field(default_factory=OrderedDict)
    timers: dict[str, _Watch] = field(default_factory=dict)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    group_names: dict[str, str] = field(default_factory=dict)  # group id -> name, as last read
    scanning: asyncio.Task[None] | None = None
    closed: bool = False

    @property
    def store(self) -> SubscriptionStore:
        return self.people.push

    async def start(self, tables: Callable[[], Iterable[Table]] | None = None) -> None:
        """The site's key (configured, else the store's, made once), and the sender; ``tables``: the
        tables in this process's memory, looked at every :data:`RESCAN` seconds (after a restart, the
        timed tables the clock scan loaded have their reminders without waiting for a change)."""
        pem = self.config.key or await self.store.site_key(new_private_key)
        self.public_key = application_server_key(pem)
        self.sender = Sender(self.store, pem, self.config.subject)
        if tables is not None:
            self.scanning = asyncio.get_running_loop().create_task(self._scan(tables))

    async def _scan(self, tables: Callable[[], Iterable[Table]]) -> None:
        while not self.closed:
            await asyncio.sleep(RESCAN)
            for table in list(tables()):
                self.note(table)

    async def close(self) -> None:
        self.closed = True
        if self.scanning is not None:
            self.scanning.cancel()
        for watch in self.timers.values():
            watch.task.cancel()
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=TIMEOUT)
        if self.sender is not None:
            await self.sender.close()

    # -- the listener -------------------------------------------------------------------------------
    def hear(self, change: TableChanged) -> None:
        """The tables' listener (``service.subscribe``): a table changed."""
        if not self.closed and self.sender is not None:
            try:
                handed = self.bot_plays(change)
                if handed:
                    self._spawn(self._deliver(change.table, handed))
            except Exception:  # a listener never raises into the table
                logger.exception("working out the notices of table %s failed", change.table.id)
        self.note(change.table)

    def bot_plays(self, change: TableChanged) -> list[Notice]:
        """At a turn-based table, a bot took the seat of a person who is away (their clock ran out, or
        the absent rule): a notice to them that a bot plays for them and a tap takes the seat back."""
        table = change.table
        if not turn_based(table.options.clock) or table.status != "playing":
            return []
        first = change.version - len(change.stored) + 1
        out = []
        for offset, entry in enumerate(change.stored):
            if not isinstance(entry, SeatToBot) or entry.keep or not 0 <= entry.seat < len(table.seats):
                continue
            seat, held = entry.seat, table.seats[entry.seat]
            if held.player is None or held.bot is None or table.is_present(seat):
                continue
            names = [s.name for i, s in enumerate(table.seats) if i != seat and s.name and s.bot is None]
            out.append(self._bot_notice(table, seat, held.player, first + offset, names))
        return [notice for notice in out if notice.key not in self.handled]

    def _bot_notice(self, table: Table, seat: int, player: str, version: int, names: list[str]) -> Notice:
        group = table.group

        def texts(language: str) -> tuple[str, str]:
            return self._table_name(table.id, group, names, language), translator(language, "push")("bot_plays")

        # Its tag is the seat's turn notices': it stands in for the question the bot now answers.
        return Notice(f"bot/{table.id}/{version}/{seat}", player, texts, f"/t/{table.id}", ttl=GROUP_TTL,
                      urgency="normal", tag=f"turn/{table.id}/{seat}")

    def note(self, table: Table) -> None:
        """A table changed: queue what is due now, and set the timer for its next reminder."""
        if self.closed or self.sender is None:
            return
        try:
            due = self.due(table)
            due += self.group_news(table)
            if due:
                self._spawn(self._deliver(table, due))
            self._arm(table)
        except Exception:  # a listener never raises into the table
            logger.exception("working out the notices of table %s failed", table.id)

    def due(self, table: Table, now: float | None = None) -> list[Notice]:
        """The turn notices due now at this table (each to be claimed before it goes)."""
        clock = table.options.clock
        if clock is None or not turn_based(clock) or table.recorder is None:
            return []
        now = self.clock() if now is None else now
        monotonic_to_wall = now - time.monotonic()
        phase = table.recorder.state.phase
        out = []
        for seat, deadline in deadlines(table).items():
            player = table.seats[seat].player
            left = deadline - now
            if player is None or table.is_present(seat) or left <= 0:
                continue
            decision = table.asked_since.get(seat, 0)
            began = table.asked_at.get(seat)
            away = table.away_since.get(seat, table.loaded_at) + monotonic_to_wall
            if left <= clock * REMIND_AT:
                kind = "reminder"
            elif began is not None and away <= began + 1.0:
                kind = "asked"  # they were away when it began (not: saw it, and left without deciding)
            else:
                continue
            out.append(self._turn(table, seat, player, decision, kind, left,
                                  "row" if phase == Phase.CHOOSE_ROW else "card"))
        return [notice for notice in out if notice.key not in self.handled]

    def _turn(self, table: Table, seat: int, player: str, decision: int, kind: str, left: float,
              what: str) -> Notice:
        names = [s.name for i, s in enumerate(table.seats) if i != seat and s.name and s.bot is None]
        group = table.group

        def texts(language: str) -> tuple[str, str]:
            _ = translator(language, "push")
            title = self._table_name(table.id, group, names, language)
            return title, _(f"{kind}_{what}", left=time_left(left, language))

        return Notice(f"turn/{table.id}/{decision}/{seat}/{kind}", player, texts, f"/t/{table.id}",
                      ttl=max(60, min(int(left), MOST_TTL)), urgency="high", tag=f"turn/{table.id}/{seat}")

    def _table_name(self, table_id: str, group: str | None, names: list[str], language: str) -> str:
        _ = translator(language, "push")
        if group is not None and group in self.group_names:
            return self.group_names[group]
        shown = [name for name in names if name]
        return _("table_with", names=", ".join(shown[:3])) if shown else _("table_plain")

    def group_news(self, table: Table) -> list[Notice]:
        """A group's new table (once its lobby is made), a game of it finished: for the members who
        chose group notices (the people at the table are not told what they see)."""
        group = table.group
        if group is None:
            return []
        out = []
        if table.status == "lobby" and table.created_at is not None and self.clock() - table.created_at < 3600:
            host = table.seats[0].name or ""
            out.append(Notice(f"group/{table.id}/new", "", lambda language: (
                self.group_names.get(group, ""), translator(language, "push")("group_new", name=host)),
                f"/t/{table.id}", ttl=GROUP_TTL, urgency="normal", tag=f"group/{table.id}"))
        elif table.status == "over" and table.recorder is not None:
            state = table.recorder.state
            winners = ", ".join(table.seats[p].name or "?" for p in state.winners)
            out.append(Notice(f"group/{table.id}/{table.game}/over", "", lambda language: (
                self.group_names.get(group, ""), translator(language, "push")("group_over", winners=winners)),
                f"/t/{table.id}", ttl=GROUP_TTL, urgency="normal", tag=f"group/{table.id}"))
        return [notice for notice in out if notice.key not in self.handled]

    # -- claiming and sending ---------------------------------------------------------------------
    def _spawn(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _handled(self, key: str) -> None:
        self.handled[key] = None
        self.handled.move_to_end(key)
        while len(self.handled) > REMEMBERED:
            self.handled.popitem(last=False)

    async def _deliver(self, table: Table, notices: list[Notice]) -> None:
        try:
            for notice in notices:
                self._handled(notice.key)
            group = table.group
            if group is not None and group not in self.group_names:
                found = await self.people.group(group)
                if found is not None:
                    self.group_names[group] = found.name
            for notice in notices:
                if notice.player:
                    subscriptions = await self.store.of_players([notice.player])
                else:  # a group's news: its members who chose it, but the people at the table
                    seated = {seat.player for seat in table.seats if seat.player is not None}
                    seated |= set((await self.people.aliases.resolve(seated)).values())  # merged players' people
                    members = [m.player_id for m in await self.people.members(group or "")]
                    subscriptions = await self.store.of_players([m for m in members if m not in seated], groups=True)
                for subscription in subscriptions:
                    if await self.store.claim(subscription.id, notice.key) and self.sender is not None:
                        self.sender.send(subscription, notice)
        except Exception:  # the store is away: these notices are not sent (never twice)
            logger.exception("the notices of table %s were not sent", table.id)

    # -- the reminder's timer ---------------------------------------------------------------------
    def _arm(self, table: Table) -> None:
        """Wake at the table's next reminder moment (a quarter of a person's clock left)."""
        clock = table.options.clock
        now = self.clock()
        due = None
        if clock is not None and turn_based(clock):
            moments = [deadline - clock * REMIND_AT for seat, deadline in deadlines(table).items()
                       if table.seats[seat].player is not None and deadline - clock * REMIND_AT > now]
            due = min(moments, default=None)
        watch = self.timers.get(table.id)
        if watch is not None and (due is None or watch.due != due):
            watch.task.cancel()
            self.timers.pop(table.id, None)
        if due is not None and table.id not in self.timers:
            self.timers[table.id] = _Watch(due, asyncio.get_running_loop().create_task(self._wake(table, due)))

    async def _wake(self, table: Table, due: float) -> None:
        await asyncio.sleep(max(0.0, due - self.clock()) + 0.5)
        watch = self.timers.get(table.id)
        if watch is not None and watch.task is asyncio.current_task():
            del self.timers[table.id]
        self.note(table)
