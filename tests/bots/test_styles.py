"""Styles of play: the expert's per-player model, and rollouts in which each seat keeps its style."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nimmt.batch import rollout_card_penalties, rollout_row_penalties
from nimmt.bots import Bot, make_bot, opponents
from nimmt.bots.base import BotError
from nimmt.bots.beginner import BeginnerBot
from nimmt.bots.expert import ExpertBot
from nimmt.bots.opponents import OpponentModel
from nimmt.bots.search import evaluate_batch
from nimmt.bots.styles import (
    BASE_STYLES,
    DEFAULT_STYLES,
    STYLES,
    default_styles,
    drawn_temperature,
    mc_chances,
    seat_card_penalties,
    seat_row_penalties,
    seats_of,
    style_chance,
    style_choice,
)
from nimmt.core import BULLHEADS, DECK, Deal, PlayCard, Rules, View, apply, new_game, view
from nimmt.match import play_game


def start_view(seed: int, players: int) -> View:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    hands = tuple(tuple(sorted(deck[4 + 10 * p : 14 + 10 * p])) for p in range(players))
    return view(apply(new_game(players), Deal(tuple(deck[:4]), hands)).state, 0)


@pytest.mark.parametrize("players", [2, 4])
def test_seats_all_in_the_heuristic_style_roll_out_like_a_heuristic_table(players: int) -> None:
    v = start_view(players, players)
    table = rollout_card_penalties(v, None, 40, np.random.default_rng(1), "heuristic")
    seats = seat_card_penalties(v, list(v.hand), 40, np.random.default_rng(1), seats_of(["heuristic"] * players))
    np.testing.assert_array_equal(seats, table)


def test_row_rollouts_by_seat_match_the_table_ones_too() -> None:
    # Every row ends above 89: the lowest card of the turn (player 0's 5) must take a row.
    hands = (tuple(range(1, 11)), tuple(range(11, 21)), tuple(range(21, 31)))
    state = apply(new_game(3), Deal((90, 91, 92, 93), hands)).state
    for p, card in enumerate((5, 15, 25)):
        state = apply(state, PlayCard(p, card)).state
    v = view(state, 0)
    assert v.must_choose_row
    table = rollout_row_penalties(v, 30, np.random.default_rng(2), "heuristic")
    seats = seat_row_penalties(v, 30, np.random.default_rng(2), seats_of(["heuristic"] * 3))
    np.testing.assert_array_equal(seats, table)


def test_each_style_chooses_its_own_card() -> None:
    rows = ((10,), (20,), (30,), (40, 41, 42, 43, 44))
    hand = (5, 21, 33, 45)  # 45 is a sixth card, 5 is below every row
    assert style_choice("heuristic", rows, hand, (), 4) == 33  # safe cards: the highest
    assert style_choice("snug", rows, hand, (), 4) == 21  # safe cards: the snuggest fit
    assert style_choice("random", rows, hand, (), 4) is None


def posterior_after_a_game(opponent: str, seed: int, styles: tuple[str, ...] = DEFAULT_STYLES) -> dict[str, float]:
    """The model's mean posterior over the three opponents after two rounds against them."""
    model = OpponentModel(random.Random(3), styles)

    class Watcher(BeginnerBot):
        def choose_card(self, view: View) -> int:
            model.observe(view)
            return super().choose_card(view)

    bots: list[Bot] = [Watcher(random.Random(0))] + [make_bot(opponent, random.Random(i)) for i in (1, 2, 3)]
    play_game(bots, random.Random(seed), Rules(rounds=2))
    return {s: sum(model.posterior(p)[s] for p in (1, 2, 3)) / 3 for s in styles}


@pytest.mark.parametrize(
    ("opponent", "style"),
    [("field:risk", "snug"), ("field:safe", "snug"), ("heuristic", "heuristic")],
)
def test_the_model_tells_the_styles_of_the_field_apart(opponent: str, style: str) -> None:
    post = posterior_after_a_game(opponent, 8, ("heuristic", "snug", "random"))  # the family before mc
    assert max(post, key=post.__getitem__) == style, post


