"""The coach at the table: advice on a seat's own decision, from that seat's view only.

Nothing is stored and nothing changes: the answer goes back to the one who asked.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from nimmt.coach import CardAdvice, CoachError, RowAdvice, advise_cards, advise_rows
from nimmt.core import ChooseRow, PlayCard, View, view

from ..botpool import BotPool
from .errors import ActionError
from .table import Table

ADVICE_SAMPLES = 200  # deals simulated per question: about a tenth of a second on one core
QUICK_SAMPLES = 50  # deals of a quick estimate (pure Python, in the server process): a few tenths of a second
ADVICE_AT_ONCE = 2  # questions worked on at the same time by this process, all tables together


class Coach:
    """Answers the coach's questions of every table of one process, in its bot pool's workers."""

    def __init__(self, pool: BotPool) -> None:
        self.pool = pool
        self.asked: set[tuple[str, int]] = set()  # (table, seat) whose question is being worked on
        self._slots = asyncio.Semaphore(ADVICE_AT_ONCE)

    def busy_with(self, table_id: str) -> bool:
        """Whether a question of this table is being worked on (it stays in memory meanwhile)."""
        return any(key[0] == table_id for key in self.asked)

    async def advise(self, table: Table, seat: int | None) -> dict[str, Any]:
        """The coach's advice on ``seat``'s own decision now.

        One question per seat at a time (``advice_busy``); the same question again (same decision) is
        answered from the last answer, which a fixed seed makes the same anyway.
        """
        if seat is None:
            raise ActionError("spectator", "a spectator has no cards to be advised on")
        if table.recorder is None:
            raise ActionError("not_started", "the game has not started")
        if not table.options.coach:
            raise ActionError("coach_off", "the coach is turned off at this table")
        if table.seats[seat].bot is not None:
            raise ActionError("seat_is_bot", "a bot plays this seat now")
        if table.status == "over":
            raise ActionError("game_over", "the game is over")
        seen = view(table.recorder.state, seat)
        legal = seen.legal_actions()
        if any(isinstance(a, ChooseRow) for a in legal):
            kind = "rows"
        elif any(isinstance(a, PlayCard) for a in legal):
            kind = "cards"
        else:
            raise ActionError("no_advice", "no decision of yours is awaited now: there is nothing to advise on")
        seed = advice_seed(table.id, table.game, seen, kind)
        last = table.advice.get(seat)
        if last is not None and last[0] == seed:
            return {**last[1], "version": table.version}
        key = (table.id, seat)
        if key in self.asked:
            raise ActionError("advice_busy", "the coach is still working on this seat's last question")
        self.asked.add(key)
        version = table.version
        try:
            async with self._slots:
                # In a worker process: the other tables go on while the coach works. While the workers
                # or the compiled kernels are not ready, a quick estimate at once (not kept: asked
                # again later, the question gets the full answer).
                answer, quick = await self.pool.ask(table.id, advice_message, quick_advice_message, seen, kind, seed)
        except CoachError as error:
            raise ActionError("no_advice", str(error)) from None
        finally:
            self.asked.discard(key)
        if not quick:
            table.advice[seat] = (seed, answer)
        return {**answer, "version": version}


def advice_seed(table_id: str, game: int, seen: View, kind: str) -> str:
    """The coach's random seed for one decision of one seat: from public facts only (the view holds
    the rest), so asking twice gives the same numbers and no other random source is touched."""
    return f"nimmt:{table_id}:{game}:coach:{seen.player}:{seen.round}:{seen.turn}:{seen.resolved}:{kind}"


def advice_message(seen: View, kind: str, seed: str, quick: bool = False) -> dict[str, Any]:
    """The advice message for ``seen`` (run in a worker process): numbers only, as :mod:`nimmt.coach` gives
    them. ``quick``: a quick estimate instead (:func:`quick_advice_message`)."""
    rng = random.Random(seed)
    samples = QUICK_SAMPLES if quick else ADVICE_SAMPLES
    answer: dict[str, Any] = {"type": "advice", "kind": kind, "round": seen.round, "turn": seen.turn,
                              "samples": samples, "quick": quick}
    if kind == "cards":
        advice = advise_cards(seen, samples=samples, rng=rng, compiled=not quick)
        answer["cards"] = [_card_advice_json(a) for a in advice]
    else:
        answer["card"] = seen.row_choice_card
        answer["rows"] = [_row_advice_json(a) for a in advise_rows(seen, samples=samples, rng=rng, compiled=not quick)]
    return answer


def quick_advice_message(seen: View, kind: str, seed: str) -> dict[str, Any]:
    """A quick estimate, marked ``quick``, for when the workers or the compiled kernels are not ready: the
    same numbers from fewer deals (:data:`QUICK_SAMPLES`) played out by the pure-Python rollouts, which
    need nothing compiled, in this process."""
    return advice_message(seen, kind, seed, quick=True)


def _card_advice_json(advice: CardAdvice) -> dict[str, Any]:
    return {"card": advice.card, "row": advice.row, "take_chance": advice.take_chance,
            "turn_bullheads": advice.turn_bullheads, "exact": advice.exact,
            "round_bullheads": advice.round_bullheads, "round_stderr": advice.round_stderr,
            # The learned network's second opinion (null without NumPy): see docs/protocol.md.
            "net_bullheads": advice.net_bullheads, "net_chance": advice.net_chance}


def _row_advice_json(advice: RowAdvice) -> dict[str, Any]:
    return {"row": advice.row, "now": advice.now, "later": advice.later, "later_stderr": advice.later_stderr,
            "total": advice.total, "net_total": advice.net_total}
