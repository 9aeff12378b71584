"""The PettingZoo AEC environment: PettingZoo's own checks, the rules as the agents see them, secrets."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from nimmt.core import Deal, IllegalAction, Phase, Rules, apply, deal_cards, new_game, view
from nimmt.envs import ACTIONS, OBSERVATION_SIZE, ROW_ACTION, SLICES, NimmtEnv, encode_view, env
from nimmt.envs.pettingzoo_env import to_action
from nimmt.records import GameRecord, Recorder, replay


@pytest.mark.parametrize("players", [2, 5, 10])
def test_pettingzoo_api_test(players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns that a Dict observation is not a Box
        api_test(NimmtEnv(players=players, rules=Rules(rounds=1)), num_cycles=60)


def test_pettingzoo_api_test_wrapped_and_seed_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(players=3, episode="round"), num_cycles=30)
        seed_test(lambda: NimmtEnv(players=4), num_cycles=40)


def play_out(table: NimmtEnv, rng: random.Random) -> tuple[dict[str, float], list[int]]:
    """Random masked actions until the end; returns the summed rewards and every action taken."""
    rewards = dict.fromkeys(table.possible_agents, 0.0)
    actions: list[int] = []
    for agent in table.agent_iter():
        observation, reward, terminated, truncated, _ = table.last()
        rewards[agent] += reward
        if terminated or truncated:
            table.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        action = int(rng.choice(list(legal)))
        actions.append(action)
        table.step(action)
    return rewards, actions


def test_a_whole_game_follows_the_rules_and_rewards_are_minus_the_bullheads() -> None:
    table = NimmtEnv(players=4)
    table.reset(seed=11)
    # Replay every environment action through a recorder: it checks each one against the rules core.
    recorder = Recorder(GameRecord(players=tuple(table.possible_agents)))
    deals = random.Random(11)
    rewards: dict[str, float] = dict.fromkeys(table.possible_agents, 0.0)
    rng = random.Random(5)
    row_steps = 0
    for agent in table.agent_iter():
        observation, reward, terminated, truncated, _ = table.last()
        rewards[agent] += reward
        if terminated or truncated:
            table.step(None)
            continue
        if recorder.state.phase is Phase.DEAL:
            recorder.add(deal_cards(4, deals))
        seat = int(agent.split("_")[1])
        assert recorder.state.waiting_for[0] == seat  # AEC order: lowest waiting seat first
        mask = observation["action_mask"]
        for other in table.agents:
            if other != agent:  # only the agent whose step it is may act
                assert table.observe(other)["action_mask"].sum() == 0
        if recorder.state.phase is Phase.CHOOSE_ROW:
            row_steps += 1
            assert list(np.flatnonzero(mask)) == [ROW_ACTION, ROW_ACTION + 1, ROW_ACTION + 2, ROW_ACTION + 3]
        else:
            assert sorted(int(a) + 1 for a in np.flatnonzero(mask)) == list(recorder.state.hands[seat])
        action = int(rng.choice(list(np.flatnonzero(mask))))
        recorder.add(to_action(seat, action))
        table.step(action)
    assert table.agents == []
    final = replay(recorder.record)
    assert final.finished and max(final.totals) > 66
    assert [rewards[f"player_{p}"] for p in range(4)] == [-float(t) for t in final.totals]
    assert row_steps > 0  # a random game always meets a low card; the row step was its own step


def test_a_seed_repeats_the_game_and_another_seed_does_not() -> None:
    first, second, other = NimmtEnv(players=3), NimmtEnv(players=3), NimmtEnv(players=3)
    first.reset(seed=8)
    second.reset(seed=8)
    other.reset(seed=9)
    assert play_out(first, random.Random(1)) == play_out(second, random.Random(1))
    first.reset(seed=8)
    assert not np.array_equal(first.observe("player_0")["observation"], other.observe("player_0")["observation"])


def test_round_episodes_end_after_ten_turns() -> None:
    table = NimmtEnv(players=5, episode="round")
    table.reset(seed=2)
    rewards, actions = play_out(table, random.Random(2))
    card_actions = [a for a in actions if a < ROW_ACTION]
    assert len(card_actions) == 5 * 10
    assert table.state_of_game.phase is Phase.OVER and table.state_of_game.round == 1
    assert sum(rewards.values()) == -sum(table.state_of_game.totals)


def test_picks_stay_secret_until_everybody_has_picked() -> None:
    table = NimmtEnv(players=3)
    table.reset(seed=4)
    before = {agent: table.observe(agent)["observation"].copy() for agent in table.possible_agents}
    card = int(np.flatnonzero(table.observe("player_0")["action_mask"])[0]) + 1
    table.step(card - 1)
    mine = table.observe("player_0")["observation"]
    assert mine[SLICES["my_card"]][card - 1] == 1
    for agent in ("player_1", "player_2"):
        seen = table.observe(agent)["observation"]
        changed = np.flatnonzero(seen != before[agent])
        # All they learn is that seat 0 has picked (seat 0 is two or one seats after them).
        assert len(changed) == 1 and SLICES["seat_has_chosen"].start <= changed[0] < SLICES["seat_has_chosen"].stop
        assert seen[SLICES["my_card"]].sum() == 0 and seen[SLICES["revealed"]].sum() == 0


def test_observation_is_built_from_the_players_view_only() -> None:
    # Two games that differ only in another player's hand give player 0 the same observation.
    hand0 = (*range(1, 10), 11)
    a = apply(new_game(2), Deal((50, 60, 70, 80), (hand0, tuple(range(21, 31))))).state
    b = apply(new_game(2), Deal((50, 60, 70, 80), (hand0, tuple(range(31, 41))))).state
    assert np.array_equal(encode_view(view(a, 0)), encode_view(view(b, 0)))
    assert not np.array_equal(encode_view(view(a, 1)), encode_view(view(b, 1)))
    observation = encode_view(view(a, 0))
    assert observation.shape == (OBSERVATION_SIZE,) and observation.dtype == np.float32
    assert observation[SLICES["hand"]].sum() == 10 and observation[SLICES["rows"]].sum() == 4


def test_masked_out_actions_are_refused_clearly() -> None:
    table = NimmtEnv(players=2)
    table.reset(seed=3)
    mask = table.observe("player_0")["action_mask"]
    not_held = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalAction, match=f"player_0 cannot play card {not_held + 1}: it holds"):
        table.step(not_held)
    with pytest.raises(IllegalAction, match="cannot take row 2: the game waits for a card"):
        table.step(ROW_ACTION + 2)
    with pytest.raises(IllegalAction, match=f"action {ACTIONS} does not exist"):
        table.step(ACTIONS)
    with pytest.raises(IllegalAction, match="must act"):
        table.step(None)
    assert table.agent_selection == "player_0"  # nothing changed
    table.step(int(np.flatnonzero(mask)[0]))
    assert table.agent_selection == "player_1"


def test_render_shows_the_rows_and_bad_options_are_refused() -> None:
    table = NimmtEnv(players=2, render_mode="ansi")
    table.reset(seed=1)
    text = table.render()
    assert text is not None and "row 3:" in text and "waiting for player_0" in text
    with pytest.raises(ValueError, match="2 to 10 players"):
        NimmtEnv(players=11)
    with pytest.raises(ValueError, match="episode"):
        NimmtEnv(episode="turn")
