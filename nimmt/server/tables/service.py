"""The table service: it holds this process's tables, one :class:`~.host.TableHost` each (creates,
loads, keeps, evicts them), and composes the parts that act on them.

A table is rebuilt from its journal (see :mod:`nimmt.server.store`) by replaying every entry
through the rules core. Every change of a table is a command (:mod:`.commands`) submitted to its
host (:meth:`TableService.submit`), the one writer of the table: check, store, apply, then what
the write calls for, then one :class:`~.changes.TableChanged` to the keepers (the people part's
keeper of finished games and where each person sits: kept before the command's news goes out),
the news, then the same change to the listeners. The listeners, in order: the bots (:mod:`.bots`:
woken when the table waits for them), the clocks' timers (:mod:`.clock`), the reviews
(:mod:`.reviews`: each finished game's review), then what the app gives (the lobby's and clocks'
rows, quick start, notices). None of the
parts holds the service: each holds the narrow :class:`~.commands.Port` (submit a command, get a
table, see whether the process stops), which the service is. The others: :mod:`.presence` (who is
here, and the grace before a seat goes to a bot), :mod:`.memory` (idle tables leave memory),
:mod:`.coach` (the coach: advice, nothing written). Nothing ever chooses a row for a person.

Another process's writes come as the hub's news (:meth:`TableService.follow`): the host takes them
in (:class:`~.commands.CatchUp`), and the bots and clocks look again.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

from nimmt.bots import BOTS

from .. import journal, models
from ..botpool import BotPool
from ..hub import Hub, LocalHub, Update
from ..journal import Created, JournalError, entry_to_json
from ..models import CreateTable
from ..store import Store
from .bots import Bots
from .changes import TableListener
from .clock import Clocks
from .coach import Coach
from .commands import Act, AddDevice, Announce, CatchUp, Command, Due, Join, Outcome, StartGame
from .errors import ActionError, store_failed
from .host import Ground, TableHost
from .memory import Memory
from .presence import Attendance
from .reviews import Reviews
from .state import token_hash
from .table import Table

logger = logging.getLogger("nimmt.server")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_table_id() -> str:
    return secrets.token_urlsafe(9)


class Held(Mapping[str, Table]):
    """The tables this process holds, by id (a read-only view of the hosts)."""

    def __init__(self, hosts: dict[str, TableHost]) -> None:
        self._hosts = hosts

    def __getitem__(self, table_id: str) -> Table:
        return self._hosts[table_id].table

    def __iter__(self) -> Iterator[str]:
        return iter(self._hosts)

    def __len__(self) -> int:
        return len(self._hosts)


class TableService:
    """Every table of this process and the parts that act on them: the bots (:attr:`bots`), the coach
    (:attr:`coach`), presence (:attr:`attendance`), memory (:attr:`memory`), the clocks (:attr:`clocks`)
    and the reviews (:attr:`reviews`). It is the parts' :class:`~.commands.Port`."""

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
        keepers: Sequence[TableListener] = (),
        game_abandoned: Callable[[Table], Awaitable[None]] | None = None,
    ) -> None:
        """``bot_workers``: processes for the bots and the coach (default: the cores but one);
        ``bot_budget``: the most seconds a bot may think about a decision; ``idle_after``: seconds after
        which a table nobody is connected to and whose bots have nothing to do leaves memory (None:
        never); ``observe_bot(bot, seconds)`` hears how long each bot decision took; ``observe_conflict()``
        hears each write that found its number taken by another process; ``listeners``: what hears each
        :class:`~.changes.TableChanged` after the service's own parts (more with :meth:`subscribe`):
        the lobby's and clocks' rows; ``keepers``: what hears each change before its news goes out (see
        :meth:`subscribe`): the people part keeping finished games; ``game_abandoned(table)``:
        heard when a table leaves memory with its game in progress and nobody at it (kept as abandoned)."""
        self.store = store
        self.hub = hub
        self.away_grace = away_grace
        self.rng = rng or random.SystemRandom()
        self.make_id = make_id
        # Other processes may write this process's tables (a hub between processes): look at the store
        # when a table is asked for, and catch up when a write finds its number taken.
        self.shared = not isinstance(hub, LocalHub)
        self.hosts: dict[str, TableHost] = {}
        self.tables = Held(self.hosts)
        self._stopping = asyncio.Event()  # set by close(): wakes the bots and watches from their pause
        self._loading = asyncio.Lock()
        self.ground = Ground(store, hub, self.rng, observe_conflict=observe_conflict)
        self.pool = BotPool(bot_workers, budget=bot_budget, observe=observe_bot)
        self.bots = Bots(self, hub, self.pool, bot_delay)
        self.coach = Coach(self.pool)
        self.attendance = Attendance(self, hub)
        self.clocks = Clocks(self)
        self.reviews = Reviews(self, store, self.pool)
        self.memory = Memory(self, self.hosts, idle_after, busy=self._busy, gone=self.attendance.forget,
                             abandoned=game_abandoned)
        # Each hears that a table changed (made, joined, written, somebody came or went), in this order.
        self.ground.listeners += [self.bots.heard, self.clocks.heard, self.reviews.heard, *listeners]
        self.ground.keepers += keepers

    # -- the parts' port --------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self.ground.closed

    @property
    def stopping(self) -> asyncio.Event:
        return self._stopping

    def holds(self, table: Table) -> bool:
        host = self.hosts.get(table.id)
        return host is not None and host.table is table

    async def submit(self, table: Table, command: Command) -> Outcome:
        """Run ``command`` on the table's host: the one way a table changes (see :mod:`.host`)."""
        host = self.hosts.get(table.id)
        if host is None or host.table is not table:  # a copy that has left memory: the table is loaded anew
            raise ActionError("server_error", "this table was put away meanwhile: nothing was changed, try again")
        return await host.submit(command)

    def subscribe(self, listener: TableListener, *, keeper: bool = False) -> None:
        """``listener(change)`` hears every :class:`~.changes.TableChanged` of this process's tables from
        now on, after the listeners before it; an awaitable it returns is awaited before the change's
        command returns. It must not raise (what it raises is logged and dropped), nor wait for a
        command of the same table (a task of its own may). A ``keeper`` (what keeps the change outside
        the journal, for pages to read) hears it before its news goes out, and the news waits for the
        awaitable it returns, at most :data:`~.host.KEEP_SECONDS`."""
        (self.ground.keepers if keeper else self.ground.listeners).append(listener)

    async def close(self) -> None:
        """Stop the bots and wait until they have: the store closes next, and nothing may use it then.

        A bot is never cancelled in the middle of storing its action: a cancelled database call
        leaves SQLAlchemy closing the connection on its own, which can outlive the store and hang
        the event loop's shutdown. A bot finishes the action it is on, then stops.
        """
        self.ground.closed = True
        self._stopping.set()
        tasks = self.bots.tasks()
        tasks += list(self.attendance.watches.values())  # they wake on stopping and store nothing
        tasks += self.clocks.tasks()  # they wake on stopping too
        if self.memory.sweeper is not None:
            tasks.append(self.memory.sweeper)
        if tasks:
            await asyncio.wait(tasks)
        if self.ground.keeping:  # the keepers' writes past their wait: the store closes after them
            await asyncio.wait(list(self.ground.keeping))
        await self.reviews.stop()  # the reviews being made are dropped (made again when asked for)
        await self.pool.close()  # the workers stop; what they were thinking is dropped, never stored

    def _busy(self, table_id: str) -> bool:
        return self.bots.busy_with(table_id) or self.coach.busy_with(table_id) or self.clocks.armed(table_id)

    def moved(self, table: Table) -> None:
        """The table moved on without a command of this process (loaded, or another process wrote it):
        the bots and the clocks look again, and the review of a game followed here goes on."""
        self.bots.wake(table)
        self.clocks.arm(table)
        self.reviews.moved(table)

    # -- the doors the app and the connections use --------------------------------------------------
    async def act(self, table: Table, seat: int | None, message: models.TableAction) -> int:
        """One person's action (:class:`~.commands.Act`); the table's version after it."""
        return (await self.submit(table, Act(seat, message))).version

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
        table.away_grace = self.away_grace
        host = self.hosts[table_id] = TableHost(table, self.ground, stored=(entry,))
        self.memory.loaded(table)
        self.memory.sweep_soon()
        self.attendance.watch(table, 0)
        if request.start:  # play now: the game starts at once, its first deal stored with it
            try:
                await host.submit(StartGame())  # the listeners hear of the table and its start at once
            except Exception:  # the table is stored: it opens in the lobby, or deals when someone arrives
                logger.exception("starting table %s at once failed", table.id)
        else:
            await host.submit(Announce())  # the listeners hear of the new table
        return table, token

    async def get(self, table_id: str) -> Table | None:
        """The table, loaded from its journal if this process does not hold it; None when there is none."""
        held = self.hosts.get(table_id)
        if held is not None:
            table = held.table
            table.last_active = time.monotonic()
            if self.shared:  # another process may have written it since this one last heard
                await self.catch_up(table)
            return table
        async with self._loading:
            if table_id in self.hosts:
                return self.hosts[table_id].table
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
            host = self.hosts[table_id] = TableHost(table, self.ground)
            self.memory.sweep_soon()
        self.attendance.watch_all(table)
        self.moved(table)
        if table.needs_deal():
            await host.submit(Due())
        return table

    async def join(self, table: Table, name: str, player: str | None = None) -> tuple[int, str]:
        """A person takes the first free seat (:class:`~.commands.Join`); their seat and its token."""
        token = new_token()
        seat = (await self.submit(table, Join(name, token_hash(token), player))).seat
        assert seat is not None
        self.attendance.watch(table, seat)
        return seat, token

    async def add_device(self, table: Table, player: str) -> tuple[int, str]:
        """A person's other device takes their own seat (``player``: their player key's): a new token
        for that seat, stored as a ``device`` entry; the seat's other devices keep theirs."""
        token = new_token()
        seat = (await self.submit(table, AddDevice(player, token_hash(token)))).seat
        assert seat is not None
        return seat, token

    # -- other processes' writes -----------------------------------------------------------------
    async def catch_up(self, table: Table) -> None:
        """Apply what other processes have stored for the table since this copy's version."""
        if (await self.submit(table, CatchUp())).moved:
            self.moved(table)

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
        outcome = await self.submit(table, CatchUp(update))
        if update.presence is not None:
            self.attendance.watch_all(table)
        if outcome.moved or update.presence is not None:
            self.moved(table)
