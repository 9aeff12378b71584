"""Monte Carlo evaluation of a player's options from their view: the engine of the search bots.

For a card (or a row) the question is the bullheads the player takes from now to the end of the
round. One *sample* deals the unseen cards consistently with the view
(:func:`nimmt.bots.sampling.determinize`) and plays the round out with a rollout policy
(:mod:`nimmt.bots.rollout`). All options are scored on the **same** samples (common random
numbers: the same hidden hands and the same opponents' orders), so differences between options are
measured far more precisely than each option's own mean.

Sampling stops at a fixed number of samples or at a deadline, whichever comes first. With
``prune=True`` an option whose paired difference to the best option is clearly worse (more than
``z`` standard errors, after a minimum number of samples) stops being sampled, so the time goes to
the close calls.
"""

from __future__ import annotations

import importlib.util
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nimmt.core import ROW_COUNT, View

from .base import BotError
from .rollout import ENGINES, RolloutEngine, place, table_of
from .sampling import determinize
from .styles import Seats

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, slots=True)
class Estimate:
    """What sampling says about one option (a card or a row)."""

    option: int
    samples: int
    mean: float  # mean bullheads this player takes from now to the end of the round
    others: float  # mean bullheads the other players take on average, over the same samples
    stderr: float


@dataclass
class _Tally:
    values: list[float]
    others: float = 0.0


