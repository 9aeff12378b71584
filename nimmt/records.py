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

import copy
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
    take_back,
)
from .core.cards import (
    HAND_SIZE,
    HIGHEST_CARD,
    LOWEST_CARD,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_COUNT,
    TURNS_PER_ROUND,
    is_int,
)
from .core.errors import CardNotInHand, DealError, RulesError, UnsupportedEdition
from .core.game import KNOWN_UNSUPPORTED_EDITIONS

FORMAT = "nimmt/1"
MAX_RECORD_BYTES = 16 * 1024 * 1024  # a finished 10-player game is a few hundred kB at most


# Why a record is wrong: a key and the English text, with its values as {placeholders}. The CLI
# tells the same in the page's language from ``rec_<key>`` (``replay`` messages); ``str()`` stays
# English for programs and logs. A value that is a :class:`Words` is itself a small message
# (``rec_<key>`` too), such as what a value is ("a string", "the number 2.5").
WHY: Mapping[str, str] = {
    "kind_null": "null",
    "kind_bool": "true/false",
    "kind_number": "the number {value}",
    "kind_string": "a string",
    "kind_list": "a list",
    "kind_object": "an object",
    "kind_other": "{name}",
    "what_row_first": "row {row}'s first card",
    "what_hand_card": "a card of the hand",
    "what_card_played": "the card played",
    "what_hand": "the hand",
    "what_key": "'{key}'",
    "not_card": "{what} must be a card number, not {value}",
    "card_range": "{what} is {value}, but cards run from 1 to 104",
    "not_list": "{what} must be a list, not {kind}",
    "rules_not_object": "'rules' must be an object, not {kind}",
    "rules_edition_type": "rules: 'edition' must be a string, not {kind}",
    "rules_end_above_type": "rules: 'end_above' must be a whole number, not {kind}",
    "rules_rounds_type": "rules: 'rounds' must be a whole number or null, not {kind}",
    "rules_edition_unsupported": "rules: the {edition} edition is not automated: nimmt plays only the classic edition",
    "rules_edition_unknown": "rules: unknown edition {edition}: nimmt plays only the classic edition",
    "rules_end_above": "rules: end_above must be a whole number from 0 up, not {value}",
    "rules_rounds": "rules: rounds must be a whole number from 1 up, or unset, not {value}",
    "not_object": "a record must be a JSON object, not {kind}",
    "no_format": "the record has no 'format' key (expected '{format}')",
    "unknown_format": "unknown format {value}: nimmt reads '{format}'",
    "no_key": "the record has no '{key}' key",
    "players_count": "a game has 2 to 10 players, not {count}",
    "name_type": "the name must be a string, not {kind}",
    "round_not_object": "a round must be an object, not {kind}",
    "round_no_key": "the round has no '{key}' key",
    "rows_count": "'rows' must hold {rows} cards, not {count}",
    "hands_count": "'hands' must hold {players} hands (one per player), not {count}",
    "hand_size": "the hand must hold {size} cards, not {count}",
    "too_many_turns": "a round has {turns} turns, but this one lists {count}",
    "turn_not_object": "a turn must be an object, not {kind}",
    "turn_no_cards": "the turn has no 'cards' key",
    "cards_count": "'cards' must hold one card per player ({players}), not {count}",
    "rows_taken_type": "'rows_taken' must be an object, not {kind}",
    "rows_taken_key": "'rows_taken' key {value} is not a player index",
    "rows_taken_player": "'rows_taken' names player {value}, but players are 0 to {last}",
    "row_type": "the row taken must be a number from 0 to 3, not {kind}",
    "row_range": "row {row} does not exist: rows are 0 to 3",
    "game_ended": "the game ended after round {round}, so the record cannot go on",
    "dealt_twice": "the deal is wrong: card {card} is dealt twice ({where})",
    "where_rows": "the rows",
    "where_hand": "player {player}'s hand",
    "deal_wrong": "the deal is wrong: {error}",
    "card_not_in_hand": "card {card} cannot be played: player {seat} does not hold card {card}",
    "card_illegal": "card {card} cannot be played: {error}",
    "row_missing": "card {card} is below every row, but 'rows_taken' does not say which row this player took",
    "row_illegal": "row {row} cannot be taken: {error}",
    "turn_cards": "the turn lists {count} cards for {players} players",
    "rows_taken_stranger": "'rows_taken' names player {value}, who is not at this table",
    "rows_taken_fit": "'rows_taken' holds a row for this player, but card {card} was not below every row",
    "round_unfinished": "the round has {count} turns: only the last round of a record may be unfinished",
    "too_large": "the record is larger than {mib} MiB",
    "json_invalid": "not valid JSON: {detail} (line {line}, column {column})",
    "not_utf8": "not valid JSON: the file is not UTF-8 text",
    "too_deep": "not valid JSON: nested too deeply",
    "number_too_long": "not valid JSON: a number in it is too long to read",
    "no_such_file": "no such file",
    "is_folder": "this is a folder, not a record file",
    "unreadable": "cannot be read: {reason}",
}


