"""Train a seat of 6 nimmt! against random seats with Stable-Baselines3 (MaskablePPO), on the CPU,
then measure it against random seats on many games, next to a random player on the same deals.

    pip install -e '.[sim,ml]' && pip install torch==2.13.0 && pip install -e '.[train]'
    nice -n 10 python scripts/train_ppo.py                      # the run in docs/environments.md
    python scripts/train_ppo.py --timesteps 20000 --eval-games 200   # a quick look

The learning seat (seat 0 of 4) plays at ``--tables`` tables of :class:`nimmt.envs.NimmtVectorEnv`
at once, the other three seats played by the batch engine's random policy (what ``RandomBot``
does); the reward is minus the bullheads taken, an episode is a whole game (rounds until a total is
above 66). MaskablePPO (sb3-contrib) only ever picks actions the mask allows.

The evaluation plays ``--eval-games`` whole games with the learner's most likely action, and the
same number with a uniformly random legal action in its seat, from the same seed: table ``i`` gets
the same deal stream in both (round k of its games is dealt the same cards), so the comparison is
of duplicate deals. Printed: the mean bullheads per round of the learning seat and of the random
seats at its tables, the learner's edge (random seats minus learner, per round) and its win share,
each with a 95 % interval (games are independent; per-round means are ratio estimates over games).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from nimmt.envs import ACTIONS, NimmtVectorEnv

Z95 = 1.959963984540054


class SeatVecEnv(VecEnv):
    """:class:`NimmtVectorEnv` as a Stable-Baselines3 vector environment: the observation vector
    alone (the mask comes from :meth:`action_masks`, as MaskablePPO asks), a new game started in the
    step that ends one (its last observation in ``infos[i]["terminal_observation"]``)."""

    def __init__(self, tables: int, opponents: str, seed: int) -> None:
        self.tables = NimmtVectorEnv(num_envs=tables, players=4, opponents=opponents, autoreset_mode="SameStep")
        observation = self.tables.single_observation_space["observation"]
        assert isinstance(observation, spaces.Box)
        super().__init__(tables, observation, spaces.Discrete(ACTIONS))
        self._seed = seed
        self._mask = np.zeros((tables, ACTIONS), bool)
        self._actions = np.zeros(tables, np.int64)

    def reset(self) -> npt.NDArray[np.float32]:
        observation, _ = self.tables.reset(seed=self._seed)
        self._mask = observation["action_mask"].astype(bool)
        return observation["observation"]

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        self._actions = np.asarray(actions, np.int64)

    def step_wait(self) -> VecEnvStepReturn:
        observation, reward, terminated, _truncated, info = self.tables.step(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(terminated):
            infos[i]["terminal_observation"] = info["final_obs"][i]["observation"]
        self._mask = observation["action_mask"].astype(bool)
        return observation["observation"], reward.astype(np.float32), terminated, infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        return self._mask

    def env_method(self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(method_name)
        return list(self._mask[self._indices(indices)])

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks"

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None for _ in self._indices(indices)]
        raise AttributeError(attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(attr_name)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def close(self) -> None:
        self.tables.close()

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)


def play_games(choose: Any, games: int, tables: int, seed: int) -> dict[str, npt.NDArray[np.float64]]:
    """Whole games with ``choose(observation, mask) -> actions`` in seat 0 against random seats:
    each game's totals (games, 4) and rounds, ``games // tables`` games at each table."""
    env = NimmtVectorEnv(num_envs=tables, players=4, opponents="random")
    observation, _ = env.reset(seed=seed)
    per_table = games // tables
    done = np.zeros(tables, np.int64)
    totals: list[npt.NDArray[np.int64]] = []
    rounds: list[int] = []
    while (done < per_table).any():
        actions = choose(observation["observation"], observation["action_mask"].astype(bool))
        observation, _, terminated, _, _ = env.step(actions)
        for i in np.flatnonzero(terminated):
            if done[i] < per_table:
                totals.append(env.totals[i])
                rounds.append(int(env.rounds[i]))
            done[i] += 1
    return {"totals": np.array(totals, np.float64), "rounds": np.array(rounds, np.float64)}


