"""Every rule of /work/shared/RULES.md, one position at a time, built by hand."""

from __future__ import annotations

import random

import pytest

from nimmt.core import (
    BULLHEADS,
    DECK,
    DECK_BULLHEADS,
    CardPlaced,
    ChooseRow,
    Deal,
    GameEnded,
    GameState,
    Phase,
    PlayCard,
    RoundEnded,
    RowChoiceNeeded,
    RowTaken,
    Rules,
    RulesError,
    TurnEnded,
    UnsupportedEdition,
    apply,
    bullheads,
    deal_cards,
    legal_actions,
    new_game,
    row_bullheads,
    target_row,
    view,
)
from tests.core.core_kit import choose_row_zero, play_round, play_turn, undealt

# -- rule 1: cards and bullheads ---------------------------------------------------------------


def test_bullheads_of_every_kind_of_card() -> None:
    assert bullheads(55) == 7
    for card in (11, 22, 33, 44, 66, 77, 88, 99):
        assert bullheads(card) == 5, card
    for card in (10, 20, 30, 40, 50, 60, 70, 80, 90, 100):
        assert bullheads(card) == 3, card
    for card in (5, 15, 25, 35, 45, 65, 75, 85, 95):
        assert bullheads(card) == 2, card
    plain = [c for c in DECK if c % 5 and c % 11]
    assert len(plain) == 76
    assert all(bullheads(c) == 1 for c in plain)
    assert [BULLHEADS[c] for c in DECK] == [bullheads(c) for c in DECK]


def test_the_whole_deck_holds_171_bullheads() -> None:
    assert tuple(range(1, 105)) == DECK
    assert sum(bullheads(c) for c in DECK) == 171
    assert DECK_BULLHEADS == 171
    assert row_bullheads(DECK) == 171


@pytest.mark.parametrize("card", [0, 105, -3])
def test_there_is_no_such_card(card: int) -> None:
    with pytest.raises(ValueError, match="no card"):
        bullheads(card)


# -- rules 2 and 3: players and deals ------------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 11))
def test_deal_sizes(players: int) -> None:
    deal = deal_cards(players, random.Random(players))
    assert len(deal.hands) == players
    assert all(len(hand) == 10 for hand in deal.hands)
    assert len(deal.rows) == 4
    dealt = [*deal.rows, *(c for hand in deal.hands for c in hand)]
    assert len(set(dealt)) == len(dealt) == 10 * players + 4
    assert set(dealt) <= set(DECK)
    assert len(undealt(deal)) == 104 - 10 * players - 4
    deal.check(players)
    state = apply(new_game(players), deal).state
    assert state.phase is Phase.CHOOSE_CARDS
    assert state.rows == tuple((c,) for c in deal.rows)


def test_ten_players_leave_no_card() -> None:
    deal = deal_cards(10, random.Random(7))
    assert undealt(deal) == set()


@pytest.mark.parametrize("players", [0, 1, 11, -2, True, 2.0, "3", None])
def test_table_sizes_outside_2_to_10_are_refused(players: object) -> None:
    with pytest.raises(RulesError, match="2 to 10 players"):
        new_game(players)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="2 to 10 players"):
        deal_cards(players, random.Random(1))  # type: ignore[arg-type]


def test_deal_cards_depends_only_on_the_random_source() -> None:
    assert deal_cards(5, random.Random(42)) == deal_cards(5, random.Random(42))
    assert deal_cards(5, random.Random(42)) != deal_cards(5, random.Random(43))


# -- rule 5: where a card goes -------------------------------------------------------------------

ROWS = ((10,), (20, 25), (30,), (40,))


@pytest.mark.parametrize(
    ("card", "row"),
    [(26, 1), (29, 1), (31, 2), (39, 2), (41, 3), (104, 3), (11, 0), (19, 0), (9, None), (1, None)],
)
def test_target_row_is_the_nearest_lower_end(card: int, row: int | None) -> None:
    # 29 goes on the row ending 25 (4 below), not on the row ending 30 (1 above).
    assert target_row(ROWS, card) == row


def two_player_state(rows: tuple[int, ...], hand0: tuple[int, ...], hand1: tuple[int, ...]) -> GameState:
    used = set(rows) | set(hand0)
    rest = [c for c in range(104, 0, -1) if c not in used and c not in hand1]
    hand1_full = tuple(hand1) + tuple(rest[: 10 - len(hand1)])
    used |= set(hand1_full)
    rest0 = [c for c in range(104, 0, -1) if c not in used]
    hand0_full = tuple(hand0) + tuple(rest0[: 10 - len(hand0)])
    return apply(new_game(2), Deal(rows, (hand0_full, hand1_full))).state


