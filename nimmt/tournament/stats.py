"""What a tournament's games say: mean penalty per round with confidence intervals, win shares,
Plackett-Luce ratings and decision times.

Duplicate deals make the games of one deal set dependent, so every interval is computed over
**deal sets**: for each deal set, each entry's penalty per round (its penalties over all rotations
divided by the rounds it played), per game (divided by the games it played) and its share of the
wins per seat (a bot filling three seats is judged seat by seat, as a one-seat entry is); the mean
over deal sets is reported
with a 95% interval from Student's t (a win share also gets Wilson's score interval over the
games, so that 0% or 100% do not come out as certain). A difference between two entries is taken deal set by deal
set (paired), which is where duplicate deals cut the luck.

Only **complete** deal sets count: a deal set played in some of its rotations only (a run stopped
part way, a save file read before it was finished) would weigh some hands of its deals and not the
others, so its games are left out and named (:attr:`Summary.incomplete`).

Ratings: every game updates an openskill Plackett-Luce rating per entry, with the final totals as
the ranking (ties share a rank), in the tournament's fixed game order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace

from nimmt.intervals import wilson

from .play import MatchResult
from .seats import Seat, as_seat, bot_names, entry_labels

# Two-sided 97.5% quantiles of Student's t by degrees of freedom (1 to 30); 1.96 beyond.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with the half-width of its 95% confidence interval (None with fewer than 2 deal sets).

    An interval that is not symmetric around the mean (a win share's) gives its ``bounds``;
    ``half_width`` is then the longer side.
    """

    mean: float
    half_width: float | None
    n: int
    bounds: tuple[float, float] | None = None

    @property
    def low(self) -> float | None:
        if self.bounds is not None:
            return self.bounds[0]
        return None if self.half_width is None else self.mean - self.half_width

    @property
    def high(self) -> float | None:
        if self.bounds is not None:
            return self.bounds[1]
        return None if self.half_width is None else self.mean + self.half_width

    def to_json(self) -> dict[str, float | int | None]:
        return {"mean": self.mean, "ci95": self.half_width, "low": self.low, "high": self.high, "n": self.n}


def interval(values: Sequence[float]) -> Interval:
    """Mean and 95% interval of independent values.

    >>> i = interval([1.0, 2.0, 3.0])
    >>> i.mean, round(i.half_width, 3)
    (2.0, 2.484)
    """
    n = len(values)
    if n == 0:
        return Interval(math.nan, None, 0)
    mean = sum(values) / n
    if n < 2:
        return Interval(mean, None, n)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    t = _T975[n - 2] if n - 1 <= len(_T975) else 1.96
    return Interval(mean, t * math.sqrt(var / n), n)


