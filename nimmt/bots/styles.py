"""Styles of play the ``expert`` can tell apart, and rollouts in which each player keeps its own.

Bots play in recognisable ways (``docs/ladder.md``, "A field of styles"). :data:`STYLES` is the
family the ``expert``'s opponent model (:mod:`nimmt.bots.opponents`) weighs for each other player:

============== =============================================================================
``heuristic``   nimmt's ``heuristic`` bot (its card and its row)
``snug``        the same expected cost, near ties to the snuggest fit, no look ahead; the
                cheapest row (how ``field:risk``, ``field:safe`` and their kind play)
``mc``          a noisy chooser: each card with a chance that falls with its expected cost (the
                same cost as ``snug``'s) and rises a little with the card, fitted to how
                ``field:mc50`` plays (Monte Carlo with few completions is mostly noise between
                the safer cards); the cheapest row
``learned``     the learned network's card (:mod:`nimmt.bots.learned`, policy mode) and its row:
                a model of players who search (``field:dmc``'s cards fit it far better than any
                other style's, ``docs/ladder.md``); its likelihood is the network's softmax over
                the hand, its rollouts play the likeliest card. Not in :data:`DEFAULT_STYLES`
                (the expert's ``styles`` option adds it)
``learned-drawn`` the network's softmax at the temperature :func:`drawn_temperature` (sharper at
                small tables: it fits ``field:dmc``'s cards better), its rollouts draw the card from it (as
                ``mc``'s draw theirs) instead of playing the likeliest one. In
                :data:`DEFAULT_STYLES`, the default at 3 to 6 players (:func:`default_styles`)
``random``      any card; the cheapest row
============== =============================================================================

Each style gives in Python the chance that a player of it plays a given card from a given hand
(:func:`style_chance`, for the likelihood of a revealed card: deterministic styles have a choice,
:func:`style_choice`) and a card and row policy of the compiled rollouts (:data:`POLICIES`), which
:func:`seat_card_penalties` and :func:`seat_row_penalties` give to each player separately: the
rollouts of :mod:`nimmt.batch.rollout`, with one style per seat instead of one for the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from nimmt.core import View

from .heuristic import choose, compiled

if TYPE_CHECKING:  # NumPy is loaded by the rollouts that use it, not by every command that names a bot
    import numpy as np
    import numpy.typing as npt

    from nimmt.batch import Policies

    from .learned import Net

    Ints = npt.NDArray[np.int64]

STYLES: tuple[str, ...] = ("heuristic", "snug", "mc", "learned", "learned-drawn", "random")
LEARNED: tuple[str, ...] = ("learned", "learned-drawn")  # the styles whose likelihood is the network's softmax
# The temperature of ``learned-drawn``'s softmax by table size, fitted to field:dmc's cards (docs/ladder.md,
# "Two models of players who search" and "The network's style in the default family"): best at 0.5 at 3
# and 4 players (log-loss 1.009 against 1.129 at 1 on 297 choices at 4), 0.7 at 6 and 8, 1 at 10 (a search
# of many unseen hands is noisier); heads-up the curve is flat and 0.5 is kept as screened.
DRAWN_TEMPERATURES: dict[int, float] = {2: 0.5, 3: 0.5, 4: 0.5, 5: 0.5, 6: 0.7, 7: 0.7, 8: 0.7, 9: 1.0, 10: 1.0}


def drawn_temperature(players: int) -> float:
    """``learned-drawn``'s softmax temperature at a table of ``players``."""
    return DRAWN_TEMPERATURES[players]


# The styles the expert's model weighs by default (docs/ladder.md, "A model of Monte-Carlo players": with
# ``mc`` the expert leads three field:mc50 by more; "Two models of players who search": with
# ``learned-drawn`` it leads three field:dmc by more at 4 players, at no measurable cost against the
# field's bots). ``learned-drawn`` only at DRAWN_PLAYERS, where a temperature of 0.5 fits field:dmc's cards
# better than the network's own; at 8 and 10 players it fits worse (and at 10 it lost: -1.04 a round
# against nine dmc at 0.1 s), heads-up it bought nothing: there the family before it, BASE_STYLES.
# ``learned`` is measured apart and left out.
DEFAULT_STYLES: tuple[str, ...] = ("heuristic", "snug", "mc", "learned-drawn", "random")
BASE_STYLES: tuple[str, ...] = ("heuristic", "snug", "mc", "random")
DRAWN_PLAYERS = range(3, 7)


def default_styles(players: int) -> tuple[str, ...]:
    """The family the expert's model weighs by default at a table of ``players``."""
    return DEFAULT_STYLES if players in DRAWN_PLAYERS else BASE_STYLES


Seats = tuple[tuple[int, ...], tuple[int, ...]]  # card policy and row policy of each seat


def _policies() -> dict[str, tuple[int, int]]:
    from nimmt.batch import CardPolicy, RowPolicy

    return {
        "heuristic": (CardPolicy.HEURISTIC, RowPolicy.HEURISTIC),
        "snug": (CardPolicy.SNUG, RowPolicy.FEWEST),
        "mc": (CardPolicy.MC, RowPolicy.FEWEST),
        "random": (CardPolicy.ORDER, RowPolicy.FEWEST),
        # A style, and how the expert may roll out its own cards (``own="learned"``).
        "learned": (CardPolicy.NET, RowPolicy.HEURISTIC),
        "learned-drawn": (CardPolicy.NET_DRAWN, RowPolicy.HEURISTIC),
    }