def _stderr(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return math.inf
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return math.sqrt(var / n)


def _paired_gap(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of ``a - b`` over their common samples."""
    n = min(len(a), len(b))
    d = [a[i] - b[i] for i in range(n)]
    if n < 2:
        return 0.0, math.inf
    return sum(d) / n, _stderr(d)


def _still_close(live: list[int], values: Mapping[int, Sequence[float]], z: float) -> list[int]:
    """The options of ``live`` worth more samples: the best so far (lowest mean) and every option
    whose paired difference to it is within ``z`` standard errors."""
    best = min(live, key=lambda o: sum(values[o]) / len(values[o]))
    keep = []
    for option in live:
        gap, err = _paired_gap(values[option], values[best])
        if option == best or gap - z * err <= 0:
            keep.append(option)
    return keep


def evaluate(
    view: View,
    options: Sequence[int],
    kind: str,
    *,
    rng: random.Random,
    engine: RolloutEngine | str = "random",
    samples: int | None = None,
    deadline: float | None = None,
    prune: bool = False,
    z: float = 3.0,
    min_samples: int = 24,
    clock: Callable[[], float] = time.perf_counter,
) -> list[Estimate]:
    """Estimate each option for ``view.player``: ``kind`` is ``"card"`` (options are cards of the
    hand, during card choice) or ``"row"`` (options are rows, while this player must choose one).

    ``samples``: how many samples per option at most; ``deadline``: a ``clock()`` value
    (``time.perf_counter`` by default) after which no new batch of samples starts (one batch of 8
    samples is always taken).
    """
    if samples is None and deadline is None:
        raise BotError("give samples, a deadline, or both")
    if isinstance(engine, str):
        engine = ENGINES[engine]
    me = view.player
    assert me is not None, "a spectator has no options"
    n = view.players
    tallies = {option: _Tally([]) for option in options}
    live = list(options)
    unseen = view.unseen_cards()
    if kind == "row":
        assert view.row_choice_card is not None, "no card waits for a row choice"
    elif kind != "card":
        raise BotError(f"kind is 'card' or 'row', not {kind!r}")
    taken = 0
    check_every = 8
    while True:
        hidden = determinize(view, rng) if unseen else [[] for _ in range(n)]
        seed = rng.getrandbits(48)
        for option in live:
            penalties = _play_out(view, kind, option, hidden, engine, seed)
            tally = tallies[option]
            tally.values.append(float(penalties[me]))
            tally.others += (sum(penalties) - penalties[me]) / max(1, n - 1)
        taken += 1
        if samples is not None and taken >= samples:
            break
        if taken % check_every == 0:
            if deadline is not None and clock() >= deadline:
                break
            if prune and taken >= min_samples and len(live) > 1:
                live = _still_close(live, {option: tallies[option].values for option in live}, z)
                if len(live) == 1 and samples is None:
                    break
    return [
        Estimate(
            option=option,
            samples=len(t.values),
            mean=sum(t.values) / len(t.values),
            others=t.others / len(t.values),
            stderr=_stderr(t.values),
        )
        for option, t in tallies.items()
    ]


def _play_out(
    view: View, kind: str, option: int, hidden: list[list[int]], engine: RolloutEngine, seed: int
) -> list[int]:
    """One sample of :func:`evaluate`: each player's bullheads from now to the end of the round when
    ``view.player`` plays the card ``option`` (or takes the row ``option``), the others holding the
    ``hidden`` hands, the rest of the round played by ``engine`` from ``seed``."""
    me = view.player
    assert me is not None, "a spectator has no options"
    hands = [h[:] for h in hidden]
    hands[me] = list(view.hand)
    table = table_of(view.rows)
    penalties = [0] * view.players
    if kind == "card":
        first = {me: option}
    else:
        place(table, view.row_choice_card or 0, me, penalties, row_if_low=option)
        for later, player in view.revealed[view.resolved + 1 :]:  # the cards above it, placed after it
            place(table, later, player, penalties)
        first = {}
    if hands[me]:
        engine.finish_round(table, hands, first, penalties, random.Random(seed))
    return penalties


def batch_available() -> bool:
    """Whether the compiled batch engine (:mod:`nimmt.batch` with Numba) can run rollouts here. Without
    Numba the batch kernels run as plain Python, slower than :func:`evaluate`'s own rollouts, so a base
    install (NumPy, no Numba) searches with those."""
    if importlib.util.find_spec("numba") is None:
        return False
    try:
        from nimmt.batch import HAVE_NUMBA
    except ImportError:
        return False
    return HAVE_NUMBA


def evaluate_batch(
    view: View,
    kind: str,
    *,
    rng: random.Random,
    policy: str | Callable[[], str | Seats] = "heuristic",
    samples: int | None = None,
    deadline: float | None = None,
    prune: bool = False,
    z: float = 3.0,
    min_samples: int = 32,
    chunk: int = 16,
    clock: Callable[[], float] = time.perf_counter,
    cards: Sequence[int] | None = None,
    others: float = 0.0,
    score: Callable[[np.ndarray], np.ndarray] | None = None,
) -> list[Estimate]:
    """Like :func:`evaluate`, with the rollouts of :mod:`nimmt.batch` (compiled; ``policy`` is one of
    its table policies: ``random``, ``fewest`` or ``heuristic``, or a function that gives one for
    each chunk: a table policy, or the card and row policies of each seat,
    :func:`nimmt.bots.styles.seats_of`), ``chunk`` samples at a time. For ``kind="card"`` the
    options are ``cards`` (default: the whole hand); for ``"row"`` the four rows.

    ``others`` > 0 (with per-seat policies only): an option's value is the viewer's bullheads minus
    ``others`` times the mean of what each other player takes, in the same rollouts (a lead, not
    only a low score).

    ``score``, when given, values each rollout from every player's bullheads in it (an array
    ``(options, samples, players)`` to ``(options, samples)``, lower is better; e.g.
    :func:`nimmt.bots.ending.end_scorer`); ``others`` is then not used."""
    import numpy as np

    if samples is None and deadline is None:
        raise BotError("give samples, a deadline, or both")
    generator = np.random.default_rng(rng.getrandbits(64))
    options = list(view.hand if cards is None else cards) if kind == "card" else list(range(ROW_COUNT))
    values: dict[int, list[float]] = {option: [] for option in options}
    weight = others / max(1, view.players - 1)
    live = list(options)
    taken = 0
    while True:
        size = chunk if samples is None else max(1, min(chunk, samples - taken))
        name = policy if isinstance(policy, str) else policy()
        block = (_rollout_chunk(view, kind, live, size, generator, name, weight) if score is None
                 else _scored_chunk(view, kind, live, size, generator, name, score))
        for option, chunk_values in block.items():
            values[option].extend(chunk_values)
        taken += size
        if samples is not None and taken >= samples:
            break
        if deadline is not None and clock() >= deadline:
            break
        if prune and taken >= min_samples and len(live) > 1:
            live = _still_close(live, values, z)
            if len(live) == 1 and samples is None:
                break
    return [
        Estimate(option=o, samples=len(v), mean=sum(v) / len(v), others=math.nan, stderr=_stderr(v))
        for o, v in values.items()
    ]


def _scored_chunk(
    view: View, kind: str, live: list[int], size: int, generator: np.random.Generator, name: str | Seats,
    score: Callable[[np.ndarray], np.ndarray],
) -> dict[int, list[float]]:
    """:func:`_rollout_chunk`, each rollout valued by ``score`` from every player's bullheads in it
    (:mod:`nimmt.batch.seated`: the same rollouts, each player's share kept apart)."""
    from nimmt.batch.seated import card_seat_penalties, row_seat_penalties

    from .styles import policies_of

    policy = name if isinstance(name, str) else policies_of(name, None)
    if kind == "card":
        block = score(card_seat_penalties(view, live, size, generator, policy))
        return {option: block[i].tolist() for i, option in enumerate(live)}
    block = score(row_seat_penalties(view, size, generator, policy))
    return {option: block[option].tolist() for option in live}


def _rollout_chunk(
    view: View, kind: str, live: list[int], size: int, generator: np.random.Generator, name: str | Seats,
    weight: float,
) -> dict[int, list[float]]:
    """``size`` more values of each option of ``live`` from the batch engine's rollouts with the
    table policy or seats' policies ``name`` (see :func:`evaluate_batch`)."""
    import numpy as np

    from nimmt.batch import rollout_card_penalties, rollout_row_penalties

    from .styles import seat_card_penalties, seat_row_penalties

    if kind == "card":
        if isinstance(name, str):
            block = rollout_card_penalties(view, live, size, generator, name)
        elif weight:
            rest = np.zeros((len(live), size), np.int64)
            mine = seat_card_penalties(view, live, size, generator, name, rest)  # fills rest
            block = mine - weight * rest
        else:
            block = seat_card_penalties(view, live, size, generator, name)
        return {option: block[i].tolist() for i, option in enumerate(live)}
    if isinstance(name, str):
        block = rollout_row_penalties(view, size, generator, name)
    elif weight:
        rest = np.zeros((ROW_COUNT, size), np.int64)
        mine = seat_row_penalties(view, size, generator, name, rest)  # fills rest
        block = mine - weight * rest
    else:
        block = seat_row_penalties(view, size, generator, name)
    return {option: block[option].tolist() for option in live}
