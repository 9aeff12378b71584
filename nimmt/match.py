"""Playing whole games with bots: deals from an injected random source, actions from views."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from nimmt.bots import Bot
from nimmt.core import Action, Event, GameState, Phase, Rules, deal_cards, view
from nimmt.records import GameRecord, Recorder

# Called after every applied action with the new state and its events.
Observer = Callable[[GameState, tuple[Event, ...]], None]


def play_game(
    bots: Sequence[Bot],
    rng: random.Random,
    rules: Rules | None = None,
    names: Sequence[str] | None = None,
    observer: Observer | None = None,
) -> GameRecord:
    """Play one whole game between ``bots`` (seat order) and return its record.

    Each bot sees only its own view. Deals are drawn from ``rng``; bots use their own sources.
    """
    players = tuple(names) if names is not None else tuple(f"{b.name} {i + 1}" for i, b in enumerate(bots))
    recorder = Recorder(GameRecord(players=players, rules=rules or Rules()))
    add = recorder.add
    seats = len(bots)
    state = recorder.state
    while (phase := state.phase) is not _OVER:
        action: Action
        if phase is _CHOOSE_CARDS:
            player = state.chosen.index(None)  # state.waiting_for[0], without building the tuple
            action = bots[player].act(view(state, player))
        elif phase is _DEAL:
            action = deal_cards(seats, rng)
        else:
            player = state.waiting_for[0]
            action = bots[player].act(view(state, player))
        step = add(action)
        state = step.state
        if observer is not None:
            observer(state, step.events)
    return recorder.record


_CHOOSE_CARDS = Phase.CHOOSE_CARDS
_DEAL = Phase.DEAL
_OVER = Phase.OVER
