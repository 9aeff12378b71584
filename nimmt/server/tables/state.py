"""A table's state as its journal makes it: the fold of the entries, the checks that refuse one, and
the questions asked of that state.

Each accepted entry (see :mod:`nimmt.server.journal`) is one step: :meth:`TableState.check` says
whether an entry can be accepted now, :meth:`TableState.prepare` works out its effect without
changing anything, :meth:`TableState.apply` takes the step. The questions (whose decision the table
awaits, whether a round needs a deal, which replaced seats go back to their person) read only this
state, and presence: here nobody is present (:meth:`TableState.is_present`), and the runtime's
:class:`nimmt.server.tables.table.Table`, a subclass, answers from who is connected. No lock, task
or connection here; the times kept are the entries' own (when a decision was asked, when the table
was made), and the bots' names at the table come in the table's language (:func:`bot_name`).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any, Literal, Self

from nimmt.bots import BOTS
from nimmt.core import BULLHEADS, ChooseRow, Deal, IllegalAction, Phase, PlayCard, Rules, Step
from nimmt.i18n import translator
from nimmt.records import GameRecord, Recorder

from ..journal import (
    BotSeated,
    BotUnseated,
    Created,
    Dealt,
    DeviceAdded,
    Entry,
    GameEntry,
    Joined,
    JournalError,
    Played,
    RematchAsked,
    Rematched,
    Reviewed,
    RowChosen,
    SeatBack,
    SeatToBot,
    Started,
    TakenBack,
)
from ..models import TableOptions
from ..store import GameRow
from .errors import ActionError, core_error
from .events import follow

Status = Literal["lobby", "playing", "over"]
Decision = tuple[int, int, str, int]  # round, turn, phase and cards placed when a seat was asked
DEVICES = 4  # a seat's other devices whose tokens open it (besides the first)


def token_hash(token: str) -> str:
    """A seat's token as stored: hashed, never the token itself."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class Seat:
    name: str | None = None
    bot: str | None = None
    token_hash: str | None = None
    player: str | None = None  # the person's player (docs/people.md), when their browser has one
    devices: list[str] = field(default_factory=list)  # token hashes of the person's other devices (the latest)

    @property
    def taken(self) -> bool:
        return self.bot is not None or self.token_hash is not None


def bot_name(language: str, seat: int) -> str:
    """A bot's name at a table, in the table's language ("Robô 3"): its seat's number."""
    return translator(language, "table")("bot_seat_name", number=seat + 1)


@dataclass(frozen=True, slots=True)
class Prepared:
    recorder: Recorder | None  # the game as it will be (None: the entry does not touch the game)
    step: Step | None  # the core's step for a game action
    starts: bool = False  # the entry starts a game (its record is stored with it)


