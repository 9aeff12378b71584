"""What kind of players sit at the table: a Bayesian guess from the cards they played.

The ``expert`` plays each sampled round out with a model of the other players. Two models are
at hand in the compiled rollouts: players who play like the ``heuristic`` bot (they avoid sixth
cards and dear rows) and players who play at random. Which one fits matters a lot: against
random players, rollouts that expect care overrate the danger of the rows and underrate the
chaos, and the other way round.

:class:`OpponentModel` keeps the odds between the two. After every turn it sees the card each
other player revealed and asks how likely that card was under each model:

* **random**: ``1 / hand size``;
* **heuristic**: the player's hand is unknown, so the model samples hands that hold the revealed
  card plus cards this bot had not seen at that time, and counts how often the heuristic's choice
  from such a hand is that card; a careful player is allowed a slip (``SLIP``), so that one odd
  card does not rule the model out.

The ``expert`` rolls out with the likelier model (``heuristic`` on even odds, the prior). The
log-odds are capped (``CAP``) so that the model can still change its mind when the table changes.
"""

from __future__ import annotations

import math
import random

from nimmt.core import View

from .heuristic import choose


class OpponentModel:
    SLIP = 0.1  # chance that a careful player plays any card at all
    HANDS = 12  # sampled hands per player and turn
    CAP = 8.0  # bound on the log-odds

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.log_odds = 0.0  # log P(heuristic) / P(random), from the evidence so far
        self._last: View | None = None

    @property
    def heuristic_share(self) -> float:
        """Posterior probability that the others play like ``heuristic``."""
        return 1.0 / (1.0 + math.exp(-self.log_odds))

    def likelier_policy(self) -> str:
        """The rollout policy of the likelier model: ``heuristic`` or ``random``."""
        return "heuristic" if self.log_odds >= 0 else "random"

    def observe(self, view: View) -> None:
        """Learn from the turn completed since the last card choice this bot saw (same round)."""
        last, self._last = self._last, view
        if last is None or last.round != view.round or view.turn != last.turn + 1:
            return
        if len(view.played) <= last.turn:
            return
        cards = view.played[last.turn]
        me = view.player
        seen_then = set(last.unseen_cards())
        pool_base = seen_then | set(last.hand)  # what the others may have held, from their side
        for p, card in enumerate(cards):
            if p == me:
                continue
            size = last.hand_sizes[p]
            if size <= 1:
                continue
            others = sorted(seen_then - {card} - set(cards))
            if len(others) < size - 1:
                continue
            hits = 0
            for _ in range(self.HANDS):
                hand = (card, *self.rng.sample(others, size - 1))
                unseen = sorted(pool_base - set(hand))
                if choose(last.rows, hand, unseen, last.players) == card:
                    hits += 1
            careful = (1.0 - self.SLIP) * (hits + 0.5) / (self.HANDS + 1.0) + self.SLIP / size
            self.log_odds += math.log(careful * size)  # log(careful / (1 / size))
        self.log_odds = max(-self.CAP, min(self.CAP, self.log_odds))

