"""A score sheet for tables that play with a real deck: round penalties in, totals and the end out.

The end of the game follows the same rule as the engine (:meth:`nimmt.core.Rules.game_is_over`):
checked after each complete round, over when a total is above the threshold (or after a fixed
number of rounds).

A sheet comes back from a web page or a file on every request, so everything in it is checked again
every time, within bounds that keep the work small: names as :func:`nimmt.names.clean_name` takes
them, a threshold from 0 to :data:`END_ABOVE_MOST`, a fixed number of rounds from 1 to
:data:`ROUNDS_MOST`, at most :data:`SHEET_ROUNDS_MOST` rounds typed.

>>> sheet = ScoreSheet(("Ana", "Bruno")).add_round([30, 36]).add_round([0, 30])
>>> sheet.totals, sheet.is_over
((30, 66), False)
>>> sheet = sheet.add_round([10, 1])
>>> sheet.totals, sheet.is_over, sheet.winners
((40, 67), True, (0,))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nimmt.core import DECK_BULLHEADS, MAX_PLAYERS, MIN_PLAYERS, NimmtError, Rules, RulesError
from nimmt.names import NameRefused, clean_name

FORMAT = "nimmt-scores/1"
END_ABOVE_MOST = 1000  # the highest threshold a sheet takes
ROUNDS_MOST = 30  # the most rounds a fixed-rounds game may have
SHEET_ROUNDS_MOST = 1000  # rounds one sheet holds at most (a game to 1,000 lasts far fewer)


class ScoreSheetError(NimmtError, ValueError):
    """A sheet or a round of penalties that cannot be right; the sheet is left as it was.

    ``str()`` is English (for programs and logs); ``key`` and ``params`` say the same for a message in
    another language (``err_<key>`` in the ``score`` messages). A param may itself be a
    ScoreSheetError (the reason inside "round 2: ..."), to be told the same way.
    """

    def __init__(self, message: str, key: str, **params: object) -> None:
        super().__init__(message)
        self.key = key
        self.params = params


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    players: tuple[str, ...]
    rules: Rules = field(default_factory=Rules)
    rounds: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= len(self.players) <= MAX_PLAYERS:
            raise ScoreSheetError(f"a table has 2 to 10 players, not {len(self.players)}", "players_count",
                                  count=len(self.players))
        names = []
        for name in self.players:
            if not isinstance(name, str) or not name.strip():
                raise ScoreSheetError(f"every player needs a name, not {_short(name)}", "name_missing",
                                      name=_short(name))
            try:
                names.append(clean_name(name))
            except NameRefused as error:
                raise _name_refused(name, error) from None
        if len({name.casefold() for name in names}) != len(names):
            raise ScoreSheetError("two players have the same name", "same_name")
        object.__setattr__(self, "players", tuple(names))
        rules = self.rules
        if not isinstance(rules, Rules):
            raise ScoreSheetError("'rules' must be an object", "rules_object")
        if rules.end_above > END_ABOVE_MOST:
            raise ScoreSheetError(f"the threshold must be a whole number from 0 to {END_ABOVE_MOST}, not "
                                  f"{rules.end_above}", "end_above_rule", value=_short(rules.end_above),
                                  most=END_ABOVE_MOST)
        if rules.rounds is not None and rules.rounds > ROUNDS_MOST:
            raise ScoreSheetError(f"the number of rounds must be a whole number from 1 to {ROUNDS_MOST}, not "
                                  f"{rules.rounds}", "rounds_rule", value=_short(rules.rounds), most=ROUNDS_MOST)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(r[p] for r in self.rounds) for p in range(len(self.players)))

    @property
    def is_over(self) -> bool:
        return bool(self.rounds) and self.rules.game_is_over(self.totals, len(self.rounds))

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats with the lowest total once the game is over; empty before."""
        if not self.is_over:
            return ()
        low = min(self.totals)
        return tuple(p for p, total in enumerate(self.totals) if total == low)

    @property
    def countdown(self) -> tuple[int, ...]:
        """The countdown display: each player starts at the threshold and counts down."""
        return tuple(self.rules.end_above - total for total in self.totals)

    def add_round(self, penalties: Sequence[object]) -> ScoreSheet:
        """This sheet with one more complete round of penalties (one number per player)."""
        if self.is_over:
            raise ScoreSheetError("the game is over: no more rounds can be added", "over")
        return replace(self, rounds=(*self.rounds, self._checked(penalties, len(self.rounds))))

    def _checked(self, penalties: Sequence[object], before: int) -> tuple[int, ...]:
        """One round's penalties (after ``before`` rounds) as whole numbers, or :class:`ScoreSheetError`."""
        if before >= SHEET_ROUNDS_MOST:
            raise ScoreSheetError(f"a sheet holds at most {SHEET_ROUNDS_MOST} rounds", "rounds_many",
                                  most=SHEET_ROUNDS_MOST)
        if len(penalties) != len(self.players):
            raise ScoreSheetError(
                f"a round needs one penalty per player ({len(self.players)}), not {len(penalties)}",
                "penalty_count", players=len(self.players), count=len(penalties),
            )
        for name, value in zip(self.players, penalties, strict=True):
            if not _is_int(value) or not 0 <= value <= DECK_BULLHEADS:  # type: ignore[operator]
                raise ScoreSheetError(
                    f"{name}'s penalty must be a whole number from 0 to {DECK_BULLHEADS}, not {value!r}",
                    "penalty_range", player=name, most=DECK_BULLHEADS, value=repr(value),
                )
        values = tuple(int(v) for v in penalties)  # type: ignore[call-overload]
        if sum(values) > DECK_BULLHEADS:
            raise ScoreSheetError(
                f"the penalties add up to {sum(values)}, but the whole deck holds only {DECK_BULLHEADS} bullheads",
                "penalty_sum", sum=sum(values), deck=DECK_BULLHEADS,
            )
        return values

    def undo(self) -> ScoreSheet:
        """This sheet without its last round (to fix a typing mistake)."""
        if not self.rounds:
            raise ScoreSheetError("there is no round to undo", "undo_none")
        return replace(self, rounds=self.rounds[:-1])

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "players": list(self.players),
            "rules": {"end_above": self.rules.end_above, "rounds": self.rules.rounds},
            "rounds": [list(r) for r in self.rounds],
            "totals": list(self.totals),
            "finished": self.is_over,
            "winners": list(self.winners),
        }

    @classmethod
    def from_json(cls, data: object) -> ScoreSheet:
        """Rebuild a sheet, checking every round again; raises :class:`ScoreSheetError`."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ScoreSheetError(f"not a score sheet (expected an object with format {FORMAT!r})", "not_sheet",
                                  format=FORMAT)
        players = data.get("players")
        if not isinstance(players, list):
            raise ScoreSheetError("'players' must be a list of names", "players_list")
        rules_data = data.get("rules") or {}
        if not isinstance(rules_data, dict):
            raise ScoreSheetError("'rules' must be an object", "rules_object")
        end_above, rounds_rule = rules_data.get("end_above", 66), rules_data.get("rounds")
        try:
            rules = Rules(end_above=end_above, rounds=rounds_rule)
        except RulesError as error:
            if rounds_rule is not None and not (_is_int(rounds_rule) and rounds_rule >= 1):
                raise ScoreSheetError(str(error), "rounds_rule", value=_short(rounds_rule), most=ROUNDS_MOST) from None
            raise ScoreSheetError(str(error), "end_above_rule", value=_short(end_above), most=END_ABOVE_MOST) from None
        if len(players) > MAX_PLAYERS:
            raise ScoreSheetError(f"a table has 2 to 10 players, not {len(players)}", "players_count",
                                  count=len(players))
        sheet = cls(tuple(players), rules)
        rounds = data.get("rounds", [])
        if not isinstance(rounds, list):
            raise ScoreSheetError("'rounds' must be a list", "rounds_list")
        # Totals kept as the rounds are checked: a long sheet costs one pass, not one per round.
        totals = [0] * len(sheet.players)
        kept: list[tuple[int, ...]] = []
        for index, penalties in enumerate(rounds, 1):
            try:
                if not isinstance(penalties, list):
                    raise ScoreSheetError(f"round {index} must be a list of penalties", "round_list", round=index)
                if kept and rules.game_is_over(totals, len(kept)):
                    raise ScoreSheetError("the game is over: no more rounds can be added", "over")
                values = sheet._checked(penalties, len(kept))
            except ScoreSheetError as error:
                if error.key == "round_list":
                    raise
                raise ScoreSheetError(f"round {index}: {error}", "in_round", round=index, error=error) from None
            kept.append(values)
            totals = [total + value for total, value in zip(totals, values, strict=True)]
        return replace(sheet, rounds=tuple(kept))


def _name_refused(name: str, error: NameRefused) -> ScoreSheetError:
    """Why ``name`` cannot be a player's, told with the score sheet's keys."""
    shown, message = _short(name), f"{_short(name)}: {error}"
    if error.key == "control":
        return ScoreSheetError(message, "name_control", name=shown)
    if error.key == "direction":
        return ScoreSheetError(message, "name_direction", name=shown)
    if error.key == "marks":
        return ScoreSheetError(message, "name_marks", name=shown, most=error.params["most"])
    if error.key == "long":
        return ScoreSheetError(message, "name_long", name=shown, most=error.params["most"],
                               count=error.params["count"])
    return ScoreSheetError(message, "name_empty", name=shown)


def _short(value: object) -> str:
    """A value quoted in a message, cut short: a sheet from outside may hold anything."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
