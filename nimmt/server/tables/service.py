"""The table service: it holds this process's tables (creates, loads, keeps, evicts them) and the
write path every entry goes through.

A table is rebuilt from its journal (see :mod:`nimmt.server.store`) by replaying every entry
through the rules core. A new entry is checked, stored, then applied, then published through the
hub (:meth:`TableService.commit`), so nothing is ever half-applied; when another process stored
under the same number first, the table catches up from the store and the entry is made again
(:meth:`TableService.store_entry`). The path has three doors: :meth:`~TableService.write` (store,
then settle), :meth:`~TableService.store_entry` and :meth:`~TableService.commit`. A person's action
comes in here (:meth:`TableService.act`); the bots, presence, the clocks, the reviews and quick
start (:mod:`nimmt.server.quickstart`) write through the same doors from their own modules, each
taking the table's lock itself first.

After a write the table is *settled* (:meth:`TableService.settle`): a deal when a round needs cards,
present people given their seats back, the listeners told, seats handed to bots under the absent
rule, the bots woken, the turns played so far reviewed; once the game is over, its review asked for
and the game handed to the people part (``game_over``). Nothing ever chooses a row for a person.

A person's action comes typed (:data:`nimmt.server.models.TableAction`) and becomes one journal
entry in :meth:`TableService._entry_for`. Whatever must hear that a table changed (the lobby's
rows, quick match's start) listens (:meth:`TableService.listen`); the app builds the service with
them. The parts, each made here with the service (or its bot pool) and reaching the others through
it: :mod:`.bots` (the bots), :mod:`.clock` (timed tables), :mod:`.coach` (the coach),
:mod:`.presence` (who is here, and the grace before a seat goes to a bot), :mod:`.memory` (idle
tables leave memory), :mod:`.reviews` (each finished game's review).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import math
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from nimmt.bots import BOTS
from nimmt.core import Phase, deal_cards

from .. import journal, models
from ..botpool import BotPool
from ..hub import Hub, LocalHub, Update
from ..journal import (
    BotSeated,
    BotUnseated,
    Created,
    Dealt,
    DeviceAdded,
    Entry,
    Joined,
    JournalError,
    Played,
    RematchAsked,
    Rematched,
    RowChosen,
    SeatBack,
    SeatToBot,
    Started,
    TakenBack,
    entry_from_json,
    entry_to_json,
)
from ..models import CreateTable
from ..store import Store, StoreConflict
from .bots import Bots
from .changes import TableChanged, TableListener
from .clock import Clocks
from .coach import Coach
from .errors import ActionError, store_failed
from .memory import Memory
from .presence import Attendance
from .reviews import Reviews
from .state import token_hash
from .table import Table

logger = logging.getLogger("nimmt.server")

CONFLICT_TRIES = 5  # times an action is tried again after another process wrote the table first


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_table_id() -> str:
    return secrets.token_urlsafe(9)


class TableService:
    """Every table of this process: creating, loading, a person's actions, and the write path; its
    parts run the bots (:attr:`bots`), the coach (:attr:`coach`), presence (:attr:`attendance`),
    memory (:attr:`memory`), the clocks (:attr:`clocks`) and the reviews (:attr:`reviews`)."""

    def __init__(
        self,
        store: Store,
        hub: Hub,
        *,
        bot_delay: float = 0.8,
        rng: random.Random | None = None,
        make_id: Callable[[], str] = new_table_id,
        away_grace: float = 30.0,
        bot_workers: int | None = None,
        bot_budget: float = 2.0,
        idle_after: float | None = 600.0,
        observe_bot: Callable[[str, float], None] | None = None,
        observe_conflict: Callable[[], None] | None = None,
        listeners: Sequence[TableListener] = (),
        game_abandoned: Callable[[Table], Awaitable[None]] | None = None,
    ) -> None:
        """``bot_workers``: processes for the bots and the coach (default: the cores but one);
        ``bot_budget``: the most seconds a bot may think about a decision; ``idle_after``: seconds after
        which a table nobody is connected to and whose bots have nothing to do leaves memory (None:
        never); ``observe_bot(bot, seconds)`` hears how long each bot decision took; ``observe_conflict()``
        hears each write that found its number taken by another process; ``listeners``: what hears each
        :class:`~.changes.TableChanged` from the start (more with :meth:`subscribe`): the lobby's and the
        clocks' rows, the people part keeping finished games; ``game_abandoned(table)``: heard when a
        table leaves memory with its game in progress and nobody
        at it (kept as abandoned)."""
        self.store = store
        self.hub = hub
        self.away_grace = away_grace
        self.rng = rng or random.SystemRandom()
        self.make_id = make_id
        # Other processes may write this process's tables (a hub between processes): look at the store
        # when a table is asked for, and catch up when a write finds its number taken.
        self.shared = not isinstance(hub, LocalHub)
        self.tables: dict[str, Table] = {}
        self.closed = False
        self.stopping = asyncio.Event()  # set by close(): wakes the bots and watches from their pause
        self._observe_conflict = observe_conflict
        self._loading = asyncio.Lock()
        self.pool = BotPool(bot_workers, budget=bot_budget, observe=observe_bot)
        self.bots = Bots(self, self.pool, bot_delay)
        self.coach = Coach(self.pool)
        self.attendance = Attendance(self)
        self.memory = Memory(self, idle_after)
        self.game_abandoned = game_abandoned
        self.clocks = Clocks(self)
        # Each hears that a table changed (made, joined, written, somebody came or went), in this order.
        self.listeners: list[TableListener] = list(listeners)
        self.reviews = Reviews(self, self.pool)

    async def close(self) -> None:
        """Stop the bots and wait until they have: the store closes next, and nothing may use it then.

        A bot is never cancelled in the middle of storing its action: a cancelled database call
        leaves SQLAlchemy closing the connection on its own, which can outlive the store and hang
        the event loop's shutdown. A bot finishes the action it is on, then stops.
        """
        self.closed = True
        self.stopping.set()
        tasks = self.bots.tasks()
        tasks += list(self.attendance.watches.values())  # they wake on stopping and store nothing
        tasks += self.clocks.tasks()  # they wake on stopping too
        if self.memory.sweeper is not None:
            tasks.append(self.memory.sweeper)
        if tasks:
            await asyncio.wait(tasks)
        await self.reviews.stop()  # the reviews being made are dropped (made again when asked for)
        await self.pool.close()  # the workers stop; what they were thinking is dropped, never stored

    def subscribe(self, listener: TableListener) -> None:
        """``listener(change)`` hears every :class:`~.changes.TableChanged` of this process's tables from
        now on, after the listeners before it; an awaitable it returns is awaited before the change's
        command returns. It must not raise (what it raises is logged and dropped)."""
        self.listeners.append(listener)

    async def changed(self, table: Table) -> None:
        """Tell the listeners that ``table`` changed, with the entries stored since they last heard."""
        stored, table.unannounced = tuple(table.unannounced), []
        change = TableChanged(table, table.version, stored)
        for listener in self.listeners:
            try:
                heard = listener(change)
                if inspect.isawaitable(heard):
                    await heard
            except Exception:
                logger.exception("a listener of table %s failed", table.id)

    # -- the parts' doors, as the app and the connections use them -------------------------------
    async def advise(self, table: Table, seat: int | None) -> dict[str, Any]:
        return await self.coach.advise(table, seat)

    async def arrive(self, table: Table, seat: int | None) -> None:
        await self.attendance.arrive(table, seat)

    async def leave(self, table: Table, seat: int | None) -> None:
        await self.attendance.leave(table, seat)

    def socket_opened(self, table: Table) -> None:
        """A WebSocket is open on the table (a spectator's too): it stays in memory meanwhile."""
        self.memory.opened(table)

    def socket_closed(self, table: Table) -> None:
        self.memory.closed(table)

    def evict_idle(self, later: float = 0.0) -> list[str]:
        return self.memory.evict_idle(later)

    # -- lobby -------------------------------------------------------------------------------------
    async def create(self, request: CreateTable, player: str | None = None) -> tuple[Table, str]:
        """Create a table; ``player``: the creator's player (docs/people.md), when their browser has one."""
        for bot in request.bots:
            if bot not in BOTS:
                raise ActionError("unknown_bot", f"unknown bot {bot!r}: the bots are {', '.join(sorted(BOTS))}",
                                  bot=bot)
        if request.options.absent_bot not in BOTS:
            raise ActionError("unknown_bot", f"unknown bot {request.options.absent_bot!r}: the bots are "
                              f"{', '.join(sorted(BOTS))}", bot=request.options.absent_bot)
        if len(request.bots) > request.seats - 1:
            raise ActionError("too_many_bots", "the creator needs a seat: at most seats - 1 bots",
                              seats=request.seats)
        if request.start and len(request.bots) != request.seats - 1:
            free = request.seats - 1 - len(request.bots)
            raise ActionError("seats_not_filled", f"to start at once, bots must take every seat but the creator's: "
                              f"{free} seat(s) would still be free", free=free)
        token = new_token()
        first_bot = request.seats - len(request.bots)
        # Dated: the creator is away since then, until their page opens.
        entry = Created(request.seats, {first_bot + i: name for i, name in enumerate(request.bots)},
                        request.options.model_dump(), request.language, request.name, token_hash(token),
                        journal.now(), player, request.group)
        table_id = self.make_id()
        try:
            await self.store.append(table_id, 0, entry_to_json(entry))
        except Exception as error:
            raise store_failed(table_id, error) from None
        table = Table.created(table_id, entry)
        table.unannounced.append(entry)
        table.away_grace = self.away_grace
        self.tables[table_id] = table
        self.memory.loaded(table)
        self.memory.sweep_soon()
        self.attendance.watch(table, 0)
        if request.start:  # play now: the game starts at once, its first deal stored with it
            try:
                async with table.lock:
                    await self.write(table, lambda: Started() if table.recorder is None else None)
            except Exception:  # the table is stored: it opens in the lobby, or deals when someone arrives
                logger.exception("starting table %s at once failed", table.id)
            self.bots.wake(table)
        await self.changed(table)
        return table, token

    async def get(self, table_id: str) -> Table | None:
        table = self.tables.get(table_id)
        if table is not None:
            table.last_active = time.monotonic()
            if self.shared:  # another process may have written it since this one last heard
                await self.catch_up(table)
            return table
        async with self._loading:
            if table_id in self.tables:
                return self.tables[table_id]
            entries = await self.store.journal(table_id)
            if not entries:
                return None
            try:
                table = Table.replay(table_id, entries)
            except (JournalError, ActionError, ValueError, TypeError) as error:  # damaged: said once, nothing changed
                logger.error("table %s cannot be read back from its journal: %s", table_id, error)
                raise ActionError("server_error", "this table's history cannot be read: nothing was changed") \
                    from None
            table.away_grace = self.away_grace
            table.loaded_at = time.monotonic()
            # A table this process loads for the first time (after a restart, say): everyone's page gets
            # its grace to reconnect from now; loaded again after leaving memory, absences go on counting.
            floor = self.memory.loaded(table)
            table.away_since = {seat: max(since, floor) for seat, since in table.away_since.items()}
            table.see(await self.hub.presence(table_id))  # who is here, and since when the others left
            self.tables[table_id] = table
            self.memory.sweep_soon()
        self.attendance.watch_all(table)
        self.bots.wake(table)
        if table.needs_deal():
            async with table.lock:
                await self.settle(table)
        return table

    async def join(self, table: Table, name: str, player: str | None = None) -> tuple[int, str]:
        token = new_token()
        taken: list[int] = []

        def entry() -> Entry:
            table.check(Joined(-1, name, ""))
            free = [i for i, s in enumerate(table.seats) if not s.taken]
            if not free:
                raise ActionError("table_full", "every seat is taken")
            taken[:] = free[:1]
            return Joined(free[0], name, token_hash(token), journal.now(), player)

        async with table.lock:
            await self.write(table, entry)
        self.attendance.watch(table, taken[0])
        await self.changed(table)
        return taken[0], token

    async def add_device(self, table: Table, player: str) -> tuple[int, str]:
        """A person's other device takes their own seat (``player``: their player key's): a new token
        for that seat, stored as a ``device`` entry; the seat's other devices keep theirs."""
        token = new_token()
        taken: list[int] = []

        def entry() -> Entry:
            seats = [i for i, s in enumerate(table.seats) if s.player == player and s.token_hash is not None]
            if not seats:
                raise ActionError("not_seated", "this player holds no seat at this table")
            taken[:] = seats[:1]
            return DeviceAdded(seats[0], token_hash(token))

        async with table.lock:
            await self.write(table, entry)
        return taken[0], token

    # -- acting --------------------------------------------------------------------------------
    async def act(self, table: Table, seat: int | None, message: models.TableAction) -> int:
        """Check, store, apply and publish one person's action; return the new version."""
        if seat is None:
            raise ActionError("spectator", "a spectator cannot act at the table")
        async with table.lock:
            if getattr(message, "version", 0) > table.version:  # seen through another process: catch up
                await self.catch_up_locked(table)
            await self.settle(table)  # a deal that failed to be stored earlier
            await self.store_entry(table, lambda: self._entry_for(table, seat, message))
            version = table.version
            try:
                await self.settle(table)
            except Exception:  # the action itself is stored; the deal is retried on the next request
                logger.exception("dealing on table %s failed", table.id)
        return version

    def _entry_for(self, table: Table, seat: int, message: models.TableAction) -> Entry:
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

    # -- writing: every entry goes through here ------------------------------------------------
    async def write(self, table: Table, entry: Callable[[], Entry | None]) -> bool:
        """Store the entry ``entry()`` makes and apply it (see :meth:`store_entry`), then settle the
        table (:meth:`settle`). Under the table's lock."""
        stored = await self.store_entry(table, entry)
        await self.settle(table)
        return stored

    async def settle(self, table: Table) -> None:
        """What each write may call for, in one place (under the table's lock): deal when the game
        waits for cards, give each replaced person who is present back their seat if the table
        awaits its decision (or the game is over: so they may host the rematch), then wake the bots;
        when the game is over, start its review (in the bot pool's workers). Nothing else puts a person back."""
        try:
            await self.store_entry(table, lambda: _deal(table, self.rng))
            for seat in table.replaced_present():
                await self.store_entry(table, functools.partial(_seat_back, table, seat))
            for seat in table.absent_for_bot():
                await self.store_entry(table, functools.partial(_absent_to_bot, table, seat))
        finally:
            self.bots.wake(table)
        # the lobby's rows (a public table that starts leaves the list), the people part (a game over is kept)
        await self.changed(table)
        self.reviews.advance(table)  # the turns completed so far are reviewed as the game is played
        if table.status == "over":
            self.reviews.want(table)

    async def store_entry(self, table: Table, entry: Callable[[], Entry | None]) -> bool:
        """Store the entry ``entry()`` makes (None: nothing to store) and apply it, under the table's lock.

        When another process has written the table meanwhile (its number is taken), this process
        catches up from the store and asks ``entry()`` again, against the table as it now is: the
        person is never told to reload. False when nothing was stored.
        """
        for _attempt in range(CONFLICT_TRIES):
            made = entry()
            if made is None:
                return False
            try:
                await self.commit(table, made)
            except StoreConflict:
                if self._observe_conflict is not None:
                    self._observe_conflict()
                await self.catch_up_locked(table)
                continue
            return True
        raise ActionError("server_error", "the table is changing too fast to store this action: nothing was "
                          "changed, try again")

    async def commit(self, table: Table, entry: Entry) -> None:
        """Check, then store, then apply and publish. A refused entry changes nothing; StoreConflict
        when another process stored an entry under this number first (this copy is behind)."""
        if self.closed:  # the store is closing or closed: nothing may be written any more
            raise ActionError("server_error", "the server is stopping: nothing was changed, try again")
        entry = journal.dated(entry)  # game entries and returns carry their time: a clock runs from it
        prepared = table.prepare(entry)
        try:
            await self.store.append(table.id, table.version, entry_to_json(entry), table.game_row(prepared))
        except StoreConflict:
            raise
        except Exception as error:  # the store failed (locked, gone): nothing was stored or applied
            raise store_failed(table.id, error) from None
        table.apply(entry, prepared)
        table.unannounced.append(entry)
        await self.hub.publish(table.news(entry=entry))

    # -- other processes' writes -----------------------------------------------------------------
    async def catch_up(self, table: Table) -> None:
        """Apply what other processes have stored for the table since this copy's version."""
        async with table.lock:
            moved = await self.catch_up_locked(table)
        if moved:
            self.bots.wake(table)

    async def catch_up_locked(self, table: Table) -> bool:
        entries = await self.store.journal(table.id, table.version)
        for data in entries or ():
            table.apply(entry_from_json(data))
        return bool(entries)

    async def follow(self, table: Table, update: Update) -> None:
        """Take in the hub's news of a table: once per process, however many of its connections hear it;
        each of them returns only once the table has caught up with it (so none renders a stale copy)."""
        if table.last_news is not update:
            table.last_news = update
            if update.presence is None and not update.recheck and update.version <= table.version:
                table.news_taken = None  # this process wrote it, or has it already: nothing to take in
                return
            table.news_taken = asyncio.ensure_future(self._take_news(table, update))
        if table.news_taken is not None:
            await asyncio.shield(table.news_taken)  # one connection closing does not stop the others' catch-up

    async def _take_news(self, table: Table, update: Update) -> None:
        if update.presence is not None:
            # Read again rather than trust the snapshot: news from two processes may arrive out of order.
            table.see(await self.hub.presence(table.id))
            self.attendance.watch_all(table)
        if update.entry is not None and update.version == table.version + 1 and not update.recheck:
            async with table.lock:
                if update.version == table.version + 1:  # the next entry: no need to read the store
                    table.apply(entry_from_json(update.entry))
                    self.bots.wake(table)
                    return
        if update.recheck or update.version > table.version:
            await self.catch_up(table)


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
