"""How the expert's ``mc`` style was fitted (docs/ladder.md, "A model of Monte-Carlo players").

Plays 12 games of four ``field:mc50`` bots, records every card choice from a hand of two or more
cards (rows, hand, the cards the player had not seen, players, the card played), then fits a
conditional logit: the chance of card c is exp(u(c)) / sum over the hand, u(c) = w . features(c),
by gradient ascent on the mean log-likelihood. Prints how often simple rules agree with the Monte-
Carlo player and the fitted weights of a few feature sets, with their mean negative log-likelihood
(uniform choice: about 1.68 per decision).

    PYTHONPATH=. .venv/bin/python docs/figures/e-fit-mc-style.py
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from nimmt.bots import make_bot
from nimmt.bots.base import Bot
from nimmt.bots.heuristic import card_cost, choose
from nimmt.bots.styles import snug_choice
from nimmt.core import BULLHEADS, View, target_row
from nimmt.match import play_game

Record = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...], int, int]


def collect(games: int = 12, players: int = 4) -> list[Record]:
    records: list[Record] = []

    class Recorder(Bot):
        name = "field:mc50"

        def __init__(self, inner: Bot) -> None:
            super().__init__(random.Random(0))
            self.inner = inner

        def choose_card(self, view: View) -> int:
            card = self.inner.choose_card(view)
            if len(view.hand) > 1:
                records.append((tuple(map(tuple, view.rows)), tuple(view.hand), tuple(sorted(view.unseen_cards())),
                                view.players, card))
            return card

        def choose_row(self, view: View) -> int:
            return self.inner.choose_row(view)

    for g in range(games):
        bots: list[Bot] = [Recorder(make_bot("field:mc50", random.Random(1000 * g + i))) for i in range(players)]
        play_game(bots, random.Random(5000 + g))
    return records


def main() -> None:
    records = collect()
    agree = {"lowest cost": 0, "snug": 0, "heuristic": 0}
    xs: list[Any] = []
    chosen: list[int] = []
    for rows, hand, unseen, players, card in records:
        costs = [card_cost(rows, c, unseen, players - 1) for c in hand]
        agree["lowest cost"] += hand[int(np.argmin(costs))] == card
        agree["snug"] += snug_choice(rows, hand, unseen, players) == card
        agree["heuristic"] += choose(rows, hand, unseen, players) == card
        feats = []
        for i, c in enumerate(hand):
            r = target_row(rows, c)
            low = r is None
            gap = 0 if r is None else c - rows[r][-1]
            length = 0 if r is None else len(rows[r])
            feats.append([costs[i], c / 104, float(low), gap / 104, length / 5, BULLHEADS[c] / 7, i / (len(hand) - 1)])
        xs.append(np.array(feats))
        chosen.append(hand.index(card))
    print(f"{len(records)} decisions; agreement:", {k: round(v / len(records), 3) for k, v in agree.items()})
    print("uniform:", round(float(np.mean([math.log(len(x)) for x in xs])), 4))
    names = ["cost", "card", "low", "gap", "length", "bullheads", "rank"]
    for cols in ([0], [0, 1], [0, 1, 2], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5, 6]):
        w = np.zeros(len(cols))
        nll = 0.0
        for _ in range(400):
            grad = np.zeros_like(w)
            nll = 0.0
            for x, i in zip(xs, chosen, strict=True):
                f = x[:, cols]
                u = f @ w
                u -= u.max()
                p = np.exp(u)
                p /= p.sum()
                nll -= math.log(p[i])
                grad += f[i] - p @ f
            w += 0.5 * grad / len(xs)
        print([names[c] for c in cols], np.round(w, 3), "NLL", round(nll / len(xs), 4))


if __name__ == "__main__":
    main()
