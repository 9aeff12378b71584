"""The review of a game: what every decision was worth, judged from the seat that made it.

For every decision of a ``nimmt/1`` record (each card played, each row chosen for a card below
every row), :func:`review` estimates the **expected bullheads** the player takes from that moment
to the end of the round for **each legal option**, from that player's :class:`~nimmt.core.View`
only (their hand, the rows, the cards already public), never from the other hands the record holds.
The estimate is made as the ``expert`` searches, counting the player's own bullheads only (the
expert also weighs what the others take): the unseen cards dealt at random consistently with the
view, the round played out by the compiled rollouts (:mod:`nimmt.batch`), the player's own later
cards like ``heuristic``, every other player in a style drawn from the ``expert``'s model of them
(:class:`nimmt.bots.opponents.OpponentModel`, which has watched the cards they revealed so far),
all options on the same samples (common random numbers). The budget is a number of samples, not a
time, and every decision draws from its own seed: a review is repeatable, and one decision's numbers
do not depend on which other decisions were reviewed.

The budget is an upper bound (:func:`sample`): every option is played out :data:`FIRST` times, then
only the options not yet settled go on, a chunk of :data:`CHUNK` samples at a time, until the budget:
an option clearly worse than the best so far, or at most a near tie better than it, stops; the chosen
option goes on to the budget (:data:`CHOSEN_WHOLE`), and so does the best while any other is open.
Most options of most decisions are settled after a few chunks, so a review costs about 40 % of
what every option at the whole budget does; the figures a person reads (the chosen option's loss, its
mark, the accuracy) are as sure as at the whole budget, more than before issue 29 (common random
numbers: :mod:`nimmt.batch._review`), the settled options' own means have a wider error
(``docs/review.md``, "Cost").

Each decision then has

* per option its ``expected`` bullheads, their standard error, and its ``loss``: ``expected`` minus
  the best option's (so the best has loss 0), with the standard error of that difference (paired,
  over the same samples);
* a mark (:data:`MARKS`): ``inaccuracy``, ``mistake`` or ``blunder`` when the chosen option's loss
  reaches that mark's threshold **and** lies beyond the estimate's noise (more than :data:`NOISE_Z`
  standard errors of the difference); a decision with one option (the last card of a round) is
  *forced* and never marked.

Each player gets an **accuracy** from 0 to 100: the mean, over their unforced decisions, of
``100 * 2 ** (-max(0, loss - FORGIVEN) / ACCURACY_HALF)``: a decision as good as the best (or within
:data:`FORGIVEN` of it) scores 100, one that costs :data:`ACCURACY_HALF` bullheads more than that
scores 50. (The loss is forgiven a fixed amount, not "whatever lies within the noise": a figure that
does not depend on how many samples a decision took.)
``docs/review.md`` says how these numbers were chosen and what they measure.

>>> from nimmt.records import GameRecord, Recorder
>>> from nimmt.core import Deal, PlayCard
>>> recorder = Recorder(GameRecord(players=("Ana", "Bruno")))
>>> hands = (tuple(range(41, 51)), tuple(range(51, 61)))
>>> for action in (Deal((1, 2, 3, 4), hands), PlayCard(0, 41), PlayCard(1, 60)):
...     _ = recorder.add(action)
>>> result = review(recorder.record, samples=64)
>>> [(d.player, d.kind, d.chosen, len(d.options)) for d in result.decisions]
[(0, 'card', 41, 10), (1, 'card', 60, 10)]
>>> min(o.loss for o in result.decisions[0].options)
0.0
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from nimmt.core import (
    ROW_COUNT,
    ChooseRow,
    Deal,
    GameState,
    NimmtError,
    PlayCard,
    RowTaken,
    TurnEnded,
    View,
    apply,
    new_game,
    view,
)
from nimmt.records import GameRecord, replay

if TYPE_CHECKING:  # NumPy and the bots' rollouts are imported when a review runs
    import numpy as np
    import numpy.typing as npt

    from nimmt.bots.opponents import OpponentModel

DEFAULT_SAMPLES = 1024  # samples per option and decision: a 4-player game in well under a minute
DEFAULT_SEED = 0
CHUNK = 32  # samples per draw of the other players' styles
FIRST = 64  # samples every option gets before any is settled
SETTLED_Z = 2.0  # an option this many standard errors (of the paired difference) worse than the best is settled
TIE = 0.2  # ... and one that can be at most this much better than the best (bullheads)
# The chosen option is never settled early (False: once its accuracy is known to ACCURACY_PRECISION
# points, its slope times the loss's standard error; at a large loss that left the loss itself far less
# sure than the whole budget did: p90 of its standard error 0.675 against 0.292)
CHOSEN_WHOLE = True
ACCURACY_PRECISION = 3.0
FORGIVEN = 0.2  # the accuracy forgives this much loss a decision (bullheads): near ties count as the best
SETTLE = True  # settled options stop early (False: every option at the whole budget, as before issue 29)
NOISE_Z = 2.0  # a loss within this many standard errors of the best is noise: never marked
# (mark, threshold in bullheads of loss), worst first
MARKS: tuple[tuple[str, float], ...] = (("blunder", 5.0), ("mistake", 2.5), ("inaccuracy", 1.0))
ACCURACY_HALF = 1.0  # a decision this many bullheads worse than the best scores 50


class ReviewError(NimmtError, ValueError):
    """A review that cannot be made here (no NumPy), or of a record that breaks a rule."""


@dataclass(frozen=True, slots=True)
class Option:
    """One legal option of a decision: a card of the hand, or a row (0 to 3)."""

    option: int
    expected: float  # mean bullheads from this moment to the end of the round
    stderr: float  # standard error of ``expected``
    loss: float  # expected minus the best option's expected: 0 for the best
    loss_stderr: float  # standard error of ``loss`` (paired samples); 0 for the best
    chosen: bool
    samples: int = 0  # samples this option was played out on (the settled ones stop early)

    def to_json(self) -> dict[str, Any]:
        return {
            "option": self.option, "expected": round(self.expected, 3), "stderr": round(self.stderr, 3),
            "loss": round(self.loss, 3), "loss_stderr": round(self.loss_stderr, 3), "chosen": self.chosen,
            "samples": self.samples,
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of one player, with every option they had and what they chose."""

    player: int
    round: int  # 1-based
    turn: int  # 1-based
    kind: str  # "card" or "row"
    chosen: int  # the card played, or the row taken (0 to 3)
    rows: tuple[tuple[int, ...], ...]  # the rows as the player saw them
    hand: tuple[int, ...]  # the player's hand at that moment
    card: int | None  # for a row choice: the card below every row
    options: tuple[Option, ...]  # in the order of the hand (cards) or of the rows
    took: int = 0  # bullheads this player took in this turn: what happened
    samples: int = 0

    @property
    def forced(self) -> bool:
        return len(self.options) == 1

    @property
    def choice(self) -> Option:
        return next(o for o in self.options if o.chosen)

    @property
    def best(self) -> Option:
        return min(self.options, key=lambda o: (o.loss, o.option))

    @property
    def loss(self) -> float:
        return self.choice.loss

    @property
    def noise(self) -> bool:
        """Whether the chosen option is within the estimate's noise of the best."""
        choice = self.choice
        return choice.loss <= NOISE_Z * choice.loss_stderr

    @property
    def mark(self) -> str | None:
        if self.forced or self.noise:
            return None
        return next((name for name, threshold in MARKS if self.loss >= threshold), None)

    @property
    def counted_loss(self) -> float:
        """The loss the accuracy counts: the loss less :data:`FORGIVEN` (never below 0)."""
        return counted(self.loss)

    @property
    def accuracy(self) -> float:
        return decision_accuracy(self.counted_loss)

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player, "round": self.round, "turn": self.turn, "kind": self.kind,
            "chosen": self.chosen, "card": self.card, "rows": [list(r) for r in self.rows],
            "hand": list(self.hand), "took": self.took, "forced": self.forced, "loss": round(self.loss, 3),
            "mark": self.mark, "best": self.best.option, "options": [o.to_json() for o in self.options],
        }