@dataclass
class TableState:
    """Seats, options and the game in progress, as the journal's entries so far make them."""

    id: str
    seats: list[Seat]
    options: TableOptions
    language: str
    version: int = 1  # entries stored; the creating entry is the first
    game: int = 0  # 0 in the lobby, then 1, 2... (a rematch starts the next game)
    recorder: Recorder | None = None
    asked_since: dict[int, int] = field(default_factory=dict)  # seat -> version its decision began
    asked_at: dict[int, float | None] = field(default_factory=dict)  # seat -> when it began (wall clock; None: unknown)
    clock_handed: dict[int, Decision | None] = field(default_factory=dict)  # seat -> the decision its clock gave a bot
    kept: set[int] = field(default_factory=set)  # seats a bot keeps until their person takes them back
    bot_moves: dict[int, tuple[int, list[dict[str, int]]]] = field(default_factory=dict)  # seat -> (since, moves)
    decisions: dict[int, Decision] = field(default_factory=dict)  # seat -> what it decides
    reveal: dict[str, Any] | None = None  # the latest turn's reveal, for people to follow
    events: list[dict[str, Any]] = field(default_factory=list)  # of the latest entry
    finished_games: list[int] = field(default_factory=list)
    group: str | None = None  # the group whose league its games count toward (docs/people.md)
    reviews: dict[int, dict[str, Any]] = field(default_factory=dict)  # game -> its review (nimmt.review.to_store)
    rematch_asked: list[int] = field(default_factory=list)  # seats that asked for a rematch, in order
    created_at: float | None = None  # when the table was made (wall clock; None: a journal before dates)

    @classmethod
    def created(cls, table_id: str, entry: Entry) -> Self:
        """The table its first entry makes (the start of the fold)."""
        if not isinstance(entry, Created):
            raise JournalError(f"a table's journal starts with its 'create' entry, not {type(entry).__name__}")
        seats = [Seat() for _ in range(entry.seats)]
        seats[0] = Seat(name=entry.name, token_hash=entry.token_hash, player=entry.player)
        for index, bot in entry.bots.items():
            seats[index] = Seat(name=bot_name(entry.language, index), bot=bot)
        return cls(id=table_id, seats=seats, options=TableOptions(**entry.options), language=entry.language,
                   group=entry.group, created_at=entry.at)

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
        digest = token_hash(token)
        found: int | None = None
        for index, seat in enumerate(self.seats):
            if seat.token_hash is not None and hmac.compare_digest(digest, seat.token_hash):
                found = index
            for device in seat.devices:
                if hmac.compare_digest(digest, device):
                    found = index
        return found

    def is_present(self, seat: int) -> bool:
        """Whether the person of this seat is at the table: the journal alone knows nobody is (the
        runtime's :class:`~nimmt.server.tables.table.Table` knows who is)."""
        return False

    def waiting_bots(self) -> list[int]:
        if self.recorder is None or self.recorder.state.phase not in (Phase.CHOOSE_CARDS, Phase.CHOOSE_ROW):
            return []
        return [p for p in self.recorder.state.waiting_for if self.seats[p].bot is not None]

    def needs_deal(self) -> bool:
        return self.recorder is not None and self.recorder.state.phase is Phase.DEAL

    def out_of_time(self, seat: int) -> bool:
        """Whether the clock of the decision the table awaits of this seat's person has run out: the
        journal alone knows no time (the runtime's :class:`~nimmt.server.tables.table.Table` does)."""
        return False

    def replaced_present(self) -> list[int]:
        """The seats a bot plays for a person who is here, and whose decision the table awaits now
        (or the game is over): each goes back to its person. A seat handed over while its person was
        here (``kept``) waits for that person to take it back, until the game is over."""
        return [seat for seat in range(len(self.seats))
                if (self.status == "over" or seat in self.waiting_bots()) and self.seats[seat].bot is not None
                and self.seats[seat].token_hash is not None and self.is_present(seat)
                and (self.status == "over" or not (self.clock_took(seat) or seat in self.kept))]

    def clock_took(self, seat: int) -> bool:
        """Whether the decision the table awaits of this seat is the one its clock handed to a bot: the bot
        plays it, and the seat goes back to its person only at their next decision."""
        return seat in self.clock_handed and self.clock_handed[seat] == self.decisions.get(seat)

    # -- entries -------------------------------------------------------------------------------
    def check(self, entry: Entry) -> None:
        """Raise :class:`ActionError` if ``entry`` cannot be accepted now (nothing changes)."""
        match entry:
            case Joined():
                if self.status != "lobby":
                    raise ActionError("already_started", "the game has started: no seat is free")
            case Started(fill=fill):
                if self.recorder is not None:
                    raise ActionError("already_started", "the game has already started")
                empty = [i for i, s in enumerate(self.seats) if not s.taken]
                if fill is not None:
                    _check_bot(fill)
                elif empty:
                    raise ActionError("seats_not_filled", f"{len(empty)} seat(s) are still free", free=len(empty))
            case BotSeated(seat=seat, bot=bot):
                self._check_lobby()
                if not 0 <= seat < len(self.seats) or self.seats[seat].taken:
                    raise ActionError("seat_taken", f"seat {seat} is not a free seat", seat=seat)
                _check_bot(bot)
            case BotUnseated(seat=seat):
                self._check_lobby()
                if not 0 <= seat < len(self.seats) or self.seats[seat].bot is None \
                        or self.seats[seat].token_hash is not None:
                    raise ActionError("no_such_seat", f"no bot sits in seat {seat}", seat=seat)
            case RematchAsked(seat=seat):
                if self.status != "over":
                    raise ActionError("not_over", "a rematch starts only after the game is over")
                if seat in self.rematch_asked:
                    raise ActionError("already_asked", "this seat has asked for a rematch already", seat=seat)
            case TakenBack(seat=seat):
                if self.recorder is None:
                    raise ActionError("not_started", "the game has not started")
                state = self.recorder.state
                if state.phase is not Phase.CHOOSE_CARDS or not 0 <= seat < len(state.chosen) \
                        or state.chosen[seat] is None:
                    raise ActionError("already_revealed", "no face-down card of this seat to take back: the turn "
                                      "has been revealed (or no card was chosen)")
            case Rematched():
                if self.status != "over":
                    raise ActionError("not_over", "a rematch starts only after the game is over")
            case SeatToBot(seat=seat, bot=bot):
                if not 0 <= seat < len(self.seats) or self.seats[seat].token_hash is None:
                    raise ActionError("no_such_seat", f"seat {seat} is not a person's seat", seat=seat)
                if self.seats[seat].bot is not None:
                    raise ActionError("already_bot", f"a bot already plays seat {seat}", seat=seat)
                if self.is_present(seat) and not (entry.keep and self.out_of_time(seat)):
                    raise ActionError("player_present", "this player is still at the table", seat=seat)
                _check_bot(bot)
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
            case DeviceAdded(seat=seat):
                if not 0 <= seat < len(self.seats) or self.seats[seat].token_hash is None:
                    raise ActionError("no_such_seat", f"seat {seat} is not a person's seat", seat=seat)
            case Reviewed(game=game):
                if game not in self.finished_games:
                    raise ActionError("game_not_finished", "only a finished game is reviewed", game=game)
                if game in self.reviews:
                    raise ActionError("already_reviewed", "this game is reviewed already", game=game)
            case Created():
                raise ActionError("bad_message", "a table is created once")

    def _check_lobby(self) -> None:
        if self.status != "lobby":
            raise ActionError("already_started", "the game has started: its seats are set")

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
                names = tuple(s.name or (bot_name(self.language, i) if isinstance(entry, Started) and entry.fill
                                         else "") for i, s in enumerate(self.seats))
                return Prepared(Recorder(GameRecord(players=names, rules=self.rules)), None, starts=True)
            case TakenBack(seat=seat):
                if self.recorder is None:
                    raise ActionError("not_started", "the game has not started")
                fork = self.recorder.fork()
                try:
                    fork.take_back(seat)
                except IllegalAction as error:
                    raise core_error(error) from None
                return Prepared(fork, None)
            case Dealt() | Played() | RowChosen():
                if self.recorder is None:
                    raise ActionError("not_started", "the game has not started")
                fork = self.recorder.fork()
                try:
                    step = fork.add(_action(entry))
                except IllegalAction as error:
                    raise core_error(error) from None
                return Prepared(fork, step)
        return Prepared(None, None)

    def game_row(self, prepared: Prepared) -> GameRow | None:
        """The game's record, stored with the entry that starts the game and with the one that ends it
        (between them the journal holds it: no record is written again at each action)."""
        if prepared.recorder is None:
            return None
        over = prepared.recorder.state.phase is Phase.OVER
        if not prepared.starts and not over:
            return None
        game = self.game + (1 if prepared.starts else 0)
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
            seat.name, seat.token_hash, seat.player = entry.name, entry.token_hash, entry.player
        elif isinstance(entry, SeatToBot):
            self.seats[entry.seat].bot = entry.bot
            if entry.clock:
                self.clock_handed[entry.seat] = self.decisions.get(entry.seat)
            if entry.keep:
                self.kept.add(entry.seat)
            self.bot_moves[entry.seat] = (self.version, [])  # what the bot plays, for its person to read
        elif isinstance(entry, SeatBack):  # the person is back at their decision: the bot stops playing for them
            self.seats[entry.seat].bot = None
            self.asked_at[entry.seat] = entry.at  # their clock starts again from their return
            self.clock_handed.pop(entry.seat, None)
            self.kept.discard(entry.seat)
        elif isinstance(entry, BotSeated):
            self.seats[entry.seat] = Seat(name=bot_name(self.language, entry.seat), bot=entry.bot)
        elif isinstance(entry, BotUnseated):
            self.seats[entry.seat] = Seat()
        elif isinstance(entry, DeviceAdded):  # the latest few devices: an older one is forgotten
            devices = self.seats[entry.seat].devices
            devices[:] = [*devices, entry.token_hash][-DEVICES:]
        elif isinstance(entry, RematchAsked):
            self.rematch_asked.append(entry.seat)
        elif isinstance(entry, TakenBack):  # the seat chooses again; its clock runs on from its decision's start
            self.recorder = prepared.recorder
        elif isinstance(entry, Started | Rematched):
            if isinstance(entry, Started) and entry.fill is not None:
                for index, seat in enumerate(self.seats):
                    if not seat.taken:
                        self.seats[index] = Seat(name=bot_name(self.language, index), bot=entry.fill)
            self.game += 1
            self.rematch_asked = []
            self.recorder = prepared.recorder
            self.reveal = None
            self.asked_since = {}
            self.asked_at = {}
            self.clock_handed = {}
            self.kept = set()
            self.bot_moves = {}
            self.decisions = {}
        elif isinstance(entry, Reviewed):  # kept with the game; the game itself does not change
            self.reviews[entry.game] = dict(entry.review)
        elif isinstance(entry, Created):
            raise JournalError("a table is created once: a second 'create' entry")
        else:
            assert prepared.recorder is not None and prepared.step is not None
            assert self.recorder is not None
            before = self.recorder.state
            self.recorder = prepared.recorder
            if isinstance(entry, Played | RowChosen) and entry.seat in self.bot_moves \
                    and self.seats[entry.seat].bot is not None:
                self.bot_moves[entry.seat][1].append(_move(entry, before.round, before.turn, before.rows))
            state = prepared.step.state
            self.reveal, self.events = follow(self.reveal, prepared.step.events, before, self.version)
            for p in state.waiting_for:
                key = (state.round, state.turn, state.phase.value, state.resolved)
                if self.decisions.get(p) != key:
                    self.decisions[p] = key
                    self.asked_since[p] = self.version
                    self.asked_at[p] = entry.at if isinstance(entry, Dealt | Played | RowChosen) else None
            if state.phase is Phase.OVER and self.game not in self.finished_games:
                self.finished_games.append(self.game)


def _move(entry: Played | RowChosen, round_: int, turn: int, rows: tuple[tuple[int, ...], ...]) -> dict[str, int]:
    """A bot's move for a person's seat, as that person is told it: the card, or the row and its bullheads."""
    if isinstance(entry, Played):
        return {"round": round_, "turn": turn, "card": entry.card}
    taken = rows[entry.row] if 0 <= entry.row < len(rows) else ()
    return {"round": round_, "turn": turn, "row": entry.row, "bullheads": sum(BULLHEADS[card] for card in taken)}


def _check_bot(bot: str) -> None:
    if bot not in BOTS:
        raise ActionError("unknown_bot", f"unknown bot {bot!r}", bot=bot)


def _action(entry: GameEntry) -> Deal | PlayCard | ChooseRow:
    """The core's action that a game entry records."""
    match entry:
        case Dealt():
            return Deal(entry.rows, entry.hands)
        case Played():
            return PlayCard(entry.seat, entry.card)
        case RowChosen():
            return ChooseRow(entry.seat, entry.row)