def per_round(values: npt.NDArray[np.float64], rounds: npt.NDArray[np.float64]) -> tuple[float, float]:
    """Sum of ``values`` over sum of ``rounds`` (games as independent units) and its 95 % half-width."""
    n = len(values)
    ratio = float(values.sum() / rounds.sum())
    residual = values - ratio * rounds
    half = Z95 * math.sqrt(float((residual**2).sum()) / (n * (n - 1))) / float(rounds.mean())
    return ratio, half


def figures(played: dict[str, npt.NDArray[np.float64]]) -> dict[str, Any]:
    totals, rounds = played["totals"], played["rounds"]
    seat, others = totals[:, 0], totals[:, 1:].mean(axis=1)
    best = totals == totals.min(axis=1, keepdims=True)
    wins = best[:, 0] / best.sum(axis=1)
    win_half = Z95 * float(wins.std(ddof=1)) / math.sqrt(len(wins))
    seat_mean, seat_half = per_round(seat, rounds)
    others_mean, others_half = per_round(others, rounds)
    edge, edge_half = per_round(others - seat, rounds)
    return {
        "games": len(rounds),
        "rounds": int(rounds.sum()),
        "seat_per_round": [round(seat_mean, 3), round(seat_half, 3)],
        "random_seats_per_round": [round(others_mean, 3), round(others_half, 3)],
        "edge_per_round": [round(edge, 3), round(edge_half, 3)],
        "win_share": [round(float(wins.mean()), 4), round(win_half, 4)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=1_500_000, help="learning-seat steps of training")
    parser.add_argument("--tables", type=int, default=32, help="tables played at once in training")
    parser.add_argument("--eval-games", type=int, default=4000, help="games of each evaluation")
    parser.add_argument("--eval-tables", type=int, default=500, help="tables played at once in evaluation")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the machine is shared)")
    parser.add_argument("--save", help="write the trained model here (a .zip)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    train_env = SeatVecEnv(args.tables, "random", args.seed)
    model = MaskablePPO(
        "MlpPolicy", train_env, n_steps=256, batch_size=1024, n_epochs=4, learning_rate=3e-4, gamma=0.99,
        gae_lambda=0.95, ent_coef=0.01, policy_kwargs={"net_arch": [128, 128]}, seed=args.seed, device="cpu",
        verbose=0,
    )
    started, wall = time.process_time(), time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    train_cpu, train_wall = time.process_time() - started, time.perf_counter() - wall
    if args.save:
        model.save(args.save)

    def learner(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        actions, _ = model.predict(observation, action_masks=mask, deterministic=True)
        return np.asarray(actions, np.int64)

    draw = np.random.default_rng(args.seed)

    def uniform(_observation: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        return np.asarray((draw.random(mask.shape) + mask).argmax(axis=1), np.int64)  # a random legal action

    started = time.process_time()
    evaluation_seed = args.seed + 1_000_000  # deals the learner never trained on
    result = {
        "timesteps": args.timesteps,
        "train_cpu_s": round(train_cpu, 1),
        "train_wall_s": round(train_wall, 1),
        "learner": figures(play_games(learner, args.eval_games, args.eval_tables, evaluation_seed)),
        "random_in_its_seat": figures(play_games(uniform, args.eval_games, args.eval_tables, evaluation_seed)),
    }
    result["eval_cpu_s"] = round(time.process_time() - started, 1)
    print("(mean and 95 % half-width; bullheads per round, lower is better)")
    for name in ("learner", "random_in_its_seat"):
        f = result[name]
        print(f"{name:>18}: seat {f['seat_per_round'][0]:.3f} ± {f['seat_per_round'][1]:.3f}, random seats "
              f"{f['random_seats_per_round'][0]:.3f} ± {f['random_seats_per_round'][1]:.3f}, edge "
              f"{f['edge_per_round'][0]:+.3f} ± {f['edge_per_round'][1]:.3f}, win share "
              f"{f['win_share'][0]:.3f} ± {f['win_share'][1]:.3f} ({f['games']} games, {f['rounds']} rounds)")
    print(f"training: {args.timesteps} steps, {train_cpu:.0f} s CPU, {train_wall:.0f} s wall")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
