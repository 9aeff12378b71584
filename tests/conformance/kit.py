"""Reachable moments of a round, played by the rules core, for the conformance suite: every engine
that places cards is held against :func:`nimmt.core.apply` on them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from nimmt.core import BULLHEADS, GameState, apply, deal_cards, new_game
from tests.core.core_kit import play_turn


def fewest(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
    return min(range(4), key=heads.__getitem__)


@dataclass(frozen=True)
class Turn:
    """One turn played by the core: the rows and penalties before it, each player's card, the rows
    chosen for the low cards (in the order they were resolved), and the rows and penalties after."""

    players: int
    rows: tuple[tuple[int, ...], ...]
    penalties: tuple[int, ...]
    cards: tuple[int, ...]
    choices: tuple[int, ...]
    rows_after: tuple[tuple[int, ...], ...]
    penalties_after: tuple[int, ...]
    later: tuple[tuple[int, ...], ...]  # each player's cards for the turns after this one, in order

    @property
    def taken(self) -> list[int]:
        return [b - a for a, b in zip(self.penalties, self.penalties_after, strict=True)]


def core_turn(seed: int, players: int, before: int, fewest_rows: bool) -> Turn:
    """Deal with ``seed``, play ``before`` turns of random cards (random rows, or the fewest bullheads),
    then one more turn: that one is returned."""
    rng = random.Random(seed)
    state: GameState = apply(new_game(players), deal_cards(players, rng)).state
    chosen: list[int] = []

    def choose(player: int, card: int, ends: Sequence[int], heads: Sequence[int]) -> int:
        row = fewest(player, card, ends, heads) if fewest_rows else rng.randrange(4)
        chosen.append(row)
        return row

    orders = [rng.sample(hand, len(hand)) for hand in state.hands]
    for t in range(before):
        state = play_turn(state, [order[t] for order in orders], choose)
    rows, penalties = state.rows, state.penalties
    chosen.clear()
    cards = tuple(order[before] for order in orders)
    after = play_turn(state, cards, choose)
    return Turn(players, rows, penalties, cards, tuple(chosen), after.rows, after.penalties,
                tuple(tuple(order[before + 1 :]) for order in orders))


turns = st.builds(
    core_turn,
    seed=st.integers(0, 2**32),
    players=st.integers(2, 10),
    before=st.integers(0, 9),
    fewest_rows=st.booleans(),
)


# Turns where every low card took the row with the fewest bullheads (the first on a tie), before and
# during the turn: what the copies that decide low cards themselves assume.
fewest_turns = st.builds(
    core_turn, seed=st.integers(0, 2**32), players=st.integers(2, 10), before=st.integers(0, 9),
    fewest_rows=st.just(True),
)


def summary(rows: Sequence[Sequence[int]]) -> tuple[list[int], list[int], list[int]]:
    """Last card, length and bullheads of each row."""
    return [r[-1] for r in rows], [len(r) for r in rows], [sum(BULLHEADS[c] for c in r) for r in rows]