def counted(loss: float) -> float:
    """The loss the accuracy counts: ``loss`` less :data:`FORGIVEN`, never below 0."""
    return max(0.0, loss - FORGIVEN)


def decision_accuracy(loss: float) -> float:
    """The accuracy of one decision from its loss: 100 for the best, 50 at :data:`ACCURACY_HALF`."""
    return 100.0 * math.pow(2.0, -max(0.0, loss) / ACCURACY_HALF)


@dataclass(frozen=True, slots=True)
class PlayerReview:
    """One player's game in numbers."""

    player: int
    name: str
    decisions: int  # unforced decisions
    accuracy: float | None  # None: no unforced decision
    mean_loss: float | None
    total_loss: float
    marks: dict[str, int]
    costliest: int | None  # index in Review.decisions of this player's costliest decision
    # Half the width of the accuracy's 95 % interval, from how much this player's decisions' scores
    # spread (None: fewer than 2 unforced decisions): how sure one game's figure is of how they play.
    accuracy_margin: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player, "name": self.name, "decisions": self.decisions,
            "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
            "accuracy_margin": None if self.accuracy_margin is None else round(self.accuracy_margin, 1),
            "mean_loss": None if self.mean_loss is None else round(self.mean_loss, 3),
            "total_loss": round(self.total_loss, 3), "marks": dict(self.marks), "costliest": self.costliest,
        }


