"""The learned policy and value: weights from the package, deterministic NumPy inference, features
from the view alone, and a bot that plays legal moves and chooses its own row at every table size."""

from __future__ import annotations

import json
import random
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.bots import Bot, make_bot
from nimmt.bots.learned import FEATURES, WEIGHTS, LearnedBot, Net, card_features, load, row_values, view_features
from nimmt.core import ChooseRow, Deal, PlayCard, Rules, View, apply, new_game, view
from nimmt.match import play_game


def deal_of(players: int, cards: list[int]) -> Deal:
    return Deal(tuple(cards[:4]), tuple(tuple(sorted(cards[4 + 10 * p : 14 + 10 * p])) for p in range(players)))


def test_the_weights_load_from_the_package_and_are_small() -> None:
    data = resources.files("nimmt.bots").joinpath("data", WEIGHTS).read_bytes()
    assert len(data) < 200_000  # shipped in the package: kept small
    net = load()
    assert isinstance(net, Net)
    assert net.w1.shape[0] == FEATURES and net.w3.shape[1] == 2
    trained = json.loads(net.meta)  # how it was trained travels with the weights
    assert trained["positions"] > 0 and trained["rollouts"] > 0
    assert load() is net  # loaded once per process


def test_inference_is_deterministic_and_gives_a_policy_and_a_value() -> None:
    rng = random.Random(5)
    cards = list(range(1, 105))
    rng.shuffle(cards)
    seen = view(apply(new_game(4), deal_of(4, cards)).state, 2)
    features = view_features(seen)
    assert features.shape == (10, FEATURES) and features.dtype == np.float32
    q, policy, value = load().evaluate(features)
    again = load().evaluate(view_features(seen))
    assert np.array_equal(q, again[0]) and np.array_equal(policy, again[1]) and value == again[2]
    assert abs(float(policy.sum()) - 1.0) < 1e-5 and (policy >= 0).all()
    assert float(q.min()) <= value <= float(q.max())
    # Two bots of different seeds play the same card: the net has no chance in it.
    first, second = make_bot("learned", random.Random(1)), make_bot("learned", random.Random(2))
    assert first.choose_card(seen) == second.choose_card(seen)


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 10), cards=st.permutations(range(1, 105)), other=st.data())
def test_the_features_see_only_the_view(players: int, cards: list[int], other: st.DataObject) -> None:
    """Two tables that differ only in what seat 0 cannot see give it the same view, the same
    numbers and the same card; what it can see (its hand) changes the numbers."""
    hidden = cards[14:]
    twin_cards = cards[:14] + list(other.draw(st.permutations(hidden)))
    state = apply(new_game(players), deal_of(players, cards)).state
    twin = apply(new_game(players), deal_of(players, twin_cards)).state
    seen, seen_twin = view(state, 0), view(twin, 0)
    assert seen == seen_twin
    assert np.array_equal(view_features(seen), view_features(seen_twin))
    bot = LearnedBot(random.Random(0))
    assert bot.choose_card(seen) == bot.choose_card(seen_twin) in seen.hand
    unseen = sorted(seen.unseen_cards())
    other_hand = sorted(unseen[:10])
    assert not np.array_equal(card_features(seen.rows, other_hand, unseen, players), view_features(seen))


class Counting(Bot):
    """Plays like ``inner``; counts the rows it chose and checks every action against its view."""

    name = "counting"
    description = "counts"

    def __init__(self, inner: Bot) -> None:
        super().__init__()
        self.inner = inner
        self.rows = 0

    def choose_card(self, view: View) -> int:
        card = self.inner.choose_card(view)
        assert card in view.hand
        return card

    def choose_row(self, view: View) -> int:
        self.rows += 1
        row = self.inner.choose_row(view)
        assert row in range(4)
        return row


def test_the_learned_bot_plays_legally_and_chooses_its_own_rows_at_2_to_10_players() -> None:
    # The game refuses any illegal move; every learned seat chooses its own rows.
    rng = random.Random(3)
    chosen = 0
    for players in range(2, 11):
        seats = [Counting(make_bot("learned", random.Random(rng.random()))) for _ in range(players - 1)]
        bots: list[Bot] = [*seats, make_bot("field:lowest", random.Random(1))]  # a low card player forces rows
        record = play_game(bots, random.Random(players), Rules(rounds=1))
        assert sum(isinstance(a, PlayCard) for a in record.actions()) == 10 * players  # the whole round
        chosen += sum(s.rows for s in seats)
    assert chosen > 0


