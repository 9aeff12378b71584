"""How ``field:dmc`` chooses its cards, seen through the expert's styles (docs/ladder.md, "A model of
players who search").

Plays games of the ``expert`` against ``field:dmc`` (heads-up, or three of them at 4 players) at a
given budget, records every card choice of a ``field:dmc`` seat from a hand of two or more cards (its
rows, hand, the cards it had not seen, the players, the card played), and prints for each style how
often its card is the one played (for ``mc`` and ``learned``: their likeliest card) and its mean
negative log-likelihood per choice, a style allowed the model's slip of 0.1 (uniform choice: the mean
of log(hand size), about 1.68). Unlike the model at the table, which must sample the hands it cannot
see, this knows each hand: it tells how well a style could predict the search at best.

    PYTHONPATH=. .venv/bin/python docs/figures/e31-fit-dmc.py PLAYERS GAMES BUDGET
    PYTHONPATH=. .venv/bin/python docs/figures/e31-fit-dmc.py 2 4 0.2
"""

from __future__ import annotations

import math
import random
import sys

from nimmt.bots import make_bot
from nimmt.bots.base import Bot
from nimmt.bots.determinized import DeterminizedBot
from nimmt.bots.opponents import OpponentModel, chances
from nimmt.bots.styles import learned_chances, mc_chances
from nimmt.core import View
from nimmt.match import play_game

Record = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...], int, int]
STYLES = ("heuristic", "snug", "mc", "learned", "random")
TEMPERATURES = (0.3, 0.4, 0.5, 0.7, 1.0, 1.5)
SOFTMAX = {"mc": mc_chances, "learned": learned_chances}  # every card's chance of a hand, in its order


def collect(players: int, games: int, budget: float) -> list[Record]:
    records: list[Record] = []

    class Recorded(DeterminizedBot):  # field:dmc itself, its card choices written down
        def choose_card(self, view: View) -> int:
            card = super().choose_card(view)
            if len(view.hand) > 1:
                rows = tuple(map(tuple, view.rows))
                records.append((rows, tuple(view.hand), tuple(sorted(view.unseen_cards())), view.players, card))
            return card

    for g in range(games):
        bots: list[Bot] = [make_bot("expert", random.Random(g))]
        bots += [Recorded(random.Random(100 * g + i), time_budget=budget) for i in range(players - 1)]
        play_game(bots, random.Random(7000 + g))
    return records


def main() -> None:
    players, games, budget = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    records = collect(players, games, budget)
    agree = dict.fromkeys(STYLES, 0)
    loss = dict.fromkeys(STYLES, 0.0)
    slip = OpponentModel.SLIP
    for rows, hand, unseen, p, card in records:
        ordered = (card, *(c for c in hand if c != card))  # the card played first, as chances() asks
        played = chances(STYLES, rows, ordered, unseen, p)
        for style, chance in zip(STYLES, played, strict=True):
            loss[style] -= math.log(chance if style == "random" else (1 - slip) * chance + slip / len(hand))
            if style in SOFTMAX:  # their likeliest card: the whole hand's chances at once
                every = SOFTMAX[style](rows, hand, unseen, p)
                agree[style] += hand[every.index(max(every))] == card
            elif style != "random":
                agree[style] += chance > 0.5
    n = len(records)
    print(f"{players} players, {games} games, field:dmc at {budget} s: {n} card choices")
    for style in STYLES:
        share = "" if style == "random" else f"plays its card {agree[style] / n:.1%}, "
        print(f"  {style:10} {share}log-loss {loss[style] / n:.3f}")
    # The network's softmax at other temperatures, without the slip (learned-drawn's: styles.drawn_temperature).
    for temperature in TEMPERATURES:
        total = 0.0
        for rows, hand, unseen, p, card in records:
            total -= math.log(learned_chances(rows, hand, unseen, p, temperature)[hand.index(card)])
        print(f"  the network at a temperature of {temperature}: log-loss {total / n:.3f}")


if __name__ == "__main__":
    main()
