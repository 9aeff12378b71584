"""Doors for other programs: the JSON form of views and actions, and bots that are other programs.

See ``docs/protocol-bots.md`` for the protocol (``nimmt-bot/1``) and the view format (``nimmt-view/1``).
"""

from nimmt.bots import register_external

from .encoding import (
    VIEW_FORMAT,
    ProtocolError,
    action_from_json,
    action_to_json,
    legal_to_json,
    rules_to_json,
    view_from_json,
    view_to_json,
)
from .process import DEFAULT_START_TIMEOUT, DEFAULT_TIMEOUT, PROTOCOL, BotFailure, FailureKind, ProcessBot
from .reasons import DOINGS, REASONS

register_external("cmd:", ProcessBot)  # make_bot("cmd:<command line>") plays that program

__all__ = [
    "DEFAULT_START_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "DOINGS",
    "PROTOCOL",
    "REASONS",
    "VIEW_FORMAT",
    "BotFailure",
    "FailureKind",
    "ProcessBot",
    "ProtocolError",
    "action_from_json",
    "action_to_json",
    "legal_to_json",
    "rules_to_json",
    "view_from_json",
    "view_to_json",
]
