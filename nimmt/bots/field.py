"""A field of styles: opponents that play unlike nimmt's own ladder.

Bots of 6 nimmt! written elsewhere play in a handful of recognisable ways. These are written here
from the descriptions of how such bots play (none of their code): each sees only its view, plays a
card of its hand, and when its card is below every row takes a row by its own rule. Make them with
``make_bot("field:lowest")`` and so on (:data:`FIELD` lists them); ``nimmt tournament --field``
seats a bot at tables drawn from them. See ``docs/ladder.md`` ("A field of styles").

============== =====================================================================================
``lowest``      its lowest card; the cheapest row
``highest``     its highest card; the cheapest row
``gap``         the card closest above a row's last card (sixth card or not); else its lowest card
``risk``        each card's expected cost: the row it lands on, times the chance that enough
                unseen cards fall between that row's end and the card to make it the sixth (from the
                share of unseen cards in that gap); a card below every row costs the cheapest row.
                The cheapest card; the cheapest row
``safe``        never the sixth card of a row while it can help it: among the cards that land
                safely, the one on the row with the most room; otherwise the card whose forced take
                is cheapest; the cheapest row
``careless``    a random card among those that are not sixth cards, else any random card; the
                cheapest row
``mc10``        Monte Carlo: for each card, 10 random completions of the hidden hands (fresh ones
                for each card), the round played out at random; the card with the fewest bullheads
                on average; the cheapest row
``mc50``        the same with 50 completions per card
``dmc``         a determinized Monte-Carlo search (:mod:`nimmt.bots.determinized`): many deals of the
                unseen cards, every player played out by a softmax over the heuristic's card costs,
                every card on the same deals, 1 s of CPU a decision; its rows searched the same way
============== =====================================================================================
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from typing import ClassVar

from nimmt.core import BULLHEADS, ROW_COUNT, ROW_LIMIT, View, row_bullheads, target_row

from .base import Bot, BotError
from .determinized import DeterminizedBot
from .rollout import ENGINES, table_of
from .sampling import determinize

PREFIX = "field:"


def cheapest_row(view: View) -> int:
    """The row with the fewest bullheads (then the fewest cards, then the first)."""
    return min(range(ROW_COUNT), key=lambda r: (row_bullheads(view.rows[r]), len(view.rows[r]), r))


class FieldBot(Bot):
    """A bot of the field: picks a card by its own rule and takes the cheapest row."""

    name = "field"
    description = "a style of the field"

    def choose_row(self, view: View) -> int:
        return cheapest_row(view)


class LowestBot(FieldBot):
    name = PREFIX + "lowest"
    description = "Plays its lowest card; takes the cheapest row."

    def choose_card(self, view: View) -> int:
        return min(view.hand)


class HighestBot(FieldBot):
    name = PREFIX + "highest"
    description = "Plays its highest card; takes the cheapest row."

    def choose_card(self, view: View) -> int:
        return max(view.hand)


class GapBot(FieldBot):
    name = PREFIX + "gap"
    description = "Plays the card closest above a row's end, sixth card or not (else its lowest); the cheapest row."

    def choose_card(self, view: View) -> int:
        fits = []
        for card in view.hand:
            row = target_row(view.rows, card)
            if row is not None:
                fits.append((card - view.rows[row][-1], card))
        return min(fits)[1] if fits else min(view.hand)


def risk_cost(view: View, card: int, unseen: Sequence[int]) -> tuple[float, float]:
    """The ``risk`` bot's expected bullheads of ``card`` and its chance of taking a row."""
    from nimmt.batch.decide import at_least

    row = target_row(view.rows, card)
    if row is None:
        return float(min(row_bullheads(r) for r in view.rows)), 1.0
    cards = view.rows[row]
    need = ROW_LIMIT - len(cards)  # cards that must land first for this one to be the sixth
    if need <= 0:
        return float(row_bullheads(cards)), 1.0
    gap = bisect_left(unseen, card) - bisect_left(unseen, cards[-1])
    share = gap / len(unseen) if unseen else 0.0
    chance = at_least(view.players - 1, share, need)
    mean_gap = (
        sum(BULLHEADS[c] for c in unseen[bisect_left(unseen, cards[-1]):bisect_left(unseen, card)]) / gap
        if gap else 0.0
    )
    return chance * (row_bullheads(cards) + need * mean_gap), chance


