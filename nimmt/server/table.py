"""The table service: the one place that owns each table's state.

A table is rebuilt from its journal (see :mod:`nimmt.server.store`) by replaying every entry
through the rules core; each new entry is checked, stored, then applied, then published through
the hub, always under the table's lock, so nothing is ever half-applied. Bot seats act here,
server-side, from their own view. Nothing ever chooses a row for a person.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import hmac
import logging
import math
import random
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from nimmt.bots import BOTS
from nimmt.coach import CardAdvice, CoachError, RowAdvice, advise_cards, advise_rows
from nimmt.core import (
    AlreadyPlayed,
    CardNotInHand,
    CardPlaced,
    CardsRevealed,
    ChooseRow,
    Deal,
    Event,
    GameOver,
    GameState,
    IllegalAction,
    NotWaitingForThat,
    NotYourTurn,
    Phase,
    PlayCard,
    RowChoiceNeeded,
    RowOutOfRange,
    RowTaken,
    Rules,
    Step,
    View,
    deal_cards,
    view,
)
from nimmt.core.errors import NimmtError
from nimmt.records import GameRecord, Recorder

from . import journal
from .botpool import BotPool, PoolClosed, SeatBot, Thought
from .hub import LEASE_SECONDS, Hub, LocalHub, Presence, Update
from .journal import (
    Created,
    Dealt,
    Entry,
    GameEntry,
    Joined,
    JournalError,
    Played,
    Rematched,
    RowChosen,
    SeatBack,
    SeatToBot,
    Started,
    entry_from_json,
    entry_to_json,
)
from .models import CreateTable, TableOptions
from .store import GameRow, Store, StoreConflict

Status = Literal["lobby", "playing", "over"]
logger = logging.getLogger("nimmt.server")

ADVICE_SAMPLES = 200  # deals simulated per question: about a tenth of a second on one core
ADVICE_AT_ONCE = 2  # questions worked on at the same time by this process, all tables together


class ActionError(NimmtError):
    """An action refused with a code the client translates, and an English message for people
    reading logs or the protocol by hand. The table is left exactly as it was."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params

    def to_message(self, ref: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message, "params": self.params}
        if ref is not None:
            data["ref"] = ref
        return data


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_table_id() -> str:
    return secrets.token_urlsafe(9)


_CORE_ERRORS: tuple[tuple[type[IllegalAction], str], ...] = (
    (GameOver, "game_over"),
    (AlreadyPlayed, "already_chosen"),
    (CardNotInHand, "card_not_in_hand"),
    (RowOutOfRange, "no_such_row"),
    (NotYourTurn, "not_your_turn"),
    (NotWaitingForThat, "not_your_turn"),
)


def _core_error(error: IllegalAction) -> ActionError:
    for cls, code in _CORE_ERRORS:
        if isinstance(error, cls):
            return ActionError(code, str(error))
    return ActionError("illegal", str(error))


@dataclass
class Seat:
    name: str | None = None
    bot: str | None = None
    token_hash: str | None = None

    @property
    def taken(self) -> bool:
        return self.bot is not None or self.token_hash is not None