def test_its_row_is_the_cheapest_now_plus_what_its_hand_expects_later() -> None:
    # Seat 0's card 1 is below every row; it must choose. Its row values are each row's bullheads
    # plus the net's value of its hand afterwards; it takes the lowest.
    hands = ((1, 60, 61, 62, 63, 64, 65, 66, 67, 68), (2, 70, 71, 72, 73, 74, 75, 76, 77, 78))
    state = apply(new_game(2), Deal((10, 20, 55, 40), hands)).state
    state = apply(apply(state, PlayCard(0, 1)).state, PlayCard(1, 70)).state
    seen = view(state, 0)
    assert seen.must_choose_row
    values = row_values(load(), seen)
    bullheads = seen.row_bullheads()
    assert all(v >= b - 1.0 for v, b in zip(values, bullheads, strict=True))  # the value of a hand is not very negative
    bot = LearnedBot(random.Random(0))
    row = bot.choose_row(seen)
    assert row == min(range(4), key=lambda r: (values[r], r))
    assert isinstance(bot.act(seen), ChooseRow)


def test_the_policy_mode_plays_the_likeliest_card() -> None:
    hands = (tuple(range(41, 51)), tuple(range(51, 61)))
    seen = view(apply(new_game(2), Deal((1, 2, 3, 4), hands)).state, 0)
    scores = load().score_view(seen)
    likeliest = max(scores, key=lambda c: scores[c][1])
    assert LearnedBot(random.Random(0), mode="policy").choose_card(seen) == likeliest
    lowest = min(scores, key=lambda c: scores[c][0])
    assert LearnedBot(random.Random(0), mode="value").choose_card(seen) == lowest


def test_the_coach_gives_the_networks_view_too() -> None:
    from nimmt.coach import advise_cards, advise_rows

    hands = (tuple(range(41, 51)), tuple(range(51, 61)))
    seen = view(apply(new_game(2), Deal((1, 2, 3, 4), hands)).state, 0)
    advice = advise_cards(seen, samples=16, rng=random.Random(1))
    scores = load().score_view(seen)
    assert [(a.net_bullheads, a.net_chance) for a in advice] == [scores[a.card] for a in advice]
    assert abs(sum(a.net_chance or 0.0 for a in advice) - 1.0) < 1e-5
    assert all(a.net_bullheads is None for a in advise_cards(seen, samples=16, learned=False))
    hands = ((1, 60, 61, 62, 63, 64, 65, 66, 67, 68), (2, 70, 71, 72, 73, 74, 75, 76, 77, 78))
    state = apply(new_game(2), Deal((10, 20, 55, 40), hands)).state
    choosing = view(apply(apply(state, PlayCard(0, 1)).state, PlayCard(1, 70)).state, 0)
    rows = advise_rows(choosing, samples=16, rng=random.Random(1))
    assert [r.net_total for r in rows] == row_values(load(), choosing)


def test_the_expert_searches_only_the_cards_its_prior_leaves() -> None:
    from nimmt.bots.expert import ExpertBot

    rng = random.Random(8)
    cards = list(range(1, 105))
    rng.shuffle(cards)
    seen = view(apply(new_game(4), deal_of(4, cards)).state, 1)
    q = {card: value for card, (value, _) in load().score_view(seen).items()}
    best_two = sorted(seen.hand, key=lambda c: q[c])[:2]
    plain = ExpertBot(random.Random(0), samples=16)
    assert plain._prior(seen) == {} and plain._candidates(seen, {}) == list(seen.hand)
    tight = ExpertBot(random.Random(0), samples=16, prior_margin=0.0)
    assert tight._candidates(seen, tight._prior(seen)) == best_two  # never fewer than two
    assert tight.choose_card(seen) in best_two
    wide = ExpertBot(random.Random(0), samples=16, prior_margin=1000.0, prior_weight=1e9)
    # A prior worth a billion samples decides: the card the network values best.
    assert wide.choose_card(seen) == best_two[0]


def test_the_expert_can_roll_out_its_own_cards_with_the_network() -> None:
    from nimmt.batch import CardPolicy, RowPolicy
    from nimmt.bots.base import BotError
    from nimmt.bots.expert import ExpertBot

    with pytest.raises(BotError, match="'heuristic' or 'learned', not 'lucky'"):
        ExpertBot(random.Random(0), own="lucky")
    cards = list(range(1, 105))
    random.Random(9).shuffle(cards)
    seen = view(apply(new_game(4), deal_of(4, cards)).state, 2)
    for own, policy in (("heuristic", CardPolicy.HEURISTIC), ("learned", CardPolicy.NET)):
        card_pols, row_pols = ExpertBot(random.Random(0), own=own)._seats(seen)()
        assert card_pols[2] == policy and row_pols[2] == RowPolicy.HEURISTIC
        assert CardPolicy.NET not in card_pols[:2] + card_pols[3:]  # the others keep the styles of its model
    # A whole round with it, rows included (the game refuses any illegal move).
    expert = Counting(ExpertBot(random.Random(1), samples=8, own="learned"))
    bots: list[Bot] = [expert, make_bot("field:lowest", random.Random(1)), make_bot("heuristic", random.Random(2))]
    record = play_game(bots, random.Random(4), Rules(rounds=1))
    assert sum(isinstance(a, PlayCard) for a in record.actions()) == 30
