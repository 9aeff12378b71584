"""The compiled rollouts play exactly the cards they played before they were made faster (issue 29):
every figure of ``fingerprints.json`` (a digest of each) was computed by the kernels of main at
9ab894d, before the change, and each must come out the same, bit for bit: the review's rollouts
(:func:`nimmt.batch.review_penalties`), the search bots' (:func:`nimmt.batch.rollout_card_penalties`
with what the others take), the seated ones (:mod:`nimmt.batch.seated`) and whole games, at 2, 4
and 10 players, every style of the expert's model of the table (``heuristic``, ``snug``, ``mc``,
``random``) and the learned network."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from nimmt.batch import HAVE_NUMBA, review_penalties, rollout_card_penalties, rollout_row_penalties
from nimmt.batch import _kernels as K
from nimmt.batch._base import tally
from nimmt.batch.seated import card_seat_penalties, row_seat_penalties
from nimmt.bots.styles import policies_of, seats_of
from nimmt.core import BULLHEADS, ChooseRow, GameState, Phase, PlayCard, View, apply, deal_cards, new_game, view

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason="the compiled kernels need Numba")

SAMPLES = 48
# Each seat's style; the viewer (seat 0) plays like "heuristic", as in the review.
TABLES = {
    2: (("heuristic", "snug"), ("heuristic", "mc"), ("heuristic", "random"), ("learned", "heuristic")),
    4: (("heuristic", "snug", "mc", "random"), ("heuristic", "mc", "mc", "heuristic"),
        ("heuristic", "random", "snug", "snug"), ("learned", "mc", "heuristic", "random")),
    10: (("heuristic", "snug", "mc", "random", "heuristic", "snug", "mc", "random", "heuristic", "mc"),
         ("learned", "heuristic", "heuristic", "mc", "mc", "snug", "snug", "random", "random", "heuristic")),
}


def _fewest(state: GameState) -> int:
    heads = [sum(BULLHEADS[c] for c in row) for row in state.rows]
    return heads.index(min(heads))


def _position(players: int, seed: int, turn: int, kind: str) -> View:
    """Random play of round 1 from a seeded deal up to ``turn`` (rows by the fewest bullheads), then
    the view of the player who must play a card (``kind`` "card") or choose a row ("row") next."""
    while True:
        rng = random.Random(seed)
        state = apply(new_game(players), deal_cards(players, rng)).state
        while state.phase is not Phase.DEAL and state.phase is not Phase.OVER:
            if state.phase is Phase.CHOOSE_ROW:
                if kind == "row" and state.turn >= turn:
                    return view(state, state.waiting_for[0])
                state = apply(state, ChooseRow(state.waiting_for[0], _fewest(state))).state
            else:
                p = state.waiting_for[0]
                if kind == "card" and state.turn >= turn and p == 0 and len(state.waiting_for) == players:
                    return view(state, 0)
                state = apply(state, PlayCard(p, rng.choice(state.hands[p]))).state
        seed += 1000


def _digest(values: npt.NDArray[np.int64]) -> str:
    return hashlib.sha256(np.ascontiguousarray(values, np.int64).tobytes()).hexdigest()[:16]


def fingerprints() -> dict[str, str]:
    """Every figure's digest, by name."""
    found: dict[str, str] = {}
    for players, tables in TABLES.items():
        for turn in (0, 4, 8):
            for kind in ("card", "row"):
                seen = _position(players, 17 * players + turn, turn, kind)
                me = seen.player
                assert me is not None
                labels = list(seen.hand) if kind == "card" else [0, 1, 2, 3]
                for i, styles in enumerate(tables):
                    others = iter(styles[1:])
                    seated = [styles[0] if p == me else next(others) for p in range(players)]
                    policies = policies_of(seats_of(seated), None)
                    name = f"{players}p t{turn} {kind} {i}"
                    found[f"review {name}"] = _digest(review_penalties(seen, kind, labels, 3, SAMPLES, 11, policies))
                    rest = np.zeros((len(labels), SAMPLES), np.int64)
                    if kind == "card":
                        mine = rollout_card_penalties(seen, labels, SAMPLES, 5, policies, rest=rest)
                        each = card_seat_penalties(seen, labels, SAMPLES, np.random.default_rng(6), policies)
                    else:
                        mine = rollout_row_penalties(seen, SAMPLES, 5, policies, rest=rest)
                        each = row_seat_penalties(seen, SAMPLES, np.random.default_rng(6), policies)
                    found[f"rollouts {name}"] = _digest(np.concatenate([mine, rest]))
                    found[f"seated {name}"] = _digest(each)
        for i, styles in enumerate(tables):
            games = tally(16, players)
            K.games(players, 16, 66, 0, policies_of(seats_of(styles), None), np.uint64(9), games)
            found[f"games {players}p {i}"] = _digest(np.concatenate([games.totals.ravel(), games.played]))
    return found


def test_the_rollouts_play_the_same_cards_as_before() -> None:
    expected = json.loads((Path(__file__).with_name("fingerprints.json")).read_text(encoding="utf-8"))
    found = fingerprints()
    assert sorted(found) == sorted(expected)
    assert [name for name in expected if found[name] != expected[name]] == []
