"""The opponent model's posteriors are pinned: made quicker (one call of the kernels per sampled hand,
not one per style), it must give the same numbers to the last digit kept here as before (9ab894d)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from nimmt.bots import heuristic, opponents, styles
from nimmt.bots.opponents import OpponentModel, chances
from nimmt.bots.styles import BASE_STYLES, STYLES, style_chance
from nimmt.core import view
from nimmt.records import GameRecord, parse
from nimmt.review import moments

GAMES = Path(__file__).with_name("opponent_games.json")  # 2, 3, 4 and 5 players, seeded bots' games

# (observations, sha256 of every posterior after every observation at 10 decimals), and one model's
# final log-weights, all as main at 9ab894d made them.
PINNED = [
    (78, "0c2df687a951f8e36d2e26ed9070f26c2fcc2dc0b051d14fde58e88349439ed2"),
    (114, "a27168742acb04574455fe0479653c1cd5c49ff3d0e58e26f9deabb0d0683fba"),
    (348, "362aea6abdfd7792cf4b09d9475001636c75f712e161771c67213f13475c699b"),
    (580, "bc1e86389466c25a38209829c6a35f46369ef68494d1a43374724c9b43881a30"),
]
FINAL_2P = {0: {1: [-6.294260610274074, -8.0, 0.0, -2.374023973484355]},
            1: {0: [0.0, -4.372309645365709, -6.38533353943707, -6.409610282536594]}}


def _records() -> list[GameRecord]:
    return [parse(game) for game in json.loads(GAMES.read_text(encoding="utf-8"))]


def _watch(record: GameRecord) -> tuple[int, str, dict[int, OpponentModel]]:
    """Every player's model watching the game as the review's do (seeded as nimmt.review seeds them)."""
    models = {p: OpponentModel(random.Random(f"0:model:{p}"), BASE_STYLES) for p in range(len(record.players))}
    trace = []
    for moment, _ in moments(record):
        if moment.kind == "card":
            model = models[moment.player]
            model.observe(view(moment.state, moment.player))
            for seat in sorted(model.log_weights):
                trace.append([moment.player, seat, *(f"{x:.10f}" for x in model.posterior(seat).values())])
    return len(trace), hashlib.sha256(json.dumps(trace).encode()).hexdigest(), models


@pytest.mark.parametrize("game", range(len(PINNED)))
def test_the_models_posteriors_are_those_pinned(game: int) -> None:
    observations, digest, models = _watch(_records()[game])
    assert (observations, digest) == PINNED[game]
    if game == 0:
        assert {p: dict(m.log_weights) for p, m in models.items()} == FINAL_2P


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_chances_are_each_styles_chance(players: int, compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if compiled:
        batch = pytest.importorskip("nimmt.batch")
        if not batch.HAVE_NUMBA:
            pytest.skip("no Numba: the kernels run as plain Python only")
    for module in (heuristic, styles, opponents):  # both ways the kernels run, whatever this process has loaded
        monkeypatch.setattr(module, "compiled", lambda: compiled)
    rng = random.Random(players)
    for _ in range(60):
        deck = rng.sample(range(1, 105), 104)
        rows = []
        for _ in range(4):
            length = rng.randrange(1, 6)
            rows.append(tuple(sorted(deck[:length])))
            del deck[:length]
        size = rng.randrange(2, 11)
        hand = tuple(deck[:size])
        public = {c for r in rows for c in r}
        unseen = sorted(set(range(1, 105)) - public - set(hand))
        pool = sorted(set(unseen) | set(hand))  # what the model passes: the hand counted in, as the kernels count
        expected = [style_chance(s, rows, hand, unseen, players, hand[0]) for s in STYLES]
        assert chances(STYLES, rows, hand, pool, players) == expected


def test_draws_are_the_posteriors_draws() -> None:
    """``draw`` keeps the posterior's running sums while the evidence stays: the same styles, draw for
    draw, as ``random.choices`` with the posterior's weights."""
    _, _, models = _watch(_records()[2])
    record = _records()[2]
    seen = next(view(m.state, m.player) for m, _ in moments(record) if m.player == 1 and m.state.turn == 3)
    model = models[1]
    ours, theirs = random.Random(11), random.Random(11)
    for _ in range(200):
        expected = ["heuristic" if p == 1 else theirs.choices(model.styles, weights=[
            model.posterior(p)[s] for s in model.styles])[0] for p in range(4)]
        assert model.draw(seen, ours) == expected
