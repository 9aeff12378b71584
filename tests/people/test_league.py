"""The league table against one computed by hand, and a GameResult from a real record."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from nimmt.bots import make_bot
from nimmt.core import Rules
from nimmt.match import play_game
from nimmt.people.league import FORM_GAMES, GameResult, LeagueRow, bot_id, league, result_from_record
from nimmt.records import GameRecord, score

DAY = datetime(2026, 12, 4, 20, 0, tzinfo=UTC)

# Three evenings (worked out by hand below):
# 1. Ana 10+15=25, Bruno 3+3=6, Carla 30+40=70: Bruno wins, Carla past 66.
# 2. Bruno 7+30=37, Ana 7+30=37, a heuristic bot 20+50=70: Ana and Bruno share the win.
# 3. Ana 0+2=2, Carla 12+60=72: Ana wins, Carla past 66 again.
GAMES = [
    GameResult(DAY, ("ana", "bruno", "carla"), (25, 6, 70), ((10, 3, 30), (15, 3, 40))),
    GameResult(DAY + timedelta(days=7), ("bruno", "ana", bot_id("heuristic")), (37, 37, 70),
               ((7, 7, 20), (30, 30, 50))),
    GameResult(DAY + timedelta(days=14), ("ana", "carla"), (2, 72), ((0, 12), (2, 60))),
]


def test_league_equals_the_table_worked_out_by_hand() -> None:
    ana, bruno, carla = league(GAMES)
    assert ana == LeagueRow(
        "ana", games=3, wins=1.5, rounds=6, bullheads=64, bullheads_per_round=64 / 6, best_round=0, worst_round=30,
        past_66=0, form=((DAY, 12.5), (DAY + timedelta(days=7), 15.5), (DAY + timedelta(days=14), 64 / 6)),
    )
    assert bruno == LeagueRow(
        "bruno", games=2, wins=1.5, rounds=4, bullheads=43, bullheads_per_round=43 / 4, best_round=3,
        worst_round=30, past_66=0, form=((DAY, 3.0), (DAY + timedelta(days=7), 43 / 4)),
    )
    assert carla == LeagueRow(
        "carla", games=2, wins=0.0, rounds=4, bullheads=142, bullheads_per_round=35.5, best_round=12,
        worst_round=60, past_66=2, form=((DAY, 35.0), (DAY + timedelta(days=14), 35.5)),
    )


def test_the_order_of_the_games_given_does_not_matter() -> None:
    shuffled = list(GAMES)
    random.Random(3).shuffle(shuffled)
    assert league(shuffled) == league(GAMES) == league(reversed(GAMES))


def test_members_pick_the_rows_and_bots_are_left_out_otherwise() -> None:
    assert [row.person for row in league(GAMES)] == ["ana", "bruno", "carla"]
    rows = league(GAMES, members=["dora", "carla"])
    assert [(row.person, row.games, row.bullheads_per_round) for row in rows] == [("carla", 2, 35.5), ("dora", 0, None)]
    # The bot still counted for who won game 2: nobody at that table but Ana and Bruno shares it.
    assert [row.wins for row in league(GAMES, members=["ana", "bruno"])] == [1.5, 1.5]
    assert league([], members=["ana"]) == [LeagueRow("ana")]


def test_a_three_way_tie_shares_the_win_in_thirds() -> None:
    game = GameResult(DAY, ("a", "b", "c", "d"), (10, 10, 10, 70), ((10, 10, 10, 70),))
    assert [(row.person, row.wins) for row in league([game])] == [
        ("a", pytest.approx(1 / 3)), ("b", pytest.approx(1 / 3)), ("c", pytest.approx(1 / 3)), ("d", 0.0)]


def test_form_follows_the_last_games_only() -> None:
    # Ana takes 10, 20, ..., 70 bullheads in one-round games against Bruno, who takes 80 each time.
    games = [GameResult(DAY + timedelta(days=i), ("ana", "bruno"), (10 * (i + 1), 80), ((10 * (i + 1), 80),))
             for i in range(7)]
    ana = league(games)[0]
    assert ana.person == "ana" and FORM_GAMES == 5
    assert [value for _, value in ana.form] == [10, 15, 20, 25, 30, 40, 50]  # the last: (30+40+50+60+70) / 5
    assert [when for when, _ in ana.form] == [game.when for game in games]


def test_exactly_66_is_not_past_66() -> None:
    game = GameResult(DAY, ("a", "b"), (66, 67), ((66, 67),))
    assert [(row.person, row.past_66) for row in league([game])] == [("a", 0), ("b", 1)]


@pytest.mark.parametrize(("players", "totals", "rounds", "why"), [
    (("a",), (1,), ((1,),), "at least 2"),
    (("a", "b"), (1,), ((1, 0),), "1 totals"),
    (("a", "a"), (1, 2), ((1, 2),), "sits twice"),
    (("a", "b"), (1, 2), (), "at least one round"),
    (("a", "b"), (1, 2), ((1, 2, 3),), "round 1 has 3"),
    (("a", "b"), (1, 3), ((1, 2),), "not the sums"),
    (("a", "b"), (-1, 2), ((-1, 2),), "negative"),
])
def test_a_result_that_does_not_add_up_is_refused(
        players: tuple[str, ...], totals: tuple[int, ...], rounds: tuple[tuple[int, ...], ...], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        GameResult(DAY, players, totals, rounds)


def test_the_same_bot_may_sit_twice() -> None:
    game = GameResult(DAY, ("ana", bot_id("expert"), bot_id("expert")), (1, 2, 3), ((1, 2, 3),))
    assert [row.person for row in league([game])] == ["ana"]


def played(seed: int, players: int = 3) -> GameRecord:
    bots = [make_bot("heuristic", random.Random(seed + seat)) for seat in range(players)]
    return play_game(bots, random.Random(seed), names=[f"p{seat}" for seat in range(players)])


def test_a_result_from_a_finished_record() -> None:
    record = played(5)
    final = score(record)
    people = ("ana", bot_id("heuristic"), "bruno")
    result = result_from_record(record, people, DAY)
    assert result == GameResult(DAY, people, final.totals, final.rounds)
    assert max(result.totals) > 66 and len(result.round_penalties) == len(record.rounds)
    assert result_from_record(record, {2: "bruno", 0: "ana", 1: bot_id("heuristic")}, DAY) == result


def test_a_record_not_over_or_a_wrong_seating_is_refused() -> None:
    record = played(6)
    with pytest.raises(ValueError, match="3 seats"):
        result_from_record(record, ("ana", "bruno"), DAY)
    with pytest.raises(ValueError, match="each of the seats 0 to 2"):
        result_from_record(record, {0: "ana", 1: "bruno", 5: "carla"}, DAY)
    unfinished = GameRecord(record.players, record.rules, record.rounds[:1])
    with pytest.raises(ValueError, match="not over"):
        result_from_record(unfinished, ("ana", "bruno", "carla"), DAY)


def test_a_record_with_its_own_end_counts_past_its_end() -> None:
    bots = [make_bot("random", random.Random(seat)) for seat in range(2)]
    record = play_game(bots, random.Random(9), rules=Rules(end_above=20))
    result = result_from_record(record, ("ana", "bruno"), DAY)
    assert result.end_above == 20
    assert sum(row.past_66 for row in league([result])) == sum(total > 20 for total in result.totals) >= 1


def test_a_game_left_counts_as_lost_and_an_unrated_one_for_nobody() -> None:
    from nimmt.people.league import Tally
    day = datetime(2026, 12, 4, 20, tzinfo=UTC)
    left = GameResult(day, ("ana", "bruno", "bot:random"), (30, 2, 20), ((30, 2, 20),), left=(1,))
    nobody = GameResult(day + timedelta(days=1), ("ana", "bruno"), (1, 2), ((1, 2),), left=(0, 1), rated=False)
    rows = {row.person: row for row in league([left, nobody])}
    assert (rows["bruno"].games, rows["bruno"].wins, rows["bruno"].left, rows["bruno"].bullheads_per_round) == (
        1, 0.0, 1, None)
    assert (rows["ana"].games, rows["ana"].wins, rows["ana"].rounds) == (1, 0.0, 1)  # the bot's 20 won
    tally = Tally()
    tally.add(left, 0)
    assert Tally.from_json(tally.to_json()) == tally