@dataclass
class Table:
    """One table: seats, options and the game in progress, rebuilt from the journal."""

    id: str
    seats: list[Seat]
    options: TableOptions
    language: str
    version: int = 1  # entries stored; the creating entry is the first
    game: int = 0  # 0 in the lobby, then 1, 2... (a rematch starts the next game)
    recorder: Recorder | None = None
    asked_since: dict[int, int] = field(default_factory=dict)  # seat -> version its decision began
    decisions: dict[int, tuple[int, int, str, int]] = field(default_factory=dict)  # seat -> what it decides
    reveal: dict[str, Any] | None = None  # the latest turn's reveal, for people to follow
    events: list[dict[str, Any]] = field(default_factory=list)  # of the latest entry
    finished_games: list[int] = field(default_factory=list)
    present: dict[int, int] = field(default_factory=dict)  # seat -> 1 while its person is here (any process)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bots: dict[int, SeatBot] = field(default_factory=dict)  # seat -> its bot's seed and state
    bot_task: asyncio.Task[None] | None = None
    advice: dict[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # seat -> (seed, last answer)
    away_grace: float = 30.0  # seconds a person must be away before anyone may hand their seat to a bot
    away_since: dict[int, float] = field(default_factory=dict)  # seat -> when its person left (monotonic)
    loaded_at: float = field(default_factory=time.monotonic)  # a person not seen since is away since then
    connections: int = 0  # WebSockets open on this table (spectators too)
    last_active: float = field(default_factory=time.monotonic)  # last asked for, acted on or left
    last_news: Update | None = None  # the hub's latest news taken in (each connection hears it)
    news_taken: asyncio.Future[None] | None = None  # taking it in: the table's connections wait for it

    # -- reading -------------------------------------------------------------------------------
    @property
    def status(self) -> Status:
        if self.recorder is None:
            return "lobby"
        return "over" if self.recorder.state.phase is Phase.OVER else "playing"

    @property
    def rules(self) -> Rules:
        return Rules(end_above=self.options.end_above, rounds=self.options.rounds)

    def seat_of(self, token: str | None) -> int | None:
        """The seat a token belongs to; every seat is compared, in constant time each."""
        if not token:
            return None
        digest = _hash(token)
        found: int | None = None
        for index, seat in enumerate(self.seats):
            if seat.token_hash is not None and hmac.compare_digest(digest, seat.token_hash):
                found = index
        return found

    def see(self, presence: Presence) -> None:
        """Who is at the table now, as the hub says: the people present, and since when the others left."""
        now, wall = time.monotonic(), time.time()
        self.present = {seat: 1 for seat, since in presence.items() if since is None}
        for seat, since in presence.items():
            if since is None:
                self.away_since.pop(seat, None)
            else:
                self.away_since[seat] = now - max(0.0, wall - since)

    def is_present(self, seat: int) -> bool:
        """Whether the person of this seat has a connection open now (whoever plays the seat)."""
        return self.present.get(seat, 0) > 0

    def away_seconds(self, seat: int, now: float | None = None) -> float | None:
        """How long the person of a seat has been away; None for a present person, a free seat or a
        seat a bot plays for nobody. A person not seen since the table was loaded is away since then."""
        if self.seats[seat].token_hash is None or self.is_present(seat):
            return None
        now = time.monotonic() if now is None else now
        return max(0.0, now - self.away_since.get(seat, self.loaded_at))

    @property
    def host(self) -> int | None:
        """The seat that holds the host's buttons (start, rematch): the creator (seat 0) when present,
        else the first present person in seat order whose seat no bot plays; None if nobody is here."""
        for index, seat in enumerate(self.seats):
            if seat.token_hash is not None and seat.bot is None and self.is_present(index):
                return index
        return None

    def seat_info(self, index: int) -> dict[str, Any]:
        seat = self.seats[index]
        return {
            "seat": index,
            "name": seat.name,
            "bot": seat.bot,
            "taken": seat.taken,
            "present": seat.bot is not None or self.is_present(index),
            "away_seconds": None if (away := self.away_seconds(index)) is None else round(away, 1),
            "replaced": seat.bot is not None and seat.token_hash is not None,  # a bot plays a person's seat
        }

    def news(self, presence: Presence | None = None, entry: Entry | None = None) -> Update:
        return Update(self.id, self.version, presence, entry=None if entry is None else entry_to_json(entry))

    # -- what comes next -------------------------------------------------------------------------
    def waiting_bots(self) -> list[int]:
        if self.recorder is None or self.recorder.state.phase not in (Phase.CHOOSE_CARDS, Phase.CHOOSE_ROW):
            return []
        return [p for p in self.recorder.state.waiting_for if self.seats[p].bot is not None]

    def needs_deal(self) -> bool:
        return self.recorder is not None and self.recorder.state.phase is Phase.DEAL

    # -- entries -------------------------------------------------------------------------------
    def check(self, entry: Entry) -> None:
        """Raise :class:`ActionError` if ``entry`` cannot be accepted now (nothing changes)."""
        match entry:
            case Joined():
                if self.status != "lobby":
                    raise ActionError("already_started", "the game has started: no seat is free")
            case Started():
                if self.recorder is not None:
                    raise ActionError("already_started", "the game has already started")
                empty = [i for i, s in enumerate(self.seats) if not s.taken]
                if empty:
                    raise ActionError("seats_not_filled", f"{len(empty)} seat(s) are still free", free=len(empty))
            case Rematched():
                if self.status != "over":
                    raise ActionError("not_over", "a rematch starts only after the game is over")
            case SeatToBot(seat=seat, bot=bot):
                if not 0 <= seat < len(self.seats) or self.seats[seat].token_hash is None:
                    raise ActionError("no_such_seat", f"seat {seat} is not a person's seat", seat=seat)
                if self.seats[seat].bot is not None:
                    raise ActionError("already_bot", f"a bot already plays seat {seat}", seat=seat)
                if self.is_present(seat):
                    raise ActionError("player_present", "this player is still at the table", seat=seat)
                if bot not in BOTS:
                    raise ActionError("unknown_bot", f"unknown bot {bot!r}", bot=bot)
                if self.status == "lobby":
                    raise ActionError("not_started", "the game has not started")
            case SeatBack(seat=seat):
                if not 0 <= seat < len(self.seats) or self.seats[seat].token_hash is None \
                        or self.seats[seat].bot is None:
                    raise ActionError("no_such_seat", f"no bot plays a person's seat {seat}", seat=seat)
            case Played() | RowChosen():
                if self.recorder is None:
                    raise ActionError("not_started", "the game has not started")
                if self.status == "over":
                    raise ActionError("game_over", "the game is over")
            case Dealt():
                pass
            case Created():
                raise ActionError("bad_message", "a table is created once")

    def prepare(self, entry: Entry) -> Prepared:
        """Check ``entry`` and work out its effect on the game without changing the table.

        Raises :class:`ActionError` if the entry cannot be accepted now.
        """
        self.check(entry)
        return self._effect(entry)

    def _effect(self, entry: Entry) -> Prepared:
        """What an entry does to the game (a stored entry is replayed this way, without the checks
        made when it was accepted: whoever was present then, say)."""
        match entry:
            case Started() | Rematched():
                names = tuple(s.name or "" for s in self.seats)
                return Prepared(Recorder(GameRecord(players=names, rules=self.rules)), None)
            case Dealt() | Played() | RowChosen():
                if self.recorder is None:
                    raise ActionError("not_started", "the game has not started")
                fork = _fork(self.recorder)
                try:
                    step = fork.add(_action(entry))
                except IllegalAction as error:
                    raise _core_error(error) from None
                return Prepared(fork, step)
        return Prepared(None, None)

    def game_row(self, prepared: Prepared) -> GameRow | None:
        """The game's record, stored with the entry that starts the game and with the one that ends it
        (between them the journal holds it: no record is written again at each action)."""
        if prepared.recorder is None:
            return None
        over = prepared.recorder.state.phase is Phase.OVER
        if prepared.step is not None and not over:
            return None
        game = self.game + (1 if prepared.step is None else 0)
        return GameRow(self.id, game, prepared.recorder.record.to_json(), over)

    def apply(self, entry: Entry, prepared: Prepared | None = None) -> None:
        """One step of the fold that is a table: apply an accepted entry (stored already, or being
        replayed from the journal)."""
        if prepared is None:
            prepared = self._effect(entry)
        self.version += 1
        self.events = []
        if isinstance(entry, Joined):
            seat = self.seats[entry.seat]
            seat.name, seat.token_hash = entry.name, entry.token_hash
            self.away_since[entry.seat] = _since(entry.at)  # until the person's page connects
        elif isinstance(entry, SeatToBot):
            self.seats[entry.seat].bot = entry.bot
        elif isinstance(entry, SeatBack):  # the person is back at their decision: the bot stops playing for them
            self.seats[entry.seat].bot = None
            self.bots.pop(entry.seat, None)
        elif isinstance(entry, Started | Rematched):
            self.game += 1
            self.recorder = prepared.recorder
            self.reveal = None
            self.asked_since = {}
            self.decisions = {}
        elif isinstance(entry, Created):
            raise JournalError("a table is created once: a second 'create' entry")
        else:
            assert prepared.recorder is not None and prepared.step is not None
            assert self.recorder is not None
            before = self.recorder.state
            self.recorder = prepared.recorder
            state = prepared.step.state
            self._follow(prepared.step.events, before)
            for p in state.waiting_for:
                key = (state.round, state.turn, state.phase.value, state.resolved)
                if self.decisions.get(p) != key:
                    self.decisions[p] = key
                    self.asked_since[p] = self.version
            if state.phase is Phase.OVER and self.game not in self.finished_games:
                self.finished_games.append(self.game)

    def _follow(self, events: tuple[Event, ...], before: GameState) -> None:
        out: list[dict[str, Any]] = []
        for event in events:
            if isinstance(event, CardsRevealed):
                self.reveal = {
                    "id": self.version,
                    "round": before.round,
                    "turn": before.turn + 1,
                    "rows_before": [list(r) for r in before.rows],  # so people can follow each placement
                    "cards": [[card, player] for card, player in sorted(
                        (c, p) for p, c in enumerate(event.cards))],
                    "placements": [],
                    "waiting": None,
                }
            elif isinstance(event, RowTaken) and self.reveal is not None:
                self.reveal["placements"].append(
                    {"player": event.player, "row": event.row, "took": list(event.cards),
                     "bullheads": event.bullheads, "chosen": event.chosen}
                )
            elif isinstance(event, CardPlaced) and self.reveal is not None:
                placements = self.reveal["placements"]
                if placements and placements[-1]["player"] == event.player and "card" not in placements[-1]:
                    placements[-1].update(card=event.card)
                else:
                    placements.append({"player": event.player, "card": event.card, "row": event.row,
                                       "took": [], "bullheads": 0, "chosen": False})
                self.reveal["waiting"] = None
            elif isinstance(event, RowChoiceNeeded) and self.reveal is not None:
                self.reveal["waiting"] = {"player": event.player, "card": event.card}
            out.append(_event_json(event))
        self.events = out


def _event_json(event: Event) -> dict[str, Any]:
    name = re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()  # CardsRevealed -> cards_revealed
    data: dict[str, Any] = {"type": name}
    for key in event.__slots__:
        value = getattr(event, key)
        data[key] = list(value) if isinstance(value, tuple) else value
    if isinstance(event, CardsRevealed):
        data["cards"] = list(event.cards)
    return data


class TableService:
    """Owns every table of this process: loading, acting, bots, and publishing updates."""

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
    ) -> None:
        """``bot_workers``: processes for the bots and the coach (default: the cores but one);
        ``bot_budget``: the most seconds a bot may think about a decision; ``idle_after``: seconds after
        which a table nobody is connected to and whose bots have nothing to do leaves memory (None:
        never); ``observe_bot(bot, seconds)`` hears how long each bot decision took; ``observe_conflict()``
        hears each write that found its number taken by another process."""
        self.store = store
        self.hub = hub
        self.bot_delay = bot_delay
        self.away_grace = away_grace
        self.bots = BotPool(bot_workers, budget=bot_budget, observe=observe_bot)
        self._observe_conflict = observe_conflict
        self.idle_after = idle_after
        self._sweeper: asyncio.Task[None] | None = None
        # Other processes may write this process's tables (a hub between processes): look at the store
        # when a table is asked for, and catch up when a write finds its number taken.
        self.shared = not isinstance(hub, LocalHub)
        self._bot_retries: dict[str, asyncio.Task[None]] = {}  # tables whose bots another process runs
        self._first_loaded: dict[str, float] = {}  # table -> when this process first loaded or made it
        self._watches: dict[tuple[str, int], asyncio.Task[None]] = {}  # publish when a person's grace runs out
        self.rng = rng or random.SystemRandom()
        self.make_id = make_id
        self._tables: dict[str, Table] = {}
        self._loading = asyncio.Lock()
        self._closed = False
        self._stopping = asyncio.Event()  # set by close(): wakes the bots from their pause
        self._advising: set[tuple[str, int]] = set()  # (table, seat) whose question is being worked on
        self._coach_slots = asyncio.Semaphore(ADVICE_AT_ONCE)

    async def close(self) -> None:
        """Stop the bots and wait until they have: the store closes next, and nothing may use it then.

        A bot is never cancelled in the middle of storing its action: a cancelled database call
        leaves SQLAlchemy closing the connection on its own, which can outlive the store and hang
        the event loop's shutdown. A bot finishes the action it is on, then stops.
        """
        self._closed = True
        self._stopping.set()
        tasks = [t.bot_task for t in self._tables.values() if t.bot_task is not None and not t.bot_task.done()]
        tasks += list(self._watches.values())  # they wake on _stopping and store nothing
        tasks += list(self._bot_retries.values())
        if self._sweeper is not None:
            tasks.append(self._sweeper)
        if tasks:
            await asyncio.wait(tasks)
        await self.bots.close()  # the workers stop; what they were thinking is dropped, never stored

    # -- lobby -------------------------------------------------------------------------------------
    async def create(self, request: CreateTable) -> tuple[Table, str]:
        for bot in request.bots:
            if bot not in BOTS:
                raise ActionError("unknown_bot", f"unknown bot {bot!r}: the bots are {', '.join(sorted(BOTS))}",
                                  bot=bot)
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
                        request.options.model_dump(), request.language, request.name, _hash(token), journal.now())
        table_id = self.make_id()
        try:
            await self.store.append(table_id, 0, entry_to_json(entry))
        except Exception as error:
            raise _store_failed(table_id, error) from None
        table = table_from(table_id, entry)
        table.away_grace = self.away_grace
        self._tables[table_id] = table
        self._first_loaded[table_id] = time.monotonic()
        self._sweep_soon()
        self._watch_away(table, 0)
        if request.start:  # play now: the game starts at once, its first deal stored with it
            try:
                async with table.lock:
                    await self._write(table, lambda: Started() if table.recorder is None else None)
                    await self._deal_if_needed(table)
            except Exception:  # the table is stored: it opens in the lobby, or deals when someone arrives
                logger.exception("starting table %s at once failed", table.id)
            self._wake_bots(table)
        return table, token

    async def get(self, table_id: str) -> Table | None:
        table = self._tables.get(table_id)
        if table is not None:
            table.last_active = time.monotonic()
            if self.shared:  # another process may have written it since this one last heard
                await self.catch_up(table)
            return table
        async with self._loading:
            if table_id in self._tables:
                return self._tables[table_id]
            entries = await self.store.journal(table_id)
            if not entries:
                return None
            try:
                table = _replay(table_id, entries)
            except (JournalError, ActionError, ValueError, TypeError) as error:  # damaged: said once, nothing changed
                logger.error("table %s cannot be read back from its journal: %s", table_id, error)
                raise ActionError("server_error", "this table's history cannot be read: nothing was changed") \
                    from None
            table.away_grace = self.away_grace
            table.loaded_at = time.monotonic()
            # A table this process loads for the first time (after a restart, say): everyone's page gets
            # its grace to reconnect from now; loaded again after leaving memory, absences go on counting.
            floor = self._first_loaded.setdefault(table_id, table.loaded_at)
            while len(self._first_loaded) > FIRST_LOADS_KEPT:  # the oldest are forgotten first
                del self._first_loaded[next(iter(self._first_loaded))]
            table.away_since = {seat: max(since, floor) for seat, since in table.away_since.items()}
            table.see(await self.hub.presence(table_id))  # who is here, and since when the others left
            self._tables[table_id] = table
            self._sweep_soon()
        for seat in range(len(table.seats)):
            self._watch_away(table, seat)
        self._wake_bots(table)
        if table.needs_deal():
            async with table.lock:
                await self._deal_if_needed(table)
        return table

    async def join(self, table: Table, name: str) -> tuple[int, str]:
        token = new_token()
        taken: list[int] = []

        def entry() -> Entry:
            table.check(Joined(-1, name, ""))
            free = [i for i, s in enumerate(table.seats) if not s.taken]
            if not free:
                raise ActionError("table_full", "every seat is taken")
            taken[:] = free[:1]
            return Joined(free[0], name, _hash(token), journal.now())

        async with table.lock:
            await self._write(table, entry)
        self._watch_away(table, taken[0])
        return taken[0], token

    # -- acting --------------------------------------------------------------------------------
    async def act(self, table: Table, seat: int | None, message: Any) -> int:
        """Check, store, apply and publish one person's action; return the new version."""
        if seat is None:
            raise ActionError("spectator", "a spectator cannot act at the table")
        async with table.lock:
            if getattr(message, "version", 0) > table.version:  # seen through another process: catch up
                await self._catch_up_locked(table)
            await self._deal_if_needed(table)  # a deal that failed to be stored earlier
            await self._write(table, lambda: self._entry_for(table, seat, message))
            version = table.version
            try:
                await self._deal_if_needed(table)
                await self._seats_back(table)
            except Exception:  # the action itself is stored; the deal is retried on the next request
                logger.exception("dealing on table %s failed", table.id)
        self._wake_bots(table)
        return version

    def _entry_for(self, table: Table, seat: int, message: Any) -> Entry:
        """The entry a person's message asks for, checked against the table as it is now."""
        kind = message.type
        if table.seats[seat].bot is not None:
            raise ActionError("seat_is_bot", "a bot plays this seat now")
        if kind in ("start", "rematch") and seat != table.host:
            raise ActionError("not_creator", "only the table's host can do this: the creator, or while the "
                              "creator is away, the first person present")
        if kind == "start":
            return Started()
        if kind == "rematch":
            return Rematched()
        if kind == "seat_to_bot":
            entry = SeatToBot(message.seat, message.bot)
            table.check(entry)
            left = table.away_grace - (table.away_seconds(message.seat) or 0.0)
            if left > 0:
                raise ActionError("not_away_long", f"this player has been away less than {table.away_grace:g} "
                                  f"seconds: wait {math.ceil(left)} more", seat=message.seat,
                                  seconds_left=math.ceil(left))
            return entry
        if kind == "play":
            self._check_version(table, seat, message.version)
            _check_repeat(table, seat, Phase.CHOOSE_CARDS)
            return Played(seat, message.card)
        if kind == "choose_row":
            self._check_version(table, seat, message.version)
            _check_repeat(table, seat, Phase.CHOOSE_ROW)
            return RowChosen(seat, message.row)
        raise ActionError("bad_message", f"unknown message type {kind!r}")

    def _check_version(self, table: Table, seat: int, version: int) -> None:
        if version > table.version or version < 0:
            raise ActionError("bad_version", f"version {version} does not exist (the table is at {table.version})",
                              version=version, current=table.version)
        since = table.asked_since.get(seat)
        if since is not None and version < since:
            raise ActionError("stale", f"this action was made on version {version}, but the table has moved on "
                              f"(version {table.version}): look again and choose", version=version,
                              current=table.version)

    async def _write(self, table: Table, entry: Callable[[], Entry | None]) -> bool:
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
                await self._commit(table, made)
            except StoreConflict:
                if self._observe_conflict is not None:
                    self._observe_conflict()
                await self._catch_up_locked(table)
                continue
            return True
        raise ActionError("server_error", "the table is changing too fast to store this action: nothing was "
                          "changed, try again")

    async def _commit(self, table: Table, entry: Entry) -> None:
        """Check, then store, then apply and publish. A refused entry changes nothing; StoreConflict
        when another process stored an entry under this number first (this copy is behind)."""
        if self._closed:  # the store is closing or closed: nothing may be written any more
            raise ActionError("server_error", "the server is stopping: nothing was changed, try again")
        prepared = table.prepare(entry)
        try:
            await self.store.append(table.id, table.version, entry_to_json(entry), table.game_row(prepared))
        except StoreConflict:
            raise
        except Exception as error:  # the store failed (locked, gone): nothing was stored or applied
            raise _store_failed(table.id, error) from None
        table.apply(entry, prepared)
        await self.hub.publish(table.news(entry=entry))

    async def catch_up(self, table: Table) -> None:
        """Apply what other processes have stored for the table since this copy's version."""
        async with table.lock:
            moved = await self._catch_up_locked(table)
        if moved:
            self._wake_bots(table)

    async def _catch_up_locked(self, table: Table) -> bool:
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
            for seat in range(len(table.seats)):
                self._watch_away(table, seat)
        if update.entry is not None and update.version == table.version + 1 and not update.recheck:
            async with table.lock:
                if update.version == table.version + 1:  # the next entry: no need to read the store
                    table.apply(entry_from_json(update.entry))
                    self._wake_bots(table)
                    return
        if update.recheck or update.version > table.version:
            await self.catch_up(table)

    async def _seats_back(self, table: Table) -> None:
        """Give each replaced person who is present back their seat, if the table awaits its decision
        now (under the table's lock, before the bot acts), or once the game is over (so that they may
        host the rematch, and play it themselves). Nothing else puts a person back."""
        for seat in range(len(table.seats)):
            def entry(seat: int = seat) -> Entry | None:
                waited = table.status == "over" or seat in table.waiting_bots()
                if waited and table.seats[seat].bot is not None and table.seats[seat].token_hash is not None \
                        and table.is_present(seat):
                    return SeatBack(seat)
                return None

            await self._write(table, entry)

    async def _deal_if_needed(self, table: Table) -> None:
        def entry() -> Entry | None:
            if not table.needs_deal():
                return None
            deal = deal_cards(len(table.seats), self.rng)
            return Dealt(deal.rows, deal.hands)

        await self._write(table, entry)

    # -- the coach -------------------------------------------------------------------------------
    async def advise(self, table: Table, seat: int | None) -> dict[str, Any]:
        """The coach's advice on ``seat``'s own decision now, from that seat's view only.

        Nothing is stored and nothing changes: the answer goes back to the one who asked. One
        question per seat at a time (``advice_busy``); the same question again (same decision) is
        answered from the last answer, which a fixed seed makes the same anyway.
        """
        if seat is None:
            raise ActionError("spectator", "a spectator has no cards to be advised on")
        if table.recorder is None:
            raise ActionError("not_started", "the game has not started")
        if not table.options.coach:
            raise ActionError("coach_off", "the coach is turned off at this table")
        if table.seats[seat].bot is not None:
            raise ActionError("seat_is_bot", "a bot plays this seat now")
        if table.status == "over":
            raise ActionError("game_over", "the game is over")
        seen = view(table.recorder.state, seat)
        legal = seen.legal_actions()
        if any(isinstance(a, ChooseRow) for a in legal):
            kind = "rows"
        elif any(isinstance(a, PlayCard) for a in legal):
            kind = "cards"
        else:
            raise ActionError("no_advice", "no decision of yours is awaited now: there is nothing to advise on")
        seed = advice_seed(table.id, table.game, seen, kind)
        last = table.advice.get(seat)
        if last is not None and last[0] == seed:
            return {**last[1], "version": table.version}
        key = (table.id, seat)
        if key in self._advising:
            raise ActionError("advice_busy", "the coach is still working on this seat's last question")
        self._advising.add(key)
        version = table.version
        try:
            async with self._coach_slots:
                # In a worker process: the other tables go on while the coach works.
                answer = await self.bots.run(table.id, _advice, seen, kind, seed)
        except CoachError as error:
            raise ActionError("no_advice", str(error)) from None
        finally:
            self._advising.discard(key)
        table.advice[seat] = (seed, answer)
        return {**answer, "version": version}

    # -- presence ------------------------------------------------------------------------------
    async def arrive(self, table: Table, seat: int | None) -> None:
        if seat is None:
            return
        presence = await self.hub.arrive(table.id, seat)
        table.see(presence)
        back = table.seats[seat].bot is not None and (seat in table.waiting_bots() or table.status == "over")
        if table.needs_deal() or back:
            # A replaced person is back while the table awaits their seat: theirs again, before the bot acts.
            try:
                async with table.lock:
                    version = table.version
                    await self._deal_if_needed(table)  # a deal that failed to be stored earlier
                    await self._seats_back(table)
                if table.version != version:
                    self._wake_bots(table)
            except Exception:  # storing failed: the bot plays on, and the next decision tries again
                logger.exception("giving seat %s of table %s back failed", seat, table.id)
        await self.hub.publish(table.news(presence))

    async def leave(self, table: Table, seat: int | None) -> None:
        if seat is None:
            return
        presence = await self.hub.leave(table.id, seat)
        table.see(presence)
        if not table.is_present(seat):
            self._watch_away(table, seat)
        if not self._closed:
            await self.hub.publish(table.news(presence))

    def _watch_away(self, table: Table, seat: int) -> None:
        """Publish an update once this seat's person has been away ``away_grace`` seconds, so every page
        learns that the seat may now go to a bot (the update carries each seat's ``away_seconds``)."""
        if self._closed or table.away_grace <= 0 or table.away_seconds(seat) is None:
            return
        since = table.away_since.get(seat, table.loaded_at)
        key = (table.id, seat)
        earlier = self._watches.get(key)
        if earlier is not None:
            earlier.cancel()  # the person came and went again: only the latest absence counts
        watch = self._watches[key] = asyncio.create_task(self._publish_after_grace(table, seat, since))
        watch.add_done_callback(lambda done: self._watches.pop(key) if self._watches.get(key) is done else None)

    async def _publish_after_grace(self, table: Table, seat: int, since: float) -> None:
        delay = since + table.away_grace - time.monotonic() + 0.01
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), max(0.0, delay))
        still_away = table.away_seconds(seat) is not None and table.away_since.get(seat, table.loaded_at) == since
        if not self._closed and still_away and table.seats[seat].bot is None and self._tables.get(table.id) is table:
            await self.hub.publish(table.news())

    # -- bots ----------------------------------------------------------------------------------
    def _wake_bots(self, table: Table) -> None:
        if self._closed or not (table.waiting_bots() or table.needs_deal()):
            return
        if table.bot_task is None or table.bot_task.done():
            table.bot_task = asyncio.create_task(self._run_bots(table))

    def _bots_later(self, table: Table) -> None:
        """Another process holds the table's lease: look again in a while, in case it has died."""
        if self._closed or table.id in self._bot_retries:
            return

        async def later() -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), LEASE_SECONDS / 3)
            if self._closed or self._tables.get(table.id) is not table:
                return
            try:
                await self.catch_up(table)
            except Exception as error:  # the store is away: the next news or request tries again
                logger.warning("catching up table %s failed: %s", table.id, error)
            self._wake_bots(table)

        retry = self._bot_retries[table.id] = asyncio.create_task(later())
        retry.add_done_callback(lambda _done: self._bot_retries.pop(table.id, None))

    async def _run_bots(self, table: Table) -> None:
        """Let the bots the table waits for act, until it waits for none.

        Each round of decisions: under the table's lock, only long enough to see which bots are
        waited for and what each sees; then the bots think at once, outside the lock (in the worker
        processes of :mod:`nimmt.server.botpool`, or at once for a quick bot), while people act on; then,
        no sooner than ``bot_delay`` after the round began (so people can follow), each answer is
        committed in seat order under the lock, if the decision it answers is still the one asked.
        An answer to a decision that has gone (the seat was given back, a new game) is dropped, and
        the bot is asked again.
        """
        delay = self.bot_delay
        while not self._closed:
            began = time.monotonic()
            try:
                if not await self.hub.lease(table.id):  # another process runs this table's bots
                    self._bots_later(table)
                    return
                asks = await self._bots_asked(table)
                if not asks:
                    return
                thoughts = [asyncio.ensure_future(self.bots.decide(table.id, ask.seat_bot, ask.seen))
                            for ask in asks]
                try:
                    if not await self._until_stopped(self._pause(began, delay)):
                        return
                    for ask, thought in zip(asks, thoughts, strict=True):
                        if not await self._until_stopped(thought) or self._closed:
                            return  # the server stops: nothing more is stored
                        if not await self._bot_commit(table, ask, thought.result()):
                            break  # a row choice comes next, after a pause
                finally:
                    for thought in thoughts:
                        thought.cancel()
                    await asyncio.gather(*thoughts, return_exceptions=True)
                delay = self.bot_delay
            except PoolClosed:
                return
            except ActionError as error:  # the store failed (logged in a line): the bots try again shortly
                logger.warning("a bot's action on table %s was not stored: %s", table.id, error.message)
                delay = max(self.bot_delay, 1.0)
            except Exception:  # something unforeseen: nothing was applied; the bots try again shortly
                logger.exception("a bot's action on table %s failed", table.id)
                delay = max(self.bot_delay, 1.0)

    async def _pause(self, began: float, delay: float) -> None:
        await asyncio.sleep(max(0.0, began + delay - time.monotonic()))

    async def _until_stopped(self, waiting: Any) -> bool:
        """Wait for ``waiting`` (a coroutine or a future); False if the server stops first."""
        task = asyncio.ensure_future(waiting)
        stop = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait([task, stop], return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not task.done():
            task.cancel()
            return False
        return not self._closed

    async def _bots_asked(self, table: Table) -> list[_Ask]:
        """The bots the table waits for now, each with its view (under the lock, briefly)."""
        async with table.lock:
            await self._deal_if_needed(table)
            await self._seats_back(table)
            if self._closed or table.recorder is None:
                return []
            asks = []
            for seat in table.waiting_bots():
                name = table.seats[seat].bot or ""
                seat_bot = table.bots.get(seat)
                if seat_bot is None or seat_bot.name != name:
                    seat_bot = table.bots[seat] = SeatBot(name, self.rng.random())
                asks.append(_Ask(seat, table.game, table.decisions.get(seat), seat_bot,
                                 view(table.recorder.state, seat)))
            return asks

    async def _bot_commit(self, table: Table, ask: _Ask, thought: Thought) -> bool:
        """Store a bot's answer if its decision is still the one asked; False when the table waits for a
        row choice next (which comes after a pause)."""
        async with table.lock:
            if self._closed or table.recorder is None:
                return False
            if (table.game != ask.game or table.seats[ask.seat].bot != ask.seat_bot.name
                    or table.bots.get(ask.seat) is not ask.seat_bot or ask.seat not in table.waiting_bots()
                    or table.decisions.get(ask.seat) != ask.decision):
                return True  # the table moved on meanwhile: this answer is dropped, the bot is asked again
            if thought.state is not None:
                ask.seat_bot.state = thought.state
            if isinstance(thought.action, PlayCard):
                entry: Entry = Played(ask.seat, thought.action.card)
            else:
                entry = RowChosen(ask.seat, thought.action.row)
            try:
                await self._commit(table, entry)
            except StoreConflict:  # another process moved the table on: see where it is, ask again
                await self._catch_up_locked(table)
                return True
            await self._deal_if_needed(table)
            await self._seats_back(table)
            table.last_active = time.monotonic()
            return table.recorder.state.phase is not Phase.CHOOSE_ROW

    # -- memory: idle tables leave it ------------------------------------------------------------
    def opened(self, table: Table) -> None:
        """A WebSocket is open on the table (a spectator's too): it stays in memory meanwhile."""
        table.connections += 1
        table.last_active = time.monotonic()

    def closed(self, table: Table) -> None:
        table.connections = max(0, table.connections - 1)
        table.last_active = time.monotonic()

    def _idle(self, table: Table, now: float) -> bool:
        return (self.idle_after is not None and table.connections == 0 and not table.lock.locked()
                and (table.bot_task is None or table.bot_task.done()) and not table.waiting_bots()
                and not table.needs_deal() and now - table.last_active >= self.idle_after
                and not any(key[0] == table.id for key in self._advising))

    def evict_idle(self, later: float = 0.0) -> list[str]:
        """Drop every idle table from memory (it comes back from the store when asked for); their ids.
        ``later``: as if that many seconds more had passed (for tests)."""
        now = time.monotonic()
        gone = [table for table in self._tables.values() if self._idle(table, now + later)]
        for table in gone:
            del self._tables[table.id]
            for seat in range(len(table.seats)):
                watch = self._watches.get((table.id, seat))
                if watch is not None:
                    watch.cancel()
        return [table.id for table in gone]

    def _sweep_soon(self) -> None:
        if self.idle_after is None or self._closed or (self._sweeper is not None and not self._sweeper.done()):
            return
        self._sweeper = asyncio.create_task(self._sweep())

    async def _sweep(self) -> None:
        assert self.idle_after is not None
        every = min(60.0, max(0.05, self.idle_after / 4))
        while not self._closed and self._tables:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), every)
            if self._closed:
                return
            gone = self.evict_idle()
            if gone:
                logger.debug("%d idle table(s) left memory", len(gone))