@dataclass(frozen=True, slots=True)
class Review:
    """A whole review: every decision in the order it was made, and a summary per player."""

    players: tuple[PlayerReview, ...]
    decisions: tuple[Decision, ...]
    samples: int
    seed: int
    thresholds: dict[str, float] = field(default_factory=lambda: dict(MARKS))

    def to_json(self) -> dict[str, Any]:
        return {
            "samples": self.samples, "seed": self.seed, "noise_z": NOISE_Z, "accuracy_half": ACCURACY_HALF,
            "thresholds": dict(self.thresholds),
            "players": [p.to_json() for p in self.players],
            "decisions": [d.to_json() for d in self.decisions],
        }


# -- the moments of decision ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Moment:
    """A decision as the record tells it: who, what kind, what was chosen, and the state before."""

    player: int
    kind: str
    chosen: int
    state: GameState


def moments(record: GameRecord) -> Iterator[tuple[Moment, dict[int, int] | None]]:
    """Every decision of ``record`` in order, each with ``None``, or, after the last decision of a
    turn, the bullheads each player took in that turn (player -> bullheads)."""
    state = new_game(len(record.players), record.rules)
    took: dict[int, int] = {}
    for action in record.actions():
        if isinstance(action, Deal):
            state = apply(state, action).state
            continue
        if isinstance(action, PlayCard):
            moment = Moment(action.player, "card", action.card, state)
        else:
            assert isinstance(action, ChooseRow)
            moment = Moment(action.player, "row", action.row, state)
        step = apply(state, action)
        state = step.state
        for event in step.events:
            if isinstance(event, RowTaken):
                took[event.player] = took.get(event.player, 0) + event.bullheads
        if any(isinstance(event, TurnEnded) for event in step.events):
            yield moment, took
            took = {}
        else:
            yield moment, None


# -- the estimates -------------------------------------------------------------------------------


def _rng(seed: int, *where: object) -> random.Random:
    """A source of chance of its own for one decision (or one player's model): seeded by its place."""
    return random.Random(":".join(map(str, (seed, *where))))


def _chunk(
    seen: View, kind: str, labels: Sequence[int], first: int, size: int, seed: int, rng: random.Random,
    model: OpponentModel,
) -> npt.NDArray[np.int64]:
    """(len(labels), size): one draw of the other players' styles, samples ``first`` to ``first + size - 1``
    of the decision's ``seed``, each the same deal and the same draws of the noisy styles for every
    option of ``labels`` (cards, or rows for a row choice: :func:`nimmt.batch.review_penalties`)."""
    from nimmt.batch import review_penalties
    from nimmt.bots.styles import policies_of, seats_of

    me = seen.player
    assert me is not None
    styles = model.draw(seen, rng)
    styles[me] = "heuristic"
    return review_penalties(seen, kind, labels, first, size, seed, policies_of(seats_of(styles), None))


def penalties(
    seen: View, kind: str, samples: int, rng: random.Random, model: OpponentModel
) -> npt.NDArray[np.int64]:
    """(options, samples): the bullheads ``seen.player`` takes to the end of the round with each option,
    the others in styles drawn from ``model`` (an :class:`~nimmt.bots.opponents.OpponentModel`); every
    option on every sample (the review itself stops the settled ones: :func:`sample`)."""
    import numpy as np

    seed = rng.getrandbits(63)
    labels = list(seen.hand) if kind == "card" else list(range(ROW_COUNT))
    blocks = []
    taken = 0
    while taken < samples:
        size = min(CHUNK, samples - taken)
        blocks.append(_chunk(seen, kind, labels, taken, size, seed, rng, model))
        taken += size
    return np.concatenate(blocks, axis=1)