def snug_choice(rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int) -> int:
    """The ``snug`` style's card: the lowest expected cost, near ties to the snuggest fit (the
    heuristic's kernel without its look ahead: :func:`nimmt.batch.decide.heuristic_card`).

    >>> snug_choice(((10,), (20,), (30,), (40,)), (43, 21), (), 4)
    21
    """
    from nimmt.batch.decide import heuristic_card

    return heuristic_card(rows, hand, unseen, players, look=False, snug=True, compiled=compiled())


def mc_chances(rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int) -> list[float]:
    """The chance of each card of ``hand`` (in its order) in the ``mc`` style, as the compiled
    rollouts draw it (:attr:`nimmt.batch.CardPolicy.MC`).

    >>> [round(p, 3) for p in mc_chances(((10,), (20,), (30,), (40, 41, 42, 43, 44)), (45, 21), (), 4)]
    [0.003, 0.997]
    """
    from nimmt.batch import MC_CARD, MC_COST
    from nimmt.batch.decide import card_costs

    costs = card_costs(rows, hand, unseen, players, compiled())
    scores = [MC_COST * costs[c] + MC_CARD * c / 104.0 for c in hand]
    top = max(scores)
    weights = [math.exp(u - top) for u in scores]
    total = sum(weights)
    return [w / total for w in weights]


def learned_chances(
    rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int,
    temperature: float = 1.0,
) -> list[float]:
    """The chance of each card of ``hand`` (in its order) in the ``learned`` style: the network's
    softmax over the hand (:meth:`nimmt.bots.learned.Net.evaluate`), its logits divided by
    ``temperature`` (``learned-drawn``'s is :func:`drawn_temperature`). ``unseen`` may hold the hand's
    cards too (as the other styles' kernels count them): they are taken out."""
    from .learned import card_features, load

    held = set(hand)
    ordered = sorted(hand)
    features = card_features(rows, ordered, [c for c in unseen if c not in held], players)
    if temperature == 1.0:
        _, policy, _ = load().evaluate(features)
        return [float(policy[ordered.index(c)]) for c in hand]
    _, logits = load().forward(features)
    top = float(logits.max())
    weights = [math.exp((float(u) - top) / temperature) for u in logits]
    total = sum(weights)
    return [weights[ordered.index(c)] / total for c in hand]


def temperature_of(style: str, players: int) -> float:
    """The softmax temperature of a :data:`LEARNED` style at a table of ``players``."""
    return drawn_temperature(players) if style == "learned-drawn" else 1.0


def style_chance(
    style: str, rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int, card: int
) -> float:
    """The chance that a player of ``style`` plays ``card`` from ``hand`` (which holds it)."""
    if style == "random":
        return 1.0 / len(hand)
    if style == "mc":
        return mc_chances(rows, hand, unseen, players)[list(hand).index(card)]
    if style in LEARNED:
        return learned_chances(rows, hand, unseen, players, temperature_of(style, players))[list(hand).index(card)]
    return 1.0 if style_choice(style, rows, hand, unseen, players) == card else 0.0


def style_choice(
    style: str, rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int
) -> int | None:
    """The card a player of ``style`` plays from ``hand`` (None for ``random``, ``mc`` and the
    :data:`LEARNED` styles: their likelihood is a chance over the hand)."""
    if style == "heuristic":
        return choose(rows, hand, unseen, players)
    if style == "snug":
        return snug_choice(rows, hand, unseen, players)
    return None


def seats_of(styles: Sequence[str]) -> Seats:
    """The card and row policies of the compiled rollouts for one style per seat."""
    policies = _policies()
    return tuple(policies[s][0] for s in styles), tuple(policies[s][1] for s in styles)


def policies_of(seats: Seats, net: Net | None) -> Policies:
    """The compiled rollouts' policies for ``seats``; seats in the :data:`LEARNED` styles play the network
    ``net`` (default: the one shipped)."""
    from nimmt.batch import CardPolicy, seat_policies

    from .learned import load

    weights = None
    if CardPolicy.NET_DRAWN in seats[0]:  # the likeliest card of NET seats is the same at any temperature
        weights = (load() if net is None else net).flat_at(drawn_temperature(len(seats[0])))
    elif CardPolicy.NET in seats[0]:
        weights = (load() if net is None else net).flat
    return seat_policies(seats[0], seats[1], weights)


def seat_card_penalties(
    view: View, cards: Sequence[int], samples: int, rng: np.random.Generator, seats: Seats, rest: Ints | None = None,
    net: Net | None = None,
) -> Ints:
    """(len(cards), samples): :func:`nimmt.batch.rollout_card_penalties`, each seat in its style;
    ``rest`` (the same shape), when given, gets what the other players take together; ``net``: the
    network of ``learned`` seats (default: the one shipped)."""
    from nimmt.batch import rollout_card_penalties

    assert view.player is not None and view.must_play_card
    return rollout_card_penalties(view, cards, samples, rng, policies_of(seats, net), rest=rest)


def seat_row_penalties(
    view: View, samples: int, rng: np.random.Generator, seats: Seats, rest: Ints | None = None
) -> Ints:
    """(4, samples): :func:`nimmt.batch.rollout_row_penalties`, each seat in its style; ``rest`` as in
    :func:`seat_card_penalties` (the taken row counts for the viewer only)."""
    from nimmt.batch import rollout_row_penalties

    assert view.must_choose_row
    return rollout_row_penalties(view, samples, rng, policies_of(seats, None), rest=rest)
