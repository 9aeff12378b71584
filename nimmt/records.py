"""Game records in the ``nimmt/1`` format: the truth of a game.

A record holds the table (players, rules) and, for each round, the deal and every turn: the card
each player played and the row chosen by each player whose card was below every row. Replaying a
record through the rules core checks it and scores it. Reading never raises anything but
:class:`RecordError`, whose message says where the record is wrong (round, turn, player) and why.

>>> recorder = Recorder(GameRecord(players=("Ana", "Bruno")))
>>> hands = (tuple(range(1, 10)) + (11,), tuple(range(21, 30)) + (31,))
>>> for action in (Deal((10, 20, 30, 40), hands), PlayCard(1, 21), PlayCard(0, 1), ChooseRow(0, 2)):
...     step = recorder.add(action)
>>> score(recorder.record).rounds
((3, 0),)
>>> recorder.record.to_json()["rounds"][0]["turns"]
[{'cards': [1, 21], 'rows_taken': {'0': 2}}]
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .core import (
    ChooseRow,
    Deal,
    GameState,
    IllegalAction,
    NimmtError,
    Phase,
    PlayCard,
    Rules,
    Step,
    apply,
    new_game,
)
from .core.cards import (
    HAND_SIZE,
    HIGHEST_CARD,
    LOWEST_CARD,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_COUNT,
    TURNS_PER_ROUND,
)
from .core.errors import DealError, RulesError

FORMAT = "nimmt/1"
MAX_RECORD_BYTES = 16 * 1024 * 1024  # a finished 10-player game is a few hundred kB at most


class RecordError(NimmtError, ValueError):
    """A record that cannot be read or does not follow the rules. Says where, and why."""

    def __init__(
        self,
        reason: str,
        *,
        round: int | None = None,
        turn: int | None = None,
        player: int | None = None,
        player_name: str | None = None,
    ) -> None:
        self.reason = reason
        self.round = round  # 1-based, as people count rounds
        self.turn = turn  # 1-based
        self.player = player  # 0-based seat index, as in the record
        parts = []
        if round is not None:
            parts.append(f"round {round}")
        if turn is not None:
            parts.append(f"turn {turn}")
        if player is not None:
            parts.append(f"player {player}" + (f" ({player_name})" if player_name else ""))
        where = ", ".join(parts)
        super().__init__(f"{where}: {reason}" if where else reason)


@dataclass(frozen=True, slots=True)
class TurnRecord:
    cards: tuple[int, ...]  # by player
    rows_taken: tuple[tuple[int, int], ...] = ()  # (player, row), sorted by player
    extra: tuple[tuple[str, Any], ...] = ()  # keys nimmt does not know, kept as they were

    def row_for(self, player: int) -> int | None:
        for who, row in self.rows_taken:
            if who == player:
                return row
        return None


@dataclass(frozen=True, slots=True)
class RoundRecord:
    rows: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    turns: tuple[TurnRecord, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()  # keys nimmt does not know, kept as they were

    @property
    def deal(self) -> Deal:
        return Deal(self.rows, self.hands)


@dataclass(frozen=True, slots=True)
class GameRecord:
    players: tuple[str, ...]
    rules: Rules = field(default_factory=Rules)
    rounds: tuple[RoundRecord, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()  # keys nimmt does not know, kept as they were
    rules_extra: tuple[tuple[str, Any], ...] = ()  # unknown keys of the 'rules' object

    def actions(self) -> Iterator[Deal | PlayCard | ChooseRow]:
        """Every action of the game, in an order the rules core accepts."""
        state = new_game(len(self.players), self.rules)
        for round_record in self.rounds:
            yield round_record.deal
            state = apply(state, round_record.deal).state
            for turn in round_record.turns:
                for player, card in enumerate(turn.cards):
                    action: PlayCard | ChooseRow = PlayCard(player, card)
                    yield action
                    state = apply(state, action).state
                while state.phase is Phase.CHOOSE_ROW:
                    waiting = state.waiting_for[0]
                    row = turn.row_for(waiting)
                    if row is None:
                        return
                    action = ChooseRow(waiting, row)
                    yield action
                    state = apply(state, action).state

    # -- JSON ----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        data.update(
            {
                "format": FORMAT,
                "rules": {
                    **dict(self.rules_extra),
                    "edition": self.rules.edition,
                    "end_above": self.rules.end_above,
                    "rounds": self.rules.rounds,
                },
                "players": list(self.players),
                "rounds": [
                    {
                        **dict(r.extra),
                        "rows": list(r.rows),
                        "hands": [list(h) for h in r.hands],
                        "turns": [
                            {
                                **dict(t.extra),
                                "cards": list(t.cards),
                                "rows_taken": {str(p): row for p, row in t.rows_taken},
                            }
                            for t in r.turns
                        ],
                    }
                    for r in self.rounds
                ],
            }
        )
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a crash mid-write never leaves half a record behind."""
        target = Path(path)
        temporary = target.with_name(f".{target.name}.tmp")
        try:
            data = self.dumps().encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate, read from a "\ud800" escape: keep it escaped
            data = json.dumps(self.to_json(), ensure_ascii=True).encode("ascii")
        temporary.write_bytes(data + b"\n")
        os.replace(temporary, target)


