"""A finished game, turn by turn, for the replay page: built by the rules core from the record."""

from __future__ import annotations

from typing import Any

from nimmt.core import (
    BULLHEADS,
    DECK,
    CardPlaced,
    Deal,
    GameState,
    RoundEnded,
    RowTaken,
    TurnEnded,
    apply,
    new_game,
)
from nimmt.records import GameRecord, replay


def frames(record: GameRecord) -> dict[str, Any]:
    """Every turn of ``record``: rows before and after, the cards revealed, where each went.

    Raises :class:`nimmt.records.RecordError` if the record breaks a rule.
    """
    result = replay(record)  # checks the whole record first, with its clear messages
    state: GameState = new_game(len(record.players), record.rules)
    turns: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for action in record.actions():
        before = state
        step = apply(state, action)
        state = step.state
        if isinstance(action, Deal):
            continue
        if current is None:
            current = {
                "round": before.round,
                "turn": before.turn + 1,
                "rows_before": [list(r) for r in before.rows],
                "hands": [list(h) for h in before.hands],
                "cards": [],
                "placements": [],
            }
        for event in step.events:
            if isinstance(event, RowTaken):
                current["placements"].append({"player": event.player, "row": event.row,
                                              "took": list(event.cards), "bullheads": event.bullheads,
                                              "chosen": event.chosen})
            elif isinstance(event, CardPlaced):
                last = current["placements"][-1] if current["placements"] else None
                if last is not None and last["player"] == event.player and "card" not in last:
                    last["card"] = event.card
                else:
                    current["placements"].append({"player": event.player, "card": event.card, "row": event.row,
                                                  "took": [], "bullheads": 0, "chosen": False})
        ended = [e for e in step.events if isinstance(e, RoundEnded)]
        if any(isinstance(e, TurnEnded) for e in step.events):
            current["cards"] = sorted([p["card"], p["player"]] for p in current["placements"])
            current["rows"] = [list(r) for r in state.rows]
            current["penalties"] = list(ended[0].penalties if ended else state.penalties)
            current["totals"] = list(state.totals)
            turns.append(current)
            current = None
    return {
        "players": list(record.players),
        "rules": {"end_above": record.rules.end_above, "rounds": record.rules.rounds},
        "turns": turns,
        "totals": list(result.totals),
        "rounds": [list(r) for r in result.rounds],
        "winners": list(result.winners),
        "finished": result.finished,
        "bullheads": {str(c): BULLHEADS[c] for c in DECK},  # printed on the cards: public
    }
