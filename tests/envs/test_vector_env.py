"""The vector environment against the AEC environment: the same seeds, the same games, step by step."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from nimmt.bots import make_bot
from nimmt.core import IllegalAction, Phase, Rules, view
from nimmt.envs import NimmtEnv, NimmtVectorEnv
from nimmt.envs.pettingzoo_env import agent_name, from_action


def play_aec_until_seat(table: NimmtEnv, seat: int, bots: dict[int, Any]) -> None:
    """Let the bots act until the seat must act or the game is over."""
    while table.state_of_game.phase is not Phase.OVER and table.agent_selection != agent_name(seat):
        player = int(table.agent_selection.split("_")[1])
        table.step(from_action(bots[player].act(view(table.state_of_game, player))))


@pytest.mark.parametrize(
    ("players", "seat", "opponents", "rules"),
    [(4, 0, "heuristic", Rules()), (3, 1, ["beginner", "heuristic"], Rules()), (2, 1, "beginner", Rules(rounds=3)),
     (10, 4, "heuristic", Rules(end_above=30)), (5, 4, ["beginner", "heuristic", "heuristic", "beginner"], Rules())],
)
def test_every_observation_mask_and_reward_is_the_aec_environments(
    players: int, seat: int, opponents: str | list[str], rules: Rules
) -> None:
    tables = 3
    envs = NimmtVectorEnv(num_envs=tables, players=players, opponents=opponents, seat=seat, rules=rules)
    names = [opponents] * (players - 1) if isinstance(opponents, str) else opponents
    others = [p for p in range(players) if p != seat]
    aec = [NimmtEnv(players=players, rules=rules) for _ in range(tables)]
    bots = [dict(zip(others, [make_bot(n) for n in names], strict=True)) for _ in range(tables)]
    observation, _ = envs.reset(seed=40)
    for i, table in enumerate(aec):
        table.reset(seed=40 + i)
        play_aec_until_seat(table, seat, bots[i])
    rng = np.random.default_rng(players)
    games = [0] * tables
    restart = [False] * tables
    steps = 0
    while min(games) < 2:
        for i, table in enumerate(aec):
            if restart[i]:
                table.reset()
                play_aec_until_seat(table, seat, bots[i])
                restart[i] = False
            expected = table.observe(agent_name(seat))
            np.testing.assert_array_equal(observation["observation"][i], expected["observation"], str((steps, i)))
            np.testing.assert_array_equal(observation["action_mask"][i], expected["action_mask"])
        mask = observation["action_mask"]
        actions = (rng.random(mask.shape) + mask).argmax(axis=1)
        observation, reward, terminated, truncated, info = envs.step(actions)
        steps += 1
        assert not truncated.any() and "illegal_action" not in info
        for i, table in enumerate(aec):
            if table.state_of_game.phase is Phase.OVER:  # the vector env restarted this table
                assert reward[i] == 0 and not terminated[i]
                restart[i] = True
                continue
            table.step(int(actions[i]))
            play_aec_until_seat(table, seat, bots[i])
            assert reward[i] == table._cumulative_rewards[agent_name(seat)]
            over = table.state_of_game.phase is Phase.OVER
            assert terminated[i] == over
            if over:
                games[i] += 1
                assert list(envs.totals[i]) == list(table.state_of_game.totals)
    assert steps > 20


def test_random_opponents_play_whole_games() -> None:
    envs = NimmtVectorEnv(num_envs=50, players=4)
    observation, _ = envs.reset(seed=3)
    rng = np.random.default_rng(0)
    returns = np.zeros(50)
    finished = []
    terminated = np.zeros(50, bool)
    for _ in range(400):
        mask = observation["action_mask"]
        assert ((mask.sum(axis=1) >= 1) != terminated).all()  # a game over waits for no action
        observation, reward, terminated, _, _ = envs.step((rng.random(mask.shape) + mask).argmax(axis=1))
        returns += reward
        for i in np.flatnonzero(terminated):
            assert -returns[i] == envs.totals[i, 0]
            finished.append(envs.totals[i].copy())
            returns[i] = 0
    assert len(finished) > 50
    assert all(max(t) > 66 for t in finished)


def test_a_seed_repeats_the_games_and_illegal_actions() -> None:
    runs = []
    for _ in range(2):
        envs = NimmtVectorEnv(num_envs=4, players=3, opponents="random")
        observation, _ = envs.reset(seed=9)
        trace = [observation["observation"].copy()]
        for _ in range(30):
            observation, reward, *_rest, info = envs.step(np.zeros(4, np.int64))  # card 1: mostly illegal
            trace.append(observation["observation"].copy())
            trace.append(reward.copy())
        runs.append(trace)
        assert "illegal_action" in info
    for a, b in zip(*runs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_illegal_actions_raise_when_asked() -> None:
    envs = NimmtVectorEnv(num_envs=2, players=4, illegal_action="raise")
    observation, _ = envs.reset(seed=1)
    actions = observation["action_mask"].argmax(axis=1)
    actions[1] = 105  # a row, while a card is wanted
    with pytest.raises(IllegalAction, match="table 1: action 105"):
        envs.step(actions)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [({"players": 1}, "2 to 10 players"), ({"num_envs": 0}, "num_envs"), ({"seat": 4}, "seat must be 0 to 3"),
     ({"opponents": "expert"}, "unknown opponent 'expert'"), ({"opponents": ["random"]}, "one per other seat"),
     ({"illegal_action": "ignore"}, "illegal_action")],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        NimmtVectorEnv(**kwargs)


def test_gymnasium_vector_wrappers_see_whole_episodes() -> None:
    """RecordEpisodeStatistics adds up each game's rewards: minus the learning seat's total."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    envs = RecordEpisodeStatistics(NimmtVectorEnv(num_envs=8, players=3, opponents="beginner"))
    observation, _ = envs.reset(seed=5)
    rng = np.random.default_rng(5)
    episodes = 0
    for _ in range(300):
        mask = observation["action_mask"]
        observation, _, terminated, _, info = envs.step((rng.random(mask.shape) + mask).argmax(axis=1))
        if "episode" in info:
            for i in np.flatnonzero(info["_episode"]):
                assert terminated[i]
                assert info["episode"]["r"][i] == -envs.unwrapped.totals[i, 0]
                episodes += 1
    assert episodes >= 20
    assert envs.observation_space["observation"].shape == (8, 992)
    assert envs.action_space.shape == (8,)