class Recorder:
    """Turns a stream of accepted actions into a record, one complete turn at a time."""

    def __init__(self, record: GameRecord) -> None:
        self._record = record
        # Complete turns of the last round that ``_record`` does not hold yet: the record is a
        # tree of frozen values, so it is rebuilt when read rather than after every turn.
        self._turns: tuple[TurnRecord, ...] = ()
        self._players = len(record.players)
        self.state = replay(record).state
        self._cards: dict[int, int] = {}
        self._rows: dict[int, int] = {}

    @property
    def record(self) -> GameRecord:
        """The record of every complete turn so far."""
        if self._turns:
            record = self._record
            last = record.rounds[-1]
            last = replace(last, turns=(*last.turns, *self._turns))
            self._record = replace(record, rounds=(*record.rounds[:-1], last))
            self._turns = ()
        return self._record

    @record.setter
    def record(self, record: GameRecord) -> None:
        self._record = record
        self._turns = ()
        self._players = len(record.players)

    def add(self, action: Deal | PlayCard | ChooseRow) -> Step:
        """Apply ``action`` (raising the core's error if it is wrong), record it, return the step."""
        step = apply(self.state, action)
        self.state = state = step.state
        cards = self._cards
        if isinstance(action, PlayCard):
            cards[action.player] = action.card
        elif isinstance(action, Deal):
            round_record = RoundRecord(tuple(action.rows), tuple(map(tuple, action.hands)))
            record = self.record
            self._record = replace(record, rounds=(*record.rounds, round_record))
        else:
            self._rows[action.player] = action.row
        players = self._players
        if len(cards) == players and state.phase is not _CHOOSE_ROW:
            rows = self._rows
            turn = TurnRecord(
                state.played[-1],  # the cards of the turn that just ended, by player
                tuple(sorted(rows.items())) if rows else (),
            )
            self._turns = (*self._turns, turn)
            cards.clear()
            rows.clear()
        return step


_CHOOSE_ROW = Phase.CHOOSE_ROW


# -- reading -------------------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _card(value: object, what: str, **where: Any) -> int:
    if not _is_int(value):
        raise RecordError(f"{what} must be a card number, not {_show(value)}", **where)
    if not LOWEST_CARD <= value <= HIGHEST_CARD:  # type: ignore[operator]
        raise RecordError(f"{what} is {value}, but cards run from 1 to 104", **where)
    return value  # type: ignore[return-value]


