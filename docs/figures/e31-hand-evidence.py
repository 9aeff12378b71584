"""Does a seat's played card tell which unseen cards are still in its hand? (issue 31, item 3)

The idea screened: weight the deals of the expert's rollouts by what each seat has shown. A seat
that played card x at a turn, where the heuristic's expected cost (no look ahead,
``nimmt.batch.decide.card_costs``, one card at a time) of some hidden card c was lower than x's by
more than the heuristic's tie, "passed over" c: had it held c, a player of the ``heuristic`` or
``snug`` style would have played c. So a card passed over by a seat earlier in the round should be
less often in that seat's hand now. This script plays whole games of ``--players`` copies of one bot
and, from seat 0's side at every turn after the first, counts for each other seat and each card
seat 0 has not seen how often that card was passed over by the seat, and whether the seat holds it;
and how often each seat played the cheapest card of its hand by that cost (within the tie).

    PYTHONPATH=. python docs/figures/e31-hand-evidence.py --bot heuristic --games 10
    PYTHONPATH=. python docs/figures/e31-hand-evidence.py --bot field:risk --games 10
"""

from __future__ import annotations

import argparse
import collections
import random

from nimmt.batch.decide import HEURISTIC_TIE, card_costs
from nimmt.bots import make_bot
from nimmt.core import GameState, Phase, view
from nimmt.core.events import Event
from nimmt.match import play_game


def turn_starts(bot: str, players: int, rng: random.Random) -> list[GameState]:
    """The state at the start of every turn of one game of ``players`` copies of ``bot``."""
    starts: list[GameState] = []

    def observer(state: GameState, events: tuple[Event, ...]) -> None:
        if state.phase is Phase.CHOOSE_CARDS and all(c is None for c in state.chosen):
            starts.append(state)

    play_game([make_bot(bot, random.Random(rng.getrandbits(32))) for _ in range(players)], rng, observer=observer)
    return starts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="field:risk")
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    held = collections.Counter[int]()  # times passed over (0, 1, 2 = two or more) -> cards held
    seen = collections.Counter[int]()  # the same -> cards counted
    cheapest = [0, 0]  # choices of the cheapest card of the hand (within the tie), choices
    for _ in range(args.games):
        starts = turn_starts(args.bot, args.players, rng)
        for now, following in zip(starts, [*starts[1:], None], strict=True):
            if now.turn == 0:
                passed: dict[int, collections.Counter[int]] = collections.defaultdict(collections.Counter)
            mine = view(now, 0)
            unseen = set(mine.unseen_cards())
            if now.turn > 0:
                for seat in range(1, args.players):
                    hand = set(now.hands[seat])
                    for card in unseen:
                        times = min(passed[seat][card], 2)
                        held[times] += card in hand
                        seen[times] += 1
            if following is None or following.round != now.round:
                continue
            hidden = sorted(unseen | set(mine.hand))
            cost = {c: card_costs(now.rows, [c], hidden, args.players, True)[c] for c in hidden}
            played = following.played[now.turn]
            for seat in range(1, args.players):
                if len(now.hands[seat]) > 1:
                    cheapest[0] += cost[played[seat]] <= min(cost[c] for c in now.hands[seat]) + HEURISTIC_TIE
                    cheapest[1] += 1
                for card in hidden:
                    if card != played[seat] and cost[card] + HEURISTIC_TIE < cost[played[seat]]:
                        passed[seat][card] += 1
    print(f"{args.players} x {args.bot}, {args.games} games, seed {args.seed}:"
          " is a card seat 0 has not seen in the seat's hand?")
    for times, label in enumerate(("never passed over", "passed over once", "passed over twice or more")):
        share = held[times] / seen[times] if seen[times] else float("nan")
        print(f"  {label:<26} {held[times]:>6} of {seen[times]:>6} = {share:.3f}")
    print(f"  the cheapest card of its hand played (within the tie): {cheapest[0]} of {cheapest[1]} choices"
          f" = {cheapest[0] / max(cheapest[1], 1):.3f}")


if __name__ == "__main__":
    main()