class RiskBot(FieldBot):
    name = PREFIX + "risk"
    description = (
        "Each card's expected cost from the share of unseen cards that could land between its row's end "
        "and it; plays the cheapest; takes the cheapest row."
    )

    def choose_card(self, view: View) -> int:
        unseen = sorted(view.unseen_cards())
        scored = []
        for card in view.hand:
            cost, chance = risk_cost(view, card, unseen)
            row = target_row(view.rows, card)
            gap = card - view.rows[row][-1] if row is not None else 200
            scored.append((round(cost, 9), chance, gap, card))
        return min(scored)[3]


class SafeBot(FieldBot):
    name = PREFIX + "safe"
    description = (
        "Avoids the sixth place: of the cards that land safely, the one on the row with the most room; "
        "else the cheapest forced take; takes the cheapest row."
    )

    def choose_card(self, view: View) -> int:
        cheapest = min(row_bullheads(r) for r in view.rows)
        safe, forced = [], []
        for card in view.hand:
            row = target_row(view.rows, card)
            if row is None:
                forced.append((cheapest, card))
            elif len(view.rows[row]) >= ROW_LIMIT:
                forced.append((row_bullheads(view.rows[row]), card))
            else:
                safe.append((len(view.rows[row]), card - view.rows[row][-1], card))
        if safe:
            return min(safe)[2]
        return min(forced)[1]


class CarelessBot(FieldBot):
    name = PREFIX + "careless"
    description = "A random card that is not a sixth card (else any); takes the cheapest row."

    def choose_card(self, view: View) -> int:
        fine = [
            card for card in view.hand
            if (row := target_row(view.rows, card)) is not None and len(view.rows[row]) < ROW_LIMIT
        ]
        return self.rng.choice(fine or list(view.hand))


class MonteCarloFieldBot(FieldBot):
    """Random completions of the hidden hands, fresh for each card, played out at random."""

    name = PREFIX + "mc"
    description = (
        "Monte Carlo: for each card, random completions of the hidden hands played out at random to the "
        "end of the round (fresh completions for each card); the cheapest on average; takes the cheapest row."
    )
    SAMPLES: ClassVar[int] = 20

    def __init__(self, rng: random.Random | None = None, samples: int | None = None) -> None:
        super().__init__(rng)
        self.samples = samples if samples is not None else self.SAMPLES
        if self.samples < 1:
            raise BotError(f"a Monte Carlo bot needs at least one sample per card, not {self.samples}")

    def card_means(self, view: View) -> dict[int, float]:
        me = view.player
        assert me is not None, "a spectator has no hand"
        engine = ENGINES["random"]
        means = {}
        for card in view.hand:
            total = 0
            for _ in range(self.samples):
                hands = determinize(view, self.rng)
                hands[me] = list(view.hand)
                penalties = [0] * view.players
                engine.finish_round(table_of(view.rows), hands, {me: card}, penalties, self.rng)
                total += penalties[me]
            means[card] = total / self.samples
        return means

    def choose_card(self, view: View) -> int:
        if len(view.hand) == 1:
            return view.hand[0]
        means = self.card_means(view)
        return min(means, key=lambda c: (means[c], c))


class MonteCarlo10Bot(MonteCarloFieldBot):
    name = PREFIX + "mc10"
    description = "Monte Carlo with 10 random completions per card; takes the cheapest row."
    SAMPLES = 10


class MonteCarlo50Bot(MonteCarloFieldBot):
    name = PREFIX + "mc50"
    description = "Monte Carlo with 50 random completions per card; takes the cheapest row."
    SAMPLES = 50


_CLASSES: tuple[type[FieldBot], ...] = (
    LowestBot, HighestBot, GapBot, RiskBot, SafeBot, CarelessBot, MonteCarlo10Bot, MonteCarlo50Bot, MonteCarloFieldBot,
)
# Every field bot, by name; the search (field:dmc) thinks a second a decision, the others at most milliseconds.
FIELD: dict[str, type[Bot]] = {**{cls.name: cls for cls in _CLASSES}, DeterminizedBot.name: DeterminizedBot}
# The field ``nimmt tournament --field`` draws tables from (``field:mc``, the same as ``mc10``/``mc50``
# with its own sample count, is left out, and so is the search ``field:dmc``: it is seated by name).
DEFAULT_FIELD: tuple[str, ...] = tuple(cls.name for cls in _CLASSES if cls is not MonteCarloFieldBot)


def make_field_bot(rest: str, rng: random.Random | None = None) -> Bot:
    """``make_bot("field:<rest>")``: a bot of the field by its short name."""
    try:
        return FIELD[PREFIX + rest](rng)
    except KeyError:
        known = ", ".join(sorted(FIELD))
        raise BotError(f"unknown bot {PREFIX + rest!r}: the field's bots are {known}") from None