def share_interval(shares: Sequence[float], wins: float, games: int) -> Interval:
    """A win share: the mean over deal sets, with the wider of two 95% intervals, clipped to 0-1:
    Wilson's over the games (honest at 0% and 100%), and Student's t over deal sets (which counts
    that the games of a deal set share their deals).

    >>> i = share_interval([1.0, 1.0, 1.0], wins=12, games=12)
    >>> i.mean, round(i.low, 3), i.high, round(i.half_width, 3)
    (1.0, 0.757, 1.0, 0.243)
    """
    by_sets = interval(shares)
    low, high = wilson(wins, games)
    if by_sets.low is not None and by_sets.high is not None:
        low, high = min(low, max(0.0, by_sets.low)), max(high, min(1.0, by_sets.high))
    mean = by_sets.mean
    return Interval(mean, max(mean - low, high - mean), by_sets.n, (low, high))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100), nearest rank.

    >>> percentile([0.1, 0.2, 0.3, 0.4], 95)
    0.4
    """
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True, slots=True)
class Timing:
    """Decision times in seconds: wall clock, and CPU time of the deciding thread."""

    decisions: int
    p50: float
    p95: float
    max: float
    cpu_p50: float = math.nan
    cpu_p95: float = math.nan
    cpu_max: float = math.nan


@dataclass(frozen=True, slots=True)
class Standing:
    """One entry of the tournament (or, in ``by_bot``, all entries of one bot pooled)."""

    label: str
    bot: str
    games: int
    rounds: int
    penalty_per_round: Interval
    win_share: Interval  # per seat: the share of the games each of its seats won
    difference_to_first: Interval | None  # this minus the first entry, per round, paired by deal set
    timing: Timing
    rating_mu: float | None = None
    rating_sigma: float | None = None
    rating_ordinal: float | None = None
    penalty_per_game: Interval | None = None
    seats: int = 1  # seats it fills at a table (copies of a bot pooled in ``by_bot``); a mean in a field
    key: str = ""  # what plays (see nimmt.tournament.seats.Seat.key)

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["penalty_per_round"] = self.penalty_per_round.to_json()
        data["penalty_per_game"] = None if self.penalty_per_game is None else self.penalty_per_game.to_json()
        data["win_share"] = self.win_share.to_json()
        data["difference_to_first"] = (
            None if self.difference_to_first is None else self.difference_to_first.to_json()
        )
        return data


Group = Callable[[MatchResult, int], int | None]  # the group of a result's seat (None: counted nowhere)


def _standings(
    count: int, group_of: Group, labels: list[str], bots: list[str], keys: list[str], results: Sequence[MatchResult]
) -> list[Standing]:
    """Standings of ``count`` groups of seats (one entry each, all entries of a bot, or a bot of a
    field), each over the deal sets it played."""
    deal_sets = sorted({r.deal_set for r in results})
    index = {d: i for i, d in enumerate(deal_sets)}
    k, n = count, len(deal_sets)
    pen = [[0.0] * n for _ in range(k)]
    rnd = [[0] * n for _ in range(k)]
    win = [[0.0] * n for _ in range(k)]
    seat_games = [[0] * n for _ in range(k)]
    games = [0] * k
    times: list[list[float]] = [[] for _ in range(k)]
    cpu: list[list[float]] = [[] for _ in range(k)]
    for r in results:
        d = index[r.deal_set]
        share = 1.0 / len(r.winners) if r.winners else 0.0
        playing = set()
        for seat in range(len(r.seats)):
            g = group_of(r, seat)
            if g is None:
                continue
            playing.add(g)
            pen[g][d] += sum(round_[seat] for round_ in r.rounds)
            rnd[g][d] += len(r.rounds)
            seat_games[g][d] += 1
            if seat in r.winners:
                win[g][d] += share
            times[g].extend(r.decision_times[seat])
            if r.decision_cpu:
                cpu[g].extend(r.decision_cpu[seat])
        for g in playing:
            games[g] += 1
    played = [[d for d in range(n) if seat_games[g][d]] for g in range(k)]
    per_round = [{d: pen[g][d] / rnd[g][d] if rnd[g][d] else 0.0 for d in played[g]} for g in range(k)]
    out = []
    for g in range(k):
        diff = None
        if g > 0:
            both = [d for d in played[g] if d in per_round[0]]
            diff = interval([per_round[g][d] - per_round[0][d] for d in both])
        ts, cs = times[g], [c for c in cpu[g] if not math.isnan(c)]
        total_seat_games = sum(seat_games[g])
        out.append(
            Standing(
                label=labels[g],
                bot=bots[g],
                games=games[g],
                rounds=sum(rnd[g]),
                penalty_per_round=interval([per_round[g][d] for d in played[g]]),
                win_share=share_interval(
                    [win[g][d] / seat_games[g][d] for d in played[g]], sum(win[g]), total_seat_games
                ),
                difference_to_first=diff,
                timing=Timing(
                    len(ts), percentile(ts, 50), percentile(ts, 95), max(ts) if ts else math.nan,
                    percentile(cs, 50), percentile(cs, 95), max(cs) if cs else math.nan,
                ),
                penalty_per_game=interval([pen[g][d] / seat_games[g][d] for d in played[g]]),
                seats=round(total_seat_games / games[g]) if games[g] else 0,
                key=keys[g],
            )
        )
    return out


def lead_of_first(results: Sequence[MatchResult], first: Callable[[MatchResult, int], bool]) -> Interval:
    """The others' mean penalty per round minus the first bot's, paired deal set by deal set: how
    many bullheads per round the first bot takes fewer than the players at its tables."""
    mine: dict[int, list[int]] = {}
    theirs: dict[int, list[int]] = {}
    for r in results:
        for seat in range(len(r.seats)):
            side = mine if first(r, seat) else theirs
            got = side.setdefault(r.deal_set, [0, 0])
            got[0] += sum(round_[seat] for round_ in r.rounds)
            got[1] += len(r.rounds)
    sets = sorted(set(mine) & set(theirs))
    return interval([theirs[d][0] / theirs[d][1] - mine[d][0] / mine[d][1] for d in sets if mine[d][1]])


def ratings(count: int, group_of: Group, labels: Sequence[str], results: Sequence[MatchResult]) -> list[
        tuple[float, float, float]]:
    """Plackett-Luce (openskill) rating of each group after all games: (mu, sigma, ordinal)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = [model.rating(name=label) for label in labels]
    for r in sorted(results, key=lambda r: (r.deal_set, r.rotation)):
        groups = [group_of(r, seat) for seat in range(len(r.seats))]
        if len(set(groups)) < len(groups) or None in groups:
            continue  # a game where one rating would sit twice (copies in a field) does not rate
        teams = [[current[g]] for g in groups if g is not None]
        ranks = [float(total) for total in r.totals]  # lower total, better rank; ties share a rank
        updated = model.rate(teams, ranks=ranks)
        for seat, g in enumerate(groups):
            if g is not None:
                current[g] = updated[seat][0]
    return [(p.mu, p.sigma, p.ordinal()) for p in current]


