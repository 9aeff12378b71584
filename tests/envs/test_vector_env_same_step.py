"""``NimmtVectorEnv(autoreset_mode=SAME_STEP)``: the step that ends a game returns the next game's
first observation, and gives the same games as the default mode (NEXT_STEP) on the same seed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")
from gymnasium.vector import AutoresetMode

from nimmt.envs import EnvError, NimmtVectorEnv


@pytest.mark.parametrize("opponents", ["random", "heuristic"])
def test_same_step_plays_the_games_of_next_step(opponents: str) -> None:
    """One table (the default mode spends a step on each restart, and would then run ahead at
    other tables): same seed, same actions, three games."""
    later = NimmtVectorEnv(num_envs=1, players=4, opponents=opponents)
    same = NimmtVectorEnv(num_envs=1, players=4, opponents=opponents, autoreset_mode=AutoresetMode.SAME_STEP)
    assert same.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert later.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    seen_later, _ = later.reset(seed=11)
    seen_same, _ = same.reset(seed=11)
    rng = np.random.default_rng(3)
    games = 0
    while games < 3:
        mask = seen_later["action_mask"]
        np.testing.assert_array_equal(seen_same["observation"], seen_later["observation"])
        np.testing.assert_array_equal(seen_same["action_mask"], mask)
        action = (rng.random(mask.shape) + mask).argmax(axis=1)
        seen_later, reward_later, ended, _, _ = later.step(action)
        seen_same, reward_same, ended_same, _, info = same.step(action)
        assert reward_same.tolist() == reward_later.tolist() and ended_same.tolist() == ended.tolist()
        if ended[0]:
            games += 1
            final: dict[str, Any] = info["final_obs"][0]
            np.testing.assert_array_equal(final["observation"], seen_later["observation"][0])
            assert info["_final_obs"].tolist() == [True]
            assert info["final_totals"][0].tolist() == later.totals[0].tolist()
            assert later.totals[0].max() > 66 and same.totals[0].tolist() == [0, 0, 0, 0]
            seen_later, reward_later, ended, _, _ = later.step(action)  # the default mode restarts now
            assert reward_later.tolist() == [0.0] and not ended[0]
        else:
            assert "final_obs" not in info


def test_same_step_at_many_tables_ends_games_in_place() -> None:
    envs = NimmtVectorEnv(num_envs=64, players=3, opponents="random", autoreset_mode="SameStep")
    seen, _ = envs.reset(seed=2)
    rng = np.random.default_rng(4)
    ended_games = 0
    for _ in range(200):
        mask = seen["action_mask"]
        assert (mask.sum(axis=1) > 0).all()  # every table can always act: no restart steps
        seen, _, ended, _, info = envs.step((rng.random(mask.shape) + mask).argmax(axis=1))
        if ended.any():
            ended_games += int(ended.sum())
            assert info["_final_obs"].tolist() == ended.tolist()
            assert (info["final_totals"][ended].max(axis=1) > 66).all()
            assert (envs.rounds[ended] == 0).all()
    assert ended_games > 64


def test_an_unknown_autoreset_mode_is_refused() -> None:
    with pytest.raises(EnvError, match="autoreset_mode"):
        NimmtVectorEnv(num_envs=2, autoreset_mode="sometimes")
    with pytest.raises(EnvError, match="autoreset_mode"):
        NimmtVectorEnv(num_envs=2, autoreset_mode=AutoresetMode.DISABLED)