def test_a_card_goes_on_the_nearest_lower_row() -> None:
    state = two_player_state((10, 20, 30, 40), (29,), (31,))
    step = apply(apply(state, PlayCard(0, 29)).state, PlayCard(1, 31))
    assert step.state.rows == ((10,), (20, 29), (30, 31), (40,))
    placed = [e for e in step.events if isinstance(e, CardPlaced)]
    assert placed == [CardPlaced(0, 29, 1), CardPlaced(1, 31, 2)]


def test_cards_are_revealed_together_and_resolved_lowest_first() -> None:
    state = two_player_state((10, 20, 30, 40), (22,), (21,))
    after_one = apply(state, PlayCard(0, 22)).state
    # Nothing is placed until everybody has chosen.
    assert after_one.rows == state.rows
    assert after_one.hands == state.hands
    after_two = apply(after_one, PlayCard(1, 21)).state
    # 21 (player 1) is resolved before 22 (player 0), so both land on the row of 20.
    assert after_two.rows[1] == (20, 21, 22)


def test_the_sixth_card_takes_five_and_starts_the_row() -> None:
    state = two_player_state((10, 20, 30, 40), (11, 13, 15), (12, 14, 16))
    state = play_turn(state, (11, 12))
    state = play_turn(state, (13, 14))
    assert state.rows[0] == (10, 11, 12, 13, 14)
    state = apply(state, PlayCard(0, 15)).state
    step = apply(state, PlayCard(1, 16))
    # 10 (3) + 11 (5) + 12 + 13 + 14 (1 each) = 11 bullheads
    taken = [e for e in step.events if isinstance(e, RowTaken)]
    assert taken == [RowTaken(0, 0, (10, 11, 12, 13, 14), 11, False)]
    assert step.state.rows == ((15, 16), (20,), (30,), (40,))
    assert step.state.penalties == (11, 0)
    assert step.state.taken == ((10, 11, 12, 13, 14), ())
    assert step.state.totals == (0, 0)  # totals change only at the end of the round
    assert step.state.phase is Phase.CHOOSE_CARDS


def test_a_fifth_card_does_not_take_the_row() -> None:
    state = two_player_state((10, 20, 30, 40), (11, 13), (12,))
    state = play_turn(state, (11, 12))
    state = apply(state, PlayCard(0, 13)).state
    state = apply(state, PlayCard(1, state.hands[1][0])).state
    assert state.rows[0] == (10, 11, 12, 13)
    assert state.penalties == (0, 0)


# -- rule 6: a card below every row ----------------------------------------------------------------

LOW_ROWS = (22, 10, 55, 33)  # bullheads 5, 3, 7, 5: row 1 is the cheapest


def low_card_state() -> GameState:
    """Player 0 has played 5, below every row; player 1 has played 60, not placed yet."""
    state = two_player_state(LOW_ROWS, (5,), (60,))
    state = apply(state, PlayCard(1, 60)).state
    step = apply(state, PlayCard(0, 5))
    assert RowChoiceNeeded(0, 5) in step.events
    return step.state


def test_a_low_card_waits_for_its_player() -> None:
    state = low_card_state()
    assert state.phase is Phase.CHOOSE_ROW
    assert state.waiting_for == (0,)
    assert state.row_choice_card == 5
    # Nothing was placed yet: 60 waits behind 5.
    assert state.rows == tuple((c,) for c in LOW_ROWS)
    assert legal_actions(state, 0) == tuple(ChooseRow(0, r) for r in range(4))
    assert legal_actions(state, 1) == ()
    assert view(state, 0).must_choose_row
    assert not view(state, 1).must_choose_row


@pytest.mark.parametrize("row", range(4))
def test_any_row_may_be_chosen_not_only_the_cheapest(row: int) -> None:
    state = low_card_state()
    step = apply(state, ChooseRow(0, row))
    after = step.state
    assert after.rows[row] == (5,)
    assert after.penalties == (BULLHEADS[LOW_ROWS[row]], 0)
    assert after.taken == ((LOW_ROWS[row],), ())
    assert RowTaken(0, row, (LOW_ROWS[row],), BULLHEADS[LOW_ROWS[row]], True) in step.events
    # Rows keep their positions: the other three rows are untouched.
    for other in range(4):
        if other != row:
            assert after.rows[other][0] == LOW_ROWS[other]
    # 60 then goes on the nearest lower row: the row of 55, unless that row was just taken.
    where = 2 if row != 2 else 3
    assert after.rows[where][-1] == 60
    assert after.phase is Phase.CHOOSE_CARDS
    assert after.turn == 1


