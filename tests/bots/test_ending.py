"""Playing for the game's end (issue 31, item 3): when the game may end with this round, the
``expert`` with ``ending=True`` values a rollout by its chance of leaving it with the lowest total,
from each player's bullheads in the rollouts (``nimmt.batch.seated``, the same rollouts as the
search's, each player's share kept apart)."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from nimmt.batch import rollout_card_penalties, rollout_row_penalties
from nimmt.batch.seated import card_seat_penalties, row_seat_penalties
from nimmt.bots import BotError, make_bot
from nimmt.bots.ending import end_scorer, margin_scorer, near_end
from nimmt.bots.expert import ExpertBot
from nimmt.bots.styles import policies_of, seats_of
from nimmt.core import Deal, GameState, PlayCard, Rules, apply, new_game, view
from nimmt.match import play_game


def opening(players: int, seed: int, rules: Rules | None = None) -> GameState:
    deck = list(range(1, 105))
    random.Random(seed).shuffle(deck)
    hands = tuple(tuple(sorted(deck[4 + 10 * p: 14 + 10 * p])) for p in range(players))
    return apply(new_game(players, rules), Deal(tuple(deck[:4]), hands)).state


def test_each_players_share_comes_from_the_same_rollouts_as_the_search() -> None:
    seen = view(opening(4, 3), 0)
    policy = policies_of(seats_of(["mc", "heuristic", "snug", "random"]), None)
    apart = card_seat_penalties(seen, seen.hand, 40, 7, policy)
    rest = np.zeros((10, 40), np.int64)
    mine = rollout_card_penalties(seen, seen.hand, 40, 7, policy, rest=rest)
    assert apart.shape == (10, 40, 4)
    assert (apart[:, :, 0] == mine).all() and (apart[:, :, 1:].sum(axis=-1) == rest).all()
    # A row choice: the taken row counts for the player who takes it.
    state = opening(2, 5)
    low = min(state.hands[0])
    state = apply(apply(state, PlayCard(0, low)).state, PlayCard(1, max(state.hands[1]))).state
    seen = view(state, 0)
    if seen.must_choose_row:
        apart = row_seat_penalties(seen, 30, 9, "heuristic")
        assert (apart[:, :, 0] == rollout_row_penalties(seen, 30, 9, "heuristic")).all()


def test_the_end_is_near_in_the_last_round_or_close_to_the_threshold() -> None:
    fixed = view(opening(4, 1, Rules(rounds=1)), 0)
    assert near_end(fixed)
    assert not near_end(view(opening(4, 1, Rules(rounds=2)), 0))
    classic = view(opening(4, 1), 0)
    assert not near_end(classic)  # every total 0
    assert near_end(replace(classic, totals=(40, 0, 0, 0)))  # 40 > 66 - 30
    assert not near_end(replace(classic, totals=(30, 0, 0, 0)))
    assert near_end(replace(classic, totals=(30, 0, 0, 0), penalties=(7, 0, 0, 0)))


def test_a_rollout_is_worth_its_chance_to_win() -> None:
    last = replace(view(opening(3, 2, Rules(rounds=1)), 0), totals=(10, 12, 20))
    score = end_scorer(last)
    # Bullheads of the round in three rollouts: alone lowest (10+5 < 12+4), a tie (10+2 = 12+0), behind.
    per_seat = np.array([[[5, 4, 0], [2, 0, 9], [9, 0, 0]]])
    assert score(per_seat).tolist() == [[-1.0, -0.5, 0.0]]
    classic = replace(view(opening(3, 2), 0), totals=(50, 60, 40))
    score = end_scorer(classic)
    ends = np.array([[[0, 7, 12]]])  # 67 passes 66: the game ends, 50 is the lowest total (52 next)
    goes_on = np.array([[[0, 0, 0]]])  # nobody passes: 50 against 40, a later chance below a third
    assert score(ends).tolist() == [[-1.0]]
    later = -score(goes_on)[0, 0]
    weights = np.exp(-np.array([10.0, 20.0, 0.0]) / 8.0)
    assert abs(later - weights[0] / weights.sum()) < 1e-12 and later < 1 / 3
    # A wider softmax (``tau``) says more of the game is still to play: the player behind keeps more chance.
    wider = -end_scorer(classic, tau=16.0)(goes_on)[0, 0]
    weights = np.exp(-np.array([10.0, 20.0, 0.0]) / 16.0)
    assert abs(wider - weights[0] / weights.sum()) < 1e-12 and later < wider < 1 / 3
    assert end_scorer(classic, tau=16.0)(ends).tolist() == [[-1.0]]  # an ended game is won or not, whatever tau


def test_the_expert_plays_a_fixed_last_round_for_the_win() -> None:
    bot = ExpertBot(random.Random(1), samples=16, ending=True)
    others = [make_bot("field:risk", random.Random(2 + s)) for s in range(3)]
    record = play_game([bot, *others], random.Random(3), Rules(rounds=1))
    assert len(record.rounds) == 1
    assert not ExpertBot(random.Random(1), samples=4).ending  # off by default


def test_a_margin_is_measured_against_the_tables_leader_or_its_mean() -> None:
    classic = replace(view(opening(3, 2), 0), totals=(10, 12, 20))
    # The round's bullheads in two rollouts: nobody passes 66, so no win counts.
    per_seat = np.array([[[5, 4, 0], [0, 9, 3]]])
    # Against the lowest other total: 15 - 16 = -1, and 10 - 21 = -11 (the leader took 9).
    assert margin_scorer(classic, "lowest", win=10.0)(per_seat).tolist() == [[-1.0, -11.0]]
    # Against the mean: the default search's lead, its bullheads minus the mean of the others'.
    assert margin_scorer(classic, "mean", win=10.0)(per_seat).tolist() == [[3.0, -6.0]]
    # In the fixed last round every rollout ends the game: a win is worth ``win`` bullheads more, a tie half.
    last = replace(view(opening(3, 2, Rules(rounds=1)), 0), totals=(10, 12, 20))
    per_seat = np.array([[[5, 4, 0], [2, 0, 9], [9, 0, 0]]])  # 15 < 16 alone lowest; 12 = 12 a tie; behind
    assert margin_scorer(last, "lowest", win=10.0)(per_seat).tolist() == [[-1.0 - 10.0, 0.0 - 5.0, 7.0]]
    assert margin_scorer(last, "lowest")(per_seat).tolist() == [[-1.0, 0.0, 7.0]]
    with pytest.raises(ValueError, match="versus"):
        margin_scorer(last, "highest")


def test_the_gate_keeps_the_default_lead_unless_the_first_chunk_often_ends_the_game() -> None:
    classic = replace(view(opening(3, 2), 0), totals=(50, 60, 40))
    ends = [0, 7, 12]  # 67 passes 66
    goes_on = [3, 0, 0]
    score = margin_scorer(classic, "lowest", win=10.0, gate=0.5)
    # 1 of 3 rollouts ends the game: each valued by the lead (0 - (7 + 12) / 2, 3 - 0).
    assert score(np.array([[ends, goes_on, goes_on]])).tolist() == [[-9.5, 3.0, 3.0]]
    assert score(np.array([[ends]])).tolist() == [[-9.5]]  # decided by the first chunk: still the lead
    score = margin_scorer(classic, "lowest", win=10.0, gate=0.5)
    # 2 of 3 end: margins to the lowest other total (50 - 52, 53 - 40), the won endings 10 bullheads off.
    assert score(np.array([[ends, ends, goes_on]])).tolist() == [[-12.0, -12.0, 13.0]]


def test_the_experts_objective_applies_near_the_end_only() -> None:
    classic = view(opening(4, 1), 0)
    bot = ExpertBot(random.Random(1), samples=4, objective="lowest", end_win=10.0, end_gate=0.3, leader_from=2)
    assert bot._scorer(classic) is None  # every total 0: plays for the lead as by default
    assert bot._scorer(replace(classic, totals=(40, 0, 0, 0))) is not None
    assert ExpertBot(random.Random(1), samples=4, near=100, leader_from=4)._scorer(classic) is not None
    default = ExpertBot(random.Random(1), samples=4)
    assert default.objective == "lowest"
    # By default only from 5 players: at 4 the lead as elsewhere, even near the end.
    assert default._scorer(replace(classic, totals=(60, 0, 0, 0))) is None
    five = view(opening(5, 1), 0)
    assert default._scorer(replace(five, totals=(60, 0, 0, 0, 0))) is not None
    assert default._scorer(five) is None
    lead = ExpertBot(random.Random(1), samples=4, objective="lead")
    assert lead._scorer(replace(classic, totals=(60, 0, 0, 0))) is None
    assert ExpertBot(random.Random(1), samples=4, ending=True).objective == "end"
    with pytest.raises(BotError, match="objective"):
        ExpertBot(objective="win")
    with pytest.raises(BotError, match="end_gate"):
        ExpertBot(objective="lowest", end_gate=1.5)
    with pytest.raises(BotError, match="tau"):
        ExpertBot(objective="end", tau=0)
    wide = ExpertBot(random.Random(1), samples=4, objective="end", tau=16.0, near=100)
    later = replace(view(opening(3, 2), 0), totals=(10, 30, 0))
    per_seat = np.array([[[0, 0, 0]]])
    assert wide._scorer(later)(per_seat)[0, 0] == end_scorer(later, 16.0)(per_seat)[0, 0]
    others = [make_bot("field:risk", random.Random(2 + s)) for s in range(3)]
    record = play_game([bot, *others], random.Random(3), Rules(rounds=2))
    assert len(record.rounds) == 2