def complete_sets(results: Sequence[MatchResult]) -> tuple[list[MatchResult], tuple[tuple[int, int], ...]]:
    """The games of the deal sets played in every rotation (one per seat of the table), and each other
    deal set with how many games it holds: (deal set, games), left out of the figures.

    >>> from nimmt.tournament.play import MatchResult
    >>> game = lambda d, r: MatchResult(d, r, ("a", "b"), (r, 1 - r), ((0, 0),), (0, 0), (0, 1), ((), ()))
    >>> kept, left = complete_sets([game(0, 0), game(0, 1), game(1, 0)])
    >>> [(r.deal_set, r.rotation) for r in kept], left
    ([(0, 0), (0, 1)], ((1, 1),))
    """
    rotations: dict[int, set[int]] = {}
    seats: dict[int, int] = {}
    for r in results:
        rotations.setdefault(r.deal_set, set()).add(r.rotation)
        seats[r.deal_set] = len(r.seats)
    whole = {d for d, played in rotations.items() if played == set(range(seats[d]))}
    left = tuple((d, len(rotations[d])) for d in sorted(rotations) if d not in whole)
    return [r for r in results if r.deal_set in whole], left


@dataclass(frozen=True, slots=True)
class Summary:
    bots: tuple[str, ...]  # the key of each entry's bot
    games: int  # games counted: those of complete deal sets
    deal_sets: int  # complete deal sets
    entries: tuple[Standing, ...]
    by_bot: tuple[Standing, ...]
    lead: Interval | None = None  # the others' penalty per round minus the first entry's, paired by deal set
    field: tuple[str, ...] = ()  # the keys of a field's bots, when tables were drawn from one
    incomplete: tuple[tuple[int, int], ...] = ()  # (deal set, games it holds): not every rotation played, left out
    seconds: float = 0.0  # the counted games' own wall-clock time, added up (not the time of reading them)
    untimed: int = 0  # counted games whose time was not kept (saved before it was), left out of ``seconds``

    def to_json(self) -> dict[str, object]:
        return {
            "bots": list(self.bots),
            "labels": [s.label for s in self.entries],
            "games": self.games,
            "deal_sets": self.deal_sets,
            "entries": [s.to_json() for s in self.entries],
            "by_bot": [s.to_json() for s in self.by_bot],
            "lead": None if self.lead is None else self.lead.to_json(),
            "field": list(self.field),
            "incomplete": [{"deal_set": d, "games": n} for d, n in self.incomplete],
            "games_left_out": sum(n for _, n in self.incomplete),
            "seconds": self.seconds,
            "untimed_games": self.untimed,
        }


