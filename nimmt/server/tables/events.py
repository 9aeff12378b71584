"""The rules core's events as the protocol sends them, and the reveal people follow.

The wire name of each event is written here once (``docs/protocol.md`` lists the same names, and
a test holds the two together): renaming a class of the core never changes the protocol.
"""

from __future__ import annotations

from typing import Any

from nimmt.core import (
    CardChosen,
    CardPlaced,
    CardsRevealed,
    Event,
    GameEnded,
    GameState,
    RoundEnded,
    RoundStarted,
    RowChoiceNeeded,
    RowTaken,
    TurnEnded,
)

# The ``type`` each event has on the wire.
EVENT_TYPES: dict[type[Any], str] = {
    RoundStarted: "round_started",
    CardChosen: "card_chosen",
    CardsRevealed: "cards_revealed",
    RowChoiceNeeded: "row_choice_needed",
    RowTaken: "row_taken",
    CardPlaced: "card_placed",
    TurnEnded: "turn_ended",
    RoundEnded: "round_ended",
    GameEnded: "game_ended",
}


def event_json(event: Event) -> dict[str, Any]:
    """An event as the protocol sends it: its wire ``type``, then its fields (tuples as lists)."""
    data: dict[str, Any] = {"type": EVENT_TYPES[type(event)]}
    for key in event.__slots__:
        value = getattr(event, key)
        data[key] = list(value) if isinstance(value, tuple) else value
    return data


def follow(reveal: dict[str, Any] | None, events: tuple[Event, ...], before: GameState,
           version: int) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The latest turn's reveal after ``events`` (a new one when the cards are revealed), and the
    events as the protocol sends them. ``before``: the game before them; ``version``: the table's."""
    out: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, CardsRevealed):
            reveal = {
                "id": version,
                "round": before.round,
                "turn": before.turn + 1,
                "rows_before": [list(r) for r in before.rows],  # so people can follow each placement
                "cards": [[card, player] for card, player in sorted(
                    (c, p) for p, c in enumerate(event.cards))],
                "placements": [],
                "waiting": None,
            }
        elif isinstance(event, RowTaken) and reveal is not None:
            reveal["placements"].append(
                {"player": event.player, "row": event.row, "took": list(event.cards),
                 "bullheads": event.bullheads, "chosen": event.chosen}
            )
        elif isinstance(event, CardPlaced) and reveal is not None:
            placements = reveal["placements"]
            if placements and placements[-1]["player"] == event.player and "card" not in placements[-1]:
                placements[-1].update(card=event.card)
            else:
                placements.append({"player": event.player, "card": event.card, "row": event.row,
                                   "took": [], "bullheads": 0, "chosen": False})
            reveal["waiting"] = None
        elif isinstance(event, RowChoiceNeeded) and reveal is not None:
            reveal["waiting"] = {"player": event.player, "card": event.card}
        out.append(event_json(event))
    return reveal, out