@dataclass(slots=True)
class Samples:
    """The samples of one decision: ``values[i, :counts[i]]`` are option i's, the first ``counts[j]`` of
    them on the same deals (and styles) as option j's when ``counts[j] <= counts[i]``."""

    values: npt.NDArray[np.int64]  # (options, most samples)
    counts: npt.NDArray[np.int64]  # samples taken of each option


def _paired(values: npt.NDArray[np.int64], i: int, b: int, n: int) -> tuple[float, float, float]:
    """Mean of option i minus option b over their first ``n`` common samples, its standard error, and
    the standard deviation of one paired difference."""
    gaps = values[i, :n] - values[b, :n]
    mean = float(gaps.mean())
    spread = float(gaps.std(ddof=1)) if n > 1 else math.inf
    return mean, spread / math.sqrt(n), spread


def sample(
    seen: View, kind: str, chosen: int, budget: int, rng: random.Random, model: OpponentModel, settle: bool = True
) -> Samples:
    """The samples of a decision, option by option only as many as its answer needs (at most ``budget``
    each; see the module): every option gets :data:`FIRST` samples on the same deals; then, a chunk of
    :data:`CHUNK` at a time, only the options not yet settled: an option stops when it is clearly worse
    than the best so far (by :data:`SETTLED_Z` standard errors of the paired difference), or when it can
    be better than the best by :data:`TIE` at most; the chosen option never (:data:`CHOSEN_WHOLE`; else
    when its accuracy is known to :data:`ACCURACY_PRECISION` points); the best when no other option is
    left. With ``settle`` False every option gets the whole budget."""
    import numpy as np

    seed = rng.getrandbits(63)
    labels = list(seen.hand) if kind == "card" else list(range(ROW_COUNT))
    k = len(labels)
    c = labels.index(chosen)
    values = np.zeros((k, budget), np.int64)
    counts = np.zeros(k, np.int64)
    active = list(range(k))
    taken = 0
    while taken < budget and active:
        size = min(CHUNK, budget - taken)
        values[active, taken : taken + size] = _chunk(seen, kind, [labels[i] for i in active], taken, size, seed, rng,
                                                      model)
        taken += size
        counts[active] = taken
        if taken < min(FIRST, budget) or taken >= budget or not settle:
            continue
        active = _still_open(values[:, :taken], active, c)
    return Samples(values, counts)


def _still_open(values: npt.NDArray[np.int64], active: list[int], c: int) -> list[int]:
    """The options of ``active`` (each with every sample of ``values``) that need more samples; none
    when only the best is left."""
    n = values.shape[1]
    means = values[active].mean(axis=1)
    b = active[int(means.argmin())]
    others = [i for i in active if i != b]
    if not others:
        return []
    # Every paired difference at once: the same numbers as _paired's, row by row (each row's sums are
    # NumPy's pairwise sums of that row alone), without a call of NumPy per option and chunk.
    gaps = values[others] - values[b]
    losses = gaps.mean(axis=1).tolist()
    errors = (gaps.std(axis=1, ddof=1).tolist() if n > 1 else [math.inf] * len(others))
    open_: list[int] = []
    for i, loss, spread in zip(others, losses, errors, strict=True):
        error = spread / math.sqrt(n)
        if i == c:  # the chosen goes on to the budget: its loss and the accuracy no less sure than before
            done = not CHOSEN_WHOLE and math.log(2) * decision_accuracy(counted(loss)) * error <= ACCURACY_PRECISION
        else:  # clearly worse than the best, or at most a near tie better than it
            done = loss - SETTLED_Z * error > 0 or SETTLED_Z * error - loss <= TIE
        if not done:
            open_.append(i)
    return [b, *open_] if open_ else []


