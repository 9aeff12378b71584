"""One seat of 6 nimmt! as a single-agent Gymnasium environment, the other seats played by bots.

The agent's observation and actions are those of :class:`~nimmt.envs.pettingzoo_env.NimmtEnv`: a
dict with ``"observation"`` (992 numbers) and ``"action_mask"`` (108 zeros and ones), and actions
0-103 for cards 1-104 and 104-107 for rows 0-3. A step plays the agent's action, then lets the bots
act until the agent must act again (or the game ends); the reward is minus the bullheads the agent
took in between.

Any action of the action space is accepted, as Gymnasium asks: an action that the mask rules out is
replaced by a random legal one, the reward is lowered by ``illegal_penalty``, and the info says so
(``"illegal_action"`` and ``"played_instead"``). With ``illegal_action="raise"`` such an action
raises :class:`~nimmt.core.IllegalAction` instead and changes nothing.

>>> env = NimmtSeatEnv(opponents=["random", "random"], seat=1)
>>> observation, info = env.reset(seed=3)
>>> info["seat"], int(observation["action_mask"].sum())
(1, 10)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

import nimmt.protocol  # noqa: F401  (lets make_bot play "cmd:<command line>" programs)
from nimmt.bots import Bot, make_bot
from nimmt.core import MAX_PLAYERS, Phase, Rules, view

from .observation import ACTIONS, EnvError, EpisodeOver, action_mask
from .pettingzoo_env import NimmtEnv, agent_name, from_action, observation_space

Observation = dict[str, npt.NDArray[Any]]


class NimmtSeatEnv(gymnasium.Env[Observation, np.int64]):
    """Play ``seat`` (or a random seat each episode when ``seat`` is None) against ``opponents``.

    ``opponents`` are bot names for :func:`nimmt.bots.make_bot` (``"random"``, ``"cmd:node bot.js"``...)
    or :class:`~nimmt.bots.Bot` objects; they fill the other seats in order. Bots made from names are
    reseeded at each ``reset(seed=...)``, so a seed repeats a whole episode.
    """

    metadata = {"render_modes": ["ansi", "human"]}  # noqa: RUF012 (gymnasium declares it on instances)

    def __init__(
        self,
        opponents: Sequence[str | Bot] = ("random", "random", "random"),
        seat: int | None = 0,
        rules: Rules | None = None,
        episode: str = "game",
        render_mode: str | None = None,
        illegal_action: str = "penalty",
        illegal_penalty: float = 10.0,
    ) -> None:
        if illegal_action not in ("penalty", "raise"):
            raise EnvError(f"illegal_action must be 'penalty' or 'raise', not {illegal_action!r}")
        players = len(opponents) + 1
        if not 2 <= players <= MAX_PLAYERS:
            raise EnvError(f"a table has 2 to {MAX_PLAYERS} players: give 1 to {MAX_PLAYERS - 1} opponents")
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < players):
            raise EnvError(f"seat must be 0 to {players - 1} (or None for a random seat), not {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvError(f"render_mode must be 'ansi', 'human' or None, not {render_mode!r}")
        self.table = NimmtEnv(players=players, rules=rules, episode=episode)
        self.render_mode = render_mode
        self.observation_space = cast(spaces.Space[Observation], observation_space())
        self.action_space = spaces.Discrete(ACTIONS)
        self.illegal_action = illegal_action
        self.illegal_penalty = abs(illegal_penalty)
        self._fixed_seat = seat
        self.seat = seat if seat is not None else 0
        # Bots we make are ours to reseed and close; bots we are given belong to the caller.
        self._made = [not isinstance(o, Bot) for o in opponents]
        self.opponents: list[Bot] = [o if isinstance(o, Bot) else make_bot(o) for o in opponents]
        self._bots: dict[int, Bot] = {}

    @property
    def over(self) -> bool:
        return self.table.state_of_game.phase is Phase.OVER

    @property
    def agent(self) -> str:
        return agent_name(self.seat)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        table_seed = int(self.np_random.integers(2**31))
        self.table.reset(seed=table_seed)
        players = self.table.players
        self.seat = self._fixed_seat if self._fixed_seat is not None else int(self.np_random.integers(players))
        others = [p for p in range(players) if p != self.seat]
        self._bots = dict(zip(others, self.opponents, strict=True))
        for number, (bot, made) in enumerate(zip(self.opponents, self._made, strict=True)):
            if made:
                bot.rng.seed(table_seed + 1 + number)
        self._let_bots_play()
        return self._observe(), self._info()

    def step(self, action: int | np.integer[Any]) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if self.over:
            raise EpisodeOver("the game is over: call reset() to play another")
        number = int(action)
        legal = np.flatnonzero(self.action_masks())
        replaced: int | None = None
        if number not in legal and self.illegal_action == "penalty":
            replaced = int(self.np_random.choice(legal))
        self.table.step(number if replaced is None else replaced)  # raises IllegalAction in "raise" mode
        self._let_bots_play()
        # NimmtEnv adds up each agent's rewards between its own steps: exactly this step's reward.
        reward = float(self.table._cumulative_rewards[self.agent])
        info = self._info()
        if replaced is not None:
            reward -= self.illegal_penalty
            info.update(illegal_action=number, played_instead=replaced)
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, self.over, False, info

    def _let_bots_play(self) -> None:
        table = self.table
        while table.state_of_game.phase is not Phase.OVER and table.agent_selection != self.agent:
            player = int(table.agent_selection.split("_")[1])
            action = self._bots[player].act(view(table.state_of_game, player))
            table.step(from_action(action))

    def _observe(self) -> Observation:
        observation: Observation = self.table.observe(self.agent)
        return observation

    def _info(self) -> dict[str, Any]:
        state = self.table.state_of_game
        info: dict[str, Any] = {"seat": self.seat, "round": state.round, "totals": list(state.totals)}
        if state.phase is Phase.OVER:
            info["winners"] = list(state.winners)
        return info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans (the name MaskablePPO of sb3-contrib looks for)."""
        return action_mask(view(self.table.state_of_game, self.seat)).astype(bool)

    def render(self) -> str | None:
        text = self.table._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        for bot, made in zip(self.opponents, self._made, strict=True):
            close = getattr(bot, "close", None)
            if made and callable(close):
                close()
        self.table.close()


__all__ = ["NimmtSeatEnv"]