FIRST_LOADS_KEPT = 100_000  # tables whose first load this process remembers
CONFLICT_TRIES = 5  # times an action is tried again after another process wrote the table first


@dataclass(frozen=True, slots=True)
class _Ask:
    """One decision asked of a bot: its seat, the game and decision it answers, the bot, its view."""

    seat: int
    game: int
    decision: tuple[int, int, str, int] | None
    seat_bot: SeatBot
    seen: View


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


def _store_failed(table_id: str, error: Exception) -> ActionError:
    """A store that failed: one line in the log, and a refusal that says nothing was changed."""
    logger.warning("storing on table %s failed: %s: %s", table_id, type(error).__name__, error)
    return ActionError("server_error", "the server could not store this action: nothing was changed, try again")


def advice_seed(table_id: str, game: int, seen: View, kind: str) -> str:
    """The coach's random seed for one decision of one seat: from public facts only (the view holds
    the rest), so asking twice gives the same numbers and no other random source is touched."""
    return f"nimmt:{table_id}:{game}:coach:{seen.player}:{seen.round}:{seen.turn}:{seen.resolved}:{kind}"


def _advice(seen: View, kind: str, seed: str) -> dict[str, Any]:
    """The advice message for ``seen`` (run in a worker process): numbers only, as :mod:`nimmt.coach` gives them."""
    rng = random.Random(seed)
    answer: dict[str, Any] = {"type": "advice", "kind": kind, "round": seen.round, "turn": seen.turn,
                              "samples": ADVICE_SAMPLES}
    if kind == "cards":
        answer["cards"] = [_card_advice_json(a) for a in advise_cards(seen, samples=ADVICE_SAMPLES, rng=rng)]
    else:
        answer["card"] = seen.row_choice_card
        answer["rows"] = [_row_advice_json(a) for a in advise_rows(seen, samples=ADVICE_SAMPLES, rng=rng)]
    return answer


