"""Many tables at once for learning: a Gymnasium vector environment over the batch engine's kernels.

Each of ``num_envs`` tables has one learning seat (``seat``, 0 by default); the other seats play by
batch policies that play exactly like nimmt's bots (``"random"``, ``"beginner"``, ``"heuristic"``:
:data:`nimmt.batch.SEAT_POLICIES`). The learning seat sees what it sees in
:class:`~nimmt.envs.NimmtEnv` (the AEC environment) and :class:`~nimmt.envs.NimmtSeatEnv`: a dict of
``"observation"`` (``(num_envs, 992)`` float32, :func:`~nimmt.envs.encode_view`) and
``"action_mask"`` (``(num_envs, 108)`` int8); actions 0-103 play cards 1-104, 104-107 take rows 0-3.
A step plays the seat's action at every table, then the other seats, until the seat must act again
or the game ends; the reward is minus the bullheads the seat took in between.

The same seed gives the same games: table ``i`` of ``reset(seed=s)`` is dealt the cards that
``NimmtEnv.reset(seed=s + i)`` deals, and with beginner or heuristic opponents every observation,
mask and reward is the one the AEC environment gives when those bots play the other seats
(``tests/envs/test_vector_env.py`` checks it step by step).

Autoreset is Gymnasium's default, ``AutoresetMode.NEXT_STEP``: the step that ends a table's game
returns its last observation with ``terminated``; the next step starts a new game at that table
(ignoring its action: reward 0, not terminated) and returns the new game's first observation.
With ``autoreset_mode=AutoresetMode.SAME_STEP`` (what Stable-Baselines3 and similar libraries
expect) the step that ends a game already returns the new game's first observation, the last one
being in ``info["final_obs"]`` and the final totals in ``info["final_totals"]`` (masks
``info["_final_obs"]``, ``info["_final_totals"]``).

An action the mask rules out is replaced by a random legal one, the reward is lowered by
``illegal_penalty`` and ``info["illegal_action"]`` says where (``illegal_action="raise"`` raises
:class:`~nimmt.core.IllegalAction` instead, before anything is played).

>>> envs = NimmtVectorEnv(num_envs=3, players=4, opponents="random")
>>> observation, info = envs.reset(seed=1)
>>> observation["observation"].shape, observation["action_mask"].sum(axis=1).tolist()
((3, 992), [10, 10, 10])
>>> observation, reward, terminated, truncated, info = envs.step(observation["action_mask"].argmax(axis=1))
>>> reward.shape, terminated.tolist()
((3,), [False, False, False])
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from nimmt.batch import SEAT_POLICIES, seat_policies
from nimmt.batch import tables as T
from nimmt.core import MAX_PLAYERS, MIN_PLAYERS, IllegalAction, Rules, deal_cards

from .observation import ACTIONS, OBSERVATION_SIZE, EnvError
from .pettingzoo_env import observation_space

Observation = dict[str, npt.NDArray[Any]]


class NimmtVectorEnv(VectorEnv[Observation, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_envs`` tables of ``players``, the learning seat ``seat`` against ``opponents`` (one policy
    name for every other seat, or one per other seat in seat order); see the module's description."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (gymnasium declares it so)

    def __init__(
        self,
        num_envs: int = 64,
        players: int = 4,
        opponents: str | Sequence[str] = "random",
        seat: int = 0,
        rules: Rules | None = None,
        illegal_action: str = "penalty",
        illegal_penalty: float = 10.0,
        copy: bool = True,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise EnvError(f"num_envs must be a whole number from 1, not {num_envs!r}")
        if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise EnvError(f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise EnvError(f"seat must be 0 to {players - 1}, not {seat!r}")
        names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != players - 1:
            raise EnvError(f"give one opponent policy, or {players - 1} (one per other seat), not {len(names)}")
        unknown = [name for name in names if name not in SEAT_POLICIES]
        if unknown:
            raise EnvError(f"unknown opponent {unknown[0]!r}: choose {', '.join(SEAT_POLICIES)}")
        if illegal_action not in ("penalty", "raise"):
            raise EnvError(f"illegal_action must be 'penalty' or 'raise', not {illegal_action!r}")
        modes = {mode.value: mode for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)}
        mode = modes.get(autoreset_mode.value if isinstance(autoreset_mode, AutoresetMode) else autoreset_mode)
        if mode is None:
            raise EnvError(f"autoreset_mode must be {' or '.join(modes)}, not {autoreset_mode!r}")
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self._same_step = mode == AutoresetMode.SAME_STEP
        self.num_envs = num_envs
        self.players = players
        self.seat = seat
        self.opponents = tuple(names)
        self.rules = rules or Rules()
        self.illegal_action = illegal_action
        self.illegal_penalty = abs(float(illegal_penalty))
        self.copy = copy
        self.single_observation_space = observation_space()
        self.single_action_space = spaces.Discrete(ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        seats = [*names[:seat], "random", *names[seat:]]  # the learning seat's entry is never used
        self._seats = seat_policies([SEAT_POLICIES[s][0] for s in seats], [SEAT_POLICIES[s][1] for s in seats])
        n, p = num_envs, players
        self._tables = T.new_tables(n, p)
        self._steps = T.Steps(np.zeros(n, np.float64), np.zeros(n, np.bool_), np.zeros(n, np.bool_))
        self._observation = np.zeros((n, OBSERVATION_SIZE), np.float32)
        self._mask = np.zeros((n, ACTIONS), np.int8)
        self._deals: list[random.Random] = [random.Random() for _ in range(n)]
        self._restart = np.zeros(n, np.bool_)  # tables whose game ended at the last step

    # -- episodes ---------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start a new game at every table; table i of ``seed`` s deals as ``NimmtEnv.reset(seed=s + i)``."""
        base = seed if seed is not None else secrets.randbelow(2**31)
        super().reset(seed=base)  # self.np_random, as Gymnasium sets it
        self._deals = [random.Random(base + i) for i in range(self.num_envs)]
        self._tables.states[:] = np.random.SeedSequence(abs(base)).generate_state(self.num_envs, np.uint64)
        self.single_action_space.seed(base)
        self.action_space.seed(base)
        for i in range(self.num_envs):
            self._new_game(i)
        self._restart[:] = False
        return self._observe(), {}

    def _new_game(self, i: int) -> None:
        self._tables.totals[i] = 0
        self._tables.played[i] = 0
        self._deal(i)

    def _deal(self, i: int) -> None:
        deal = deal_cards(self.players, self._deals[i])
        T.start_round(i, np.array(deal.rows, np.int64), np.array([sorted(h) for h in deal.hands], np.int64),
                      self._tables)

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[Observation, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or not np.issubdtype(chosen.dtype, np.integer):
            raise EnvError(f"actions must be {self.num_envs} whole numbers (one per table), not {chosen!r}")
        chosen = chosen.astype(np.int64)
        restart = np.flatnonzero(self._restart)
        if self.illegal_action == "raise":
            live = ~self._restart
            legal = self._mask[np.arange(self.num_envs), np.clip(chosen, 0, ACTIONS - 1)] == 1
            bad = np.flatnonzero(live & ~(legal & (chosen >= 0) & (chosen < ACTIONS)))
            if bad.size:
                raise IllegalAction(f"table {int(bad[0])}: action {int(chosen[bad[0]])} is not allowed now")
        T.step_tables(chosen, self.seat, self._seats, self.rules.end_above, self.rules.rounds or 0, self._tables,
                      self._steps)
        for i in np.flatnonzero(self._tables.phase == T.DEAL):
            self._deal(int(i))
        for i in restart:
            self._new_game(int(i))
        rewards = self._steps.rewards - self.illegal_penalty * self._steps.illegal
        terminated = self._steps.terminated.copy()
        info: dict[str, Any] = {}
        if self._steps.illegal.any():
            info["illegal_action"] = self._steps.illegal.copy()
            info["_illegal_action"] = self._steps.illegal.copy()
        if not self._same_step:
            self._restart[:] = terminated
            return self._observe(), rewards, terminated, np.zeros(self.num_envs, np.bool_), info
        ended = np.flatnonzero(terminated)
        if ended.size:  # keep each ended game's last observation and totals, then start the next game
            last = self._observe()
            final = np.full(self.num_envs, None, dtype=object)
            for i in ended:
                final[i] = {key: value[i].copy() for key, value in last.items()}
            info["final_obs"], info["_final_obs"] = final, terminated.copy()
            info["final_totals"], info["_final_totals"] = self._tables.totals.copy(), terminated.copy()
            for i in ended:
                self._new_game(int(i))
        return self._observe(), rewards, terminated, np.zeros(self.num_envs, np.bool_), info

    def _observe(self) -> Observation:
        T.encode(self.seat, self._tables, self._observation, self._mask)
        if self.copy:
            return {"observation": self._observation.copy(), "action_mask": self._mask.copy()}
        return {"observation": self._observation, "action_mask": self._mask}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now at every table, as booleans (num_envs, 108)."""
        return self._mask.astype(bool)

    @property
    def rounds(self) -> npt.NDArray[np.int64]:
        """Each table's rounds played in its game so far (all of them once its game is over)."""
        return self._tables.played.copy()

    @property
    def totals(self) -> npt.NDArray[np.int64]:
        """Each table's totals before the round in play (the final totals once its game is over)."""
        return self._tables.totals.copy()

    def close_extras(self, **kwargs: Any) -> None:
        pass


__all__ = ["NimmtVectorEnv"]