def test_two_low_cards_in_one_turn_the_second_fits_on_the_new_row() -> None:
    state = two_player_state((50, 60, 70, 80), (5,), (7,))
    state = apply(state, PlayCard(1, 7)).state
    step = apply(state, PlayCard(0, 5))
    assert step.state.waiting_for == (0,)
    step = apply(step.state, ChooseRow(0, 2))
    # 7 was below every row when revealed, but 5 now starts row 2: 7 fits there, no choice asked.
    assert not any(isinstance(e, RowChoiceNeeded) for e in step.events)
    assert step.state.rows == ((50,), (60,), (5, 7), (80,))
    assert step.state.penalties == (3, 0)
    assert step.state.phase is Phase.CHOOSE_CARDS


def test_three_low_cards_chain_on_the_row_the_lowest_started() -> None:
    deal = Deal((50, 60, 70, 80), ((3, *range(21, 30)), (4, *range(31, 40)), (2, *range(11, 20))))
    state = apply(new_game(3), deal).state
    state = play_turn(state, (3, 4, 2), {2: 1})
    assert state.rows == ((50,), (2, 3, 4), (70,), (80,))
    assert state.penalties == (0, 0, 3)


# -- rule 7: the end of a round ------------------------------------------------------------------


def test_a_round_has_ten_turns_and_totals_change_only_at_its_end() -> None:
    state = new_game(2)
    deal = deal_cards(2, random.Random(3))
    state = apply(state, deal).state
    for turn in range(1, 11):
        before = state
        state = play_turn(state, [hand[0] for hand in state.hands], choose_row_zero)
        assert state.turn == turn
        if turn < 10:
            assert state.phase is Phase.CHOOSE_CARDS
            assert state.totals == (0, 0)
            assert state.history == ()
            assert all(len(hand) == 10 - turn for hand in state.hands)
    assert before.turn == 9
    assert state.phase is Phase.DEAL
    assert state.hands == ((), ())
    assert state.history == (state.penalties,)
    assert state.totals == state.penalties
    assert sum(state.penalties) > 0  # 24 cards cannot fit in four rows of five


# -- rule 8 and the table options: the end of the game ---------------------------------------------

