"""A score sheet for tables that play with a real deck: round penalties in, totals and the end out.

The end of the game follows the same rule as the engine (:meth:`nimmt.core.Rules.game_is_over`):
checked after each complete round, over when a total is above the threshold (or after a fixed
number of rounds).

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

FORMAT = "nimmt-scores/1"


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
        for name in self.players:
            if not isinstance(name, str) or not name.strip():
                raise ScoreSheetError(f"every player needs a name, not {name!r}", "name_missing", name=repr(name))
        if len({name.strip().casefold() for name in self.players}) != len(self.players):
            raise ScoreSheetError("two players have the same name", "same_name")

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
        return replace(self, rounds=(*self.rounds, values))

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
                raise ScoreSheetError(str(error), "rounds_rule", value=repr(rounds_rule)) from None
            raise ScoreSheetError(str(error), "end_above_rule", value=repr(end_above)) from None
        sheet = cls(tuple(players), rules)
        rounds = data.get("rounds", [])
        if not isinstance(rounds, list):
            raise ScoreSheetError("'rounds' must be a list", "rounds_list")
        for index, penalties in enumerate(rounds, 1):
            if not isinstance(penalties, list):
                raise ScoreSheetError(f"round {index} must be a list of penalties", "round_list", round=index)
            try:
                sheet = sheet.add_round(penalties)
            except ScoreSheetError as error:
                raise ScoreSheetError(f"round {index}: {error}", "in_round", round=index, error=error) from None
        return sheet
