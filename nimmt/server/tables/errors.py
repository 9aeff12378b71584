"""Refusals: an action the table does not accept, with a code the client translates."""

from __future__ import annotations

import logging
from typing import Any

from nimmt.core import (
    AlreadyPlayed,
    CardNotInHand,
    GameOver,
    IllegalAction,
    NotWaitingForThat,
    NotYourTurn,
    RowOutOfRange,
)
from nimmt.core.errors import NimmtError

logger = logging.getLogger("nimmt.server")


class ActionError(NimmtError):
    """An action refused with a code the client translates, and an English message for people
    reading logs or the protocol by hand. The table is left exactly as it was."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params

    def to_message(self, ref: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message, "params": self.params}
        if ref is not None:
            data["ref"] = ref
        return data


# The code of each refusal of the rules core (the first class that matches, most specific first).
CORE_ERROR_CODES: tuple[tuple[type[IllegalAction], str], ...] = (
    (GameOver, "game_over"),
    (AlreadyPlayed, "already_chosen"),
    (CardNotInHand, "card_not_in_hand"),
    (RowOutOfRange, "no_such_row"),
    (NotYourTurn, "not_your_turn"),
    (NotWaitingForThat, "not_your_turn"),
)


def core_error(error: IllegalAction) -> ActionError:
    """The refusal a rules core's error makes, with its code."""
    for cls, code in CORE_ERROR_CODES:
        if isinstance(error, cls):
            return ActionError(code, str(error))
    return ActionError("illegal", str(error))


def store_failed(table_id: str, error: Exception) -> ActionError:
    """A store that failed: one line in the log, and a refusal that says nothing was changed."""
    logger.warning("storing on table %s failed: %s: %s", table_id, type(error).__name__, error)
    return ActionError("server_error", "the server could not store this action: nothing was changed, try again")
