"""Who sits at the table: a Bayesian guess, player by player, from the cards they played.

The ``expert`` plays each sampled round out with a model of the other players. Styles differ a lot
(``docs/ladder.md``, "A field of styles"), and which one a rollout assumes matters: rollouts that
expect care from random players overrate the danger of the rows and underrate the chaos, and the
other way round. :class:`OpponentModel` keeps, for each other player, a posterior over the styles
of its family, by default :data:`nimmt.bots.styles.DEFAULT_STYLES` (nimmt's ``heuristic``; ``snug``,
the same expected cost with near ties to the snuggest fit, as ``field:risk`` and ``field:safe``
play; ``mc``, a noisy chooser like the Monte-Carlo bots; ``learned-drawn``, a model of players who
search: its card drawn from the learned network's softmax; ``random``), at 3 to 6 players; at other
sizes the same without ``learned-drawn`` (:func:`~nimmt.bots.styles.default_styles`); on request
also ``learned``, the network's likeliest card. After
every turn it sees the card each other player revealed and asks how likely that
card was in each style:

* **random**: ``1 / hand size``;
* **the others** choose one card from a hand, and the hand is unknown: the model samples hands
  that hold the revealed card plus cards this bot had not seen at that time, and averages the
  style's chance of that card from such a hand (1 or 0 for a deterministic style; a softmax's share
  for ``mc`` and ``learned``). A player is
  allowed a slip (``SLIP``), so that one odd card does not rule a style out.

The prior weighs ``heuristic`` 0.5 and each other style 0.25: normalised over the five styles,
1/3 and 1/6 each (``heuristic_share`` before any evidence is that 1/3; over the four of other sizes, 0.4).
(Players who
always play their lowest or their highest card were in the family too. With hands sampled as above
a highest-card player is rarely told apart, since a middling card is seldom the highest of a random
hand; bounding its hand by the cards it played before tells it apart, but then nimmt's
``heuristic``, which mostly plays its highest safe card, looked like one too: left out.) A style's
log-weight never falls more than ``CAP`` below the best one's, so that the model can still change
its mind when the table changes (it is kept for the whole game).

The ``expert`` then rolls out with each player in a style drawn from its posterior, chunk by chunk
(itself: its own rollout play, ``heuristic`` by default); when every other player looks ``random``
it rolls out the old, fast way, everybody at random.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from typing import TYPE_CHECKING, ClassVar

from nimmt.core import View
from nimmt.core.fast import target

from .heuristic import choose, compiled
from .styles import DEFAULT_STYLES, LEARNED, default_styles, learned_chances, style_chance, temperature_of

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


class OpponentModel:
    SLIP = 0.1  # chance that a player plays any card at all, whatever its style
    HANDS = 12  # sampled hands per player and turn
    CAP = 8.0  # how far below the best style's log-weight any style may fall
    PRIOR: ClassVar[dict[str, float]] = {"heuristic": 0.5, "snug": 0.25, "mc": 0.25, "learned": 0.25,
                                          "learned-drawn": 0.25, "random": 0.25}

    def __init__(self, rng: random.Random, styles: tuple[str, ...] | None = None) -> None:
        self.rng = rng
        # The family weighed, from nimmt.bots.styles.STYLES. None: the default for the table's size
        # (default_styles), set by the first view observed; DEFAULT_STYLES until then.
        self.styles = DEFAULT_STYLES if styles is None else styles
        self._sized = styles is None
        self.log_weights: dict[int, list[float]] = {}  # seat -> log-weight of each style, in STYLES order
        self._last: View | None = None
        self._sums: dict[int, tuple[tuple[float, ...], list[float]]] = {}  # seat -> (its log-weights, draw's sums)

    def _weights(self, seat: int) -> list[float]:
        if seat not in self.log_weights:
            self.log_weights[seat] = [math.log(self.PRIOR[s]) for s in self.styles]
        return self.log_weights[seat]

    def posterior(self, seat: int) -> dict[str, float]:
        """The chance of each style for the player at ``seat``, from the evidence so far."""
        weights = self._weights(seat)
        top = max(weights)
        raw = [math.exp(w - top) for w in weights]
        total = sum(raw)
        return {s: r / total for s, r in zip(self.styles, raw, strict=True)}

    @property
    def heuristic_share(self) -> float:
        """The mean chance, over the other players seen so far, that they play like ``heuristic``."""
        if not self.log_weights:  # the prior, normalised over the family as a posterior is
            return self.PRIOR["heuristic"] / sum(self.PRIOR[s] for s in self.styles)
        return sum(self.posterior(p)["heuristic"] for p in self.log_weights) / len(self.log_weights)

    def likeliest(self, seat: int) -> str:
        post = self.posterior(seat)
        return max(self.styles, key=post.__getitem__)

    def careless_table(self, view: View) -> bool:
        """Whether every other player looks likeliest to play at random."""
        return all(self.likeliest(p) == "random" for p in range(view.players) if p != view.player)

    def draw(self, view: View, rng: random.Random) -> list[str]:
        """A style for each seat: drawn from each other player's posterior; ``heuristic`` for the viewer.
        (``random.choices`` with the posterior's running sums, kept while the evidence is the same: the
        draw the weights themselves give, without the posterior made again for every chunk.)"""
        styles = []
        kept = self._sums
        for p in range(view.players):
            if p == view.player:
                styles.append("heuristic")
                continue
            evidence = tuple(self._weights(p))
            known = kept.get(p)
            if known is None or known[0] != evidence:
                post = self.posterior(p)
                known = kept[p] = (evidence, list(itertools.accumulate(post[s] for s in self.styles)))
            styles.append(rng.choices(self.styles, cum_weights=known[1])[0])
        return styles

    def observe(self, view: View) -> None:
        """Learn from the turn completed since the last card choice this bot saw (same round)."""
        if self._sized:
            self._sized = False
            if not self.log_weights:
                self.styles = default_styles(view.players)
        last, self._last = self._last, view
        if last is None or last.round != view.round or view.turn != last.turn + 1:
            return
        if len(view.played) <= last.turn:
            return
        cards = view.played[last.turn]
        me = view.player
        seen_then = set(last.unseen_cards())
        pool_base = seen_then | set(last.hand)  # what the others may have held, from their side
        sampled = [s for s in self.styles if s != "random"]
        # The cards a sampled hand's player has not seen, theirs included: the pool less the hand and the
        # hand, the same for every hand (the styles' kernels count the two together: docs of chances).
        hidden = sorted(pool_base)
        for p, card in enumerate(cards):
            if p == me:
                continue
            size = last.hand_sizes[p]
            if size <= 1:
                continue
            others = sorted(seen_then - {card} - set(cards))
            if len(others) < size - 1:
                continue
            # Each style's chance of this card, given that the player held it.
            chance = {"random": 1.0 / size}
            hits = dict.fromkeys(sampled, 0.0)
            for _ in range(self.HANDS):
                hand = (card, *self.rng.sample(others, size - 1))
                for style, hit in zip(sampled, chances(sampled, last.rows, hand, hidden, last.players), strict=True):
                    hits[style] += hit
            for style in sampled:
                chance[style] = (hits[style] + 0.5) / (self.HANDS + 1.0)
            weights = self._weights(p)
            for i, style in enumerate(self.styles):
                if style == "random":
                    weights[i] += math.log(chance[style])
                else:
                    weights[i] += math.log((1.0 - self.SLIP) * chance[style] + self.SLIP / size)
            top = max(weights)
            self.log_weights[p] = [max(w - top, -self.CAP) for w in weights]



@functools.cache
def _rules() -> tuple[float, float, int, float, Callable[..., dict[int, float]]]:
    """The styles' weights, MC_COST, MC_CARD, HEURISTIC_FEW and HEURISTIC_TIE, and the kernels' costs of a
    hand (loaded once, when first asked for: NumPy comes with them)."""
    from nimmt.batch import MC_CARD, MC_COST
    from nimmt.batch.decide import HEURISTIC_FEW, HEURISTIC_TIE, card_costs

    return MC_COST, MC_CARD, HEURISTIC_FEW, HEURISTIC_TIE, card_costs


def chances(
    styles: Sequence[str], rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int
) -> list[float]:
    """:func:`~nimmt.bots.styles.style_chance` of ``hand[0]`` for each of ``styles``, the same numbers
    to the last bit, from one call of the kernels where that made three: ``snug``, ``mc`` and (at tables
    above ``HEURISTIC_FEW``, where it does not look ahead) ``heuristic`` all choose from the same costs
    (:func:`nimmt.batch.decide.card_costs`), so they are computed once and each style's rule is applied
    to them here as the kernels apply it (``heuristic_pick`` and ``mc_card`` in ``nimmt/batch``).
    ``unseen``: the cards this player has not seen; the kernels count them together with ``hand``, so
    any ``unseen`` whose union with ``hand`` is the same gives the same numbers (theirs included)."""
    mc_cost, mc_card, few, tie, card_costs = _rules()
    card = hand[0]
    costs = card_costs(rows, hand, unseen, players, compiled())
    best = min(costs.values()) + tie
    ends = [r[-1] for r in rows]
    found = []
    for style in styles:
        if style == "random":
            found.append(1.0 / len(hand))
        elif style == "mc":  # as nimmt.bots.styles.mc_chances, in the hand's order
            scores = [mc_cost * costs[c] + mc_card * c / 104.0 for c in hand]
            top = max(scores)
            weights = [math.exp(u - top) for u in scores]
            found.append(weights[0] / sum(weights))
        elif style in LEARNED:
            found.append(learned_chances(rows, hand, unseen, players, temperature_of(style, players))[0])
        elif style == "heuristic" and players <= few:  # it looks ahead: the kernel's own
            found.append(1.0 if choose(rows, hand, unseen, players) == card else 0.0)
        elif style == "heuristic":  # no look ahead, near ties to the highest card
            chosen = next(c for c in sorted(hand, reverse=True) if costs[c] <= best)
            found.append(1.0 if chosen == card else 0.0)
        elif style == "snug":  # near ties to the shortest row, then the smallest gap (below every row last)
            chosen, shortest, narrowest = 0, 7, 0
            for c in sorted(hand):
                if costs[c] <= best:
                    row = target(ends, c)
                    length = 6 if row < 0 else len(rows[row])
                    gap = 0 if row < 0 else c - ends[row]
                    if length < shortest or (length == shortest and gap < narrowest):
                        chosen, shortest, narrowest = c, length, gap
            found.append(1.0 if chosen == card else 0.0)
        else:
            found.append(style_chance(style, rows, hand, unseen, players, card))
    return found