@dataclass(frozen=True, slots=True)
class Words:
    """A part of a message that is a message of its own (``WHY[key]`` with its values)."""

    key: str
    values: Mapping[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        return WHY[self.key].format_map({name: str(value) for name, value in self.values.items()})


class RecordError(NimmtError, ValueError):
    """A record that cannot be read or does not follow the rules. Says where, and why.

    ``key`` and ``values`` say why in words any language can tell (``WHY[key]`` is the English);
    ``round``, ``turn`` and ``player`` say where.
    """

    def __init__(
        self,
        key: str,
        values: Mapping[str, object] | None = None,
        *,
        round: int | None = None,
        turn: int | None = None,
        player: int | None = None,
        player_name: str | None = None,
    ) -> None:
        self.key = key
        self.values: dict[str, object] = dict(values or {})
        self.reason = reason = str(Words(key, self.values))
        self.player_name = player_name
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

    def take_back(self, player: int) -> None:
        """``player``'s face-down card goes back to their hand (the core's error if there is none): the
        record never holds it, since only a turn's revealed cards are recorded."""
        self.state = take_back(self.state, player)
        self._cards.pop(player, None)

    def fork(self) -> Recorder:
        """A copy that can take actions without touching this one (the record and state are
        immutable; only the turn being written is copied)."""
        fork = copy.copy(self)
        fork._cards = dict(self._cards)
        fork._rows = dict(self._rows)
        return fork


_CHOOSE_ROW = Phase.CHOOSE_ROW


# -- reading -------------------------------------------------------------------------------------


def _card(value: object, what: Words, **where: Any) -> int:
    if not is_int(value):
        raise RecordError("not_card", {"what": what, "value": _show(value)}, **where)
    if not LOWEST_CARD <= value <= HIGHEST_CARD:  # type: ignore[operator]
        raise RecordError("card_range", {"what": what, "value": value}, **where)
    return value  # type: ignore[return-value]


def _show(value: object, limit: int = 40) -> str:
    """A value as JSON for a message, cut short; never fails."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = str(_kind(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _key(name: str) -> Words:
    return Words("what_key", {"key": name})


def _list(value: object, what: Words, **where: Any) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError("not_list", {"what": what, "kind": _kind(value)}, **where)
    return value


def _kind(value: object) -> Words:
    if value is None:
        return Words("kind_null")
    if isinstance(value, bool):
        return Words("kind_bool")
    if isinstance(value, int | float):
        return Words("kind_number", {"value": value})
    if isinstance(value, str):
        return Words("kind_string")
    if isinstance(value, list):
        return Words("kind_list")
    if isinstance(value, dict):
        return Words("kind_object")
    return Words("kind_other", {"name": type(value).__name__})


def _parse_rules(data: object) -> Rules:
    if data is None:
        return Rules()
    if not isinstance(data, dict):
        raise RecordError("rules_not_object", {"kind": _kind(data)})
    edition = data.get("edition", "classic")
    end_above = data.get("end_above", 66)
    rounds = data.get("rounds")
    if not isinstance(edition, str):
        raise RecordError("rules_edition_type", {"kind": _kind(edition)})
    if end_above is None:
        end_above = 66
    if not is_int(end_above):
        raise RecordError("rules_end_above_type", {"kind": _kind(end_above)})
    if rounds is not None and not is_int(rounds):
        raise RecordError("rules_rounds_type", {"kind": _kind(rounds)})
    try:
        return Rules(edition=edition, end_above=end_above, rounds=rounds)
    except UnsupportedEdition:
        if edition.lower() in KNOWN_UNSUPPORTED_EDITIONS:
            raise RecordError("rules_edition_unsupported", {"edition": edition}) from None
        raise RecordError("rules_edition_unknown", {"edition": repr(edition)}) from None
    except RulesError:
        if rounds is not None and rounds < 1:
            raise RecordError("rules_rounds", {"value": repr(rounds)}) from None
        raise RecordError("rules_end_above", {"value": repr(end_above)}) from None


def parse(data: object) -> GameRecord:
    """Check a decoded JSON value's shape and types and build a :class:`GameRecord`.

    The game itself (legal cards, row choices, the end) is checked by :func:`replay`.
    """
    if not isinstance(data, dict):
        raise RecordError("not_object", {"kind": _kind(data)})
    if "format" not in data:
        raise RecordError("no_format", {"format": FORMAT})
    if data["format"] != FORMAT:
        raise RecordError("unknown_format", {"value": _show(data["format"]), "format": FORMAT})
    rules = _parse_rules(data.get("rules"))
    rules_data = data.get("rules")
    rules_extra = tuple(
        (k, v) for k, v in rules_data.items() if k not in ("edition", "end_above", "rounds")
    ) if isinstance(rules_data, dict) else ()
    if "players" not in data:
        raise RecordError("no_key", {"key": "players"})
    players = _list(data["players"], _key("players"))
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError("players_count", {"count": len(players)})
    for index, name in enumerate(players):
        if not isinstance(name, str):
            raise RecordError("name_type", {"kind": _kind(name)}, player=index)
    n = len(players)
    if "rounds" not in data:
        raise RecordError("no_key", {"key": "rounds"})
    rounds_data = _list(data["rounds"], _key("rounds"))
    rounds = tuple(_parse_round(item, r, n, players) for r, item in enumerate(rounds_data, 1))
    known = {"format", "rules", "players", "rounds"}
    extra = tuple((k, v) for k, v in data.items() if k not in known)
    return GameRecord(
        players=tuple(players), rules=rules, rounds=rounds, extra=extra, rules_extra=rules_extra
    )


def _parse_round(data: object, r: int, n: int, names: list[str]) -> RoundRecord:
    if not isinstance(data, dict):
        raise RecordError("round_not_object", {"kind": _kind(data)}, round=r)
    for key in ("rows", "hands"):
        if key not in data:
            raise RecordError("round_no_key", {"key": key}, round=r)
    rows_data = _list(data["rows"], _key("rows"), round=r)
    if len(rows_data) != ROW_COUNT:
        raise RecordError("rows_count", {"rows": ROW_COUNT, "count": len(rows_data)}, round=r)
    rows = tuple(_card(c, Words("what_row_first", {"row": i}), round=r) for i, c in enumerate(rows_data))
    hands_data = _list(data["hands"], _key("hands"), round=r)
    if len(hands_data) != n:
        raise RecordError("hands_count", {"players": n, "count": len(hands_data)}, round=r)
    hands = []
    for p, hand_data in enumerate(hands_data):
        where: dict[str, Any] = {"round": r, "player": p, "player_name": names[p]}
        hand = _list(hand_data, Words("what_hand"), **where)
        if len(hand) != HAND_SIZE:
            raise RecordError("hand_size", {"size": HAND_SIZE, "count": len(hand)}, **where)
        hands.append(tuple(_card(c, Words("what_hand_card"), **where) for c in hand))
    turns_data = _list(data.get("turns", []), _key("turns"), round=r)
    if len(turns_data) > TURNS_PER_ROUND:
        raise RecordError("too_many_turns", {"turns": TURNS_PER_ROUND, "count": len(turns_data)}, round=r)
    turns = tuple(_parse_turn(item, r, t, n, names) for t, item in enumerate(turns_data, 1))
    extra = tuple((k, v) for k, v in data.items() if k not in ("rows", "hands", "turns"))
    return RoundRecord(rows, tuple(hands), turns, extra)


def _parse_turn(data: object, r: int, t: int, n: int, names: list[str]) -> TurnRecord:
    if not isinstance(data, dict):
        raise RecordError("turn_not_object", {"kind": _kind(data)}, round=r, turn=t)
    if "cards" not in data:
        raise RecordError("turn_no_cards", round=r, turn=t)
    cards_data = _list(data["cards"], _key("cards"), round=r, turn=t)
    if len(cards_data) != n:
        raise RecordError("cards_count", {"players": n, "count": len(cards_data)}, round=r, turn=t)
    cards = tuple(
        _card(c, Words("what_card_played"), round=r, turn=t, player=p, player_name=names[p])
        for p, c in enumerate(cards_data)
    )
    taken_data = data.get("rows_taken", {})
    if taken_data is None:
        taken_data = {}
    if not isinstance(taken_data, dict):
        raise RecordError("rows_taken_type", {"kind": _kind(taken_data)}, round=r, turn=t)
    rows_taken = []
    seats = {str(p): p for p in range(n)}
    for key, row in taken_data.items():
        if not (isinstance(key, str) and key.isdigit() and key.isascii()
                and (key == "0" or not key.startswith("0"))):
            raise RecordError("rows_taken_key", {"value": _show(key)}, round=r, turn=t)
        if key not in seats:
            raise RecordError("rows_taken_player", {"value": _show(key), "last": n - 1}, round=r, turn=t)
        player = seats[key]
        where: dict[str, Any] = {"round": r, "turn": t, "player": player, "player_name": names[player]}
        if not is_int(row):
            raise RecordError("row_type", {"kind": _kind(row)}, **where)
        if not 0 <= row < ROW_COUNT:
            raise RecordError("row_range", {"row": row}, **where)
        rows_taken.append((player, row))
    extra = tuple((k, v) for k, v in data.items() if k not in ("cards", "rows_taken"))
    return TurnRecord(cards, tuple(sorted(rows_taken)), extra)


def _deal_error(round_record: RoundRecord, error: DealError, r: int) -> RecordError:
    """Why a deal is wrong; parse() has checked its sizes and cards, so a card dealt twice is left."""
    seen: set[int] = set()
    places = [(Words("where_rows"), round_record.rows)]
    places += [(Words("where_hand", {"player": p}), hand) for p, hand in enumerate(round_record.hands)]
    for where, cards in places:
        for card in cards:
            if card in seen:
                return RecordError("dealt_twice", {"card": card, "where": where}, round=r)
            seen.add(card)
    return RecordError("deal_wrong", {"error": error}, round=r)


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
            raise RecordError("game_ended", {"round": r - 1}, round=r)
        try:
            state = apply(state, round_record.deal).state
        except DealError as error:
            raise _deal_error(round_record, error, r) from None
        for t, turn in enumerate(round_record.turns, 1):
            # parse() checks this; a record built in code may not have been through it.
            if len(turn.cards) != n:
                raise RecordError("turn_cards", {"count": len(turn.cards), "players": n}, round=r, turn=t)
            for p, card in enumerate(turn.cards):
                try:
                    state = apply(state, PlayCard(p, card)).state
                except IllegalAction as error:
                    key = "card_not_in_hand" if isinstance(error, CardNotInHand) else "card_illegal"
                    raise RecordError(
                        key, {"card": repr(card), "seat": p, "error": error},
                        round=r, turn=t, player=p, player_name=names[p],
                    ) from None
            used = set()
            while state.phase is Phase.CHOOSE_ROW:
                waiting = state.waiting_for[0]
                row = turn.row_for(waiting)
                if row is None:
                    raise RecordError(
                        "row_missing", {"card": state.row_choice_card},
                        round=r, turn=t, player=waiting, player_name=names[waiting],
                    )
                try:
                    state = apply(state, ChooseRow(waiting, row)).state
                except IllegalAction as error:
                    raise RecordError(
                        "row_illegal", {"row": repr(row), "error": error},
                        round=r, turn=t, player=waiting, player_name=names[waiting],
                    ) from None
                used.add(waiting)
            for p, _row in turn.rows_taken:
                if p not in used:
                    if not (is_int(p) and 0 <= p < n):
                        raise RecordError("rows_taken_stranger", {"value": repr(p)}, round=r, turn=t)
                    raise RecordError(
                        "rows_taken_fit", {"card": turn.cards[p]}, round=r, turn=t, player=p, player_name=names[p]
                    )
        complete = len(round_record.turns) == TURNS_PER_ROUND
        if not complete and r < len(record.rounds):
            raise RecordError("round_unfinished", {"count": len(round_record.turns)}, round=r)
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
        raise RecordError("too_large", {"mib": MAX_RECORD_BYTES // (1024 * 1024)})
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(
            "json_invalid", {"detail": error.msg, "line": error.lineno, "column": error.colno}
        ) from None
    except UnicodeDecodeError:
        raise RecordError("not_utf8") from None
    except RecursionError:
        raise RecordError("too_deep") from None
    except ValueError:  # an integer with more digits than Python converts (4300)
        raise RecordError("number_too_long") from None
    return parse(data)


def load(path: str | os.PathLike[str]) -> GameRecord:
    """Read a record from a file; every problem becomes a :class:`RecordError`."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        raise RecordError("no_such_file") from None
    except IsADirectoryError:
        raise RecordError("is_folder") from None
    except OSError as error:
        raise RecordError("unreadable", {"reason": error.strerror or error, "errno": error.errno}) from None
    except ValueError as error:  # a path holding a NUL character
        raise RecordError("unreadable", {"reason": error, "errno": None}) from None
    return loads(raw)


def check(path: str | os.PathLike[str]) -> Score:
    """Load, replay and score a record file."""
    return score(load(path))


def from_mapping(data: Mapping[str, Any]) -> GameRecord:
    """Same as :func:`parse`, for callers that already hold a dict."""
    return parse(dict(data))