def _timed(results: Sequence[MatchResult]) -> tuple[float, int]:
    """The games' own time added up, and how many games have none."""
    times = [r.seconds for r in results]
    return sum(t for t in times if t is not None), sum(t is None for t in times)


def _rated(standings: list[Standing], rated: list[tuple[float, float, float]]) -> list[Standing]:
    return [replace(s, rating_mu=mu, rating_sigma=sigma, rating_ordinal=ordinal)
            for s, (mu, sigma, ordinal) in zip(standings, rated, strict=True)]


def summarize(bots: Sequence[Seat | str], results: Sequence[MatchResult]) -> Summary:
    """The standings of a tournament at one table: by entry, and by bot (copies pooled, per seat),
    over its complete deal sets."""
    results, incomplete = complete_sets(results)
    seats = [as_seat(b) for b in bots]
    keys = [s.key for s in seats]
    labels = entry_labels(seats)
    names = bot_names(seats)

    def entry(r: MatchResult, seat: int) -> int:
        return r.entries[seat]

    entries = _standings(len(seats), entry, labels, [names[k] for k in keys], keys, results)
    entries = _rated(entries, ratings(len(seats), entry, labels, results))
    distinct = list(dict.fromkeys(keys))
    position = {key: i for i, key in enumerate(distinct)}

    def bot(r: MatchResult, seat: int) -> int:
        return position[keys[r.entries[seat]]]

    by_bot = _standings(len(distinct), bot, [names[k] for k in distinct], [names[k] for k in distinct], distinct,
                        results)
    return Summary(
        bots=tuple(keys),
        games=len(results),
        deal_sets=len({r.deal_set for r in results}),
        entries=tuple(entries),
        by_bot=tuple(by_bot),
        lead=lead_of_first(results, lambda r, seat: r.entries[seat] == 0) if len(seats) > 1 else None,
        incomplete=incomplete,
        seconds=_timed(results)[0],
        untimed=_timed(results)[1],
    )


def summarize_field(tested: Seat | str, field: Sequence[Seat | str], results: Sequence[MatchResult]) -> Summary:
    """The standings of a bot against tables drawn from a field: the tested bot first, then every
    bot of the field (each over the deal sets it sat in, per seat); ``lead`` is the tested bot's.
    Complete deal sets only, as :func:`summarize`."""
    results, incomplete = complete_sets(results)
    seat = as_seat(tested)
    seats = [seat, *[as_seat(f) for f in field if as_seat(f).key != seat.key]]
    distinct = list(dict.fromkeys(s.key for s in seats))
    names = bot_names(seats)
    position = {key: i for i, key in enumerate(distinct)}

    def group(r: MatchResult, at: int) -> int | None:
        if r.entries[at] == 0:
            return 0
        if r.seats[at] == seat.key:
            return None  # the tested bot drawn into the field too: not its own standing
        return position.get(r.seats[at])

    labels = [names[k] for k in distinct]
    entries = _standings(len(distinct), group, labels, labels, distinct, results)
    entries = _rated(entries, ratings(len(distinct), group, labels, results))
    return Summary(
        bots=(seat.key,),
        games=len(results),
        deal_sets=len({r.deal_set for r in results}),
        entries=tuple(entries),
        by_bot=(),
        lead=lead_of_first(results, lambda r, at: r.entries[at] == 0),
        field=tuple(as_seat(f).key for f in field),
        incomplete=incomplete,
        seconds=_timed(results)[0],
        untimed=_timed(results)[1],
    )
