"""Why a game ended after a round, or why it goes on: the facts a screen needs to say it.

>>> rules = Rules()
>>> ending(rules, (71, 40, 66), rounds_played=5)
Ending(over=True, reason='above', players=(0,), totals=(71, 40, 66), end_above=66, rounds=None, rounds_played=5)
>>> ending(rules, (12, 66, 66), rounds_played=3).reason, ending(rules, (12, 66, 66), rounds_played=3).players
('exactly', (1, 2))
>>> ending(rules, (12, 40, 40), rounds_played=2).reason, ending(rules, (12, 40, 40), rounds_played=2).players
('below', (1, 2))
>>> ending(Rules(rounds=3), (90, 2), rounds_played=3).reason
'rounds'
>>> ending(Rules(rounds=3), (90, 2), rounds_played=1).reason
'rounds_left'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .game import Rules

EndReason = Literal["above", "exactly", "below", "rounds", "rounds_left"]


@dataclass(frozen=True, slots=True)
class Ending:
    """The state of the game after a complete round, as the rules decide it.

    ``reason`` is one of:

    - ``above``: over, since ``players`` (highest total first) are above ``end_above``;
    - ``exactly``: goes on, and ``players`` have exactly ``end_above`` (not above it);
    - ``below``: goes on, every total is at most ``end_above``; ``players`` have the highest;
    - ``rounds``: over, the table plays a fixed number of rounds and they are played;
    - ``rounds_left``: goes on, rounds of a fixed number are left.
    """

    over: bool
    reason: EndReason
    players: tuple[int, ...]
    totals: tuple[int, ...]
    end_above: int
    rounds: int | None
    rounds_played: int


def ending(rules: Rules, totals: Sequence[int], rounds_played: int) -> Ending:
    """Why the game is over after ``rounds_played`` complete rounds with these totals, or why not."""
    totals = tuple(totals)
    over = rules.game_is_over(totals, rounds_played)
    players: tuple[int, ...] = ()
    reason: EndReason
    if rules.rounds is not None:
        reason = "rounds" if over else "rounds_left"
    elif over:
        reason = "above"
        above = [p for p, total in enumerate(totals) if total > rules.end_above]
        players = tuple(sorted(above, key=lambda p: (-totals[p], p)))
    else:
        exactly = tuple(p for p, total in enumerate(totals) if total == rules.end_above)
        if exactly:
            reason, players = "exactly", exactly
        else:
            highest = max(totals, default=0)
            reason, players = "below", tuple(p for p, total in enumerate(totals) if total == highest)
    return Ending(over, reason, players, totals, rules.end_above, rules.rounds, rounds_played)
