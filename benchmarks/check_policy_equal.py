"""Do the bots choose what they chose before? The ``heuristic`` bot's card and row, the styles' cards
and chances, the learned network's features and the ``beginner``'s card and row, from the bots of an
earlier commit (``--before``,
whose ``nimmt/bots`` modules are taken with ``git show``) against this tree's, on random positions
at 2 to 10 players, every hand size, every number of cards in the rows.

    .venv/bin/python benchmarks/check_policy_equal.py --before b7cbaa2 [--positions 3000] [--compiled] [--no-numba]

``--compiled`` runs this tree's policies compiled (they run as plain Python otherwise; the bots
themselves run them compiled once ``nimmt prepare`` has run), ``--no-numba`` hides Numba. Prints the
count of positions checked and of differences; exits 1 on a difference.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def old_modules(rev: str, folder: Path) -> None:
    """The earlier commit's heuristic, learned, styles and beginner modules as top-level modules in ``folder``."""
    for name in ("heuristic", "learned", "styles", "beginner"):
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:nimmt/bots/{name}.py"], check=True,
                              capture_output=True, text=True).stdout
        text = text.replace("from .base import", "from nimmt.bots.base import")
        text = text.replace("from .heuristic import", "from old_heuristic import")
        text = text.replace("from .learned import", "from old_learned import")
        (folder / f"old_{name}.py").write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--compiled", action="store_true")
    parser.add_argument("--no-numba", action="store_true", help="hide Numba: what an install without it runs")
    args = parser.parse_args()
    if args.no_numba:
        sys.modules["numba"] = None  # type: ignore[assignment]
    folder = Path(tempfile.mkdtemp(prefix="nimmt-old-bots-"))
    old_modules(args.before, folder)
    sys.path.insert(0, str(folder))
    import old_beginner  # type: ignore[import-not-found]
    import old_heuristic  # type: ignore[import-not-found]
    import old_learned  # type: ignore[import-not-found]
    import old_styles  # type: ignore[import-not-found]

    from nimmt import batch
    from nimmt.batch import decide
    from nimmt.bots import styles
    from nimmt.bots.beginner import BeginnerBot
    from nimmt.bots.learned import card_features
    from nimmt.core import BULLHEADS, row_bullheads, target_row

    compiled = args.compiled
    # A commit since the weights moved to nimmt.batch (issue 21) has them there only.
    old_later = getattr(old_heuristic, "LATER", batch.HEURISTIC_LATER)
    rng = random.Random(21)
    cards_seen = differences = rows_checked = beginner_differences = 0
    by_players = dict.fromkeys(range(2, 11), 0)
    for _ in range(args.positions):
        players = rng.randint(2, 10)
        deck = rng.sample(range(1, 105), 104)
        rows = []
        for _ in range(4):  # rows of 1 to 5 cards, each ascending
            rows.append(tuple(sorted(deck.pop() for _ in range(rng.randint(1, 5)))))
        rows.sort(key=lambda r: r[-1])
        hand = tuple(deck.pop() for _ in range(rng.randint(1, 10)))
        # The unseen cards: at least the other players' cards, a random share of the rest.
        others = rng.randint(min(len(deck), (players - 1) * len(hand)), len(deck))
        unseen = sorted(deck[:others])
        old = (
            old_heuristic.choose(rows, hand, unseen, players),
            old_styles.snug_choice(rows, hand, unseen, players),
            old_styles.mc_chances(rows, hand, unseen, players),
            old_learned.card_features(rows, hand, unseen, players),
        )
        new = (
            decide.heuristic_card(rows, hand, unseen, players, compiled=compiled),
            decide.heuristic_card(rows, hand, unseen, players, look=False, snug=True, compiled=compiled),
            styles.mc_chances(rows, hand, unseen, players),
            card_features(rows, hand, unseen, players),
        )
        same = old[:3] == new[:3] and np.array_equal(old[3], new[3])
        # The beginner, on the hand as a view holds it (sorted), asked for a card and for a row.
        seen = SimpleNamespace(hand=tuple(sorted(hand)), rows=tuple(rows), target_row=partial(target_row, rows),
                               row_bullheads=partial(lambda r: tuple(map(row_bullheads, r)), rows))
        beginners = [(bot.choose_card(seen), bot.choose_row(seen))  # type: ignore[arg-type]
                     for bot in (old_beginner.BeginnerBot(random.Random(0)), BeginnerBot(random.Random(0)))]
        beginner_differences += beginners[0] != beginners[1]
        same = same and beginners[0] == beginners[1]
        # A row choice: a card below every row, some cards still to come this turn.
        low = [c for c in range(1, min(r[-1] for r in rows)) if c not in hand and c not in unseen]
        if low:
            card = rng.choice(low)
            still = sorted(rng.sample(unseen, min(len(unseen), rng.randint(0, players - 1))))
            rest = [c for c in unseen if c not in still]
            now = [sum(BULLHEADS[c] for c in row) for row in rows]
            scores = [now[r] + old_later * later(old_heuristic, rows, r, card, still, hand, rest, players)
                      for r in range(4)]
            old_row = min((scores[r], now[r], r) for r in range(4))[2]
            new_row = decide.heuristic_row(rows, card, still, hand, rest, players, compiled=compiled)
            rows_checked += 1
            same = same and old_row == new_row
        by_players[players] += 1
        cards_seen += len(hand)
        if not same:
            differences += 1
            print("differs:", players, rows, hand, unseen, old[:3], new[:3])
    print(f"{args.positions} positions ({by_players} by players, {cards_seen} cards in hand), {rows_checked} row "
          f"choices, compiled={compiled}: {differences} differ ({beginner_differences} of them the beginner's)")
    weights = (batch.HEURISTIC_TIE, batch.HEURISTIC_LATER, batch.HEURISTIC_LOOK, batch.HEURISTIC_FEW)
    if hasattr(old_heuristic, "TIE"):
        assert weights == (old_heuristic.TIE, old_heuristic.LATER, old_heuristic.LOOK, old_heuristic.FEW), weights
    sys.exit(1 if differences else 0)


def later(old: object, rows: list[tuple[int, ...]], r: int, card: int, still: list[int], hand: tuple[int, ...],
          unseen: list[int], players: int) -> float:
    """The old bot's mean cost of its hand after taking row ``r`` (as its choose_row computed it)."""
    table = list(rows)
    table[r] = (card,)
    after = old.play_out(table, still)  # type: ignore[attr-defined]
    if not hand:
        return 0.0
    return float(sum(old.card_cost(after, c, unseen, players - 1) for c in hand) / len(hand))  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