def test_a_player_not_seen_yet_has_the_prior() -> None:
    model = OpponentModel(random.Random(1))
    total = sum(OpponentModel.PRIOR[s] for s in DEFAULT_STYLES)
    assert model.posterior(2) == pytest.approx({s: OpponentModel.PRIOR[s] / total for s in DEFAULT_STYLES})
    assert model.heuristic_share == pytest.approx(1 / 3)  # the seat seen: heuristic 0.5 of 1.5
    assert OpponentModel(random.Random(1), BASE_STYLES).heuristic_share == pytest.approx(0.4)  # 0.5 of 1.25


def test_the_drawn_style_is_as_sharp_as_a_search_at_that_table_size() -> None:
    """``learned-drawn``'s temperature follows the table's size (a search of nine unseen hands is noisier
    than one of three): sharper than the network's own softmax at 4 players, the same at 10."""
    assert [drawn_temperature(n) for n in (3, 4, 6, 8, 10)] == [0.5, 0.5, 0.7, 0.7, 1.0]
    for players in (4, 10):
        v = start_view(9, players)
        unseen = sorted(v.unseen_cards())
        own = [style_chance("learned", v.rows, v.hand, unseen, players, c) for c in v.hand]
        drawn = [style_chance("learned-drawn", v.rows, v.hand, unseen, players, c) for c in v.hand]
        assert sum(drawn) == pytest.approx(1.0)
        if players == 10:
            assert drawn == pytest.approx(own, abs=1e-9)
        else:
            assert max(drawn) > max(own)
            assert opponents.chances(["learned-drawn"], v.rows, v.hand, unseen, players) == [drawn[0]]


def test_the_default_family_weighs_the_network_from_three_to_six_players() -> None:
    """At 3 to 6 players the default expert weighs ``learned-drawn`` too; heads-up and at bigger tables
    it weighs the four styles before it and plays exactly as an expert told those four does. A family
    given by name holds at every size."""
    assert "learned-drawn" in DEFAULT_STYLES and "learned-drawn" not in BASE_STYLES
    assert set(BASE_STYLES) < set(DEFAULT_STYLES)
    assert [default_styles(n) == DEFAULT_STYLES for n in range(2, 11)] == [False] + [True] * 4 + [False] * 4

    def family_seen(players: int, styles: str | None) -> tuple[str, ...]:
        bot = ExpertBot(random.Random(1), samples=8, time_budget=100, clock="cpu", styles=styles)
        play_game([bot] + [make_bot("field:risk", random.Random(i)) for i in range(1, players)],
                  random.Random(2), Rules(rounds=1))
        return bot.opponents.styles

    assert family_seen(4, None) == DEFAULT_STYLES
    assert family_seen(2, None) == BASE_STYLES
    assert family_seen(7, None) == BASE_STYLES
    assert family_seen(2, ",".join(DEFAULT_STYLES)) == DEFAULT_STYLES

    def record(styles: str | None) -> str:
        bots: list[Bot] = [ExpertBot(random.Random(5), samples=16, time_budget=100, clock="cpu", styles=styles),
                           make_bot("field:mc50", random.Random(6))]
        return repr(play_game(bots, random.Random(7), Rules(rounds=1)))

    assert record(None) == record(",".join(BASE_STYLES))


@pytest.mark.parametrize(
    ("opponent", "style"),
    [("field:risk", "snug"), ("field:safe", "snug"), ("heuristic", "heuristic"), ("field:mc50", "mc")],
)
def test_with_the_mc_style_the_model_still_tells_the_field_apart(opponent: str, style: str) -> None:
    # Every style but learned-drawn, learned's sharper twin (the two would share its weight).
    post = posterior_after_a_game(opponent, 8, tuple(s for s in STYLES if s != "learned-drawn"))
    assert max(post, key=post.__getitem__) == style, post
    assert post[style] > 0.5, post


