"""Ratings move as openskill's Bradley-Terry model says; bots stay fixed; ties share; order."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from openskill.models import BradleyTerryFull

from nimmt.bots import BOTS
from nimmt.people.league import GameResult, bot_id
from nimmt.people.ratings import BOT_REFERENCE, Rating, rate, update, win_chance

DAY = datetime(2026, 12, 4, 20, 0, tzinfo=UTC)
EXPERT = bot_id("expert")


def game(players: tuple[str, ...], totals: tuple[int, ...], day: int = 0) -> GameResult:
    return GameResult(DAY + timedelta(days=day), players, totals, (totals,))


def direct(teams: list[tuple[float, float]], totals: list[int]) -> list[float]:
    """What openskill itself says for one game: mu, sigma of each seat in turn."""
    model = BradleyTerryFull()
    rated = model.rate([[model.rating(mu=mu, sigma=sigma)] for mu, sigma in teams], ranks=[float(t) for t in totals])
    return [value for team in rated for value in (team[0].mu, team[0].sigma)]


def flat(ratings: dict[str, Rating], people: tuple[str, ...]) -> list[float]:
    return [value for p in people for value in (ratings[p].mu, ratings[p].sigma)]


def test_one_game_moves_ratings_as_openskill_says() -> None:
    before = {"ana": Rating(28.0, 5.0, 4), "bruno": Rating(22.0, 3.0, 9)}
    after = update(before, game(("ana", "bruno", "carla"), (30, 12, 70)))
    expected = direct([(28.0, 5.0), (22.0, 3.0), (25.0, 25 / 3)], [30, 12, 70])
    assert flat(after, ("ana", "bruno", "carla")) == pytest.approx(expected)
    assert [after[p].games for p in ("ana", "bruno", "carla")] == [5, 10, 1]
    assert after["bruno"].mu > 22.0 > after["carla"].mu - 5  # the winner rises, the last falls
    assert before == {"ana": Rating(28.0, 5.0, 4), "bruno": Rating(22.0, 3.0, 9)}  # a copy: the old is kept


def test_bots_rate_others_and_never_move() -> None:
    expert = BOT_REFERENCE[EXPERT]
    results = [game(("ana", EXPERT, EXPERT), (10 + day, 30, 40), day) for day in range(3)]
    ratings = rate(results)
    assert set(ratings) == {"ana"}
    mu, sigma = 25.0, 25 / 3
    for result in results:  # openskill game by game, the expert's two seats at its reference each time
        mu, sigma, *_ = direct([(mu, sigma), (expert.mu, expert.sigma), (expert.mu, expert.sigma)],
                                   list(result.totals))
    assert (ratings["ana"].mu, ratings["ana"].sigma) == pytest.approx((mu, sigma))
    assert BOT_REFERENCE[EXPERT] == expert


def test_a_tie_shares_the_rank() -> None:
    after = update({}, game(("ana", "bruno", "carla"), (20, 20, 70)))
    assert after["ana"] == after["bruno"]
    expected = direct([(25.0, 25 / 3)] * 3, [20, 20, 70])
    assert flat(after, ("ana", "bruno", "carla")) == pytest.approx(expected)
    # Sharing first is the mean of first and second alone; the third moves as without the tie.
    alone = update({}, game(("ana", "bruno", "carla"), (19, 20, 70)))
    assert after["ana"].mu == pytest.approx((alone["ana"].mu + alone["bruno"].mu) / 2)
    assert after["carla"] == alone["carla"]


def test_seat_order_does_not_matter() -> None:
    ratings = {"ana": Rating(30.0, 4.0), "bruno": Rating(21.0, 6.0), "carla": Rating(25.0, 2.0)}
    one = update(ratings, game(("ana", "bruno", "carla", EXPERT), (30, 30, 12, 70)))
    other = update(ratings, game((EXPERT, "carla", "ana", "bruno"), (70, 12, 30, 30)))
    assert flat(one, tuple(ratings)) == pytest.approx(flat(other, tuple(ratings)))


def test_games_are_rated_in_time_order_whatever_order_they_come_in() -> None:
    people = ("ana", "bruno", "carla", "dora")
    rng = random.Random(4)
    results = []
    for day in range(12):
        seated = tuple(rng.sample([*people, EXPERT, bot_id("random")], 4))
        results.append(game(seated, tuple(rng.randrange(0, 80) for _ in seated), day))
    shuffled = list(results)
    rng.shuffle(shuffled)
    assert rate(shuffled) == rate(results)
    # ... and time order matters, as in openskill: the same games the other way round differ.
    backwards = [game(r.players, r.totals, 11 - day) for day, r in enumerate(results)]
    assert rate(backwards) != rate(results)


def test_a_rating_that_is_not_fixed_and_sits_twice_is_left_out() -> None:
    unknown = bot_id("somebody-else")
    after = update({}, game(("ana", unknown, unknown, "bruno"), (10, 0, 5, 20)))
    assert set(after) == {"ana", "bruno"}
    assert flat(after, ("ana", "bruno")) == pytest.approx(direct([(25.0, 25 / 3)] * 2, [10, 20]))
    assert update({}, game(("ana", unknown, unknown), (1, 2, 3))) == {}  # one rated seat: no game


def test_the_references_cover_every_bot_level_in_the_order_of_their_strength() -> None:
    assert set(BOT_REFERENCE) == {bot_id(name) for name in BOTS}
    ordinal = {name: BOT_REFERENCE[bot_id(name)].ordinal for name in BOTS}
    assert ordinal["expert"] > ordinal["heuristic"] > ordinal["random"]
    assert ordinal["montecarlo"] > ordinal["beginner"] > ordinal["random"]
    assert all(0 < r.sigma < 25 / 3 for r in BOT_REFERENCE.values())


def test_a_person_who_keeps_beating_the_expert_climbs_past_it() -> None:
    results = [game(("ana", EXPERT, EXPERT, EXPERT), (5, 40, 50, 70), day) for day in range(40)]
    ana = rate(results)["ana"]
    assert ana.ordinal > BOT_REFERENCE[EXPERT].ordinal and ana.games == 40
    assert win_chance(ana, BOT_REFERENCE[EXPERT]) > 0.5
    losing = rate([game(("bruno", bot_id("random")), (70, 5), day) for day in range(40)])["bruno"]
    assert losing.mu < BOT_REFERENCE[bot_id("random")].mu


def test_display_and_ordinal() -> None:
    # A newcomer shows 1000 (never a bare 0 or a negative number); 20 shown points per point of ordinal.
    assert Rating().ordinal == pytest.approx(0.0) and Rating().display == 1000 and Rating().provisional
    assert Rating(30.0, 2.0).ordinal == pytest.approx(24.0) and Rating(30.0, 2.0).display == 1480
    assert Rating(0.0, 20.0).display == 0  # never below 0
    assert {name: BOT_REFERENCE[bot_id(name)].display for name in ("expert", "heuristic", "random")} == {
        "expert": 1575, "heuristic": 1337, "random": 873}
    assert win_chance(Rating(), Rating()) == pytest.approx(0.5)
    assert win_chance(Rating(30.0, 2.0), Rating(20.0, 2.0)) == pytest.approx(1 - win_chance(Rating(20.0, 2.0),
                                                                                             Rating(30.0, 2.0)))


def test_a_seat_that_left_ranks_last_and_an_unrated_game_moves_nobody() -> None:
    """Fair records (docs/people.md): whoever left ranks below every seat, whatever their seat's total
    (a bot played it, or nobody); a game that is not rated changes no rating."""
    left = GameResult(DAY, ("ana", "bruno", EXPERT), (40, 5, 20), ((40, 5, 20),), left=(1,))
    assert left.ranks == (40, 41, 20) and left.winners == (2,)
    after = update({}, left)
    assert flat(after, ("ana", "bruno")) == pytest.approx(direct([(25.0, 25 / 3), (25.0, 25 / 3),
                                                                  (BOT_REFERENCE[EXPERT].mu,
                                                                   BOT_REFERENCE[EXPERT].sigma)],
                                                                 [40, 41, 20])[:4])
    assert after["bruno"].mu < after["ana"].mu
    nobody = GameResult(DAY, ("ana", "bruno", EXPERT), (0, 0, 0), (), left=(0, 1), rated=False)
    assert update({"ana": Rating(30.0, 3.0, 4)}, nobody) == {"ana": Rating(30.0, 3.0, 4)}
