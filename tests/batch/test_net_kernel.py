"""The learned network inside the compiled rollouts (``CardPolicy.NET``) against the learned bot: the
same features, bit for bit, from the rollouts' own packing of a position (the cards every player has
seen) as from the bot's view, and the same card as ``LearnedBot`` (whose network runs in NumPy)
wherever its choice is clear."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nimmt.batch import HEURISTIC_TIE
from nimmt.batch import _kernels as K
from nimmt.batch.rollout import _public
from nimmt.bots import Bot, make_bot
from nimmt.bots.learned import FEATURES, HIDDEN, LearnedBot, Net, card_features, load
from nimmt.bots.styles import drawn_temperature, learned_chances
from nimmt.core import BULLHEADS, View
from nimmt.match import play_game

# One xdist worker compiles net_choice (no product path calls it alone, so nimmt prepare does not)
# and the module's other tests load it from the cache, instead of both workers compiling it at once.
pytestmark = pytest.mark.xdist_group("net_choice")


class Recorder(Bot):
    """Plays like ``inner`` and keeps every view it chose a card from."""

    name = "recorder"

    def __init__(self, inner: Bot, views: list[View]) -> None:
        super().__init__(random.Random(0))
        self.inner = inner
        self.views = views

    def choose_card(self, view: View) -> int:
        self.views.append(view)
        return self.inner.choose_card(view)

    def choose_row(self, view: View) -> int:
        return self.inner.choose_row(view)


def positions(players: int, games: int, seed: int) -> list[View]:
    """Card choices from games of heuristic and random players (a mix of careful and odd tables)."""
    views: list[View] = []
    rng = random.Random(seed)
    for g in range(games):
        bots: list[Bot] = [
            Recorder(make_bot("heuristic" if (g + p) % 2 else "random", random.Random(rng.random())), views)
            for p in range(players)
        ]
        play_game(bots, random.Random(rng.getrandbits(32)))
    return views


def rows_of(view: View) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows as the kernels hold them: last cards, lengths, bullheads."""
    ends = np.array([row[-1] for row in view.rows], np.int64)
    counts = np.array([len(row) for row in view.rows], np.int64)
    heads = np.array([sum(BULLHEADS[c] for c in row) for row in view.rows], np.int64)
    return ends, counts, heads


def kernel_choice(view: View, net: np.ndarray, hand: list[int]) -> tuple[int, np.ndarray]:
    ends, counts, heads = rows_of(view)
    feats = np.zeros((len(hand), FEATURES), np.float32)
    index = K.net_choice(ends, counts, heads, np.array(hand, np.int64), _public(view), view.players,
                         HEURISTIC_TIE, net, feats)
    return hand[index], feats


@pytest.mark.parametrize("players", [2, 3, 4, 6, 10])
def test_the_compiled_network_sees_the_same_features_and_plays_the_same_card(players: int) -> None:
    net = load()
    flat = net.flat
    bot = LearnedBot(random.Random(0))
    views = positions(players, 3 if players < 6 else 1, players)[:120]
    assert len(views) >= 40
    clear = 0
    for i, view in enumerate(views):
        hand = list(view.hand)
        random.Random(i).shuffle(hand)  # the kernel takes a hand in any order, as the rollouts hold it
        card, feats = kernel_choice(view, flat, hand)
        expected = card_features(view.rows, view.hand, sorted(view.unseen_cards()), view.players)
        np.testing.assert_array_equal(feats, expected)
        _, logits = net.forward(expected)
        top = np.sort(logits)[::-1]
        if len(top) == 1 or top[0] - top[1] > 1e-3:  # float sums in another order: near ties may differ
            assert card == bot.choose_card(view)
            clear += 1
    assert clear >= len(views) * 0.9


def test_a_drawn_network_seat_plays_each_card_with_the_policys_chance() -> None:
    """CardPolicy.NET_DRAWN: over many draws from one position, each card's share is within four standard
    errors of the learned bot's policy for it (a fixed seed, so no flakes), whatever order the hand
    comes in; the likeliest card is not always drawn."""
    net = load()
    view = next(v for v in positions(4, 1, 31) if len(v.hand) >= 7)
    hand = list(view.hand)
    random.Random(5).shuffle(hand)
    ends, counts, heads = rows_of(view)
    feats = np.zeros((len(hand), FEATURES), np.float32)
    draws = 20_000
    policy = net.score_view(view)
    sharp = learned_chances(view.rows, hand, sorted(view.unseen_cards()), view.players, drawn_temperature(4))
    # At the temperature of 1 (the flat weights as they are) and at learned-drawn's (the sharpened ones).
    for flat, chances in ((net.flat, [policy[c][1] for c in hand]), (net.flat_at(drawn_temperature(4)), sharp)):
        seen = K.net_draws(ends, counts, heads, np.array(hand, np.int64), _public(view), view.players,
                           HEURISTIC_TIE, flat, feats, draws, np.uint64(2026))
        expected = np.array(chances)
        assert seen.sum() == draws and 0 < seen.max() < draws
        error = 4 * np.sqrt(expected * (1 - expected) / draws) + 1e-4
        np.testing.assert_array_less(np.abs(seen / draws - expected), error)
    assert max(sharp) > max(policy[c][1] for c in hand)