def test_the_mc_style_prefers_cheap_cards_and_its_chances_sum_to_one() -> None:
    rows = ((10,), (20,), (30,), (40, 41, 42, 43, 44))
    hand = (5, 21, 33, 45)  # 45 is a sixth card (11 bullheads), 5 takes a row of one card
    chances = mc_chances(rows, hand, (), 4)
    assert sum(chances) == pytest.approx(1.0)
    assert chances[3] < chances[0] < chances[1] < chances[2]  # among equal costs the higher card
    assert [style_chance("mc", rows, hand, (), 4, c) for c in hand] == chances
    assert style_chance("random", rows, hand, (), 4, 45) == 0.25
    assert style_chance("snug", rows, hand, (), 4, 21) == 1.0
    assert style_chance("snug", rows, hand, (), 4, 33) == 0.0


def test_the_compiled_mc_policy_draws_cards_with_the_python_chances() -> None:
    from nimmt.batch import _kernels as K

    rows = ((59,), (26, 47), (46,), (8, 43, 62, 72))
    hand = (19, 40, 52, 56, 58, 66, 80, 91)
    public = np.zeros(105, np.bool_)
    for row in rows:
        public[list(row)] = True
    unseen = [c for c in range(1, 105) if not public[c] and c not in hand]
    cnt = np.zeros(106, np.int64)
    hb = np.zeros(106, np.int64)
    K.unseen_prefix(public, cnt, hb)
    ends = np.array([r[-1] for r in rows], np.int64)
    counts = np.array([len(r) for r in rows], np.int64)
    heads = np.array([sum(BULLHEADS[c] for c in r) for r in rows], np.int64)
    work = np.empty(2 * len(hand) + 19, np.int64)
    costs = np.empty(len(hand))
    cards = np.array(hand, np.int64)
    state = np.uint64(2026)
    draws = 20_000
    seen = np.zeros(len(hand))
    for _ in range(draws):
        drawn, i = K.mc_card(ends, counts, heads, cards, cnt, hb, 3, work, costs, state)
        state = np.uint64(drawn)  # a Python int would be typed int64 on the next call
        seen[i] += 1
    expected = np.array(mc_chances(rows, hand, unseen, 4))
    # 20,000 draws: each share within 4 standard errors of its chance (a fixed seed, so no flakes).
    np.testing.assert_array_less(np.abs(seen / draws - expected), 4 * np.sqrt(expected * (1 - expected) / draws))


def test_mc_seats_roll_out_and_differ_from_snug_ones() -> None:
    v = start_view(5, 4)
    mc = seat_card_penalties(v, list(v.hand), 60, np.random.default_rng(4), seats_of(["heuristic"] + ["mc"] * 3))
    snug = seat_card_penalties(v, list(v.hand), 60, np.random.default_rng(4), seats_of(["heuristic"] + ["snug"] * 3))
    assert mc.shape == (10, 60) and (mc >= 0).all()
    assert not np.array_equal(mc, snug)


def test_the_expert_takes_a_family_of_styles() -> None:
    bot = ExpertBot(random.Random(1), styles="heuristic, snug, mc, random")
    assert bot.opponents.styles == ("heuristic", "snug", "mc", "random")
    assert ExpertBot(random.Random(1)).opponents.styles == DEFAULT_STYLES
    for wrong in ("heuristic,fast,random", "heuristic,snug"):
        with pytest.raises(BotError):
            ExpertBot(random.Random(1), styles=wrong)