def options_of(values: npt.NDArray[np.int64], labels: Sequence[int], chosen: int,
               counts: npt.NDArray[np.int64] | None = None) -> tuple[Option, ...]:
    """Means, standard errors and paired losses from the (options, samples) array ``values``; with
    ``counts``, option i has only its first ``counts[i]`` samples (:class:`Samples`): the best is taken
    among the options sampled most, and an option sampled less is estimated as the best's mean plus
    their paired difference over the samples they share (so that ``loss`` is ``expected`` minus the
    best's ``expected``, and the shared deals narrow its error)."""
    import numpy as np

    k, most = values.shape
    if counts is None:
        counts = np.full(k, most, np.int64)
    n_top = int(counts.max())
    top = [i for i in range(k) if counts[i] == n_top]
    b = min(top, key=lambda i: (float(values[i, :n_top].mean()), i))
    base = float(values[b, :n_top].mean())
    b_spread = float(values[b, :n_top].std(ddof=1)) if n_top > 1 else math.inf
    result = []
    for i, label in enumerate(labels):
        n = int(counts[i])
        if i == b:
            expected, stderr, loss, loss_stderr = base, b_spread / math.sqrt(n_top), 0.0, 0.0
        else:
            loss, loss_stderr, _ = _paired(values, i, b, n)
            if n == n_top:
                expected = float(values[i, :n].mean())
                stderr = (float(values[i, :n].std(ddof=1)) if n > 1 else math.inf) / math.sqrt(n)
            else:  # the best's mean over all its samples plus the difference over the shared ones
                expected = base + loss
                gaps = values[i, :n] - values[b, :n]
                shared = float(np.cov(values[b, :n], gaps)[0, 1]) if n > 1 else 0.0
                variance = b_spread**2 / n_top + loss_stderr**2 + 2 * shared / n_top
                stderr = math.sqrt(max(variance, 0.0))
            if loss < 0:  # dropped early, then the best changed: it is no better than the best
                expected, loss = base, 0.0
        result.append(Option(option=label, expected=expected, stderr=stderr, loss=loss, loss_stderr=loss_stderr,
                             chosen=label == chosen, samples=n))
    return tuple(result)


def judge(
    seen: View, kind: str, chosen: int, *, samples: int, rng: random.Random, model: OpponentModel, settle: bool = True
) -> tuple[Option, ...]:
    """Every legal option of ``seen.player`` at this moment, estimated from ``seen`` alone."""
    labels = list(seen.hand) if kind == "card" else list(range(ROW_COUNT))
    taken = sample(seen, kind, chosen, samples, rng, model, settle)
    return options_of(taken.values, labels, chosen, taken.counts)


# -- the review ----------------------------------------------------------------------------------


def ready() -> None:
    """Raise :class:`ReviewError` when the review cannot run here (no NumPy)."""
    try:
        import numpy  # noqa: F401

        import nimmt.batch  # noqa: F401
    except ImportError:
        raise ReviewError("the review needs NumPy, one of nimmt's dependencies: pip install numpy") from None


def compiled() -> bool:
    """Whether the review's rollouts run compiled (Numba, the ``sim`` extra). Without it they run as
    plain Python: one round of four players at 64 samples took 31 CPU-s, against 1.5 compiled."""
    from nimmt.batch import HAVE_NUMBA

    if not HAVE_NUMBA:
        return False
    import numba  # type: ignore[import-untyped,import-not-found,unused-ignore]

    return not getattr(numba.config, "DISABLE_JIT", False)


def review(
    record: GameRecord,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    players: Sequence[int] | None = None,
    only: Container[tuple[int, int, int, str]] | None = None,
    rounds: Container[int] | None = None,
    settle: bool | None = None,
) -> Review:
    """Review every decision of ``record``: of ``players`` only, of ``rounds`` only (counted from 1),
    with ``only`` just the decisions whose (round, turn, player, kind) it holds (turns counted from
    1), when given. Parts of one review made at the same samples and seed make it whole again
    (:func:`merge`). ``settle`` False: every option at the whole budget (no option stops early: the
    error bars of every option as narrow as the budget gives, at about three times the cost); None:
    :data:`SETTLE`. See the module."""
    from nimmt.bots.opponents import OpponentModel
    from nimmt.bots.styles import BASE_STYLES

    if samples < 2:
        raise ReviewError(f"a review needs at least 2 samples per option, not {samples}")
    ready()
    try:
        replay(record)
    except NimmtError as error:
        raise ReviewError(str(error)) from error
    seats = range(len(record.players)) if players is None else sorted(set(players))
    # The family the review was measured with (docs/review.md), at every size: the expert's default adds
    # learned-drawn at 3 to 6 players, whose rollouts cost some three times as much.
    models = {p: OpponentModel(_rng(seed, "model", p), BASE_STYLES) for p in seats}
    decisions: list[Decision] = []
    pending: list[int] = []  # decisions of the turn under way: what they took is known at its end
    for moment, took in moments(record):
        if moment.player in models:
            where = (moment.state.round, moment.state.turn + 1, moment.player, moment.kind)
            wanted = (only is None or where in only) and (rounds is None or where[0] in rounds)
            decision = _decide(moment, models[moment.player], samples if wanted else 0, seed,
                               SETTLE if settle is None else settle)
            if decision is not None:
                pending.append(len(decisions))
                decisions.append(decision)
        if took is not None:
            for i in pending:
                decisions[i] = replace(decisions[i], took=took.get(decisions[i].player, 0))
            pending = []
    summaries = tuple(_summary(p, record.players[p], decisions) for p in seats)
    return Review(players=summaries, decisions=tuple(decisions), samples=samples, seed=seed)