# Player 0 plays 10, 9, ..., 1, each below every row, and always takes row 0; player 1's cards all
# land on row 0 after it. Turn 1 takes (101): 1 bullhead. Turn t > 1 takes (player 0's card and
# player 1's card of turn t - 1). Player 0's cards 10..2 hold 3+1+1+1+2+1+1+1+1 = 12 bullheads,
# player 1's first nine cards 9 x 1 = 9: each round costs player 0 exactly 1 + 12 + 9 = 22.
EXACT_ROWS = (101, 102, 103, 104)
EXACT_HAND0 = (10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
EXACT_HAND1 = (12, 13, 14, 16, 17, 18, 19, 21, 23, 24)
EXACT_DEAL = Deal(EXACT_ROWS, (EXACT_HAND0, EXACT_HAND1))


def play_exact_round(state: GameState) -> GameState:
    return play_round(state, EXACT_DEAL, (EXACT_HAND0, EXACT_HAND1), choose_row_zero)


def test_the_hand_built_round_costs_22() -> None:
    state = play_exact_round(new_game(2))
    assert state.history == ((22, 0),)
    assert state.totals == (22, 0)


def test_exactly_66_plays_on_and_above_66_ends() -> None:
    state = new_game(2)
    for _ in range(3):
        state = play_exact_round(state)
    assert state.totals == (66, 0)
    assert state.phase is Phase.DEAL  # exactly 66: another round is played
    assert state.winners == ()
    state = apply(state, EXACT_DEAL).state
    for t in range(10):
        state = play_turn(state, (EXACT_HAND0[t], EXACT_HAND1[t]), choose_row_zero)
        if t < 9:
            assert state.totals == (66, 0)
    assert state.totals == (88, 0)
    assert state.phase is Phase.OVER
    assert state.winners == (1,)


def test_the_game_end_events() -> None:
    state = new_game(2, Rules(rounds=1))
    state = apply(state, EXACT_DEAL).state
    for t in range(9):
        state = play_turn(state, (EXACT_HAND0[t], EXACT_HAND1[t]), choose_row_zero)
    state = apply(state, PlayCard(1, 24)).state
    step = apply(state, PlayCard(0, 1))
    step = apply(step.state, ChooseRow(0, 0))
    kinds = [type(e) for e in step.events]
    assert kinds[-3:] == [TurnEnded, RoundEnded, GameEnded]
    assert step.events[-2] == RoundEnded(1, (22, 0), (22, 0))
    assert step.events[-1] == GameEnded((22, 0), (1,))


@pytest.mark.parametrize(("end_above", "rounds_played"), [(0, 1), (21, 1), (22, 2), (43, 2), (44, 3), (65, 3)])
def test_end_above_option(end_above: int, rounds_played: int) -> None:
    state = new_game(2, Rules(end_above=end_above))
    for played in range(1, rounds_played + 1):
        state = play_exact_round(state)
        assert state.is_over is (played == rounds_played)
    assert state.totals == (22 * rounds_played, 0)


@pytest.mark.parametrize("rounds", [1, 2, 5])
def test_fixed_rounds_ignore_the_threshold(rounds: int) -> None:
    # With rounds=5 player 0 passes 66 after round 4 (88) and the game still goes on.
    state = new_game(2, Rules(rounds=rounds, end_above=0))
    for played in range(1, rounds + 1):
        state = play_exact_round(state)
        assert state.is_over is (played == rounds), played
    assert state.totals == (22 * rounds, 0)
    assert state.winners == (1,)


def test_a_tie_shares_the_win() -> None:
    # Three players: 1..10 (player 0) always below every row, taking row 0; players 1 and 2 then
    # land on row 0 and never take anything: they share the win with 0 each.
    hands = (
        (10, 9, 8, 7, 6, 5, 4, 3, 2, 1),
        tuple(range(11, 21)),
        tuple(range(21, 31)),
    )
    state = new_game(3, Rules(rounds=1))
    state = play_round(state, Deal((90, 100, 101, 102), hands), hands, choose_row_zero)
    # 90 (3) + cards 10..2 of player 0 (12) + 11..19 (5 + 2 + 7 x 1 = 14) + 21..29 (5 + 2 + 2 + 5 x 1 = 14)
    assert state.totals == (3 + 12 + 14 + 14, 0, 0)
    assert state.winners == (1, 2)
    assert state.is_over


def test_a_tie_of_everybody() -> None:
    # Both players at 22 after one round each: play the exact round with the seats swapped.
    swapped = Deal(EXACT_ROWS, (EXACT_HAND1, EXACT_HAND0))
    state = new_game(2, Rules(rounds=2))
    state = play_exact_round(state)
    state = play_round(state, swapped, (EXACT_HAND1, EXACT_HAND0), choose_row_zero)
    assert state.totals == (22, 22)
    assert state.winners == (0, 1)


# -- editions -------------------------------------------------------------------------------------


@pytest.mark.parametrize("edition", ["professional", "Professional", "pro", "tactical", "birthday"])
def test_known_variants_are_refused(edition: str) -> None:
    with pytest.raises(UnsupportedEdition, match="not automated") as caught:
        Rules(edition=edition)
    assert edition in str(caught.value)
    assert "classic" in str(caught.value)


@pytest.mark.parametrize("edition", ["moon", "", "CLASSIC", None, 3])
def test_unknown_editions_are_refused(edition: object) -> None:
    with pytest.raises(UnsupportedEdition, match="unknown edition"):
        Rules(edition=edition)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "options",
    [{"end_above": -1}, {"end_above": 66.0}, {"end_above": True}, {"end_above": "66"},
     {"rounds": 0}, {"rounds": -1}, {"rounds": True}, {"rounds": 2.0}],
)
def test_bad_table_options_are_refused(options: dict[str, object]) -> None:
    name = next(iter(options))
    with pytest.raises(RulesError, match=name):
        Rules(**options)  # type: ignore[arg-type]


def test_classic_is_the_default() -> None:
    rules = new_game(4).rules
    assert rules == Rules("classic", 66, None)


# -- ten players -----------------------------------------------------------------------------------


def test_ten_players_play_a_round_with_every_card() -> None:
    rng = random.Random(10)
    deal = deal_cards(10, rng)
    orders = [rng.sample(hand, 10) for hand in deal.hands]
    state = play_round(new_game(10), deal, orders, lambda p, c, e, h: (p + c) % 4)
    assert state.phase is Phase.DEAL
    on_rows = sum(len(row) for row in state.rows)
    assert on_rows + sum(len(t) for t in state.taken) == 104
    assert sum(state.penalties) == sum(BULLHEADS[c] for t in state.taken for c in t)
    assert sum(state.penalties) == 171 - sum(row_bullheads(row) for row in state.rows)
