"""The batch engine with NumPy alone: a fresh interpreter in which ``import numba`` fails."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = r"""
import sys, json
sys.modules["numba"] = None  # what an install without the extra looks like
import numpy as np
from nimmt import batch
from tests.batch.oracle import core_penalties, core_heuristic_penalties
from nimmt.core import apply, deal_cards, new_game, view
import random
from nimmt.bots.search import batch_available

assert not batch.HAVE_NUMBA and batch.engine_name() == "numpy"
rng = np.random.default_rng(4)
rows, orders = batch.deal(6, 150, rng)
choices = rng.integers(0, 4, size=(150, 60))
given = batch.play(rows, orders, row_policy="given", choices=choices)
heuristic = batch.play(rows[:5], orders[:5], row_policy="heuristic", card_policy="heuristic")
state = apply(new_game(3), deal_cards(3, random.Random(2))).state
values = batch.rollout_card_values(view(state, 0), None, 50, rng)
heuristic_values = batch.rollout_card_values(view(state, 0), None, 3, rng, policy="heuristic")
print(json.dumps({
    "given": bool((given == core_penalties(rows, orders, choices)).all()),
    "heuristic": bool((heuristic == core_heuristic_penalties(rows[:5], orders[:5])).all()),
    "hands": batch.play_hands(4, 3000, rng).hands,
    "games": batch.play_games(4, 200, rng).games,
    "cards": sorted(values) == list(view(state, 0).hand) and len(heuristic_values) == 10,
    "kernels_are_python": not hasattr(batch._kernels.play_plain, "py_func"),
    "search_batch": batch_available(),
}))
"""


def test_everything_works_with_numpy_alone() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "given": True, "heuristic": True, "hands": 3000, "games": 200, "cards": True, "kernels_are_python": True,
        "search_batch": False,  # the search bots roll out in Python: the kernels would run uncompiled
    }
