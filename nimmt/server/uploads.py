"""Reviews of records people upload to the replay page (``POST /api/replay/review``, docs/review.md).

The record is read, checked and cut into jobs in the bot pool's workers, then reviewed there job by
job exactly as a table's finished game is (:mod:`nimmt.server.tables.reviews`: the same samples and
seed, so the numbers are those of ``nimmt replay --review``), never on the event loop. Its cost is
bounded: at most :data:`MOST_DECISIONS` decisions (a long 4-player game has some 235), each job
within the pool's time limit, the whole within :data:`SECONDS`; one upload reviewed at a time per
process with :data:`WAITING` more waiting (then ``503 busy``); each address may post only so many
a minute (the uploads' limit, ``--limit-replays``). Nothing is kept: the answer is the review.
"""

from __future__ import annotations

import asyncio
from typing import Any

from nimmt.review import DEFAULT_SEED

from .botpool import BotPool, BotTimeout, PoolClosed
from .checker import CheckRefused
from .tables.reviews import REVIEW_SAMPLES, Where, parts_of, review_part

MOST_DECISIONS = 400
MAX_REVIEW_UPLOAD = 64 * 1024  # bytes: some 50 rounds, read in a worker well within a job's time limit
SECONDS = 300.0
WAITING = 2


def read_upload(body: bytes, most: int) -> tuple[str, Any]:
    """In a worker: ``("ok", (record as JSON, jobs))`` or ``(code, why)``; never raises for a bad record."""
    import orjson

    from nimmt.core import NimmtError
    from nimmt.records import RecordError, loads
    from nimmt.review import moments

    try:
        record = loads(body)
        decisions = sum(1 for _ in moments(record))
    except RecordError as error:
        return "bad_record", str(error)
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
    from nimmt.records import from_mapping
    from nimmt.review import merge

    return merge(from_mapping(record), parts).to_json()


class UploadReviews:
    """The reviews of uploaded records of one process (see the module)."""

    def __init__(self, pool: BotPool, samples: int = REVIEW_SAMPLES, seconds: float = SECONDS,
                 most: int = MOST_DECISIONS, waiting: int = WAITING) -> None:
        self.pool = pool
        self.samples = samples
        self.seconds = seconds
        self.most = most
        self.waiting = waiting
        self._busy = 0
        self._turn = asyncio.Lock()  # one upload reviewed at a time: the tables' bots come first
        self._count = 0

    async def review(self, body: bytes) -> dict[str, Any]:
        """The review of the record ``body`` (``nimmt.review.Review.to_json()``), or :class:`CheckRefused`."""
        if not self.pool.prepared():  # a first run: the kernels compile (minutes) before any review
            raise CheckRefused(503, "preparing", "the server is preparing its bots (a first run): try again "
                               "in a minute", retry_after=60)
        if self._busy > self.waiting:
            raise CheckRefused(503, "busy", "records are being reviewed: try again in a minute", retry_after=30)
        self._busy += 1
        self._count += 1
        key = f"upload:{self._count}"
        try:
            async with self._turn:
                return await asyncio.wait_for(self._review(key, body), self.seconds)
        except (TimeoutError, BotTimeout):
            raise CheckRefused(503, "review_too_slow", f"this record could not be reviewed within {self.seconds:g} s "
                               "here: review it with nimmt replay --review", retry_after=60) from None
        except PoolClosed:
            raise CheckRefused(503, "busy", "the server is stopping: try again in a minute", retry_after=60) from None
        finally:
            self._busy -= 1

    async def _review(self, key: str, body: bytes) -> dict[str, Any]:
        code, answer = await self.pool.run(key, read_upload, body, self.most)
        if code != "ok":
            raise CheckRefused(413 if code == "too_long" else 422, code, str(answer))
        record, jobs = answer
        wanted: list[tuple[int, list[Where]]] = jobs
        parts = [await self.pool.run(key, review_part, record, player, where, self.samples, DEFAULT_SEED)
                 for player, where in wanted]
        review: dict[str, Any] = await self.pool.run(key, whole_review, record, parts)
        return review