def merge(record: GameRecord, parts: Sequence[Review]) -> Review:
    """One review from parts of it (:func:`review` of some players or rounds each, same samples and seed)."""
    if not parts or len({(part.samples, part.seed) for part in parts}) != 1:
        raise ReviewError("the parts of a review are made at the same samples and seed")
    found = {(d.round, d.turn, d.player, d.kind): d for part in parts for d in part.decisions}
    decisions = []
    for moment, _ in moments(record):
        where = (moment.state.round, moment.state.turn + 1, moment.player, moment.kind)
        if where in found:
            decisions.append(found[where])
    seats = sorted({p.player for part in parts for p in part.players})
    summaries = tuple(_summary(p, record.players[p], decisions) for p in seats)
    return Review(players=summaries, decisions=tuple(decisions), samples=parts[0].samples, seed=parts[0].seed)


def review_steps(
    record: GameRecord,
    done: int = 0,
    models: dict[int, OpponentModel] | None = None,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    budget: int | None = None,
    seconds: float | None = None,
) -> tuple[list[Decision], int, dict[int, OpponentModel], int]:
    """A review made as the game goes on: the decisions of ``record`` (a game under way, or over) from
    its ``done``-th on, up to the end of its last complete turn, each player's model of the others as
    ``models`` left it (None: before the first decision). ``budget``: stop after about that much work
    (the options times the cards left, summed; at least one decision), or after ``seconds`` of wall clock
    (at least one decision: a busy machine makes shorter steps, not slower ones). Returns the decisions made,
    the new ``done``, the models, and how many decisions the record's complete turns hold. The
    decisions of every step, given to :func:`finish`, are :func:`review`'s, number for number: each
    player's model watches the same views in the same order, and each decision draws from its own seed."""
    from nimmt.bots.opponents import OpponentModel
    from nimmt.bots.styles import BASE_STYLES

    if samples < 2:
        raise ReviewError(f"a review needs at least 2 samples per option, not {samples}")
    ready()
    if models is None:
        models = {p: OpponentModel(_rng(seed, "model", p), BASE_STYLES) for p in range(len(record.players))}
    listing = list(moments(record))
    ended = 0
    for i, (_, took) in enumerate(listing):
        if took is not None:
            ended = i + 1  # only whole turns: a turn under way is not in the record as it will be
    found: list[Decision] = []
    spent = 0
    until = None if seconds is None else time.perf_counter() + seconds
    while done < ended and (not found or ((budget is None or spent < budget)
                                          and (until is None or time.perf_counter() < until))):
        moment = listing[done][0]
        decision = _decide(moment, models[moment.player], samples, seed)
        assert decision is not None
        found.append(decision)
        cards = len(moment.state.hands[moment.player])
        spent += cards * (cards if moment.kind == "card" else ROW_COUNT)
        done += 1
    return found, done, models, ended


def finish(record: GameRecord, decisions: Sequence[Decision], *, samples: int, seed: int) -> Review:
    """The review of ``record`` from its decisions made step by step (:func:`review_steps`): what each
    decision's turn took, and each player's summary."""
    took_at: dict[tuple[int, int, int, str], int] = {}
    pending: list[tuple[int, int, int, str]] = []
    for moment, took in moments(record):
        pending.append((moment.state.round, moment.state.turn + 1, moment.player, moment.kind))
        if took is not None:
            for where in pending:
                took_at[where] = took.get(where[2], 0)
            pending = []
    made = tuple(replace(d, took=took_at.get((d.round, d.turn, d.player, d.kind), 0)) for d in decisions)
    summaries = tuple(_summary(p, name, made) for p, name in enumerate(record.players))
    return Review(players=summaries, decisions=made, samples=samples, seed=seed)


