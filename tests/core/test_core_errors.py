"""Every wrong action raises the project's own exception, names the problem, changes nothing."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from nimmt.core import (
    AlreadyPlayed,
    CardNotInHand,
    ChooseRow,
    Deal,
    DealError,
    GameOver,
    GameState,
    IllegalAction,
    NimmtError,
    NotWaitingForThat,
    NotYourTurn,
    Phase,
    PlayCard,
    RowOutOfRange,
    Rules,
    UnknownPlayer,
    apply,
    deal_cards,
    legal_actions,
    new_game,
    view,
)
from tests.core.core_kit import choose_row_zero, play_turn

ROWS = (22, 10, 55, 33)
HAND0 = (5, 41, 42, 43, 44, 45, 46, 47, 48, 49)
HAND1 = (60, 61, 62, 63, 64, 65, 67, 68, 69, 70)
DEAL = Deal(ROWS, (HAND0, HAND1))


def choosing_cards() -> GameState:
    return apply(new_game(2), DEAL).state


def one_card_chosen() -> GameState:
    return apply(choosing_cards(), PlayCard(1, 60)).state


def choosing_row() -> GameState:
    state = apply(one_card_chosen(), PlayCard(0, 5)).state
    assert state.phase is Phase.CHOOSE_ROW
    return state


def game_over() -> GameState:
    state = apply(new_game(2, Rules(rounds=1)), deal_cards(2, random.Random(5))).state
    for _ in range(10):
        state = play_turn(state, [hand[0] for hand in state.hands], choose_row_zero)
    assert state.is_over
    return state


def between_rounds() -> GameState:
    state = apply(new_game(2), deal_cards(2, random.Random(5))).state
    for _ in range(10):
        state = play_turn(state, [hand[0] for hand in state.hands], choose_row_zero)
    assert state.phase is Phase.DEAL
    return state


STATES = {
    "before the deal": lambda: new_game(2),
    "choosing cards": choosing_cards,
    "one card chosen": one_card_chosen,
    "choosing a row": choosing_row,
    "between rounds": between_rounds,
    "game over": game_over,
}

# (state name, action, exception, words the message must hold)
CASES: list[tuple[str, Any, type[IllegalAction] | type[DealError], tuple[str, ...]]] = [
    ("choosing cards", PlayCard(0, 60), CardNotInHand, ("player 0", "60")),
    ("choosing cards", PlayCard(0, 105), CardNotInHand, ("105",)),
    ("choosing cards", PlayCard(0, "5"), CardNotInHand, ("'5'",)),
    ("choosing cards", PlayCard(0, 5.0), CardNotInHand, ("5.0",)),
    ("choosing cards", PlayCard(0, True), CardNotInHand, ("True",)),
    ("choosing cards", PlayCard(0, None), CardNotInHand, ("None",)),
    ("one card chosen", PlayCard(1, 61), AlreadyPlayed, ("player 1", "already")),
    ("one card chosen", PlayCard(1, 60), AlreadyPlayed, ("player 1", "already")),
    ("choosing cards", ChooseRow(0, 1), NotWaitingForThat, ("player 0", "row")),
    ("one card chosen", ChooseRow(1, 1), NotWaitingForThat, ("player 1", "row")),
    ("before the deal", ChooseRow(0, 1), NotWaitingForThat, ("row",)),
    ("between rounds", ChooseRow(0, 1), NotWaitingForThat, ("row",)),
    ("choosing a row", ChooseRow(0, -1), RowOutOfRange, ("-1", "0 to 3")),
    ("choosing a row", ChooseRow(0, 4), RowOutOfRange, ("4", "0 to 3")),
    ("choosing a row", ChooseRow(0, "1"), RowOutOfRange, ("'1'",)),
    ("choosing a row", ChooseRow(0, True), RowOutOfRange, ("True",)),
    ("choosing a row", ChooseRow(0, 1.0), RowOutOfRange, ("1.0",)),
    ("choosing a row", ChooseRow(0, None), RowOutOfRange, ("None",)),
    ("choosing a row", ChooseRow(1, 0), NotYourTurn, ("player 1", "waiting for player 0", "card 5")),
    ("choosing a row", PlayCard(1, 61), NotWaitingForThat, ("player 1", "waiting for player 0")),
    ("choosing a row", PlayCard(0, 41), NotWaitingForThat, ("player 0", "choose a row")),
    ("choosing a row", DEAL, NotWaitingForThat, ("round 1", "dealt")),
    ("choosing cards", DEAL, NotWaitingForThat, ("round 1", "dealt")),
    ("one card chosen", DEAL, NotWaitingForThat, ("round 1", "dealt")),
    ("before the deal", PlayCard(0, 5), NotWaitingForThat, ("dealt",)),
    ("between rounds", PlayCard(0, 5), NotWaitingForThat, ("dealt",)),
    ("game over", PlayCard(0, 5), GameOver, ("over",)),
    ("game over", ChooseRow(0, 0), GameOver, ("over",)),
    ("game over", DEAL, GameOver, ("over",)),
    ("game over", PlayCard(7, 5), GameOver, ("over",)),
    ("choosing cards", PlayCard(2, 5), UnknownPlayer, ("player 2", "0 to 1")),
    ("choosing cards", PlayCard(-1, 5), UnknownPlayer, ("player -1",)),
    ("choosing cards", PlayCard(True, 5), UnknownPlayer, ("True",)),
    ("choosing cards", PlayCard("0", 5), UnknownPlayer, ("'0'",)),
    ("choosing a row", ChooseRow(2, 0), UnknownPlayer, ("player 2",)),
    ("choosing a row", ChooseRow(None, 0), UnknownPlayer, ("None",)),
    ("choosing cards", "deal me in", NotWaitingForThat, ("deal me in", "not an action")),
    ("choosing cards", None, NotWaitingForThat, ("not an action",)),
]


@pytest.mark.parametrize(("where", "action", "error", "words"), CASES)
def test_wrong_actions(where: str, action: Any, error: type[Exception], words: tuple[str, ...]) -> None:
    state = STATES[where]()
    snapshot = copy.deepcopy(state)
    with pytest.raises(error) as caught:
        apply(state, action)
    assert isinstance(caught.value, NimmtError)
    message = str(caught.value)
    for word in words:
        assert word in message, (word, message)
    assert state == snapshot
    # The game goes on from the untouched state as if nothing happened.
    if state.phase is Phase.CHOOSE_ROW:
        assert apply(state, ChooseRow(0, 3)).state.phase is Phase.CHOOSE_CARDS
    elif state.phase is Phase.CHOOSE_CARDS:
        player = state.waiting_for[0]
        assert apply(state, PlayCard(player, state.hands[player][-1])).state != state


def test_nothing_proceeds_until_the_row_is_chosen() -> None:
    state = choosing_row()
    for action in (PlayCard(1, 61), PlayCard(0, 41), ChooseRow(1, 0), DEAL):
        with pytest.raises(IllegalAction):
            apply(state, action)
    assert state.waiting_for == (0,)
    assert legal_actions(state, 1) == ()
    assert view(state, 1).legal_actions() == ()


@pytest.mark.parametrize("player", [2, -1, True, "0", None, 1.0])
def test_unknown_players_in_queries(player: Any) -> None:
    state = choosing_cards()
    with pytest.raises(UnknownPlayer):
        legal_actions(state, player)
    if player is not None:
        with pytest.raises(UnknownPlayer):
            view(state, player)


def full_hands(*hands: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    return hands


BAD_DEALS: list[tuple[Any, Any, str]] = [
    (ROWS, (HAND0,), "1 hands for 2 players"),
    (ROWS, (HAND0, HAND1, tuple(range(71, 81))), "3 hands for 2 players"),
    ((22, 10, 55), (HAND0, HAND1), "not 3"),
    ((22, 10, 55, 33, 34), (HAND0, HAND1), "not 5"),
    (ROWS, (HAND0[:9], HAND1), "9 cards instead of 10"),
    (ROWS, (HAND0, (*HAND1, 71)), "11 cards instead of 10"),
    (ROWS, (HAND0, (0, *HAND1[1:])), "holds 0"),
    (ROWS, (HAND0, (105, *HAND1[1:])), "holds 105"),
    (ROWS, (HAND0, ("60", *HAND1[1:])), "holds '60'"),
    (ROWS, (HAND0, (60.0, *HAND1[1:])), "holds 60.0"),
    (ROWS, (HAND0, (True, *HAND1[1:])), "holds True"),
    ((22, 10, 55, None), (HAND0, HAND1), "holds None"),
    ((22, 10, 55, 22), (HAND0, HAND1), "card 22 is dealt twice"),
    (ROWS, (HAND0, (22, *HAND1[1:])), "card 22 is dealt twice"),
    (ROWS, (HAND0, (5, *HAND1[1:])), "card 5 is dealt twice"),
    (ROWS, (HAND0, (61, *HAND1[1:])), "card 61 is dealt twice"),
    (ROWS, None, "hands"),
    (None, (HAND0, HAND1), "rows"),
    (ROWS, (HAND0, None), "player 1's hand"),
    (ROWS, (HAND0, 7), "player 1's hand"),
    (ROWS, (HAND0, "abcdefghij"), "player 1's hand"),
    ((22, 10, 55, (33,)), (HAND0, HAND1), "holds (33,)"),
]


@pytest.mark.parametrize(("rows", "hands", "words"), BAD_DEALS)
def test_bad_deals(rows: Any, hands: Any, words: str) -> None:
    state = new_game(2)
    snapshot = copy.deepcopy(state)
    with pytest.raises(DealError) as caught:
        apply(state, Deal(rows, hands))
    assert words in str(caught.value)
    assert state == snapshot
    assert apply(state, DEAL).state.phase is Phase.CHOOSE_CARDS
