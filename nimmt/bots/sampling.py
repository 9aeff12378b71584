"""Dealing the cards a player cannot see, consistently with what that player's view shows.

In 6 nimmt! nothing a player does reveals anything about the cards still in their hand except
that those cards were not played: every card is legal every turn, and nobody follows suit. So a
*determinization* consistent with a view is simply the view's unseen cards (the other hands and
the cards not dealt, :meth:`nimmt.core.View.unseen_cards`) shared out at random so that each other
player gets exactly as many cards as their public hand size; what is left over was not dealt.
Every such deal is equally likely given the view, so a uniform shuffle samples them exactly.

>>> import random
>>> hands = deal_unseen((1, 2, 3, 4, 5, 6), (2, 0, 3), 1, random.Random(4))
>>> [len(h) for h in hands], hands[1]
([2, 0, 3], [])
>>> sorted(hands[0] + hands[2]) == sorted(set(hands[0] + hands[2]))
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from nimmt.core import View

from .base import BotError


def deal_unseen(
    unseen: Sequence[int], hand_sizes: Sequence[int], me: int, rng: random.Random
) -> list[list[int]]:
    """Share ``unseen`` out among the other players: ``hand_sizes[p]`` cards each, none for ``me``.

    Raises ``ValueError`` when there are not enough unseen cards for the hands (an impossible view).
    """
    need = sum(size for p, size in enumerate(hand_sizes) if p != me)
    if need > len(unseen):
        raise BotError(f"{need} unseen cards are needed for the other hands, only {len(unseen)} exist")
    cards = rng.sample(unseen, need)
    hands: list[list[int]] = []
    at = 0
    for p, size in enumerate(hand_sizes):
        if p == me:
            hands.append([])
            continue
        hands.append(cards[at : at + size])
        at += size
    return hands


def other_hand_sizes(view: View) -> list[int]:
    """How many unseen cards each player holds, from ``view.player``'s side (0 for that player).

    A card an opponent has chosen this turn but not yet revealed is still in their hand, and
    unseen; a card revealed this turn is out of every hand and seen.
    """
    me = view.player
    return [0 if p == me else size for p, size in enumerate(view.hand_sizes)]


def determinize(view: View, rng: random.Random) -> list[list[int]]:
    """One deal of the other players' hands drawn uniformly among those consistent with ``view``."""
    assert view.player is not None, "a spectator has no hand to complete"
    return deal_unseen(view.unseen_cards(), other_hand_sizes(view), view.player, rng)
