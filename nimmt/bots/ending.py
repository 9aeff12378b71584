"""Playing for the game's end: near it, a card is worth its chance of leaving its player with the
lowest total when the game ends, not this round's bullheads.

The game ends after the round in which a total passes the threshold (``Rules.end_above``), or after
the table's fixed last round (``Rules.rounds``). Near that point (:func:`near_end`: the fixed last
round, or a total within :data:`NEAR` bullheads of the threshold, counting what was taken this round)
the ``expert`` with ``ending=True`` scores each rollout by who wins, from every player's bullheads in
it (:mod:`nimmt.batch.seated`):

- where the rollout ends the game (the last round, or a total above the threshold), the player's share
  of the win: 1 when its total is the lowest, 1/k when k players share it, else 0;
- where it does not, a smooth stand-in for the chance to win later: its weight in a softmax over the
  totals, ``exp(-total / TAU)`` over the sum for every player (a total :data:`TAU` bullheads above
  another's counts e times less).

A value is minus that chance (lower is better, as every value of the search).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from nimmt.core import View

from .base import BotError

if TYPE_CHECKING:  # NumPy is loaded by the rollouts that use it, not by every command that names a bot
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float64]
    Ints = npt.NDArray[np.int64]

NEAR = 30  # a total (round so far included) within this of the threshold: the game may end with this round
TAU = 8.0  # bullheads of total that divide a later chance to win by e (about one round's spread at 4 players)


def last_round(view: View) -> bool:
    """Whether this is the table's fixed last round."""
    return view.rules.rounds is not None and view.round >= view.rules.rounds


def near_end(view: View, near: int = NEAR) -> bool:
    """Whether the game may well end with this round: the fixed last round, or (at the classic end) a
    total that, with what its player took this round, lies within ``near`` of the threshold."""
    if view.rules.rounds is not None:
        return last_round(view)
    return max(t + p for t, p in zip(view.totals, view.penalties, strict=True)) > view.rules.end_above - near


def end_scorer(view: View, tau: float = TAU) -> Callable[[Ints], Floats]:
    """A function from each player's bullheads in each rollout, ``(candidates, samples, players)``,
    to the value of each rollout for ``view.player``: minus its chance to win (see the module), a game
    that goes on by the softmax over totals at ``tau`` bullheads to a factor e."""
    import numpy as np

    me = view.player
    assert me is not None, "a spectator does not play for the end"
    base = np.array([t + p for t, p in zip(view.totals, view.penalties, strict=True)], np.int64)
    last = last_round(view)
    threshold = view.rules.end_above

    def score(per_seat: Ints) -> Floats:
        final = base + per_seat
        lowest = final.min(axis=-1)
        tied = (final == lowest[..., None]).sum(axis=-1)
        win = np.where(final[..., me] == lowest, 1.0 / tied, 0.0)
        if last:
            return -win
        ends = final.max(axis=-1) > threshold
        weights = np.exp(-(final - lowest[..., None]) / tau)
        later = weights[..., me] / weights.sum(axis=-1)
        return -np.where(ends, win, later)

    return score


VERSUS = ("mean", "lowest")  # whom a rollout's bullheads are measured against (see :func:`margin_scorer`)


def margin_scorer(view: View, versus: str = "lowest", win: float = 0.0,
                  gate: float | None = None) -> Callable[[Ints], Floats]:
    """A function from each player's bullheads in each rollout, ``(candidates, samples, players)``, to
    the value of each rollout for ``view.player`` in bullheads (lower is better), for a search that
    plays for the game's end without giving up its lead:

    - ``versus="mean"``: its bullheads minus the mean of the other players' (the default search's lead);
      ``"lowest"``: its final total minus the lowest other final total (the table's leader, totals
      included: who takes the round's bullheads matters most when it is the leader);
    - ``win`` bullheads off where the rollout ends the game (the fixed last round, or a total above the
      threshold) times its share of the win (1 alone lowest, 1/k in a tie of k, else 0);
    - ``gate``: with the first call (the first chunk of rollouts), if fewer than this share of them end
      the game, every rollout is valued as the default search does (``versus="mean"``, ``win=0``).
    """
    import numpy as np

    me = view.player
    assert me is not None, "a spectator does not play for the end"
    if versus not in VERSUS:
        raise BotError(f"versus is one of {VERSUS}, not {versus!r}")
    base = np.array([t + p for t, p in zip(view.totals, view.penalties, strict=True)], np.int64)
    last = last_round(view)
    threshold = view.rules.end_above
    rest = [p for p in range(view.players) if p != me]
    state = {"lead_only": False, "decided": gate is None}

    def score(per_seat: Ints) -> Floats:
        final = base + per_seat
        ends = np.ones(final.shape[:-1], bool) if last else final.max(axis=-1) > threshold
        if not state["decided"]:
            state["decided"] = True
            state["lead_only"] = bool(ends.mean() < (gate or 0.0))
        if state["lead_only"] or versus == "mean":
            margin = per_seat[..., me] - per_seat[..., rest].mean(axis=-1)
        else:
            margin = final[..., me] - final[..., rest].min(axis=-1)
        value: Floats = np.asarray(margin, np.float64)
        if win and not state["lead_only"]:
            lowest = final.min(axis=-1)
            tied = (final == lowest[..., None]).sum(axis=-1)
            share = np.where(final[..., me] == lowest, 1.0 / tied, 0.0)
            value -= win * np.where(ends, share, 0.0)
        return value

    return score
