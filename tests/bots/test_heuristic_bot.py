"""The heuristic bot: its risk estimate, its row choice looking ahead, and that it beats random play."""

from __future__ import annotations

import random
from dataclasses import replace

from nimmt.bots import BOTS, make_bot
from nimmt.bots.heuristic import HeuristicBot, card_cost, play_out
from nimmt.cli.simulate import simulate, summarize
from nimmt.core import DECK, Deal, Phase, PlayCard, Rules, View, apply, new_game, view
from nimmt.match import play_game


def table_view(rows: tuple[tuple[int, ...], ...], hand: tuple[int, ...], players: int = 4) -> View:
    """A view of seat 0 at the start of a turn with these rows and this hand."""
    state = new_game(players)
    rest = [c for c in DECK if c not in hand]
    hands = [(*hand, *rest[: 10 - len(hand)])]
    rest = rest[10 - len(hand):]
    for _ in range(players - 1):
        hands.append(tuple(rest[:10]))
        rest = rest[10:]
    state = apply(state, Deal(rows=tuple(rest[:4]), hands=tuple(hands))).state
    return replace(view(state, 0), rows=rows, hand=hand, hand_sizes=(len(hand),) * players)


def test_it_is_registered() -> None:
    assert BOTS["heuristic"] is HeuristicBot
    assert isinstance(make_bot("heuristic"), HeuristicBot)


def test_cost_of_a_sixth_card_and_of_a_safe_card() -> None:
    rows = ((10,), (20,), (30,), (60, 61, 62, 63, 64))
    assert card_cost(rows, 65, (), 3) == 3 + 4  # takes 60 (3) and 61-64 (1 each)
    assert card_cost(rows, 31, (), 3) == 0.0
    # With unseen cards between the row's end and the card, somebody may take the row first.
    unseen = tuple(range(66, 105))
    assert 0.0 < card_cost(rows, 80, unseen, 3) < 7.0
    assert card_cost(rows, 80, unseen, 3) < card_cost(rows, 80, unseen, 1)


def test_risk_grows_with_the_gap_and_the_length_of_the_row() -> None:
    unseen = tuple(range(41, 100))
    short = ((10,), (20,), (30,), (40,))
    long = ((10,), (20,), (30,), (36, 37, 38, 40))
    assert card_cost(long, 45, unseen, 5) < card_cost(long, 60, unseen, 5)
    assert card_cost(short, 60, unseen, 5) < card_cost(long, 60, unseen, 5)


def test_a_card_below_every_row_costs_the_cheapest_row_unless_someone_goes_lower() -> None:
    rows = ((20, 21), (30, 55), (40,), (50,))
    assert card_cost(rows, 5, (), 3) == 3.0  # the cheapest rows: 40 or 50 (3 bullheads each)
    assert card_cost(rows, 5, (1, 2, 3), 3) < 2.0


def test_it_avoids_the_sixth_card_and_breaks_ties_with_the_higher_card() -> None:
    bot = HeuristicBot(random.Random(1))
    rows = ((10,), (20,), (30,), (60, 61, 62, 63, 64))
    assert bot.choose_card(table_view(rows, (65, 31))) == 31
    assert bot.choose_card(table_view(((10,), (20,), (30,), (40,)), (41, 42))) == 42


def test_heads_up_it_breaks_ties_by_the_snuggest_fit_and_at_four_by_the_higher_card() -> None:
    # 21 and 43 are both safe: heads-up it keeps the gap tight (21, just above 20); at four
    # players it keeps its low card for later and plays the higher one.
    rows = ((10,), (20,), (30,), (40,))
    assert HeuristicBot().choose_card(table_view(rows, (43, 21), players=2)) == 21
    assert HeuristicBot().choose_card(table_view(rows, (43, 21), players=4)) == 43


def test_at_small_tables_it_does_not_spoil_its_own_next_card() -> None:
    # 44 is safe now but makes the last row five long, and then 45 is a sixth card; 45 first is
    # safe too and leaves 44 a place on the row ending at 30.
    rows = ((10,), (20,), (30,), (40, 41, 42, 43))
    for players in (2, 3):
        assert HeuristicBot().choose_card(table_view(rows, (44, 45), players=players)) == 45


def test_it_chooses_a_row_by_what_it_leaves_for_later() -> None:
    # Row 1 (index 1) is full with 7 bullheads; the other rows hold 3 each. The bot's next cards
    # (65, 66, 67) would all be sixth cards on row 1 if it stayed full: taking it now is cheaper.
    rows = ((50,), (60, 61, 62, 63, 64), (80,), (90,))
    base = table_view(rows, (65, 66, 67))
    low = replace(base, phase=Phase.CHOOSE_ROW, waiting_for=(0,), row_choice_card=5, revealed=((5, 0),), resolved=0)
    assert low.must_choose_row
    assert HeuristicBot().choose_row(low) == 1
    # With nothing left in hand, only the bullheads now count: the first cheapest row.
    last = replace(low, hand=())
    assert HeuristicBot().choose_row(last) == 0


def test_play_out_follows_the_rules_for_the_cards_still_to_resolve() -> None:
    rows = ((10,), (20, 21, 22, 23, 24), (30,), (40,))
    # 25 is a sixth card, 31 joins 30, and 5 (below every row) takes the cheapest row: 25.
    assert play_out(rows, (25, 31, 5)) == ((10,), (5,), (30, 31), (40,))


def test_it_plays_only_legal_actions_from_its_view() -> None:
    for players in (2, 5, 10):
        bots = [make_bot("heuristic", random.Random(s)) for s in range(players)]
        record = play_game(bots, random.Random(players), Rules(rounds=2))
        assert len(record.rounds) == 2
        for round_record in record.rounds:
            for turn in round_record.turns:
                assert len(turn.cards) == players


def test_it_acts_like_a_player_when_waiting_for_it() -> None:
    hands = ((*range(1, 10), 11), (*range(21, 30), 31))
    state = apply(new_game(2), Deal((10, 20, 30, 40), hands)).state
    state = apply(state, PlayCard(1, 21)).state
    action = HeuristicBot().act(view(state, 0))
    assert isinstance(action, PlayCard) and action.card in state.hands[0]


def test_it_beats_random_play_clearly() -> None:
    bots = ["heuristic", "random", "random", "random"]
    results, seconds = simulate(120, bots, 2024, Rules())
    summary = summarize(results, bots, seconds, 2024, Rules())
    _, heuristic_high = summary["mean_penalty_per_round_ci95"][0]
    for seat in (1, 2, 3):
        random_low, _ = summary["mean_penalty_per_round_ci95"][seat]
        assert heuristic_high < random_low
    assert summary["win_share"][0] > 0.5
