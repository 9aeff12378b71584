"""The single-seat Gymnasium environment: Gymnasium's checker, bots in the other seats, rewards, seeds."""

from __future__ import annotations

import random
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from nimmt.bots import RandomBot
from nimmt.core import IllegalAction, Rules
from nimmt.envs import ROW_ACTION, NimmtSeatEnv
from nimmt.protocol import BotFailure

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node") or "/usr/bin/node"


def play(env: NimmtSeatEnv, seed: int, rng: random.Random) -> tuple[float, list[int], dict[str, object]]:
    observation, info = env.reset(seed=seed)
    total = 0.0
    actions: list[int] = []
    while True:
        mask = observation["action_mask"]
        assert np.array_equal(mask.astype(bool), env.action_masks())
        action = int(rng.choice(list(np.flatnonzero(mask))))
        actions.append(action)
        observation, reward, terminated, truncated, info = env.step(action)
        assert reward <= 0 and not truncated
        total += reward
        if terminated:
            return total, actions, info


def test_gymnasium_check_env() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker warns about Dict observations and no render mode
        check_env(NimmtSeatEnv(opponents=["random", "random"], episode="round"), skip_render_check=True)


def test_rewards_add_up_to_minus_the_seats_total() -> None:
    env = NimmtSeatEnv(opponents=["random", "heuristic", "random"], seat=2)
    total, actions, info = play(env, 6, random.Random(6))
    totals = info["totals"]
    assert isinstance(totals, list)
    assert total == -totals[2]
    assert max(totals) > 66 and "winners" in info
    assert sum(1 for a in actions if a < ROW_ACTION) % 10 == 0  # ten cards in each round
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_a_seed_repeats_an_episode_with_the_same_bots() -> None:
    env = NimmtSeatEnv(opponents=["random", "random"], seat=None, rules=Rules(rounds=2))
    first = play(env, 21, random.Random(1))
    second = play(env, 21, random.Random(1))
    assert first == second
    seats = {env.reset(seed=s)[1]["seat"] for s in range(12)}
    assert seats == {0, 1, 2}  # seat=None: a random seat per episode


def test_given_bot_objects_and_external_programs_fill_the_other_seats() -> None:
    node = f"cmd:{NODE} {ROOT / 'examples' / 'node-bot' / 'bot.js'}"
    env = NimmtSeatEnv(opponents=[RandomBot(random.Random(3)), node], episode="round")
    try:
        total, _, info = play(env, 2, random.Random(2))
        totals = info["totals"]
        assert isinstance(totals, list) and total == -totals[0]
    finally:
        env.close()


def test_a_failing_external_opponent_is_an_error_not_a_move(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nsys.exit(5)\n")
    env = NimmtSeatEnv(opponents=[f"cmd:{sys.executable} {broken}"], seat=1)
    with pytest.raises(BotFailure, match="at seat 0 exited with code 5"):
        env.reset(seed=1)
    env.close()


def test_masked_out_actions_cost_a_penalty_or_raise() -> None:
    env = NimmtSeatEnv(opponents=["random"], illegal_penalty=10)
    observation, _ = env.reset(seed=5)
    held = {int(a) + 1 for a in np.flatnonzero(observation["action_mask"])}
    not_held = next(card for card in range(1, 105) if card not in held)
    observation, reward, _, _, info = env.step(not_held - 1)
    assert info["illegal_action"] == not_held - 1
    assert info["played_instead"] + 1 in held
    assert reward <= -10
    assert int(observation["action_mask"].sum()) == 9  # one card was played, the one put instead

    strict = NimmtSeatEnv(opponents=["random"], illegal_action="raise")
    observation, _ = strict.reset(seed=5)
    with pytest.raises(IllegalAction, match=f"player_0 cannot play card {not_held}"):
        strict.step(not_held - 1)
    assert int(strict.action_masks().sum()) == 10  # nothing was played


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="1 to 9 opponents"):
        NimmtSeatEnv(opponents=[])
    with pytest.raises(ValueError, match="seat must be 0 to 2"):
        NimmtSeatEnv(opponents=["random", "random"], seat=3)