STORE_FORMAT = 2  # 1: options without their samples (every option had the review's budget)


def to_store(result: Review) -> dict[str, Any]:
    """A compact form of ``result`` to keep with the game: its numbers only (the rows and hands of each
    decision are the record's, :func:`from_store` finds them there again)."""
    return {
        "format": STORE_FORMAT, "samples": result.samples, "seed": result.seed,
        "players": [p.player for p in result.players],
        "decisions": [
            [d.round, d.turn, d.player, d.kind, d.chosen, d.took,
             [[o.option, round(o.expected, 4), round(o.stderr, 4), round(o.loss, 4), round(o.loss_stderr, 4),
               o.samples] for o in d.options]]
            for d in result.decisions
        ],
    }


def from_store(record: GameRecord, data: Any) -> Review:
    """The review :func:`to_store` kept for ``record``; :class:`ReviewError` if it is not one."""
    try:
        if data["format"] not in (1, STORE_FORMAT):
            raise ReviewError(f"unknown stored review format {data['format']!r}")
        every = data["samples"] if data["format"] == 1 else None
        places = {(m.state.round, m.state.turn + 1, m.player, m.kind): m for m, _ in moments(record)}
        decisions = []
        for rnd, turn, player, kind, chosen, took, options in data["decisions"]:
            seen = view(places[(rnd, turn, player, kind)].state, player)
            decisions.append(Decision(
                player=player, round=rnd, turn=turn, kind=kind, chosen=chosen, rows=seen.rows, hand=seen.hand,
                card=seen.row_choice_card if kind == "row" else None, took=took, samples=data["samples"],
                options=tuple(Option(option, expected, stderr, loss, loss_stderr, option == chosen,
                                     every if every is not None else rest[0])
                              for option, expected, stderr, loss, loss_stderr, *rest in options)))
        summaries = tuple(_summary(p, record.players[p], decisions) for p in data["players"])
        return Review(players=summaries, decisions=tuple(decisions), samples=data["samples"], seed=data["seed"])
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise ReviewError(f"not a stored review of this game: {error!r}") from None


def _decide(moment: Moment, model: OpponentModel, samples: int, seed: int, settle: bool = True) -> Decision | None:
    """The decision at ``moment``; with ``samples`` 0, only what the player's model learns there."""
    seen = view(moment.state, moment.player)
    if moment.kind == "card":
        model.observe(seen)  # as the expert does at each of its card choices: what the others revealed
    if not samples:
        return None
    rng = _rng(seed, seen.round, seen.turn, moment.player, moment.kind)
    options = judge(seen, moment.kind, moment.chosen, samples=samples, rng=rng, model=model, settle=settle)
    return Decision(
        player=moment.player, round=seen.round, turn=seen.turn + 1, kind=moment.kind, chosen=moment.chosen,
        rows=seen.rows, hand=seen.hand, card=seen.row_choice_card if moment.kind == "row" else None,
        options=options, samples=samples,
    )


def _summary(player: int, name: str, decisions: Sequence[Decision]) -> PlayerReview:
    mine = [(i, d) for i, d in enumerate(decisions) if d.player == player]
    free = [(i, d) for i, d in mine if not d.forced]
    marks = {name: 0 for name, _ in MARKS}
    for _, d in free:
        if d.mark is not None:
            marks[d.mark] += 1
    total = sum(d.loss for _, d in free)
    costliest = max(free, key=lambda item: (item[1].loss, -item[0]))[0] if free else None
    scores = [d.accuracy for _, d in free]
    margin = None
    if len(scores) > 1:
        mean = sum(scores) / len(scores)
        spread = math.sqrt(sum((x - mean) ** 2 for x in scores) / (len(scores) - 1))
        margin = 1.96 * spread / math.sqrt(len(scores))
    return PlayerReview(
        player=player, name=name, decisions=len(free),
        accuracy=sum(scores) / len(free) if free else None,
        mean_loss=total / len(free) if free else None, total_loss=total, marks=marks, costliest=costliest,
        accuracy_margin=margin,
    )
