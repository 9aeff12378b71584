"""Speed of the doors for other programs, in wall-clock time (a bot in another process is I/O).

(a) nimmt-bot/1: the round trip of one decision with the Node.js example bot (write the view as
    JSON, the bot reads, answers, nimmt reads and checks), and a 3-round game at 4 seats with and
    without that bot in seat 0, measured side by side in one run (the ratio is the cost of the pipe).
(b) ``NimmtEnv`` (PettingZoo AEC, 4 players, whole games) and ``NimmtSeatEnv`` (one seat against
    three random bots): steps per second with random masked actions, observation encoding included.

Every figure is the median of ``--repeats`` runs. Usage::

    .venv/bin/python benchmarks/bench_protocol_envs.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from nimmt.bots import Bot, RandomBot
from nimmt.core import Rules
from nimmt.envs import NimmtEnv, NimmtSeatEnv
from nimmt.match import play_game
from nimmt.protocol import ProcessBot

NODE_BOT = Path(__file__).resolve().parents[1] / "examples" / "node-bot" / "bot.js"
NODE = shutil.which("node") or "node"


def node_bot(seed: int) -> ProcessBot:
    return ProcessBot([NODE, str(NODE_BOT)], random.Random(seed))


def game_seconds(make: Callable[[int], list[Bot]], seed: int) -> float:
    bots = make(seed)
    for bot in bots:
        if isinstance(bot, ProcessBot):
            bot.start()  # program start-up is not part of the game's time
    began = time.perf_counter()
    play_game(bots, random.Random(seed), Rules(rounds=3))
    spent = time.perf_counter() - began
    for bot in bots:
        if isinstance(bot, ProcessBot):
            bot.close()
    return spent


def with_node(seed: int) -> list[Bot]:
    return [node_bot(seed), *(RandomBot(random.Random(seed + k)) for k in range(1, 4))]


def without_node(seed: int) -> list[Bot]:
    return [RandomBot(random.Random(seed + k)) for k in range(4)]


def aec_steps_per_second(seed: int) -> float:
    env = NimmtEnv(players=4)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    began = time.perf_counter()
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        steps += 1
    return steps / (time.perf_counter() - began)


def seat_steps_per_second(seed: int) -> float:
    env = NimmtSeatEnv(opponents=["random"] * 3)
    observation, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    done = False
    began = time.perf_counter()
    while not done:
        observation, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
    return steps / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    repeats = parser.parse_args().repeats

    with node_bot(0) as bot:
        play_game([bot, RandomBot(random.Random(1))], random.Random(0), Rules(rounds=10))
        trip = statistics.median(bot.answer_times)
    print(f"nimmt-bot/1 decision round trip, Node.js example: median {trip * 1e3:.3f} ms "
          f"({len(bot.answer_times)} decisions)")

    plain, piped = [], []
    for seed in range(repeats):  # alternate, so that both see the same machine load
        plain.append(game_seconds(without_node, seed))
        piped.append(game_seconds(with_node, seed))
    a, b = statistics.median(plain), statistics.median(piped)
    print(f"3-round game, 4 seats: random bots {a * 1e3:.1f} ms, Node.js bot in seat 0 {b * 1e3:.1f} ms "
          f"(x{b / a:.1f}), medians of {repeats}")

    aec = statistics.median(aec_steps_per_second(seed) for seed in range(repeats))
    seat = statistics.median(seat_steps_per_second(seed) for seed in range(repeats))
    print(f"NimmtEnv, 4 players, whole games: median {aec:,.0f} steps/s")
    print(f"NimmtSeatEnv, 1 seat vs 3 random bots: median {seat:,.0f} agent steps/s")


if __name__ == "__main__":
    main()
