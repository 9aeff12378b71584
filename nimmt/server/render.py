"""What the server sends a person about a table: their ``state`` message, rendered from the
process's copy of the table and that person's own view (never another's, never the whole game).

Each connection renders its own (see :mod:`nimmt.server.connection`), from the table as its own
process has rebuilt it: no rendered view travels between processes.
"""

from __future__ import annotations

import weakref
from typing import Any

from nimmt.core import BULLHEADS, DECK, ChooseRow, Ending, PlayCard, View, ending, view

from .models import TableOptions
from .table import Table


def state_message(table: Table, seat: int | None) -> dict[str, Any]:
    """Everything one person may see of the table now: their own view, never another's."""
    about = public_info(table)
    about["you"] = seat
    about["creator"] = seat is not None and seat == about["host"]  # holds the host's buttons now
    message: dict[str, Any] = {"type": "state", "version": table.version, "table": about}
    if table.recorder is None:
        message.update(view=None, legal={"cards": [], "rows": []}, reveal=None, scores=None, events=[])
        return message
    seen = view(table.recorder.state, seat)
    message["view"] = _view_json(seen)
    # While a bot plays the seat, its person may do nothing (seat_is_bot): no decision is shown.
    legal = seen.legal_actions() if seat is None or table.seats[seat].bot is None else []
    message["legal"] = {
        "cards": [a.card for a in legal if isinstance(a, PlayCard)],
        "rows": [a.row for a in legal if isinstance(a, ChooseRow)],
    }
    message["reveal"], message["events"] = _news_of(table)
    threshold = table.options.end_above
    message["scores"] = {
        "countdown": table.options.countdown,
        "threshold": threshold,
        "totals": list(seen.totals),
        "shown": [threshold - t for t in seen.totals] if table.options.countdown else list(seen.totals),
        "history": [list(h) for h in seen.history],
        "history_shown": _countdown_history(seen.history, threshold) if table.options.countdown
        else [list(h) for h in seen.history],
        # Why the game ended after its last complete round, or why it goes on (None before one).
        "ending": _ending_json(ending(table.rules, seen.totals, len(seen.history)))
        if seen.history else None,
    }
    return message


def public_info(table: Table) -> dict[str, Any]:
    """A table's public state (:class:`~nimmt.server.models.TableInfo`'s JSON), built directly: every
    state message carries it, without pydantic on every render; the lobby API validates it."""
    options = table.options
    return {
        "id": table.id,
        "status": table.status,
        "language": table.language,
        "options": {name: getattr(options, name) for name in _OPTION_FIELDS},
        "seats": [table.seat_info(i) for i in range(len(table.seats))],
        "game": table.game,
        "version": table.version,
        "games_finished": list(table.finished_games),
        "host": table.host,
        "away_grace": float(table.away_grace),  # as pydantic gave it: 30.0, not 30
    }


_OPTION_FIELDS = tuple(TableOptions.model_fields)


def _news_of(table: Table) -> tuple[Any, Any]:
    """Copies of the table's reveal and events, made once per version and shared by every connection's
    render (never changed afterwards): the table fills its reveal in place, and a connection diffs
    against what it sent last."""
    key = (id(table), table.version)
    found = _NEWS.get(key)
    if found is not None and found[0]() is table:
        return found[1], found[2]
    news = (_copy(table.reveal), _copy(table.events))
    if len(_NEWS) >= _NEWS_KEPT:
        _NEWS.pop(next(iter(_NEWS)))  # the oldest: its table has moved on or gone
    _NEWS[key] = (weakref.ref(table), *news)
    return news


_NEWS: dict[tuple[int, int], tuple[weakref.ReferenceType[Table], Any, Any]] = {}
_NEWS_KEPT = 4096  # versions of tables remembered, about one per table in play


def _copy(value: Any) -> Any:
    """A deep copy of a JSON value (much quicker than ``copy.deepcopy`` for these)."""
    if type(value) is dict:
        return {key: _copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy(item) for item in value]
    return value


def _ending_json(end: Ending) -> dict[str, Any]:
    return {"over": end.over, "reason": end.reason, "players": list(end.players), "totals": list(end.totals),
            "end_above": end.end_above, "rounds": end.rounds, "rounds_played": end.rounds_played}


def _countdown_history(history: tuple[tuple[int, ...], ...], threshold: int) -> list[list[int]]:
    shown, totals = [], [0] * (len(history[0]) if history else 0)
    for penalties in history:
        totals = [t + p for t, p in zip(totals, penalties, strict=True)]
        shown.append([threshold - t for t in totals])
    return shown


def _view_json(seen: View) -> dict[str, Any]:
    return {
        "player": seen.player,
        "players": seen.players,
        "phase": seen.phase.value,
        "round": seen.round,
        "turn": seen.turn,
        "rows": [list(r) for r in seen.rows],
        "row_bullheads": list(seen.row_bullheads()),
        "hand": list(seen.hand),
        "my_card": seen.my_card,
        "has_chosen": list(seen.has_chosen),
        "revealed": [list(x) for x in seen.revealed],
        "resolved": seen.resolved,
        "waiting_for": list(seen.waiting_for),
        "row_choice_card": seen.row_choice_card,
        "penalties": list(seen.penalties),
        "totals": list(seen.totals),
        "history": [list(h) for h in seen.history],
        "winners": list(seen.winners),
        "hand_sizes": list(seen.hand_sizes),
        "taken_counts": [len(t) for t in seen.taken],
        "rules": {"end_above": seen.rules.end_above, "rounds": seen.rules.rounds},
        # The printed bullheads of every card: public, so the client never computes them.
        "bullheads": _ALL_BULLHEADS,
    }


_ALL_BULLHEADS = {str(c): BULLHEADS[c] for c in DECK}
