"""6 nimmt! as a PettingZoo AEC environment, for learning agents.

Agents are ``"player_0"`` .. ``"player_{n-1}"``. Each action is ``Discrete(108)``: cards 1 to 104 are
actions 0 to 103, rows 0 to 3 are actions 104 to 107. In the game everybody picks a card at once;
here the agents pick in turn, lowest seat first, and no pick shows in the others' observations
until all are revealed (the rules core keeps picks secret). When a revealed card is below every
row, its player alone gets a step to choose the row (actions 104 to 107), exactly when the rules
ask for it. Rewards are minus the bullheads each player takes, given at the step where they are
taken. An episode is a whole game, or a single round with ``episode="round"``.

>>> env = NimmtEnv(players=3)
>>> env.reset(seed=1)
>>> env.agent_selection
'player_0'
>>> observation, reward, terminated, truncated, info = env.last()
>>> int(observation["action_mask"].sum()), observation["observation"].shape
(10, (992,))
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from nimmt.core import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_COUNT,
    ChooseRow,
    GameState,
    IllegalAction,
    Phase,
    PlayCard,
    RowTaken,
    Rules,
    apply,
    deal_cards,
    new_game,
    view,
)

from .observation import ACTIONS, OBSERVATION_HIGH, OBSERVATION_SIZE, ROW_ACTION, EnvError, action_mask, encode_view

EPISODES = ("game", "round")


def agent_name(player: int) -> str:
    return f"player_{player}"


def to_action(player: int, action: int) -> PlayCard | ChooseRow:
    """The rules-core action of an environment action number (0..107)."""
    if 0 <= action < ROW_ACTION:
        return PlayCard(player, action + 1)
    if ROW_ACTION <= action < ACTIONS:
        return ChooseRow(player, action - ROW_ACTION)
    raise IllegalAction(f"action {action} does not exist: actions are 0 to {ACTIONS - 1}")


def from_action(action: PlayCard | ChooseRow) -> int:
    """The environment action number of a rules-core action."""
    return action.card - 1 if isinstance(action, PlayCard) else ROW_ACTION + action.row


def describe_action(action: int) -> str:
    if 0 <= action < ROW_ACTION:
        return f"card {action + 1}"
    if ROW_ACTION <= action < ACTIONS:
        return f"row {action - ROW_ACTION}"
    return f"action {action}"


def observation_space() -> spaces.Dict:
    return spaces.Dict(
        {
            "observation": spaces.Box(
                low=0.0, high=OBSERVATION_HIGH, shape=(OBSERVATION_SIZE,), dtype=np.float32
            ),
            "action_mask": spaces.Box(low=0, high=1, shape=(ACTIONS,), dtype=np.int8),
        }
    )


class NimmtEnv(AECEnv):  # type: ignore[misc]
    """The AEC environment; see the module's description. ``render_mode`` may be ``"ansi"`` or ``"human"``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "nimmt_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 4,
        rules: Rules | None = None,
        episode: str = "game",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise EnvError(f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}")
        if episode not in EPISODES:
            raise EnvError(f"episode must be 'game' or 'round', not {episode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvError(f"render_mode must be 'ansi', 'human' or None, not {render_mode!r}")
        rules = rules or Rules()
        self.rules = replace(rules, rounds=1) if episode == "round" else rules
        self.episode = episode
        self.render_mode = render_mode
        self.players = players
        self.possible_agents: list[str] = [agent_name(p) for p in range(players)]
        self._seats = {name: p for p, name in enumerate(self.possible_agents)}
        self._observation_spaces = {name: observation_space() for name in self.possible_agents}
        self._action_spaces = {name: spaces.Discrete(ACTIONS) for name in self.possible_agents}
        self._rng = random.Random()
        self.state_of_game: GameState = new_game(players, self.rules)
        self.agents: list[str] = []

    # -- spaces -----------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[agent]

    # -- episode ----------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; the same ``seed`` deals the same cards."""
        if seed is not None:
            self._rng = random.Random(seed)
            for number, agent in enumerate(self.possible_agents):
                self._action_spaces[agent].seed(seed + number)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        state = new_game(self.players, self.rules)
        self.state_of_game = apply(state, deal_cards(self.players, self._rng)).state
        self.agent_selection = agent_name(self.state_of_game.waiting_for[0])
        self._skip_agent_selection = None

    def step(self, action: int | np.integer[Any] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalAction(f"{agent} must act: None is only for players whose game has ended")
        number = int(action)
        seat = self._seats[agent]
        mask = action_mask(view(self.state_of_game, seat))
        if not (0 <= number < ACTIONS and mask[number]):
            raise IllegalAction(self._refusal(agent, number))
        self._cumulative_rewards[agent] = 0.0
        step = apply(self.state_of_game, to_action(seat, number))
        rewards = dict.fromkeys(self.agents, 0.0)
        for event in step.events:
            if isinstance(event, RowTaken):
                rewards[agent_name(event.player)] -= float(event.bullheads)
        state = step.state
        if state.phase is Phase.DEAL:
            state = apply(state, deal_cards(self.players, self._rng)).state
        self.state_of_game = state
        self.rewards = rewards
        self._accumulate_rewards()
        if state.phase is Phase.OVER:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = agent_name(state.waiting_for[0])
        if self.render_mode == "human":
            self.render()

    def _refusal(self, agent: str, number: int) -> str:
        seat = self._seats[agent]
        state = self.state_of_game
        if not 0 <= number < ACTIONS:
            return f"action {number} does not exist: actions are 0 to {ACTIONS - 1}"
        what = describe_action(number)
        if state.phase is Phase.CHOOSE_ROW:
            return f"{agent} must choose a row (actions {ROW_ACTION} to {ACTIONS - 1}) for card " \
                f"{state.row_choice_card}, not play {what}"
        if number >= ROW_ACTION:
            return f"{agent} cannot take {what}: the game waits for a card from its hand"
        return f"{agent} cannot play {what}: it holds {list(state.hands[seat])}"

    # -- what agents see --------------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        seen = view(self.state_of_game, self._seats[agent])
        mask = action_mask(seen) if agent == self.agent_selection else np.zeros(ACTIONS, dtype=np.int8)
        return {"observation": encode_view(seen), "action_mask": mask}

    def render(self) -> str | None:
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _text(self) -> str:
        state = self.state_of_game
        lines = [f"round {state.round}, turn {min(state.turn + 1, 10)}, phase {state.phase.value}"]
        for r in range(ROW_COUNT):
            row = state.rows[r] if state.rows else ()
            lines.append(f"  row {r}: " + " ".join(f"{card:3d}" for card in row))
        lines.append("  totals: " + ", ".join(f"{agent_name(p)} {t}" for p, t in enumerate(state.totals)))
        if state.phase is not Phase.OVER:
            lines.append(f"  waiting for {self.agent_selection}")
        else:
            lines.append("  winners: " + ", ".join(agent_name(p) for p in state.winners))
        return "\n".join(lines)

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> Any:
    """The environment wrapped the PettingZoo way (errors when stepping out of order)."""
    return wrappers.OrderEnforcingWrapper(NimmtEnv(**kwargs))


raw_env = NimmtEnv
