"""Environments for learning agents (needs the ``ml`` extra: pettingzoo and gymnasium).

- :class:`NimmtEnv` (``nimmt.envs.pettingzoo_env``): every seat an agent, PettingZoo AEC API.
- :class:`NimmtSeatEnv` (``nimmt.envs.gymnasium_env``): one seat against bots, Gymnasium API.
- :class:`NimmtVectorEnv` (``nimmt.envs.vector_env``): many tables at once, one learning seat each
  against batch policies, Gymnasium's vector API (needs the ``sim`` extra too, for speed).

See ``docs/environments.md``.
"""

from .gymnasium_env import NimmtSeatEnv
from .observation import (
    ACTIONS,
    OBSERVATION_SIZE,
    ROW_ACTION,
    SLICES,
    EnvError,
    EpisodeOver,
    action_mask,
    encode_view,
)
from .pettingzoo_env import NimmtEnv, env, raw_env
from .vector_env import NimmtVectorEnv

__all__ = [
    "ACTIONS",
    "OBSERVATION_SIZE",
    "ROW_ACTION",
    "SLICES",
    "EnvError",
    "EpisodeOver",
    "NimmtEnv",
    "NimmtSeatEnv",
    "NimmtVectorEnv",
    "action_mask",
    "encode_view",
    "env",
    "raw_env",
]
