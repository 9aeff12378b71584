"""The ladder's bots: legal actions from any position, sampling that fits the view, rollouts
that follow the rules, search that stops when told."""

from __future__ import annotations

import random
import time

import pytest

from nimmt.bots import BOTS, Bot, make_bot
from nimmt.bots.beginner import BeginnerBot
from nimmt.bots.expert import ExpertBot
from nimmt.bots.montecarlo import MonteCarloBot
from nimmt.bots.rollout import ENGINES, finish_random, table_of
from nimmt.bots.sampling import determinize
from nimmt.bots.search import evaluate
from nimmt.core import Phase, View, apply, deal_cards, legal_actions, new_game, view
from nimmt.core.fast import play_round


def positions(seed: int, players: int, count: int) -> list[View]:
    """Views of the player to act, collected along random games."""
    rng = random.Random(seed)
    state = new_game(players)
    found: list[View] = []
    while len(found) < count:
        if state.phase is Phase.DEAL:
            state = apply(state, deal_cards(players, rng)).state
            continue
        if state.phase is Phase.OVER:
            state = new_game(players)
            continue
        player = state.waiting_for[rng.randrange(len(state.waiting_for))]
        v = view(state, player)
        if rng.random() < 0.3 or v.must_choose_row:
            found.append(v)
        actions = legal_actions(state, player)
        state = apply(state, actions[rng.randrange(len(actions))]).state
    return found


def ladder() -> list[Bot]:
    return [
        BeginnerBot(random.Random(1)),
        MonteCarloBot(random.Random(2), samples=3),
        ExpertBot(random.Random(3), time_budget=0.02),
        ExpertBot(random.Random(4), time_budget=0.02, clock="cpu"),
    ]


def test_the_ladder_is_registered() -> None:
    for name in ("beginner", "montecarlo", "expert"):
        assert name in BOTS
        assert BOTS[name].description
        assert make_bot(name, random.Random(0)).name == name


@pytest.mark.parametrize("players", [2, 4, 10])
def test_bots_play_legal_actions_everywhere(players: int) -> None:
    bots = ladder()
    for v in positions(players, players, 12):
        legal = set(v.legal_actions())
        for bot in bots:
            assert bot.act(v) in legal, (bot.name, v)


def test_determinized_hands_fit_the_view() -> None:
    rng = random.Random(7)
    for v in positions(3, 5, 20):
        hands = determinize(v, rng)
        unseen = set(v.unseen_cards())
        dealt = [c for hand in hands for c in hand]
        assert len(dealt) == len(set(dealt))
        assert set(dealt) <= unseen
        for p, hand in enumerate(hands):
            assert len(hand) == (0 if p == v.player else v.hand_sizes[p])


def test_random_rollouts_score_like_the_rules_core() -> None:
    rng = random.Random(11)
    for _ in range(200):
        cards = rng.sample(range(1, 105), 3 * 10 + 4)
        rows, orders = cards[-4:], [cards[p * 10 : p * 10 + 10] for p in range(3)]
        penalties = [0, 0, 0]
        finish_random(table_of([(r,) for r in rows]), orders, penalties)
        assert penalties == play_round(rows, orders)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_rollouts_hand_out_every_card(engine: str) -> None:
    rng = random.Random(2)
    for v in positions(5, 4, 10):
        if v.must_choose_row:
            continue
        estimates = evaluate(v, v.hand, "card", rng=rng, engine=engine, samples=3)
        assert sorted(e.option for e in estimates) == sorted(v.hand)
        assert all(e.samples == 3 and e.mean >= 0 for e in estimates)


def test_search_stops_at_its_deadline() -> None:
    # A deadline already past: one batch of samples (the search checks the clock every 8), no more.
    v = positions(9, 4, 1)[0]
    options = v.hand if not v.must_choose_row else range(4)
    kind = "row" if v.must_choose_row else "card"
    estimates = evaluate(v, options, kind, rng=random.Random(1), deadline=time.perf_counter() - 1.0)
    assert {e.samples for e in estimates} == {8}


def test_a_fixed_sample_count_makes_the_expert_repeatable() -> None:
    views = [v for v in positions(21, 4, 6) if not v.must_choose_row]
    first = [ExpertBot(random.Random(4), time_budget=60, samples=20).choose_card(v) for v in views]
    again = [ExpertBot(random.Random(4), time_budget=60, samples=20).choose_card(v) for v in views]
    assert first == again


def opponent_share(opponents: str, seed: int) -> float:
    """The expert's belief that the others play like ``heuristic``, after two rounds against them."""
    from nimmt.bots.opponents import OpponentModel
    from nimmt.core import Rules
    from nimmt.match import play_game

    model = OpponentModel(random.Random(3))
    seen: list[float] = []

    class Watcher(BeginnerBot):
        def choose_card(self, view: View) -> int:
            model.observe(view)
            seen.append(model.heuristic_share)
            return super().choose_card(view)

    bots: list[Bot] = [Watcher(random.Random(0))] + [make_bot(opponents, random.Random(i)) for i in (1, 2, 3)]
    play_game(bots, random.Random(seed), Rules(rounds=2))
    assert seen[0] == pytest.approx(1 / 3)  # the prior before any evidence: 0.5 of 1.5 over the five styles
    assert OpponentModel(random.Random(0), ("heuristic", "random")).heuristic_share == 2 / 3
    return seen[-1]


def test_the_opponent_model_tells_careful_players_from_random_ones() -> None:
    # One game can mislead it (a random player's card often is what a careful player would play),
    # so the belief is judged over three deals.
    careful = [opponent_share("heuristic", seed) for seed in (8, 9, 10)]
    careless = [opponent_share("random", seed) for seed in (8, 9, 10)]
    assert sum(careful) / 3 > 0.9
    assert sum(careless) / 3 < 0.5