def test_rollouts_can_tell_what_the_other_players_take() -> None:
    v = start_view(6, 4)
    seats = seats_of(["heuristic", "mc", "snug", "random"])
    alone = seat_card_penalties(v, list(v.hand), 50, np.random.default_rng(7), seats)
    rest = np.zeros((10, 50), np.int64)
    mine = seat_card_penalties(v, list(v.hand), 50, np.random.default_rng(7), seats, rest)
    np.testing.assert_array_equal(mine, alone)  # asking for the others changes nothing of the viewer's
    assert (rest >= 0).all() and rest.sum() > 0
    # Every round hands out at least one row: the table as a whole takes something in each rollout.
    assert ((mine + rest) > 0).all()


def test_the_expert_can_weigh_what_the_others_take() -> None:
    v = start_view(7, 4)
    seats = seats_of(["heuristic"] * 4)
    own = evaluate_batch(v, "card", rng=random.Random(5), policy=lambda: seats, samples=64)
    lead = evaluate_batch(v, "card", rng=random.Random(5), policy=lambda: seats, samples=64, others=1.0)
    assert [e.option for e in own] == [e.option for e in lead]
    # The same rollouts: each value falls by the others' mean take, which is positive on average.
    assert all(b.mean <= a.mean for a, b in zip(own, lead, strict=True))
    assert any(b.mean < a.mean for a, b in zip(own, lead, strict=True))
    assert ExpertBot(random.Random(1), others=0.5).others == 0.5
    assert ExpertBot(random.Random(1)).others == 1.0  # a lead over the table, by default


def test_the_learned_style_is_the_networks_softmax_and_its_seats_play_its_card() -> None:
    """``learned``: the chance of a card is the network's policy over the hand (the learned bot's own
    numbers, whatever order the hand comes in), its likeliest card the learned bot's; seats in it roll
    out, and the expert's model may weigh it (it is not in the default family)."""
    from nimmt.bots.learned import LearnedBot, load

    v = start_view(8, 4)
    unseen = sorted(v.unseen_cards())
    hand = tuple(reversed(v.hand))
    policy = {card: p for card, (_, p) in load().score_view(v).items()}
    chances = [style_chance("learned", v.rows, hand, unseen, 4, c) for c in hand]
    assert chances == pytest.approx([policy[c] for c in hand], abs=1e-9)
    assert sum(chances) == pytest.approx(1.0)
    assert hand[int(np.argmax(chances))] == LearnedBot(random.Random(1)).choose_card(v)
    # The model passes the hand's cards among the unseen ones (as the kernels count them): the same numbers.
    assert style_chance("learned", v.rows, hand, sorted({*unseen, *hand}), 4, hand[0]) == chances[0]
    assert style_choice("learned", v.rows, hand, unseen, 4) is None
    seats = seats_of(["heuristic"] + ["learned"] * 3)
    learned = seat_card_penalties(v, list(v.hand), 40, np.random.default_rng(4), seats)
    assert learned.shape == (10, 40) and (learned >= 0).all()
    assert "learned" in STYLES and "learned" not in DEFAULT_STYLES and "learned-drawn" in DEFAULT_STYLES
    # ``learned-drawn``: the softmax at its 4 players' temperature (in the model's own path too); its seats draw.
    sharp = np.array([policy[c] for c in hand]) ** (1 / drawn_temperature(4))
    drawn_chances = [style_chance("learned-drawn", v.rows, hand, unseen, 4, c) for c in hand]
    assert drawn_chances == pytest.approx(list(sharp / sharp.sum()), abs=1e-6)
    assert max(drawn_chances) > max(chances)
    assert opponents.chances(["learned", "learned-drawn"], v.rows, hand, unseen, 4) == [chances[0], drawn_chances[0]]
    drawn_seats = seats_of(["heuristic"] + ["learned-drawn"] * 3)
    drawn = seat_card_penalties(v, list(v.hand), 40, np.random.default_rng(4), drawn_seats)
    assert drawn.shape == (10, 40) and (drawn >= 0).all() and not np.array_equal(drawn, learned)
    assert ExpertBot(random.Random(1), styles="heuristic,learned,random").opponents.styles == (
        "heuristic", "learned", "random")
