"""Ratings of people: openskill's Bradley-Terry model over final totals, bots as fixed references.

Every finished game ranks its seats by their final totals (fewer bullheads, better rank; equal totals
share a rank) and updates the rating of each person at the table with openskill's Bradley-Terry
model with full pairing (``BradleyTerryFull``: every seat against every other; its defaults: a
newcomer starts at mu 25, sigma 25/3). It shares a tie as people expect: two players tied for first
move as the mean of first and second alone, and the others as if there were no tie. (openskill's
Plackett-Luce does not: at four newcomers ranked 1, 1, 3, 4 it moves the third up as much as the
two winners.) A rating is a belief: ``mu`` the
estimated strength, ``sigma`` how unsure it still is; ``ordinal`` (mu - 3 sigma) is the value to rank
people by, low while few games are known and rising as sigma shrinks. ``display`` is the number
pages show: :data:`SHOWN_START` plus :data:`SHOWN_PER_POINT` times the ordinal, rounded (never below
0): a newcomer shows 1000, never a bare negative number, and the bots' references sit between 873
(random) and 1575 (expert).

Bots are reference points: the seats of a bot level take part in the update of the people at their
table with the level's rating in :data:`BOT_REFERENCE`, which never moves. Those references were
measured by ``benchmarks/bot_ratings.py`` (bots against each other, all rated from the same start),
so a person alone sees where they stand against each level.

A seat whose id is not fixed and sits more than once at the same game (a bot level missing from the
references, seated twice) is left out of that game's rating; the others are rated among themselves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from openskill.models import BradleyTerryFull

from .league import GameResult, bot_id

MU = 25.0  # openskill's default start
SIGMA = MU / 3
SHOWN_START = 1000  # what a newcomer's rating shows (their ordinal is 0)
SHOWN_PER_POINT = 20  # shown points per point of ordinal
SETTLED_GAMES = 10  # before this many rated games a rating is "provisional" (it still moves a lot)


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0  # games that rated it

    @property
    def ordinal(self) -> float:
        """The conservative estimate, mu - 3 sigma: what to rank by."""
        return self.mu - 3 * self.sigma

    @property
    def display(self) -> int:
        """What pages show: 1000 + 20 x the ordinal, rounded, at least 0 (a newcomer shows 1000)."""
        return max(0, round(SHOWN_START + SHOWN_PER_POINT * self.ordinal))

    @property
    def provisional(self) -> bool:
        """Fewer than :data:`SETTLED_GAMES` rated games: the rating still moves a lot."""
        return self.games < SETTLED_GAMES


def _model() -> BradleyTerryFull:
    return BradleyTerryFull(mu=MU, sigma=SIGMA)


# Measured by benchmarks/bot_ratings.py (see docs/people.md, "Ratings"): the figures it printed.
BOT_REFERENCE: Mapping[str, Rating] = MappingProxyType({
    bot_id("beginner"): Rating(21.845, 2.133),
    bot_id("expert"): Rating(35.943, 2.395),
    bot_id("heuristic"): Rating(23.672, 2.268),
    bot_id("learned"): Rating(31.720, 2.031),
    bot_id("montecarlo"): Rating(29.960, 2.269),
    bot_id("random"): Rating(2.799, 3.053),
})


def update(
    ratings: Mapping[str, Rating], result: GameResult, fixed: Mapping[str, Rating] = BOT_REFERENCE
) -> dict[str, Rating]:
    """The ratings after one more game: a copy of ``ratings`` with the people of this game updated
    (a person not in ``ratings`` starts as a newcomer). Ids in ``fixed`` rate others and never move.
    A seat whose person left ranks below every other (:attr:`GameResult.ranks`); a game that is not
    ``rated`` changes nothing."""
    if not result.rated:
        return dict(ratings)
    counts: dict[str, int] = {}
    for person in result.players:
        counts[person] = counts.get(person, 0) + 1
    seats = [seat for seat, person in enumerate(result.players) if person in fixed or counts[person] == 1]
    out = dict(ratings)
    if len(seats) < 2:
        return out
    model = _model()
    before = [fixed.get(result.players[s]) or ratings.get(result.players[s]) or Rating() for s in seats]
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    ranks = result.ranks
    after = model.rate(teams, ranks=[float(ranks[s]) for s in seats])
    for seat, old, (new,) in zip(seats, before, after, strict=True):
        person = result.players[seat]
        if person not in fixed:
            out[person] = Rating(float(new.mu), float(new.sigma), old.games + 1)
    return out


def rate(results: Iterable[GameResult], fixed: Mapping[str, Rating] = BOT_REFERENCE) -> dict[str, Rating]:
    """Everybody's rating after these games, played in the order of their ``when`` (games that
    ended at the same moment in the order given). Ids in ``fixed`` are not in the answer."""
    ratings: dict[str, Rating] = {}
    for result in sorted(results, key=lambda result: result.when):
        ratings = update(ratings, result, fixed)
    return ratings


def win_chance(a: Rating, b: Rating) -> float:
    """The chance, by the model, that ``a`` ends a game of two with fewer bullheads than ``b``."""
    model = _model()
    return float(model.predict_win([[model.rating(mu=a.mu, sigma=a.sigma)], [model.rating(mu=b.mu, sigma=b.sigma)]])[0])