def _show(value: object, limit: int = 40) -> str:
    """A value as JSON for a message, cut short; never fails."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = _kind(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _list(value: object, what: str, **where: Any) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(f"{what} must be a list, not {_kind(value)}", **where)
    return value


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _parse_rules(data: object) -> Rules:
    if data is None:
        return Rules()
    if not isinstance(data, dict):
        raise RecordError(f"'rules' must be an object, not {_kind(data)}")
    edition = data.get("edition", "classic")
    end_above = data.get("end_above", 66)
    rounds = data.get("rounds")
    if not isinstance(edition, str):
        raise RecordError(f"rules: 'edition' must be a string, not {_kind(edition)}")
    if end_above is None:
        end_above = 66
    if not _is_int(end_above):
        raise RecordError(f"rules: 'end_above' must be a whole number, not {_kind(end_above)}")
    if rounds is not None and not _is_int(rounds):
        raise RecordError(f"rules: 'rounds' must be a whole number or null, not {_kind(rounds)}")
    try:
        return Rules(edition=edition, end_above=end_above, rounds=rounds)
    except RulesError as error:
        raise RecordError(f"rules: {error}") from None


def parse(data: object) -> GameRecord:
    """Check a decoded JSON value's shape and types and build a :class:`GameRecord`.

    The game itself (legal cards, row choices, the end) is checked by :func:`replay`.
    """
    if not isinstance(data, dict):
        raise RecordError(f"a record must be a JSON object, not {_kind(data)}")
    if "format" not in data:
        raise RecordError(f"the record has no 'format' key (expected {FORMAT!r})")
    if data["format"] != FORMAT:
        raise RecordError(f"unknown format {_show(data['format'])}: nimmt reads {FORMAT!r}")
    rules = _parse_rules(data.get("rules"))
    rules_data = data.get("rules")
    rules_extra = tuple(
        (k, v) for k, v in rules_data.items() if k not in ("edition", "end_above", "rounds")
    ) if isinstance(rules_data, dict) else ()
    if "players" not in data:
        raise RecordError("the record has no 'players' key")
    players = _list(data["players"], "'players'")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"a game has 2 to 10 players, not {len(players)}")
    for index, name in enumerate(players):
        if not isinstance(name, str):
            raise RecordError(f"the name must be a string, not {_kind(name)}", player=index)
    n = len(players)
    if "rounds" not in data:
        raise RecordError("the record has no 'rounds' key")
    rounds_data = _list(data["rounds"], "'rounds'")
    rounds = tuple(_parse_round(item, r, n, players) for r, item in enumerate(rounds_data, 1))
    known = {"format", "rules", "players", "rounds"}
    extra = tuple((k, v) for k, v in data.items() if k not in known)
    return GameRecord(
        players=tuple(players), rules=rules, rounds=rounds, extra=extra, rules_extra=rules_extra
    )


def _parse_round(data: object, r: int, n: int, names: list[str]) -> RoundRecord:
    if not isinstance(data, dict):
        raise RecordError(f"a round must be an object, not {_kind(data)}", round=r)
    for key in ("rows", "hands"):
        if key not in data:
            raise RecordError(f"the round has no {key!r} key", round=r)
    rows_data = _list(data["rows"], "'rows'", round=r)
    if len(rows_data) != ROW_COUNT:
        raise RecordError(f"'rows' must hold {ROW_COUNT} cards, not {len(rows_data)}", round=r)
    rows = tuple(_card(c, f"row {i}'s first card", round=r) for i, c in enumerate(rows_data))
    hands_data = _list(data["hands"], "'hands'", round=r)
    if len(hands_data) != n:
        raise RecordError(f"'hands' must hold {n} hands (one per player), not {len(hands_data)}",
                          round=r)
    hands = []
    for p, hand_data in enumerate(hands_data):
        where: dict[str, Any] = {"round": r, "player": p, "player_name": names[p]}
        hand = _list(hand_data, "the hand", **where)
        if len(hand) != HAND_SIZE:
            raise RecordError(f"the hand must hold {HAND_SIZE} cards, not {len(hand)}", **where)
        hands.append(tuple(_card(c, "a card of the hand", **where) for c in hand))
    turns_data = _list(data.get("turns", []), "'turns'", round=r)
    if len(turns_data) > TURNS_PER_ROUND:
        raise RecordError(
            f"a round has {TURNS_PER_ROUND} turns, but this one lists {len(turns_data)}", round=r
        )
    turns = tuple(_parse_turn(item, r, t, n, names) for t, item in enumerate(turns_data, 1))
    extra = tuple((k, v) for k, v in data.items() if k not in ("rows", "hands", "turns"))
    return RoundRecord(rows, tuple(hands), turns, extra)


def _parse_turn(data: object, r: int, t: int, n: int, names: list[str]) -> TurnRecord:
    if not isinstance(data, dict):
        raise RecordError(f"a turn must be an object, not {_kind(data)}", round=r, turn=t)
    if "cards" not in data:
        raise RecordError("the turn has no 'cards' key", round=r, turn=t)
    cards_data = _list(data["cards"], "'cards'", round=r, turn=t)
    if len(cards_data) != n:
        raise RecordError(
            f"'cards' must hold one card per player ({n}), not {len(cards_data)}", round=r, turn=t
        )
    cards = tuple(
        _card(c, "the card played", round=r, turn=t, player=p, player_name=names[p])
        for p, c in enumerate(cards_data)
    )
    taken_data = data.get("rows_taken", {})
    if taken_data is None:
        taken_data = {}
    if not isinstance(taken_data, dict):
        raise RecordError(f"'rows_taken' must be an object, not {_kind(taken_data)}",
                          round=r, turn=t)
    rows_taken = []
    seats = {str(p): p for p in range(n)}
    for key, row in taken_data.items():
        if not (isinstance(key, str) and key.isdigit() and key.isascii()
                and (key == "0" or not key.startswith("0"))):
            raise RecordError(f"'rows_taken' key {_show(key)} is not a player index",
                              round=r, turn=t)
        if key not in seats:
            raise RecordError(
                f"'rows_taken' names player {_show(key)}, but players are 0 to {n - 1}",
                round=r, turn=t,
            )
        player = seats[key]
        where: dict[str, Any] = {"round": r, "turn": t, "player": player, "player_name": names[player]}
        if not _is_int(row):
            raise RecordError(f"the row taken must be a number from 0 to 3, not {_kind(row)}",
                              **where)
        if not 0 <= row < ROW_COUNT:
            raise RecordError(f"row {row} does not exist: rows are 0 to 3", **where)
        rows_taken.append((player, row))
    extra = tuple((k, v) for k, v in data.items() if k not in ("cards", "rows_taken"))
    return TurnRecord(cards, tuple(sorted(rows_taken)), extra)


@dataclass(frozen=True, slots=True)
class Replay:
    state: GameState
    rounds: tuple[tuple[int, ...], ...]  # penalties of each round; the last may be partial

    @property
    def totals(self) -> tuple[int, ...]:
        return self.state.totals

    @property
    def finished(self) -> bool:
        return self.state.phase is Phase.OVER

    @property
    def winners(self) -> tuple[int, ...]:
        return self.state.winners


def replay(record: GameRecord) -> Replay:
    """Play a record through the rules core; raise :class:`RecordError` where it breaks a rule."""
    names = record.players
    n = len(names)
    state = new_game(n, record.rules)
    rounds: list[tuple[int, ...]] = []
    for r, round_record in enumerate(record.rounds, 1):
        if state.phase is Phase.OVER:
            raise RecordError(
                f"the game ended after round {r - 1}, so the record cannot go on", round=r
            )
        try:
            state = apply(state, round_record.deal).state
        except DealError as error:
            raise RecordError(f"the deal is wrong: {error}", round=r) from None
        for t, turn in enumerate(round_record.turns, 1):
            # parse() checks this; a record built in code may not have been through it.
            if len(turn.cards) != n:
                raise RecordError(
                    f"the turn lists {len(turn.cards)} cards for {n} players", round=r, turn=t
                )
            for p, card in enumerate(turn.cards):
                try:
                    state = apply(state, PlayCard(p, card)).state
                except IllegalAction as error:
                    raise RecordError(
                        f"card {card} cannot be played: {error}",
                        round=r, turn=t, player=p, player_name=names[p],
                    ) from None
            used = set()
            while state.phase is Phase.CHOOSE_ROW:
                waiting = state.waiting_for[0]
                row = turn.row_for(waiting)
                if row is None:
                    raise RecordError(
                        f"card {state.row_choice_card} is below every row, but 'rows_taken' "
                        "does not say which row this player took",
                        round=r, turn=t, player=waiting, player_name=names[waiting],
                    )
                try:
                    state = apply(state, ChooseRow(waiting, row)).state
                except IllegalAction as error:
                    raise RecordError(
                        f"row {row!r} cannot be taken: {error}",
                        round=r, turn=t, player=waiting, player_name=names[waiting],
                    ) from None
                used.add(waiting)
            for p, _row in turn.rows_taken:
                if p not in used:
                    if not (_is_int(p) and 0 <= p < n):
                        raise RecordError(f"'rows_taken' names player {p!r}, who is not at this table",
                                          round=r, turn=t)
                    raise RecordError(
                        f"'rows_taken' holds a row for this player, but card {turn.cards[p]} "
                        "was not below every row",
                        round=r, turn=t, player=p, player_name=names[p],
                    )
        complete = len(round_record.turns) == TURNS_PER_ROUND
        if not complete and r < len(record.rounds):
            raise RecordError(
                f"the round has {len(round_record.turns)} turns: only the last round of a "
                "record may be unfinished",
                round=r,
            )
        rounds.append(state.history[-1] if complete else state.penalties)
    return Replay(state, tuple(rounds))


@dataclass(frozen=True, slots=True)
class Score:
    totals: tuple[int, ...]
    rounds: tuple[tuple[int, ...], ...]
    finished: bool
    winners: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "totals": list(self.totals),
            "rounds": [list(r) for r in self.rounds],
            "finished": self.finished,
            "winners": list(self.winners),
        }


def score(record: GameRecord) -> Score:
    result = replay(record)
    return Score(result.totals, result.rounds, result.finished, result.winners)


def loads(text: str | bytes) -> GameRecord:
    """Decode and check the shape of a record (not yet the game: see :func:`replay`)."""
    if len(text) > MAX_RECORD_BYTES:
        raise RecordError(f"the record is larger than {MAX_RECORD_BYTES // (1024 * 1024)} MiB")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(
            f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    except UnicodeDecodeError:
        raise RecordError("not valid JSON: the file is not UTF-8 text") from None
    except RecursionError:
        raise RecordError("not valid JSON: nested too deeply") from None
    except ValueError:  # an integer with more digits than Python converts (4300)
        raise RecordError("not valid JSON: a number in it is too long to read") from None
    return parse(data)


def load(path: str | os.PathLike[str]) -> GameRecord:
    """Read a record from a file; every problem becomes a :class:`RecordError`."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        raise RecordError("no such file") from None
    except IsADirectoryError:
        raise RecordError("this is a folder, not a record file") from None
    except OSError as error:
        raise RecordError(f"cannot be read: {error.strerror or error}") from None
    except ValueError as error:  # a path holding a NUL character
        raise RecordError(f"cannot be read: {error}") from None
    return loads(raw)


def check(path: str | os.PathLike[str]) -> Score:
    """Load, replay and score a record file."""
    return score(load(path))


def from_mapping(data: Mapping[str, Any]) -> GameRecord:
    """Same as :func:`parse`, for callers that already hold a dict."""
    return parse(dict(data))
