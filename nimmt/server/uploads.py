"""Reviews of records people upload to the replay page (``POST /api/replay/review``, docs/review.md).

The record is read, checked (replayed) and cut into jobs once, in the record checker's worker
(:mod:`nimmt.server.checker`, its budget and its ``busy``), with its turns for the replay page when
the page asks for both (``Accept: application/x-ndjson``: the turns come as one line at once, the
review as the next when it is made); then it is reviewed in the bot pool's workers job by
job exactly as a table's finished game is (:mod:`nimmt.server.tables.reviews`: the same samples and
seed, so the numbers are those of ``nimmt replay --review``), never on the event loop. Its cost is
bounded: at most :data:`MOST_DECISIONS` decisions (a long 4-player game has some 235), each job
within the pool's time limit, the whole within :data:`SECONDS`; one upload reviewed at a time per
process with :data:`WAITING` more waiting (then ``503 busy``), and at most :data:`PER_ADDRESS` of them
from one address, so one address's uploads never fill the queue for the others; each address may
post only so many a minute (the uploads' limit, ``--limit-replays``). Nothing is kept: the answer is
the review.
"""

from __future__ import annotations

import asyncio
from typing import Any

from nimmt.review import DEFAULT_SEED

from .botpool import BotPool, BotTimeout, PoolClosed
from .checker import CheckRefused, RecordChecker
from .review_jobs import Where, read_upload, review_part, whole_review
from .tables.reviews import REVIEW_SAMPLES

MOST_DECISIONS = 400
MAX_REVIEW_UPLOAD = 64 * 1024  # bytes: some 50 rounds, read in a worker well within a job's time limit
SECONDS = 300.0
WAITING = 2
PER_ADDRESS = 1  # uploads of one address reviewed or waiting: the other places stay for the others


def not_prepared() -> CheckRefused:
    """The answer for a review (an upload's, or a table's game's) while the bots' compiled kernels are
    being prepared (a first run: minutes): no review job runs before they are."""
    return CheckRefused(503, "preparing", "the server is preparing its bots (a first run): try again in a minute",
                        retry_after=60)


Checked = tuple[str, Any]  # an upload's review as read: ("ok", (record, jobs)), or (code, why)


class UploadReviews:
    """The reviews of uploaded records of one process (see the module)."""

    def __init__(self, pool: BotPool, checker: RecordChecker, samples: int = REVIEW_SAMPLES,
                 seconds: float = SECONDS, most: int = MOST_DECISIONS, waiting: int = WAITING) -> None:
        self.pool = pool
        self.checker = checker
        self.samples = samples
        self.seconds = seconds
        self.most = most
        self.waiting = waiting
        self._busy = 0
        self._turn = asyncio.Lock()  # one upload reviewed at a time: the tables' bots come first
        self._count = 0
        self._held: dict[str, int] = {}  # uploads reviewed or waiting, per address (only those above 0)

    async def review(self, body: bytes, who: str = "") -> dict[str, Any]:
        """The review of the record ``body`` (``nimmt.review.Review.to_json()``), or :class:`CheckRefused`;
        ``who``: the address it came from."""
        self._can_start(who)  # refused before the record is even read
        _turns, checked = await self.read(body, who=who)
        return await self.make(checked, who)

    async def read(self, body: bytes, *, turns: bool = False, who: str = "") -> tuple[bytes | None, Checked]:
        """The record read and checked once, in the record checker's worker: its turns (``turns``:
        as ``POST /api/replay`` answers them) and what :meth:`make` reviews; :class:`CheckRefused` for a
        record that cannot be replayed (``bad_record``, ``too_large``) or a full queue (``busy``)."""
        code, answer = await self.checker.checked(read_upload, body, self.most,
                                                  self.checker.most if turns else None, who=who, size=len(body))
        if code != "ok":
            raise CheckRefused(413 if code == "too_large" else 422, code, str(answer))
        made: tuple[bytes | None, Checked] = answer
        return made

    async def make(self, checked: Checked, who: str = "") -> dict[str, Any]:
        """The review of a record :meth:`read` checked, in the bot pool's workers, or :class:`CheckRefused`
        (``too_long``, ``bad_record``, ``preparing``, ``busy``, ``review_too_slow``)."""
        code, answer = checked
        if code != "ok":
            raise CheckRefused(413 if code == "too_long" else 422, code, str(answer))
        self._can_start(who)
        self._busy += 1
        self._held[who] = self._held.get(who, 0) + 1
        self._count += 1
        key = f"upload:{self._count}"
        try:
            async with self._turn:
                return await asyncio.wait_for(self._review(key, *answer), self.seconds)
        except (TimeoutError, BotTimeout):
            raise CheckRefused(503, "review_too_slow", f"this record could not be reviewed within {self.seconds:g} s "
                               "here: review it with nimmt replay --review", retry_after=60) from None
        except PoolClosed:
            raise CheckRefused(503, "busy", "the server is stopping: try again in a minute", retry_after=60) from None
        finally:
            self._busy -= 1
            self._held[who] -= 1
            if not self._held[who]:
                del self._held[who]

    def _can_start(self, who: str) -> None:
        if not self.pool.prepared():  # a first run: the kernels compile (minutes) before any review
            raise not_prepared()
        if self._held.get(who, 0) >= PER_ADDRESS:
            raise CheckRefused(503, "busy", "your last record is still being reviewed: try again when it is done",
                               retry_after=30)
        if self._busy > self.waiting:
            raise CheckRefused(503, "busy", "records are being reviewed: try again in a minute", retry_after=30)

    async def _review(self, key: str, record: dict[str, Any], wanted: list[tuple[int, list[Where]]]) -> dict[str, Any]:
        # A part is held to the upload's own time, not to a bot move's: past the pool's limit the pool takes
        # its worker for stuck and restarts every worker, which cost the tables' reviews their step too.
        parts = [await self.pool.run(key, review_part, record, player, where, self.samples, DEFAULT_SEED,
                                     limit=self.seconds)
                 for player, where in wanted]
        review: dict[str, Any] = await self.pool.run(key, whole_review, record, parts, limit=self.seconds)
        return review
