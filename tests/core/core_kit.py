"""Helpers for the rules-core tests: building positions by hand and driving random games."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from nimmt.core import (
    BULLHEADS,
    DECK,
    Action,
    ChooseRow,
    Deal,
    Event,
    GameState,
    Phase,
    PlayCard,
    Rules,
    apply,
    deal_cards,
    new_game,
)

# (player, card, last card of each row, bullheads of each row) -> row, as in nimmt.core.fast
RowChooser = Callable[[int, int, Sequence[int], Sequence[int]], int]


def ends_and_heads(state: GameState) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return (
        tuple(row[-1] for row in state.rows),
        tuple(sum(BULLHEADS[c] for c in row) for row in state.rows),
    )


def play_turn(
    state: GameState,
    cards: Sequence[int],
    rows: Mapping[int, int] | RowChooser | None = None,
) -> GameState:
    """Play one whole turn: ``cards[p]`` for each player, then the row choices it needs."""
    for player, card in enumerate(cards):
        state = apply(state, PlayCard(player, card)).state
    while state.phase is Phase.CHOOSE_ROW:
        player = state.waiting_for[0]
        if rows is None:
            raise AssertionError(f"player {player} must choose a row, but the test gave no choice")
        if isinstance(rows, Mapping):
            row = rows[player]
        else:
            card = state.row_choice_card
            assert card is not None
            ends, heads = ends_and_heads(state)
            row = rows(player, card, ends, heads)
        state = apply(state, ChooseRow(player, row)).state
    return state


def play_round(
    state: GameState, deal: Deal, orders: Sequence[Sequence[int]], chooser: RowChooser
) -> GameState:
    """Deal, then play ``orders[p][t]`` for each player p in turn t."""
    state = apply(state, deal).state
    for t in range(len(orders[0])):
        state = play_turn(state, [order[t] for order in orders], chooser)
    return state


def choose_row_zero(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
    return 0


def undealt(deal: Deal) -> set[int]:
    return set(DECK) - set(deal.rows) - {c for hand in deal.hands for c in hand}


@dataclass
class Moment:
    """One step of a random game: the action applied, the state after it, the round's deal."""

    action: Action
    state: GameState
    deal: Deal
    events: tuple[Event, ...] = ()


def random_game(players: int, rng: random.Random, rules: Rules | None = None) -> Iterator[Moment]:
    """A whole game of random play (random cards, random rows), every step yielded."""
    state = new_game(players, rules)
    deal: Deal | None = None
    while state.phase is not Phase.OVER:
        action: Action
        if state.phase is Phase.DEAL:
            deal = deal_cards(players, rng)
            action = deal
        elif state.phase is Phase.CHOOSE_ROW:
            action = ChooseRow(state.waiting_for[0], rng.randrange(4))
        else:
            # Players choose in a random order, as at a real table.
            player = rng.choice(state.waiting_for)
            action = PlayCard(player, rng.choice(state.hands[player]))
        step = apply(state, action)
        state = step.state
        assert deal is not None
        yield Moment(action, state, deal, step.events)
