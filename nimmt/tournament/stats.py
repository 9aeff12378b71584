"""What a tournament's games say: mean penalty per round with confidence intervals, win shares,
Plackett-Luce ratings and decision times.

Duplicate deals make the games of one deal set dependent, so every interval is computed over
**deal sets**: for each deal set, each entry's penalty per round (its penalties over all rotations
divided by the rounds it played) and its share of the wins; the mean over deal sets is reported
with a 95% interval from Student's t (a win share also gets Wilson's score interval over the
games, so that 0% or 100% do not come out as certain). A difference between two entries is taken deal set by deal
set (paired), which is where duplicate deals cut the luck.

Ratings: every game updates an openskill Plackett-Luce rating per entry, with the final totals as
the ranking (ties share a rank), in the tournament's fixed game order.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from .play import MatchResult

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


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% with z = 1.96): never of zero width with a finite
    sample, even at 0% or 100% (``successes`` may be fractional: a shared win counts its share).

    >>> [round(b, 4) for b in wilson(100, 100)]
    [0.963, 1.0]
    >>> [round(b, 4) for b in wilson(0, 10)]
    [0.0, 0.2775]
    >>> [round(b, 4) for b in wilson(5, 10)]
    [0.2366, 0.7634]
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    spread = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return (max(0.0, centre - spread), min(1.0, centre + spread))


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
    win_share: Interval
    difference_to_first: Interval | None  # this minus the first entry, per round, paired by deal set
    timing: Timing
    rating_mu: float | None = None
    rating_sigma: float | None = None
    rating_ordinal: float | None = None

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["penalty_per_round"] = self.penalty_per_round.to_json()
        data["win_share"] = self.win_share.to_json()
        data["difference_to_first"] = (
            None if self.difference_to_first is None else self.difference_to_first.to_json()
        )
        return data


def entry_labels(bots: Sequence[str]) -> list[str]:
    """Names that tell entries apart: a bot listed twice becomes ``name#1``, ``name#2``.

    >>> entry_labels(["expert", "random", "random"])
    ['expert', 'random#1', 'random#2']
    """
    seen: dict[str, int] = defaultdict(int)
    labels = []
    for name in bots:
        seen[name] += 1
        labels.append(f"{name}#{seen[name]}" if bots.count(name) > 1 else name)
    return labels


def _standings(
    groups: list[list[int]], labels: list[str], bots: list[str], results: Sequence[MatchResult]
) -> list[Standing]:
    """Standings of groups of entries (one entry each, or all entries of a bot)."""
    deal_sets = sorted({r.deal_set for r in results})
    index = {d: i for i, d in enumerate(deal_sets)}
    k = len(groups)
    pen = [[0.0] * len(deal_sets) for _ in range(k)]
    rnd = [[0] * len(deal_sets) for _ in range(k)]
    win = [[0.0] * len(deal_sets) for _ in range(k)]
    games_in = [0] * len(deal_sets)
    times: list[list[float]] = [[] for _ in range(k)]
    cpu: list[list[float]] = [[] for _ in range(k)]
    group_of = {e: g for g, members in enumerate(groups) for e in members}
    for r in results:
        d = index[r.deal_set]
        games_in[d] += 1
        share = 1.0 / len(r.winners) if r.winners else 0.0
        for seat, entry in enumerate(r.entries):
            g = group_of[entry]
            pen[g][d] += sum(round_[seat] for round_ in r.rounds)
            rnd[g][d] += len(r.rounds)
            if seat in r.winners:
                win[g][d] += share
            times[g].extend(r.decision_times[seat])
            if r.decision_cpu:
                cpu[g].extend(r.decision_cpu[seat])
    per_round = [[pen[g][d] / rnd[g][d] if rnd[g][d] else 0.0 for d in range(len(deal_sets))] for g in range(k)]
    out = []
    for g, members in enumerate(groups):
        diff = None
        if g > 0:
            diff = interval([per_round[g][d] - per_round[0][d] for d in range(len(deal_sets))])
        ts, cs = times[g], cpu[g]
        out.append(
            Standing(
                label=labels[g],
                bot=bots[members[0]],
                games=len(results),
                rounds=sum(rnd[g]),
                penalty_per_round=interval(per_round[g]),
                win_share=share_interval(
                    [win[g][d] / games_in[d] for d in range(len(deal_sets))], sum(win[g]), len(results)
                ),
                difference_to_first=diff,
                timing=Timing(
                    len(ts), percentile(ts, 50), percentile(ts, 95), max(ts) if ts else math.nan,
                    percentile(cs, 50), percentile(cs, 95), max(cs) if cs else math.nan,
                ),
            )
        )
    return out


def ratings(bots: Sequence[str], results: Sequence[MatchResult]) -> list[tuple[float, float, float]]:
    """Plackett-Luce (openskill) rating of each entry after all games: (mu, sigma, ordinal)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    labels = entry_labels(bots)
    current = [model.rating(name=label) for label in labels]
    for r in sorted(results, key=lambda r: (r.deal_set, r.rotation)):
        teams = [[current[entry]] for entry in r.entries]
        ranks = [float(total) for total in r.totals]  # lower total, better rank; ties share a rank
        updated = model.rate(teams, ranks=ranks)
        for seat, entry in enumerate(r.entries):
            current[entry] = updated[seat][0]
    return [(p.mu, p.sigma, p.ordinal()) for p in current]


@dataclass(frozen=True, slots=True)
class Summary:
    bots: tuple[str, ...]
    games: int
    deal_sets: int
    entries: tuple[Standing, ...]
    by_bot: tuple[Standing, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "bots": list(self.bots),
            "games": self.games,
            "deal_sets": self.deal_sets,
            "entries": [s.to_json() for s in self.entries],
            "by_bot": [s.to_json() for s in self.by_bot],
        }


def summarize(bots: Sequence[str], results: Sequence[MatchResult]) -> Summary:
    bots = list(bots)
    labels = entry_labels(bots)
    entries = _standings([[e] for e in range(len(bots))], labels, bots, results)
    rated = ratings(bots, results)
    entries = [
        Standing(**{**{f: getattr(s, f) for f in s.__dataclass_fields__}, "rating_mu": mu,
                    "rating_sigma": sigma, "rating_ordinal": ordinal})
        for s, (mu, sigma, ordinal) in zip(entries, rated, strict=True)
    ]
    names = list(dict.fromkeys(bots))
    groups = [[e for e, b in enumerate(bots) if b == name] for name in names]
    by_bot = _standings(groups, names, bots, results)
    return Summary(
        bots=tuple(bots),
        games=len(results),
        deal_sets=len({r.deal_set for r in results}),
        entries=tuple(entries),
        by_bot=tuple(by_bot),
    )
