"""Rollouts from a player's view: checked against exact expectations computed with the core."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import permutations

import numpy as np
import pytest

from nimmt.batch import (
    HAVE_NUMBA,
    BatchError,
    rollout_card_penalties,
    rollout_card_values,
    rollout_row_values,
)
from nimmt.core import BULLHEADS, ChooseRow, GameState, Phase, PlayCard, apply, deal_cards, new_game, view

ENGINES = ["numpy", *(["numba"] if HAVE_NUMBA else [])]


def fewest(state: GameState) -> int:
    heads = [sum(BULLHEADS[c] for c in row) for row in state.rows]
    return heads.index(min(heads))


def advance(players: int, seed: int, turn: int) -> GameState:
    """Random play in round 1 up to the start of ``turn`` (rows chosen by fewest bullheads)."""
    rng = random.Random(seed)
    state = apply(new_game(players), deal_cards(players, rng)).state
    while state.turn < turn:
        if state.phase is Phase.CHOOSE_ROW:
            state = apply(state, ChooseRow(state.waiting_for[0], fewest(state))).state
        else:
            p = state.waiting_for[0]
            state = apply(state, PlayCard(p, rng.choice(state.hands[p]))).state
    return state


def finish(state: GameState, cards: dict[int, list[int]], me: int) -> int:
    """Give each other player ``cards[p]`` as its hand, play ``cards[p]`` turn by turn (rows by
    fewest bullheads) to the end of the round; the bullheads ``me`` takes from here."""
    hands = tuple(state.hands[p] if p == me else tuple(sorted(cards[p])) for p in range(state.players))
    state = replace(state, hands=hands)
    before = state.penalties[me]
    start = state.turn
    while state.phase is not Phase.DEAL and state.phase is not Phase.OVER:
        if state.phase is Phase.CHOOSE_ROW:
            state = apply(state, ChooseRow(state.waiting_for[0], fewest(state))).state
        else:
            p = state.waiting_for[0]
            state = apply(state, PlayCard(p, cards[p][state.turn - start])).state
    return state.history[-1][me] - before


@pytest.fixture(scope="module")
def last_turns() -> tuple[GameState, dict[int, float]]:
    """Two players, two cards left: the exact expectation of each card, by enumerating every hand
    the opponent can hold, in every order."""
    state = advance(2, 11, 8)
    v = view(state, 0)
    pool = v.unseen_cards()
    exact = {}
    for card in v.hand:
        other = next(c for c in v.hand if c != card)
        outcomes = [finish(state, {0: [card, other], 1: [a, b]}, 0) for a, b in permutations(pool, 2)]
        exact[card] = float(np.mean(outcomes))
    return state, exact


@pytest.mark.parametrize("engine", ENGINES)
def test_card_values_at_the_last_turns_match_the_exact_expectation(
    engine: str, last_turns: tuple[GameState, dict[int, float]]
) -> None:
    state, exact = last_turns
    v = view(state, 0)
    got = rollout_card_penalties(v, None, 6000, np.random.default_rng(1), policy="fewest", engine=engine)
    for i, card in enumerate(v.hand):
        mean = got[i].mean()
        error = got[i].std() / np.sqrt(got.shape[1]) + 1e-9
        assert abs(mean - exact[card]) < 4 * error + 1e-9, (card, mean, exact[card], error)


@pytest.mark.parametrize("engine", ENGINES)
def test_row_values_on_the_last_turn_are_exact(engine: str) -> None:
    """A row choice on the last turn leaves nothing to chance when rows go by fewest bullheads."""
    found = 0
    for seed in range(400):
        state = advance(5, seed, 9)
        rng = random.Random(seed)
        order = list(range(5))
        rng.shuffle(order)
        for p in order:
            if state.phase is not Phase.CHOOSE_CARDS:
                break
            state = apply(state, PlayCard(p, state.hands[p][0])).state
        if state.phase is not Phase.CHOOSE_ROW:
            continue
        me = state.waiting_for[0]
        values = rollout_row_values(view(state, me), 8, np.random.default_rng(seed), policy="fewest", engine=engine)
        for row in range(4):
            after = apply(state, ChooseRow(me, row)).state
            taken = sum(BULLHEADS[c] for c in state.rows[row])
            assert values[row] == taken + finish(after, {p: [] for p in range(5)}, me), (seed, row)
        found += 1
        if found == 5:
            break
    assert found == 5


def test_both_engines_agree_on_random_rollouts() -> None:
    if not HAVE_NUMBA:
        pytest.skip("needs numba")  # pragma: no cover
    v = view(advance(4, 3, 2), 1)
    a = rollout_card_penalties(v, None, 3000, np.random.default_rng(1), engine="numba")
    b = rollout_card_penalties(v, None, 3000, np.random.default_rng(2), engine="numpy")
    error = np.sqrt(a.var(axis=1) / 3000 + b.var(axis=1) / 3000)
    assert (np.abs(a.mean(axis=1) - b.mean(axis=1)) < 4.5 * error).all()


def test_heuristic_rollouts_take_fewer_bullheads_than_random_ones() -> None:
    v = view(advance(4, 5, 0), 0)
    rng = np.random.default_rng(3)
    random_best = min(rollout_card_values(v, None, 400, rng, policy="random").values())
    heuristic_best = min(rollout_card_values(v, None, 400, rng, policy="heuristic").values())
    assert heuristic_best < random_best


def test_the_same_seed_gives_the_same_values() -> None:
    v = view(advance(3, 8, 4), 2)
    first = rollout_card_values(v, (v.hand[0], v.hand[-1]), 200, np.random.default_rng(5))
    again = rollout_card_values(v, (v.hand[0], v.hand[-1]), 200, np.random.default_rng(5))
    assert first == again and set(first) == {v.hand[0], v.hand[-1]}


def test_any_random_source_will_do() -> None:
    v = view(advance(3, 8, 4), 2)
    from_random = rollout_card_values(v, None, 50, random.Random(4))
    assert from_random == rollout_card_values(v, None, 50, random.Random(4))
    assert rollout_card_values(v, None, 50, 17) == rollout_card_values(v, None, 50, 17)
    with pytest.raises(BatchError, match="rng must be"):
        rollout_card_values(v, None, 50, "seven")  # type: ignore[arg-type]


def test_rollouts_refuse_views_that_do_not_fit() -> None:
    state = advance(3, 1, 1)
    v = view(state, 0)
    with pytest.raises(BatchError, match="must be in the hand"):
        rollout_card_values(v, (105,), 10)
    with pytest.raises(BatchError, match="must choose a row"):
        rollout_row_values(v, 10)
    with pytest.raises(BatchError, match="n_samples"):
        rollout_card_values(v, None, 0)
    with pytest.raises(BatchError, match="unknown policy"):
        rollout_card_values(v, None, 10, policy="psychic")
    chosen = apply(state, PlayCard(0, state.hands[0][0])).state
    with pytest.raises(BatchError, match="must play a card"):
        rollout_card_values(view(chosen, 0), None, 10)
    with pytest.raises(BatchError, match="must play a card"):
        rollout_card_values(view(state, None), None, 10)


def test_warm_up_loads_the_rollouts_once_per_process() -> None:
    import nimmt.batch.rollout as R
    from nimmt.batch import warm_up

    R._warm = False
    first = warm_up()
    assert first > 0.0 and R._warm
    assert warm_up() == 0.0  # warm: nothing more to do
