"""The oracle deals the true hands: with every seat playing nimmt's heuristic (no chance left), its
rollouts of each card equal a playout of the real game to the end of the round by HeuristicBot seats.

    NIMMT_ORACLE=1 PYTHONPATH=docs/figures/e31-oracle:<patched worktree> python docs/figures/e31-oracle/check.py
"""

from __future__ import annotations

import random

import numpy as np
import sitecustomize

import nimmt.match as match
from nimmt.batch import rollout_card_penalties
from nimmt.bots.heuristic import HeuristicBot
from nimmt.core import BULLHEADS, Phase, PlayCard, apply, deal_cards, new_game, view

checked = differ = 0
for seed in range(12):
    rng = random.Random(seed)
    players = (10, 4, 2)[seed % 3]
    bots = [HeuristicBot() for _ in range(players)]
    state = apply(new_game(players), deal_cards(players, rng)).state
    for _turn in range(seed % 4):  # a few turns in
        for p in range(players):
            state = apply(state, bots[p].act(view(state, p))).state
        while state.phase is Phase.CHOOSE_ROW:
            state = apply(state, bots[state.waiting_for[0]].act(view(state, state.waiting_for[0]))).state
    me = seed % players
    for p in range(me):  # the seats before it have chosen, as at a table
        state = apply(state, bots[p].act(view(state, p))).state
    match.view(state, me)  # as play_game asks, so the oracle knows the state
    oracle = sitecustomize.oracle_of(view(state, me))
    got = rollout_card_penalties(oracle, list(oracle.hand), 8, np.random.default_rng(seed), "heuristic")
    before = sum(BULLHEADS[c] for c in state.taken[me])
    for i, card in enumerate(oracle.hand):
        s = apply(state, PlayCard(me, card)).state
        while s.phase in (Phase.CHOOSE_CARDS, Phase.CHOOSE_ROW) and s.round == state.round:
            p = s.chosen.index(None) if s.phase is Phase.CHOOSE_CARDS else s.waiting_for[0]
            s = apply(s, bots[p].act(view(s, p))).state
        # the round's last turn ends it: its takings are then in the penalties of the round
        taken = s.penalties[me] - before if s.round == state.round else s.history[-1][me] - before
        checked += 1
        differ += int(set(got[i].tolist()) != {taken})
print(f"{checked} cards checked, {differ} differ")
