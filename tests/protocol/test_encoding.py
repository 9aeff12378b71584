"""The JSON form of views and actions: faithful, plain JSON, and never holding another player's secret."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from nimmt.core import ChooseRow, GameState, Phase, PlayCard, Rules, apply, deal_cards, new_game, view
from nimmt.protocol import ProtocolError, action_from_json, action_to_json, view_from_json, view_to_json
from nimmt.protocol.encoding import seat_view_json, shared_view_json

CARD_KEYS = ("rows", "hand", "my_card", "revealed", "played", "taken", "row_choice_card", "legal")


def states(seed: int, players: int) -> Iterator[GameState]:
    """Every state of a random game, one action at a time."""
    rng = random.Random(seed)
    state = new_game(players, Rules(rounds=2))
    yield state
    while state.phase is not Phase.OVER:
        if state.phase is Phase.DEAL:
            state = apply(state, deal_cards(players, rng)).state
        else:
            player = state.waiting_for[rng.randrange(len(state.waiting_for))]
            action = rng.choice(view(state, player).legal_actions())
            state = apply(state, action).state
        yield state


def cards_in(data: dict[str, Any]) -> set[int]:
    found: set[int] = set()

    def walk(value: object) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int):
            found.add(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key != "player":
                    walk(item)

    for key in CARD_KEYS:
        walk(data[key])
    return found


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 5), (3, 10)])
def test_views_survive_json_and_hide_other_players_picks(seed: int, players: int) -> None:
    for state in states(seed, players):
        for player in (*range(players), None):
            seen = view(state, player)
            data = view_to_json(seen)
            assert view_from_json(json.loads(json.dumps(data))) == seen
            if player is None or not state.chosen or state.revealed:
                continue
            visible = cards_in(data)
            for other, card in enumerate(state.chosen):
                if card is not None and other != player:
                    assert card not in visible  # a pick stays secret until the reveal
            for other, hand in enumerate(state.hands):
                if other != player:
                    assert not visible & set(hand)  # nor is any card of another hand shown



@pytest.mark.parametrize(("seed", "players"), [(4, 3), (5, 10)])
def test_a_seats_view_is_the_shared_part_and_its_own_keys(seed: int, players: int) -> None:
    """A server makes the shared part once per moment and each seat's view on it: the same JSON as
    view_to_json, a spectator's view as the shared part, and nothing of a seat's own in it."""
    own = {"player", "hand", "my_card", "must_play_card", "must_choose_row", "legal"}
    for state in states(seed, players):
        shared = shared_view_json(view(state, players - 1))  # from any seat's view
        assert shared == view_to_json(view(state, None))
        for player in (*range(players), None):
            seen = view(state, player)
            data = seat_view_json(shared, seen)
            assert json.dumps(data) == json.dumps(view_to_json(seen))  # the keys in the same order too
            assert data["legal"] == [action_to_json(action) for action in seen.legal_actions()]
            assert {key for key in data if data[key] != shared[key]} <= own


def test_actions_round_trip_and_lies_are_named() -> None:
    state = next(s for s in states(4, 3) if s.phase is Phase.CHOOSE_CARDS)
    seen = view(state, 1)
    for action in seen.legal_actions():
        assert action_from_json(json.loads(json.dumps(action_to_json(action))), seen) == action
    assert action_to_json(ChooseRow(0, 3)) == {"row": 3}
    missing = next(card for card in range(1, 105) if card not in seen.hand)
    cases: list[tuple[object, str, str, str, dict[str, str]]] = [
        ({"card": missing}, "illegal_action", f"played card {missing}, which is not in its hand", "not_in_hand",
         {"card": str(missing), "hand": str(list(seen.hand))}),
        ({"row": 1}, "wrong_kind", "answered row 1 but was asked to play a card", "row_for_card", {"row": "1"}),
        ({"card": "12"}, "bad_answer", "must be a whole number", "card_not_number", {"answer": "'12'"}),
        ({}, "bad_answer", 'exactly one of "card" or "row"', "card_or_row", {"answer": "{}"}),
        ("card 12", "bad_answer", "must be a JSON object", "not_object", {"answer": "'card 12'"}),
    ]
    for answer, kind, words, reason, facts in cases:
        with pytest.raises(ProtocolError, match=words) as caught:
            action_from_json(answer, seen)
        assert caught.value.kind == kind
        assert (caught.value.reason, caught.value.facts) == (reason, facts)
    assert isinstance(action_from_json({"card": seen.hand[0]}, seen), PlayCard)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"format": "nimmt-view/0"}, "format"),
        ({"phase": "lunch"}, "phase"),
        ({"rules": {"edition": "professional", "end_above": 66, "rounds": None}}, "not automated"),
        ({"hand": [1, "2"]}, "'hand' must be a list of whole numbers"),
        ({"turn": None}, "'turn' must be a whole number"),
        ({"revealed": [{"card": 3}]}, "'revealed' must be a list"),
    ],
)
def test_broken_views_are_refused_clearly(change: dict[str, Any], words: str) -> None:
    data = view_to_json(view(next(iter(states(5, 2))), 0)) | change
    with pytest.raises(ProtocolError, match=words):
        view_from_json(data)
