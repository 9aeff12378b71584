"""A review's jobs as worker processes run them (``docs/review.md``): a game cut into parts, a part
reviewed, the parts merged, and an uploaded record read once. Only light imports: a worker started
for these loads this module, not the server's.
"""

from __future__ import annotations

import pickle
import time
from typing import Any

import orjson

from nimmt.core import NimmtError
from nimmt.records import GameRecord, RecordError, from_mapping, loads
from nimmt.review import Decision, Review, merge, moments, review, review_steps

from .checker import turns_of  # light: the record checker's own module

Where = tuple[int, int, int, str]  # a decision: round, turn (from 1), player, "card" or "row"


def review_part(record: dict[str, Any], player: int, wanted: list[Where], samples: int, seed: int) -> Review:
    """Some decisions of one player (in a worker process): ``wanted`` as :func:`nimmt.review.review`'s ``only``."""
    return review(from_mapping(record), samples=samples, seed=seed, players=[player], only=set(wanted))


def review_step(record: dict[str, Any], done: int, models: bytes | None, samples: int, seed: int,
                budget: int, seconds: float | None = None) -> tuple[list[Decision], int, bytes, int, float]:
    """The next decisions of a game under way (in a worker): :func:`nimmt.review.review_steps` from the
    ``done``-th, about ``budget`` of work or ``seconds`` of wall clock, the players' models pickled
    between steps; last, the wall seconds the step took in the worker (its wait for one not counted)."""
    start = time.perf_counter()
    carried = None if models is None else pickle.loads(models)  # this server's own pickle
    found, done, kept, ended = review_steps(from_mapping(record), done, carried, samples=samples, seed=seed,
                                            budget=budget, seconds=seconds)
    return found, done, pickle.dumps(kept), ended, time.perf_counter() - start


PART_COST = 100  # a job's rollouts: options times cards left, summed (100: a first turn's card)


def parts_of(record: dict[str, Any]) -> list[tuple[int, list[Where]]]:
    """The jobs of a game's review: consecutive decisions of one player in one round, a first turn's
    worth of rollouts each (a fifth of a second of a worker or so: far within the pool's time limit
    however busy the machine, and few enough jobs that replaying the game up to each costs little)."""
    parts: list[tuple[int, list[Where]]] = []
    open_part: dict[tuple[int, int], tuple[list[Where], list[int]]] = {}  # (player, round) -> decisions, cost
    for moment, _ in moments(from_mapping(record)):
        state = moment.state
        where = (state.round, state.turn + 1, moment.player, moment.kind)
        cards = len(state.hands[moment.player])
        cost = cards * cards if moment.kind == "card" else 4 * cards
        wanted, spent = open_part.get((moment.player, state.round), (None, [0]))
        if wanted is None or spent[0] + cost > PART_COST:
            wanted, spent = [], [0]
            open_part[(moment.player, state.round)] = (wanted, spent)
            parts.append((moment.player, wanted))
        wanted.append(where)
        spent[0] += cost
    return parts


def read_upload(body: bytes, most: int, turns_most: int | None = None) -> tuple[str, Any]:
    """In the record checker's worker, the one reading of an upload: ``("ok", (turns, review))``, or
    ``(code, why)`` for a record that cannot be replayed; never raises for a bad record. ``turns``: the
    record cut into turns as JSON (as ``POST /api/replay`` answers), when ``turns_most`` (their most
    bytes) is given, else None; ``review``: ``("ok", (record as JSON, jobs))``, or ``(code, why)`` for a
    record that is replayed but not reviewed here (``too_long``, no decision)."""
    try:
        record = loads(body)
    except RecordError as error:
        return "bad_record", str(error)
    turns: bytes | None = None
    if turns_most is not None:
        code, answer = turns_of(record, turns_most)
        if code != "ok":
            return code, answer
        assert isinstance(answer, bytes)
        turns = answer
    return "ok", (turns, _jobs(record, most))


def _jobs(record: GameRecord, most: int) -> tuple[str, Any]:
    try:
        decisions = sum(1 for _ in moments(record))
    except NimmtError as error:  # a play the rules refuse (a card its player does not hold...)
        return "bad_record", f"this record breaks the rules: {error}"
    except RecursionError:
        return "bad_record", "the record is nested too deeply"
    if decisions > most:
        return "too_long", f"this record holds {decisions} decisions, more than the {most} reviewed here: " \
            "review it with nimmt replay --review"
    if not decisions:
        return "bad_record", "this record holds no decision to review"
    data = record.to_json()
    try:
        orjson.dumps(data)
    except TypeError:  # a name spelled with a lone surrogate: no answer could hold it (as checker.py)
        return "bad_record", "the record holds text that is not valid Unicode or a number past 64 bits"
    return "ok", (data, parts_of(data))


def whole_review(record: dict[str, Any], parts: list[Any]) -> dict[str, Any]:
    """In a worker: the parts merged into one review, as JSON."""
    return merge(from_mapping(record), parts).to_json()
