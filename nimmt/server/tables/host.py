"""One table's host: the one writer of its table, with a private lock and one entry point.

:meth:`TableHost.submit` takes a :data:`~.commands.Command` and runs the one write path under the
lock: the entry the command asks for is **checked** against the table, **stored** in the journal
(:mod:`nimmt.server.store`), **applied** to this process's copy and **published** through the hub
(every connection, on every process, hears it), in that order, so nothing is ever half-applied.
Then what the write calls for is done the same way (a deal when a round needs cards, a present
person's seat given back, an absent person's seat handed to a bot under the absent rule). The
news of a command goes out at its end, in order, once the keepers (what keeps a table's rows
outside its journal: the finished games, where each person sits) have heard one
:class:`~.changes.TableChanged` with every entry stored and kept it, for at most
:data:`KEEP_SECONDS` (a slow keeper finishes in the background, a failing one is logged): a page
that shows a game's last screen finds it under My games. The listeners hear the same change
after the news. When another process
stored under the same number first, the host catches up from the store and asks the command again,
against the table as it now is: a person is never told to reload.

A keeper or a listener runs under the lock: it must not wait for a command of the same table (a task may).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import assert_never

from nimmt.core import Phase, PlayCard, deal_cards, view

from .. import journal, models
from ..botpool import SeatBot, Thought
from ..hub import Hub, Presence, Update
from ..journal import (
    BotSeated,
    BotUnseated,
    Dealt,
    DeviceAdded,
    Entry,
    Joined,
    Played,
    RematchAsked,
    Rematched,
    Reviewed,
    RowChosen,
    SeatBack,
    SeatToBot,
    Started,
    TakenBack,
    entry_from_json,
    entry_to_json,
)
from ..store import Store, StoreConflict
from .changes import TableChanged, TableListener
from .clock import hand_over_due
from .commands import (
    Act,
    AddDevice,
    Announce,
    Arrived,
    Ask,
    AskBots,
    AwayGraceOver,
    BotAnswer,
    CatchUp,
    ClockRanOut,
    Command,
    Due,
    Join,
    Left,
    Outcome,
    ReviewDone,
    StartGame,
)
from .errors import ActionError, store_failed
from .table import Table

logger = logging.getLogger("nimmt.server")

CONFLICT_TRIES = 5  # times an entry is asked again after another process wrote the table first
KEEP_SECONDS = 5.0  # the news of a change waits this long at most for its keepers


@dataclass
class Ground:
    """What the hosts of one process share: the store, the hub, the deals' randomness, the keepers
    (heard before a change's news), the listeners (after it, in the order they hear), the keepers'
    writes still under way, and whether the process is stopping."""

    store: Store
    hub: Hub
    rng: random.Random
    listeners: list[TableListener] = field(default_factory=list)
    keepers: list[TableListener] = field(default_factory=list)
    keeping: set[asyncio.Future[None]] = field(default_factory=set)
    observe_conflict: Callable[[], None] | None = None
    closed: bool = False


class TableHost:
    """The one writer of one table of this process (see the module)."""

    def __init__(self, table: Table, ground: Ground, stored: tuple[Entry, ...] = ()) -> None:
        self.table = table
        self._ground = ground
        self._lock = asyncio.Lock()
        self._unannounced: list[Entry] = list(stored)  # stored here since the listeners last heard
        self._news: list[Update] = []  # the news of this command, published at its end

    def busy(self) -> bool:
        """Whether a command is being run (the table stays in memory meanwhile)."""
        return self._lock.locked()

    async def submit(self, command: Command) -> Outcome:
        """Run ``command`` under the table's lock (see the module); what it did. Who is here is the
        hub's: an arrival or a departure is seen at once, never waiting for a write under way."""
        if isinstance(command, Arrived | Left):
            self.table.see(command.presence)
        async with self._lock:
            return await self._run(command)

    # -- the commands ------------------------------------------------------------------------------
    async def _run(self, command: Command) -> Outcome:
        table = self.table
        before = len(self._unannounced)
        stored: tuple[Entry, ...] = ()
        seat: int | None = None
        asks: tuple[Ask, ...] = ()
        announce = False
        moved = False
        try:
            match command:
                case Act(seat=acting, message=message):
                    await self._act(acting, message)
                case Join():
                    seat = await self._join(command)
                case AddDevice(player=player, token_hash=hashed):
                    seat = await self._add_device(player, hashed)
                case StartGame(fill=fill):
                    await self._write(lambda: Started(fill) if table.status == "lobby" else None)
                case AskBots():
                    asks = await self._ask_bots()
                case BotAnswer(ask=ask, thought=thought):
                    await self._bot_answer(ask, thought)
                case ClockRanOut():
                    if not await self._write(lambda: hand_over_due(table)):
                        await self._publish_news()  # a clock ran out for someone here: every page says so
                case Arrived(seat=arriving, presence=presence):
                    announce = await self._arrived(arriving, presence)
                case Left(presence=presence):
                    announce = await self._left(presence)
                case AwayGraceOver(seat=away):
                    if away in table.absent_for_bot():  # the absent rule "bot": nobody waits, the seat goes now
                        try:
                            await self._settle()
                        except Exception:  # storing failed: the next write tries again, or anyone may hand it
                            logger.exception("handing seat %s of table %s to a bot failed", away, table.id)
                    await self._publish_news()
                case ReviewDone(game=game, data=data):
                    await self._store(lambda: None if game in table.reviews else Reviewed(game, data))
                case Due():
                    await self._settle()
                case Announce():
                    announce = True
                case CatchUp(update=update):
                    moved = await self._catch_up(update)
                case _:
                    assert_never(command)  # the union is closed: mypy holds every command to a case here
        finally:
            stored = tuple(self._unannounced[before:])
            change = None
            if self._unannounced or announce:  # (entries a failed command stored before are told now too)
                change = TableChanged(table, table.version, tuple(self._unannounced))
                self._unannounced = []
            try:
                if change is not None:
                    await self._keep(change)
            finally:  # the news goes out even when the keepers' wait is cancelled
                await self._publish()
            if change is not None:
                await self._announce(change)
        return Outcome(table.version, stored, seat, asks, moved)

    async def _act(self, seat: int | None, message: models.TableAction) -> None:
        table = self.table
        if seat is None:
            raise ActionError("spectator", "a spectator cannot act at the table")
        if getattr(message, "version", 0) > table.version:  # seen through another process: catch up
            await self._catch_up(None)
        await self._settle()  # a deal that failed to be stored earlier
        await self._store(lambda: entry_for(table, seat, message))
        try:
            await self._settle()
        except Exception:  # the action itself is stored; the deal is retried on the next request
            logger.exception("dealing on table %s failed", table.id)

    async def _join(self, command: Join) -> int:
        table = self.table
        taken: list[int] = []

        def entry() -> Entry:
            table.check(Joined(-1, command.name, ""))
            free = [i for i, s in enumerate(table.seats) if not s.taken]
            if not free:
                raise ActionError("table_full", "every seat is taken")
            taken[:] = free[:1]
            return Joined(free[0], command.name, command.token_hash, journal.now(), command.player)

        await self._write(entry)
        return taken[0]

    async def _add_device(self, player: str, hashed: str) -> int:
        table = self.table
        taken: list[int] = []

        def entry() -> Entry:
            seats = [i for i, s in enumerate(table.seats) if s.player == player and s.token_hash is not None]
            if not seats:
                raise ActionError("not_seated", "this player holds no seat at this table")
            taken[:] = seats[:1]
            return DeviceAdded(seats[0], hashed)

        await self._write(entry)
        return taken[0]

    async def _ask_bots(self) -> tuple[Ask, ...]:
        table = self.table
        await self._settle()
        if self._ground.closed or table.recorder is None:
            return ()
        asks = []
        for seat in table.waiting_bots():
            name = table.seats[seat].bot or ""
            seat_bot = table.bots.get(seat)
            if seat_bot is None or seat_bot.name != name:
                seat_bot = table.bots[seat] = SeatBot(name, self._ground.rng.random())
            asks.append(Ask(seat, table.game, table.decisions.get(seat), seat_bot, view(table.recorder.state, seat)))
        return tuple(asks)

    async def _bot_answer(self, ask: Ask, thought: Thought) -> None:
        table = self.table
        if self._ground.closed or table.recorder is None:
            return
        if (table.game != ask.game or table.seats[ask.seat].bot != ask.seat_bot.name
                or table.bots.get(ask.seat) is not ask.seat_bot or ask.seat not in table.waiting_bots()
                or table.decisions.get(ask.seat) != ask.decision):
            return  # the table moved on meanwhile: this answer is dropped, the bot is asked again
        if thought.state is not None:
            ask.seat_bot.state = thought.state
        if isinstance(thought.action, PlayCard):
            entry: Entry = Played(ask.seat, thought.action.card)
        else:
            entry = RowChosen(ask.seat, thought.action.row)
        try:
            await self._commit(entry)
        except StoreConflict:  # another process moved the table on: see where it is, ask again
            await self._catch_up(None)
            return
        await self._settle()
        table.last_active = time.monotonic()

    async def _arrived(self, seat: int, presence: Presence) -> bool:
        table = self.table
        back = table.seats[seat].bot is not None and (seat in table.waiting_bots() or table.status == "over")
        if table.needs_deal() or back:
            # A replaced person is back while the table awaits their seat: theirs again, before the bot acts.
            try:
                await self._settle()
            except Exception:  # storing failed: the bot plays on, and the next decision tries again
                logger.exception("giving seat %s of table %s back failed", seat, table.id)
        await self._publish_news(presence)
        return True

    async def _left(self, presence: Presence) -> bool:
        table = self.table
        if self._ground.closed:
            return False
        self._news.append(table.news(presence))
        return True

    async def _catch_up(self, update: Update | None) -> bool:
        """Take in what other processes stored (and, with the hub's news, who is here); whether the
        table moved on."""
        table = self.table
        if update is not None:
            if update.presence is not None:
                # Read again rather than trust the snapshot: news from two processes may arrive out of order.
                table.see(await self._ground.hub.presence(table.id))
            if update.entry is not None and update.version == table.version + 1 and not update.recheck:
                table.apply(entry_from_json(update.entry))  # the next entry: no need to read the store
                return True
            if not (update.recheck or update.version > table.version):
                return False
        entries = await self._ground.store.journal(table.id, table.version)
        for data in entries or ():
            table.apply(entry_from_json(data))
        return bool(entries)

    # -- the write path ------------------------------------------------------------------------------
    async def _write(self, entry: Callable[[], Entry | None]) -> bool:
        """Store the entry ``entry()`` makes (see :meth:`_store`), then what the write calls for."""
        stored = await self._store(entry)
        await self._settle()
        return stored

    async def _settle(self) -> None:
        """What each write may call for, in one place: deal when the game waits for cards, give each
        replaced person who is present back their seat if the table awaits its decision (or the game
        is over: so they may host the rematch), hand an absent person's seat to the table's bot under
        the absent rule. Nothing else puts a person back; nothing ever chooses a row for a person."""
        table = self.table
        await self._store(lambda: _deal(table, self._ground.rng))
        for seat in table.replaced_present():
            await self._store(functools.partial(_seat_back, table, seat))
        for seat in table.absent_for_bot():
            await self._store(functools.partial(_absent_to_bot, table, seat))

    async def _store(self, entry: Callable[[], Entry | None]) -> bool:
        """Store the entry ``entry()`` makes (None: nothing to store) and apply it. When another process
        has written the table meanwhile, catch up and ask ``entry()`` again. False when nothing was stored."""
        for _attempt in range(CONFLICT_TRIES):
            made = entry()
            if made is None:
                return False
            try:
                await self._commit(made)
            except StoreConflict:
                if self._ground.observe_conflict is not None:
                    self._ground.observe_conflict()
                await self._catch_up(None)
                continue
            return True
        raise ActionError("server_error", "the table is changing too fast to store this action: nothing was "
                          "changed, try again")

    async def _commit(self, entry: Entry) -> None:
        """Check, then store, then apply and publish. A refused entry changes nothing; StoreConflict
        when another process stored an entry under this number first (this copy is behind)."""
        table = self.table
        if self._ground.closed:  # the store is closing or closed: nothing may be written any more
            raise ActionError("server_error", "the server is stopping: nothing was changed, try again")
        entry = journal.dated(entry)  # game entries and returns carry their time: a clock runs from it
        prepared = table.prepare(entry)
        try:
            await self._ground.store.append(table.id, table.version, entry_to_json(entry), table.game_row(prepared))
        except StoreConflict:
            raise
        except Exception as error:  # the store failed (locked, gone): nothing was stored or applied
            raise store_failed(table.id, error) from None
        table.apply(entry, prepared)
        self._unannounced.append(entry)
        self._news.append(table.news(entry=entry))  # published at the command's end, after the keepers

    async def _publish_news(self, presence: Presence | None = None) -> None:
        self._news.append(self.table.news(presence))

    async def _publish(self) -> None:
        """Publish the command's news, in order."""
        news, self._news = self._news, []
        for update in news:
            await self._ground.hub.publish(update)

    async def _keep(self, change: TableChanged) -> None:
        """Let the keepers keep the change, together, for at most :data:`KEEP_SECONDS`: past it the
        news goes out and they finish in the background. A keeper that fails is logged."""
        table = self.table
        ground = self._ground
        writes: list[asyncio.Future[None]] = []
        for keeper in ground.keepers:
            try:
                heard = keeper(change)
                if inspect.isawaitable(heard):
                    writes.append(asyncio.ensure_future(heard))
            except Exception:
                logger.exception("a keeper of table %s failed", table.id)
        for write in writes:
            ground.keeping.add(write)
            write.add_done_callback(functools.partial(_kept, ground.keeping, table.id))
        if not writes:
            return
        _done, late = await asyncio.wait(writes, timeout=KEEP_SECONDS)
        if late:
            logger.warning("table %s: %d keeper(s) still writing after %g s: the news goes out meanwhile",
                           table.id, len(late), KEEP_SECONDS)

    async def _announce(self, change: TableChanged) -> None:
        """Tell the listeners, in order, that the table changed, with the entries stored since they last heard."""
        table = self.table
        for listener in self._ground.listeners:
            try:
                heard = listener(change)
                if inspect.isawaitable(heard):
                    await heard
            except Exception:
                logger.exception("a listener of table %s failed", table.id)


def _kept(keeping: set[asyncio.Future[None]], table_id: str, write: asyncio.Future[None]) -> None:
    """A keeper's write ended: forget it, and log it if it failed."""
    keeping.discard(write)
    if not write.cancelled() and (error := write.exception()) is not None:
        logger.error("a keeper of table %s failed", table_id, exc_info=error)


# -- the entry each command asks for -----------------------------------------------------------------
def entry_for(table: Table, seat: int, message: models.TableAction) -> Entry:
    """The entry a person's message asks for, checked against the table as it is now."""
    if isinstance(message, models.SeatBack):  # the person takes back the seat a bot plays for them
        return SeatBack(seat)
    if table.seats[seat].bot is not None:
        raise ActionError("seat_is_bot", "a bot plays this seat now")
    if isinstance(message, models.Start | models.Rematch | models.AddBot | models.RemoveBot) and seat != table.host:
        raise ActionError("not_creator", "only the table's host can do this: the creator, or while the "
                          "creator is away, the first person present")
    match message:
        case models.Start(fill=fill):
            return Started(fill)
        case models.Rematch():
            return Rematched()
        case models.AskRematch():
            return RematchAsked(seat)
        case models.TakeBack():
            return TakenBack(seat)
        case models.AddBot(bot=bot):
            free = [i for i, s in enumerate(table.seats) if not s.taken]
            if not free and table.status == "lobby":
                raise ActionError("table_full", "every seat is taken")
            return BotSeated(free[0] if free else -1, bot)
        case models.RemoveBot(seat=bot_seat):
            return BotUnseated(bot_seat)
        case models.SeatToBot():
            return _hand_over(table, seat, message)
        case models.Play(card=card, version=version):
            _check_version(table, seat, version)
            _check_repeat(table, seat, Phase.CHOOSE_CARDS)
            return Played(seat, card)
        case models.ChooseRowMessage(row=row, version=version):
            _check_version(table, seat, version)
            _check_repeat(table, seat, Phase.CHOOSE_ROW)
            return RowChosen(seat, row)
    raise ActionError("bad_message", f"unknown message type {message.type!r}")


def _deal(table: Table, rng: random.Random) -> Entry | None:
    """The next round's deal, when the game waits for one."""
    if not table.needs_deal():
        return None
    deal = deal_cards(len(table.seats), rng)
    return Dealt(deal.rows, deal.hands)


def _seat_back(table: Table, seat: int) -> Entry | None:
    """The seat back to its person, if it still should (asked again after another process's write)."""
    return SeatBack(seat) if seat in table.replaced_present() else None


def _absent_to_bot(table: Table, seat: int) -> Entry | None:
    """The absent rule "bot": the seat of a person away for the grace goes to the table's bot, if it
    still should (asked again after another process's write)."""
    return SeatToBot(seat, table.options.absent_bot) if seat in table.absent_for_bot() else None


def _hand_over(table: Table, seat: int, message: models.SeatToBot) -> Entry:
    """Another person's seat to a bot, as ``seat`` asks: at once when that person's clock has run out
    (kept by the bot until they take it back, if they are here), else once they have been away the grace."""
    other = message.seat != seat  # a person never hands their own seat: the table waits for them
    if other and 0 <= message.seat < len(table.seats) and table.out_of_time(message.seat):
        entry = SeatToBot(message.seat, message.bot, keep=table.is_present(message.seat))
        table.check(entry)
        return entry
    entry = SeatToBot(message.seat, message.bot)
    table.check(entry)
    left = table.away_grace - (table.away_seconds(message.seat) or 0.0)
    if left > 0:
        raise ActionError("not_away_long", f"this player has been away less than {table.away_grace:g} "
                          f"seconds: wait {math.ceil(left)} more", seat=message.seat, seconds_left=math.ceil(left))
    return entry


def _check_version(table: Table, seat: int, version: int) -> None:
    if version > table.version or version < 0:
        raise ActionError("bad_version", f"version {version} does not exist (the table is at {table.version})",
                          version=version, current=table.version)
    since = table.asked_since.get(seat)
    if since is not None and version < since:
        raise ActionError("stale", f"this action was made on version {version}, but the table has moved on "
                          f"(version {table.version}): look again and choose", version=version,
                          current=table.version)


def _check_repeat(table: Table, seat: int, phase: Phase) -> None:
    """Refuse a card (or row) a seat has already chosen in this turn with ``already_chosen``: a double
    click, or the same message sent twice, while the table waits for others (a row choice, say)."""
    if table.recorder is None:
        return
    state = table.recorder.state
    decided = table.decisions.get(seat)
    if state.phase not in (Phase.CHOOSE_CARDS, Phase.CHOOSE_ROW) or seat in state.waiting_for or decided is None:
        return
    round_, turn, decided_phase, _resolved = decided
    if (round_, turn) != (state.round, state.turn):
        return
    # A card was chosen in this turn by every seat asked for one; a row only by the seat that was asked.
    if phase is Phase.CHOOSE_CARDS or decided_phase == Phase.CHOOSE_ROW.value:
        what = "a card" if phase is Phase.CHOOSE_CARDS else "a row"
        raise ActionError("already_chosen", f"seat {seat} has already chosen {what} this turn")
