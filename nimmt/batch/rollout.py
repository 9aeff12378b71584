"""Rollouts for search bots: finish the current round many times from one player's view.

Each rollout deals the cards the player cannot see (:meth:`nimmt.core.View.unseen_cards`) at
random to the other players, as many as each one holds (every such deal is equally likely given
the view: nothing a player does in 6 nimmt! reveals the cards still in their hand), then plays the
round to its end. The same deals serve every candidate (common random numbers), so differences
between candidates are not drowned by the luck of the deal.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from nimmt.core import BULLHEADS, View

from . import _kernels as K
from . import _numpy as N
from ._kernels import CardPolicy, Policies
from .engine import POLICIES, BatchError, EngineName, Policy, _seed, engine_name, run_kernel, seat_policies

Ints = npt.NDArray[np.int64]


def _row_state(rows: Sequence[Sequence[int]]) -> tuple[Ints, Ints, Ints]:
    ends = np.array([row[-1] for row in rows], np.int64)
    counts = np.array([len(row) for row in rows], np.int64)
    heads = np.array([sum(BULLHEADS[c] for c in row) for row in rows], np.int64)
    return ends, counts, heads


Source = np.random.Generator | random.Random | int | None


def generator(rng: Source) -> np.random.Generator:
    """A NumPy generator from ``rng``: a Generator as is, a :class:`random.Random` (one draw from it
    seeds the generator), a seed, or None (fresh entropy)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, random.Random):
        return np.random.default_rng(rng.getrandbits(64))
    if rng is None or (isinstance(rng, int) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    raise BatchError(f"rng must be a numpy Generator, a random.Random, a seed or None, not {rng!r}")


def _rows_for(values: Ints, candidates: int) -> Ints:
    """The same row state once per candidate, (candidates, 4)."""
    return np.repeat(values[None, :], candidates, axis=0)


def _public(view: View) -> npt.NDArray[np.bool_]:
    """Cards every player has seen: rows, cards taken, cards played, cards revealed this turn."""
    public = np.zeros(105, np.bool_)
    for group in (*view.rows, *view.taken, *view.played, [c for c, _ in view.revealed]):
        for card in group:
            public[card] = True
    return public


def _seats(policy: str | Policies, players: int) -> Policies:
    if isinstance(policy, Policies):
        if policy.cards.shape != (players,) or policy.rows.shape != (players,):
            raise BatchError(f"per-seat policies need one card and one row policy for each of {players} seats")
        return policy
    try:
        cp, rp = POLICIES[policy]
    except KeyError:
        raise BatchError(f"unknown policy {policy!r}: choose {', '.join(POLICIES)}") from None
    return seat_policies(np.full(players, cp), np.full(players, rp))


def _run(
    view: View,
    ends0: Ints,
    counts0: Ints,
    heads0: Ints,
    first: Ints,
    fixed: npt.NDArray[np.bool_],
    n_samples: int,
    rng: np.random.Generator,
    policy: str | Policies,
    engine: str,
    rest: Ints | None,
) -> Ints:
    """(candidates, n_samples) bullheads the viewer takes from the given starting points."""
    assert view.player is not None
    me = view.player
    seats = _seats(policy, view.players)
    if isinstance(n_samples, bool) or not isinstance(n_samples, int | np.integer) or n_samples < 1:
        raise BatchError(f"n_samples must be a whole number from 1 up, not {n_samples!r}")
    pool = np.array(view.unseen_cards(), np.int64)
    sizes = np.array([0 if p == me else size for p, size in enumerate(view.hand_sizes)], np.int64)
    if sizes.sum() > pool.size:
        raise BatchError(f"this view is impossible: {sizes.sum()} unseen cards are needed, {pool.size} exist")
    mine = np.array(view.hand, np.int64)
    candidates = first.shape[0]
    out = np.zeros((candidates, n_samples), np.int64)
    if rest is not None and rest.shape != out.shape:
        raise BatchError(f"rest must have the shape of the result, {out.shape}, not {rest.shape}")
    if engine == "numba" or isinstance(policy, Policies) or rest is not None or (seats.cards != CardPolicy.ORDER).any():
        start = K.Start(ends0, counts0, heads0, _public(view), first, fixed, mine, pool, sizes, me)
        each = np.zeros((candidates, n_samples, view.players), np.int64)
        run_kernel(K.rollouts, start, seats, 0, n_samples, _seed(rng), False, each)
        out[:] = each[:, :, me]
        if rest is not None:
            rest[:] = each.sum(axis=2) - out
        return out
    return _numpy_rollouts(ends0, counts0, heads0, first, fixed, mine, pool, sizes, me, n_samples,
                           int(seats.rows[0]), rng)


def _numpy_rollouts(
    ends0: Ints,
    counts0: Ints,
    heads0: Ints,
    first: Ints,
    fixed: npt.NDArray[np.bool_],
    mine: Ints,
    pool: Ints,
    sizes: Ints,
    me: int,
    samples: int,
    row_policy: int,
    rng: np.random.Generator,
) -> Ints:
    """The same rollouts as the compiled kernel, built as arrays and played by the NumPy path."""
    candidates, players = first.shape
    now_mine = bool(first[0, me] > 0)
    turns = mine.size if now_mine else mine.size + 1
    for p in range(players):
        if p != me:
            turns = max(turns, int(sizes[p]) + (1 if fixed[p] else 0))
    orders = np.zeros((samples, players, turns), np.int64)
    dealt = pool[np.argsort(rng.random((samples, pool.size)), axis=1)] if pool.size else np.zeros((samples, 0))
    own = mine[np.argsort(rng.random((samples, mine.size)), axis=1)] if mine.size else np.zeros((samples, 0))
    at = 0
    for p in range(players):
        if p == me:
            start = 0 if now_mine else 1
            orders[:, p, start : start + mine.size] = own
        else:
            start = 1 if fixed[p] else 0
            size = int(sizes[p])
            orders[:, p, start : start + size] = dealt[:, at : at + size]
            at += size
    work = np.tile(orders, (candidates, 1, 1))  # candidate k is rows k * samples ... (k + 1) * samples - 1
    every = np.arange(candidates * samples)
    for p in range(players):
        if fixed[p] and p != me:
            work[:, p, 0] = np.repeat(first[:, p], samples)
    if now_mine:
        wanted = np.repeat(first[:, me], samples)
        where = (work[:, me, :] == wanted[:, None]).argmax(axis=1)
        work[every, me, where] = work[:, me, 0]
        work[:, me, 0] = wanted
    ends = np.repeat(ends0, samples, axis=0)
    counts = np.repeat(counts0, samples, axis=0)
    heads = np.repeat(heads0, samples, axis=0)
    penalties = N.play(ends, counts, heads, work, row_policy, None, rng)
    return penalties[:, me].reshape(candidates, samples)


def rollout_card_penalties(
    view: View,
    cards: Sequence[int] | None = None,
    n_samples: int = 256,
    rng: Source = None,
    policy: Policy | str | Policies = "random",
    engine: EngineName | str = "auto",
    rest: Ints | None = None,
) -> Ints:
    """(len(cards), n_samples): the bullheads the viewer takes from now to the end of the round
    when it plays each of ``cards`` now (default: its whole hand), one column per sampled deal.

    ``policy``: how everybody plays on, a table policy by name, or each seat its own
    (:func:`seat_policies`; the viewer's seat too, for its later cards). ``rest``, when given (an
    int64 array of the result's shape), receives what the other players take together."""
    if view.player is None or not view.must_play_card:
        raise BatchError("rollouts of a card need the view of a player who must play a card now")
    me = view.player
    hand = tuple(view.hand)
    chosen = tuple(hand if cards is None else cards)
    missing = [c for c in chosen if c not in hand]
    if missing or not chosen:
        raise BatchError(f"cards to try must be in the hand {hand}, not {missing or 'none'}")
    ends, counts, heads = _row_state(view.rows)
    k = len(chosen)
    first = np.zeros((k, view.players), np.int64)
    first[:, me] = chosen
    fixed = np.zeros(view.players, np.bool_)
    fixed[me] = True
    return _run(view, _rows_for(ends, k), _rows_for(counts, k), _rows_for(heads, k), first, fixed, n_samples,
                generator(rng), policy, engine_name(engine), rest)


def rollout_card_values(
    view: View,
    cards: Sequence[int] | None = None,
    n_samples: int = 256,
    rng: Source = None,
    policy: Policy | str | Policies = "random",
    engine: EngineName | str = "auto",
) -> dict[int, float]:
    """card -> mean bullheads the viewer takes from now to the end of the round if it plays that
    card now (lower is better). See :func:`rollout_card_penalties`."""
    chosen = tuple(view.hand if cards is None else cards)
    penalties = rollout_card_penalties(view, chosen, n_samples, rng, policy, engine)
    return {card: float(penalties[i].mean()) for i, card in enumerate(chosen)}


def rollout_row_penalties(
    view: View,
    n_samples: int = 256,
    rng: Source = None,
    policy: Policy | str | Policies = "random",
    engine: EngineName | str = "auto",
    rest: Ints | None = None,
) -> Ints:
    """(4, n_samples): the bullheads the viewer takes from now to the end of the round, the taken
    row's included, when its low card takes row 0, 1, 2 or 3. ``policy`` and ``rest`` as in
    :func:`rollout_card_penalties` (the taken row counts for the viewer only)."""
    if view.player is None or not view.must_choose_row or view.row_choice_card is None:
        raise BatchError("rollouts of a row need the view of a player who must choose a row now")
    card = view.row_choice_card
    ends, counts, heads = _row_state(view.rows)
    now = heads.copy()
    ends0 = _rows_for(ends, 4)
    counts0 = _rows_for(counts, 4)
    heads0 = _rows_for(heads, 4)
    for row in range(4):
        ends0[row, row] = card
        counts0[row, row] = 1
        heads0[row, row] = BULLHEADS[card]
    first = np.zeros((4, view.players), np.int64)
    for c, p in view.revealed[view.resolved + 1 :]:
        first[:, p] = c
    fixed = np.ones(view.players, np.bool_)  # every card of this turn is face up (or already placed)
    later = _run(view, ends0, counts0, heads0, first, fixed, n_samples, generator(rng), policy,
                 engine_name(engine), rest)
    return later + now[:, None]


def rollout_row_values(
    view: View,
    n_samples: int = 256,
    rng: Source = None,
    policy: Policy | str | Policies = "random",
    engine: EngineName | str = "auto",
) -> dict[int, float]:
    """row -> mean bullheads the viewer takes from now to the end of the round (the row's own
    included) if its low card takes that row. See :func:`rollout_row_penalties`."""
    penalties = rollout_row_penalties(view, n_samples, rng, policy, engine)
    return {row: float(penalties[row].mean()) for row in range(4)}


_warm = False


def warm_up() -> float:
    """Compile (or load from Numba's cache) the rollout kernels once per process, so that a search
    bot's first decision is not the one paying; returns the seconds it took (0 once warm).

    A server's bot workers call it when they start; without Numba it plays one tiny rollout as
    Python, which costs little."""
    global _warm
    if _warm:
        return 0.0
    from nimmt.core import Deal, apply, new_game, view

    start = time.perf_counter()
    hands = (tuple(range(11, 21)), tuple(range(21, 31)))
    state = apply(new_game(2), Deal((1, 2, 3, 4), hands)).state
    rollout_card_penalties(view(state, 0), None, 2, np.random.default_rng(0), "heuristic")
    _warm = True
    return time.perf_counter() - start


__all__ = [
    "rollout_card_penalties",
    "rollout_card_values",
    "rollout_row_penalties",
    "rollout_row_values",
    "warm_up",
]