def test_the_flat_weights_hold_every_array_in_order() -> None:
    net = load()
    flat = net.flat
    assert flat.dtype == np.float32
    assert (int(flat[0]), int(flat[1])) == (FEATURES, HIDDEN)
    assert flat.size == 2 + sum(getattr(net, name).size for name in net.ARRAYS)
    np.testing.assert_array_equal(flat[2 : 2 + FEATURES], net.shift)
    np.testing.assert_array_equal(flat[-2:], net.b3)


class NetCardsHeuristicRows(Bot):
    """What a CARD_NET seat of the rollouts is: the learned bot's card, the heuristic's row."""

    name = "net-cards"

    def __init__(self) -> None:
        super().__init__(random.Random(0))
        self.cards = LearnedBot(random.Random(0))
        self.rows = make_bot("heuristic", random.Random(0))

    def choose_card(self, view: View) -> int:
        return self.cards.choose_card(view)

    def choose_row(self, view: View) -> int:
        return self.rows.choose_row(view)


@pytest.mark.parametrize("players", [2, 4, 7])
def test_a_net_seat_of_the_rollouts_plays_whole_hands_like_the_learned_bot(players: int) -> None:
    """Whole hands in the kernel that plays rollouts (seat 0 on the network, the others heuristic)
    against the step engine, each bot deciding from its own view: the same bullheads."""
    from nimmt.batch import CardPolicy, RowPolicy, deal, seat_policies
    from nimmt.core import Deal, Phase, apply, new_game, view

    rows, orders = deal(players, 12, np.random.default_rng(100 + players))
    flat = load().flat
    policies = seat_policies([CardPolicy.NET] + [CardPolicy.HEURISTIC] * (players - 1),
                             [RowPolicy.HEURISTIC] * players, flat)
    seats: list[Bot] = [NetCardsHeuristicRows()] + [make_bot("heuristic", random.Random(p)) for p in range(1, players)]
    for b in range(rows.shape[0]):
        hands = tuple(tuple(int(c) for c in orders[b, p]) for p in range(players))
        state = apply(new_game(players), Deal(rows=tuple(int(c) for c in rows[b]), hands=hands)).state
        while state.phase is not Phase.DEAL and state.phase is not Phase.OVER:
            player = state.waiting_for[0]
            state = apply(state, seats[player].act(view(state, player))).state
        ends = rows[b].astype(np.int64).copy()
        counts = np.ones(4, np.int64)
        heads = np.array([BULLHEADS[c] for c in ends], np.int64)
        public = np.zeros(105, np.bool_)
        public[ends] = True
        penalties = np.zeros(players, np.int64)
        K.play_hand(ends, counts, heads, public, orders[b].astype(np.int64).copy(), np.zeros(players, np.bool_),
                    np.zeros(1, np.int64), policies, penalties, K.room(players, 10, flat), np.uint64(1))
        assert penalties.tolist() == list(state.history[-1]), f"deal {b}"


def test_the_rollouts_take_the_network_they_are_given() -> None:
    """Training rolls out with the generation before (``net=``); by default the shipped network."""
    from dataclasses import replace

    from nimmt.bots.styles import seat_card_penalties, seats_of

    view = positions(4, 1, 11)[0]
    seats = seats_of(["learned", "snug", "heuristic", "random"])
    shipped = load()
    flat_net = replace(shipped, w3=np.zeros_like(shipped.w3), b3=np.zeros_like(shipped.b3))  # every logit 0

    def run(net: Net | None) -> np.ndarray:
        return seat_card_penalties(view, list(view.hand), 64, np.random.default_rng(3), seats, net=net)

    default = seat_card_penalties(view, list(view.hand), 64, np.random.default_rng(3), seats)
    np.testing.assert_array_equal(default, run(shipped))
    assert not np.array_equal(default, run(flat_net))  # the flat network always plays its lowest card
