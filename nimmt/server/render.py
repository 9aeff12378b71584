"""What the server sends a person about a table: their ``state`` message, rendered from the
process's copy of the table and that person's own view (never another's, never the whole game).

The view is :func:`nimmt.protocol.view_to_json`'s, the ``nimmt-view/1`` form bot programs get: one
form for everything that speaks JSON. Each connection renders its own (see
:mod:`nimmt.server.connection`), from the table as its own process has rebuilt it: no rendered view
travels between processes. What every seat is shown alike at one version of a table (the view's
public part, the scores, the reveal, the events) is made once per version and shared by every
connection's render; only the seat's own part of the view is made for each.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from nimmt.core import BULLHEADS, DECK, Ending, ending, view
from nimmt.protocol.encoding import seat_view_json, shared_view_json

from .models import TableOptions
from .public import turn_based
from .quickstart import start_left, start_waits
from .tables import Table

BULLHEADS_JSON: dict[str, int] = {str(c): BULLHEADS[c] for c in DECK}
"""The printed bullheads of every card, as every state carries them (shared, never changed: a client of
patches is sent them once, with its first state)."""


def state_message(table: Table, seat: int | None) -> dict[str, Any]:
    """Everything one person may see of the table now: their own view, never another's."""
    about = public_info(table)
    about["you"] = seat
    about["creator"] = seat is not None and seat == about["host"]  # holds the host's buttons now
    if table.recorder is None:
        return {"type": "state", "version": table.version, "table": about, "view": None, "legal": [],
                "reveal": None, "scores": None, "events": [], "bullheads": BULLHEADS_JSON, "bot_played": None}
    news = _news_of(table)
    seen = news.view if seat is None else seat_view_json(news.view, view(table.recorder.state, seat))
    return {
        "type": "state",
        "version": table.version,
        "table": about,
        "view": seen,
        # While a bot plays the seat, its person may do nothing (seat_is_bot): no decision is shown.
        "legal": seen["legal"] if seat is None or table.seats[seat].bot is None else [],
        "reveal": news.reveal,
        "scores": news.scores,
        "events": news.events,
        "bullheads": BULLHEADS_JSON,
        "bot_played": _bot_played(table, seat),
    }


def _bot_played(table: Table, seat: int | None) -> dict[str, Any] | None:
    """What a bot has played for this person since it took their seat in this game (the latest time):
    ``since``, the version of the hand-over, and ``moves``, its cards and row choices in order."""
    if seat is None or seat not in table.bot_moves:
        return None
    since, moves = table.bot_moves[seat]
    return {"since": since, "moves": [dict(move) for move in moves]}


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
        "absent_grace": float(table.absent_grace),  # the absent rule "bot" waits this long
        "rematch_asked": list(table.rematch_asked),
        "start_left": start_left(table),  # from the journal's date: the same on every process
        "start_waits": start_waits(table),  # "player": nobody seated is here, so it will not start yet
        "turn_based": turn_based(options.clock),  # people come and go; notices (docs/push.md)
    }


_OPTION_FIELDS = tuple(TableOptions.model_fields)


class _News(NamedTuple):
    """What every seat is shown alike at one version of a table."""

    table: weakref.ReferenceType[Table]
    view: dict[str, Any]  # the view's public part: a spectator's view
    scores: dict[str, Any]
    reveal: Any
    events: Any


def _news_of(table: Table) -> _News:
    """What every seat is shown alike at the table's version, made once per version and shared by every
    connection's render (never changed afterwards): the reveal and events are copies, since the table
    fills its reveal in place, and a connection diffs against what it sent last."""
    key = (id(table), table.version)
    found = _NEWS.get(key)
    if found is not None and found.table() is table:
        return found
    assert table.recorder is not None
    public = view(table.recorder.state, None)
    seen, scores = shared_view_json(public), _scores_json(table, public.totals, public.history)
    # What has not changed since the version before is that version's very object: a connection's
    # diff (nimmt.server.patch) then passes over it at once, by identity.
    before = _NEWS.get((id(table), table.version - 1))
    if before is not None and before.table() is table:
        news = _News(weakref.ref(table), _same_as(seen, before.view), _same_as(scores, before.scores),
                     before.reveal if table.reveal == before.reveal else _copy(table.reveal),
                     before.events if table.events == before.events else _copy(table.events))
    else:
        news = _News(weakref.ref(table), seen, scores, _copy(table.reveal), _copy(table.events))
    if len(_NEWS) >= _NEWS_KEPT:
        _NEWS.pop(next(iter(_NEWS)))  # the oldest: its table has moved on or gone
    _NEWS[key] = news
    return news


_NEWS: dict[tuple[int, int], _News] = {}
_NEWS_KEPT = 4096  # versions of tables remembered, about one per table in play


def _same_as(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``new``, or ``old`` itself when they are equal; else ``new`` holding ``old``'s very value for
    each key whose value has not changed (of the same JSON type: 1 is not true)."""
    if new == old and all(type(value) is type(old[key]) for key, value in new.items()):
        return old
    for key, value in new.items():
        before = old.get(key)
        if before is not value and type(before) is type(value) and before == value:
            new[key] = before
    return new


def _scores_json(table: Table, totals: tuple[int, ...], history: tuple[tuple[int, ...], ...]) -> dict[str, Any]:
    threshold = table.options.end_above
    countdown = table.options.countdown
    return {
        "countdown": countdown,
        "threshold": threshold,
        "totals": list(totals),
        "shown": [threshold - t for t in totals] if countdown else list(totals),
        "history": [list(h) for h in history],
        "history_shown": _countdown_history(history, threshold) if countdown else [list(h) for h in history],
        # Why the game ended after its last complete round, or why it goes on (None before one).
        "ending": _ending_json(ending(table.rules, totals, len(history))) if history else None,
    }


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