def _card_advice_json(advice: CardAdvice) -> dict[str, Any]:
    return {"card": advice.card, "row": advice.row, "take_chance": advice.take_chance,
            "turn_bullheads": advice.turn_bullheads, "exact": advice.exact,
            "round_bullheads": advice.round_bullheads, "round_stderr": advice.round_stderr,
            # The learned network's second opinion (null without NumPy): see docs/protocol.md.
            "net_bullheads": advice.net_bullheads, "net_chance": advice.net_chance}


def _row_advice_json(advice: RowAdvice) -> dict[str, Any]:
    return {"row": advice.row, "now": advice.now, "later": advice.later, "later_stderr": advice.later_stderr,
            "total": advice.total, "net_total": advice.net_total}


def _action(entry: GameEntry) -> Deal | PlayCard | ChooseRow:
    """The core's action that a game entry records."""
    match entry:
        case Dealt():
            return Deal(entry.rows, entry.hands)
        case Played():
            return PlayCard(entry.seat, entry.card)
        case RowChosen():
            return ChooseRow(entry.seat, entry.row)


@dataclass(frozen=True, slots=True)
class Prepared:
    recorder: Recorder | None  # the game as it will be (None: the entry does not touch the game)
    step: Step | None  # the core's step for a game action


def _fork(recorder: Recorder) -> Recorder:
    """A copy that can take an action without touching the original (its record and state are
    immutable; only the turn being written is mutable)."""
    fork = copy.copy(recorder)
    fork._cards = dict(recorder._cards)
    fork._rows = dict(recorder._rows)
    return fork


def _since(at: float | None) -> float:
    """When a create or join entry was made, on this process's monotonic clock (now, for an entry
    stored before entries were dated)."""
    now = time.monotonic()
    return now if at is None else now - max(0.0, time.time() - at)


def _replay(table_id: str, entries: list[dict[str, Any]]) -> Table:
    """The table its stored journal makes: the fold of its entries."""
    table = table_from(table_id, entry_from_json(entries[0]))
    for data in entries[1:]:
        table.apply(entry_from_json(data))
    return table


def table_from(table_id: str, entry: Entry) -> Table:
    """The table its first entry makes (the start of the fold)."""
    if not isinstance(entry, Created):
        raise JournalError(f"a table's journal starts with its 'create' entry, not {type(entry).__name__}")
    seats = [Seat() for _ in range(entry.seats)]
    seats[0] = Seat(name=entry.name, token_hash=entry.token_hash)
    for index, bot in entry.bots.items():
        seats[index] = Seat(name=f"Bot {index + 1}", bot=bot)
    table = Table(id=table_id, seats=seats, options=TableOptions(**entry.options), language=entry.language)
    table.away_since[0] = _since(entry.at)
    return table
