"""Abusive clients for ``benchmarks/load.py --abusers``, beside the normal players (issue 28).

Each comes from a loopback address of its own (127.0.0.2 to 127.0.0.5: Linux answers the whole
127/8 on the loopback), so the server's per-address limits see them as strangers to the normal
players (who all come from 127.0.0.1, with the per-address rates off), while what one key or
address may make is counted as on a public site (``nimmt serve``'s people quotas stay on):

- **a key making groups** (127.0.0.2): one player posting ``POST /api/groups`` four at a time,
  as fast as answers come, for the whole run;
- **a chat flooder** (127.0.0.3): twenty players of one address in one group, each posting
  messages as fast as answers come;
- **league readers** (127.0.0.4): four readers of ``GET /api/groups/{id}/league`` in a loop, on
  a group whose league holds ``--league-games`` score sheets (default 2,000, written into the
  database before the run when the benchmark starts the server itself; otherwise a group of a
  few games made through the API);
- **big uploads** (127.0.0.5): six posters of 2 MB records to ``POST /api/replay`` (the record
  checker's longest work), each posting again as soon as it is answered.

Every loop stops with the run, and each request has the run's timeout. Measured over the steady
part of the run: the answers each abuser got (by status), and the league reads' latency; the
normal players' latencies and the health probe's are ``load.py``'s own, with or without these.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import httpx
from load import percentile  # benchmarks/load.py, beside this script

if TYPE_CHECKING:
    from load import Run

ADDRESSES = {"groups": "127.0.0.2", "chat": "127.0.0.3", "league": "127.0.0.4", "uploads": "127.0.0.5"}
CHATTERS = 20
READERS = 4
UPLOADERS = 6
GROUP_MAKERS = 4
MOST_REQUESTS = 1_000_000  # per loop: bounded even if every answer were instant


def big_record() -> bytes:
    """A finished game of ten random bots weighing nearly 2 MB (some 1,600 rounds)."""
    from nimmt.bots import make_bot
    from nimmt.core import Rules
    from nimmt.match import play_game

    bots = [make_bot("random", random.Random(seat)) for seat in range(10)]
    return json.dumps(play_game(bots, random.Random(3), Rules(rounds=1500)).to_json()).encode()


def sheet_rounds(rng: random.Random, seats: int) -> list[list[int]]:
    """A real-deck game's rounds: penalties until somebody is past 66."""
    totals = [0] * seats
    rounds: list[list[int]] = []
    while max(totals) <= 66 and len(rounds) < 40:
        penalties = [rng.choice([0, 0, 1, 2, 3, 5, 7, 10, 14, 20]) for _ in range(seats)]
        rounds.append(penalties)
        totals = [total + penalty for total, penalty in zip(totals, penalties, strict=True)]
    return rounds


async def seed_league(url: str, games: int) -> str:
    """A group of six with ``games`` score sheets, written straight into the database (the API's
    quotas would take days): its id."""
    from nimmt.people.games import from_sheet
    from nimmt.people.store import SqlPeopleStore
    from nimmt.scoresheet import ScoreSheet
    from nimmt.server.store import Database

    database = Database(url)
    people = SqlPeopleStore(database)
    await people.start()
    try:
        players = [(await people.new_player(f"League {n}"))[0] for n in range(6)]
        group = await people.new_group(players[0].id, "A long league")
        for player in players[1:]:
            await people.join(group.invite, player.id)
        rng = random.Random(11)
        when = datetime.now(UTC) - timedelta(days=games)
        for number in range(games):
            seated = rng.sample(players, rng.randint(3, 6))
            sheet = ScoreSheet(tuple(player.name or "?" for player in seated))
            for penalties in sheet_rounds(rng, len(seated)):
                sheet = sheet.add_round(penalties)
            await people.record_game(from_sheet(sheet, finished_at=when + timedelta(days=number),
                                                players=[player.id for player in seated], group_id=group.id))
    finally:
        await people.close()
        await database.close()
    return group.id


class Abusers:
    """The abusive clients of one run (see the module)."""

    def __init__(self, run: Run, league_group: str | None, record: bytes, kinds: str = "groups,chat,league,uploads",
                 ) -> None:
        self.run = run
        self.kinds = [kind for kind in ADDRESSES if kind in kinds.split(",")]
        self.league_group = league_group
        self.answers: dict[str, Counter[str]] = {name: Counter() for name in self.kinds}
        self.league_ms: list[float] = []
        self.record = record  # made before the run: its seconds of CPU are nobody's latency

    def client(self, name: str) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(local_address=ADDRESSES[name], retries=0,
                                             limits=httpx.Limits(max_connections=32, max_keepalive_connections=32))
        return httpx.AsyncClient(base_url=self.run.url, timeout=self.run.timeout, transport=transport, trust_env=False)

    def count(self, name: str, answer: httpx.Response | str) -> None:
        if self.run.stats.in_window(time.perf_counter()):
            self.answers[name][answer if isinstance(answer, str) else str(answer.status_code)] += 1

    async def main(self) -> None:
        work = {"groups": self.groups, "chat": self.chat, "league": self.league, "uploads": self.uploads}
        await asyncio.gather(*(self._guarded(kind, work[kind]()) for kind in self.kinds))

    async def _guarded(self, name: str, work: Any) -> None:
        try:
            await work
        except httpx.HTTPError as error:
            if not self.run.stopping:
                self.count(name, f"error {type(error).__name__}")

    async def _player(self, http: httpx.AsyncClient, name: str) -> dict[str, str]:
        made = await http.post("/api/players", json={"name": name})
        made.raise_for_status()
        return {"X-Player-Key": made.json()["key"]}

    async def _loop(self, name: str, ask: Any) -> None:
        for _ in range(MOST_REQUESTS):
            if self.run.stopping:
                return
            try:
                answer = await ask()
            except httpx.HTTPError as error:
                if self.run.stopping:
                    return
                self.count(name, f"error {type(error).__name__}")
                await asyncio.sleep(0.1)
                continue
            self.count(name, answer)

    async def groups(self) -> None:
        async with self.client("groups") as http:
            key = await self._player(http, "Maker")
            await asyncio.gather(*(self._loop("groups", lambda: http.post("/api/groups", headers=key,
                                                                          json={"name": "Spam"}))
                                   for _ in range(GROUP_MAKERS)))

    async def chat(self) -> None:
        async with self.client("chat") as http:
            keys = await asyncio.gather(*(self._player(http, f"Flood {n}") for n in range(CHATTERS)))
            group = (await http.post("/api/groups", headers=keys[0], json={"name": "Flood"})).json()
            invite = group["invite_url"].rsplit("/", 1)[1]
            await asyncio.gather(*(http.post("/api/invites", headers=key, json={"invite": invite}) for key in keys[1:]))
            path = f"/api/groups/{group['id']}/chat"

            def post(key: dict[str, str]) -> Any:
                return lambda: http.post(path, headers=key, json={"text": "buy cheap bullheads"})

            await asyncio.gather(*(self._loop("chat", post(key)) for key in keys))

    async def league(self) -> None:
        async with self.client("league") as http:
            group = self.league_group
            if group is None:  # a server of its own: a small league made through the API
                key = await self._player(http, "Reader")
                group = (await http.post("/api/groups", headers=key, json={"name": "Readers"})).json()["id"]

            async def read() -> httpx.Response:
                asked = time.perf_counter()
                answer = await http.get(f"/api/groups/{group}/league")
                if self.run.stats.in_window(time.perf_counter()):
                    self.league_ms.append((time.perf_counter() - asked) * 1000)
                return answer

            await asyncio.gather(*(self._loop("league", read) for _ in range(READERS)))

    async def uploads(self) -> None:
        async with self.client("uploads") as http:
            async def post() -> httpx.Response:
                answer = await http.post("/api/replay", content=self.record)
                if answer.status_code in (429, 503):  # told to wait: as a script would, it waits that long
                    await asyncio.sleep(min(10.0, float(answer.headers.get("Retry-After", "1"))))
                return answer

            await asyncio.gather(*(self._loop("uploads", post) for _ in range(UPLOADERS)))

    def figures(self) -> dict[str, Any]:
        ms = sorted(self.league_ms)
        return {"answers": {name: dict(counter.most_common()) for name, counter in self.answers.items()},
                "league_ms": {"reads": len(ms), "p50": round(percentile(ms, 0.5), 1),
                              "p99": round(percentile(ms, 0.99), 1), "max": round(ms[-1], 1) if ms else 0.0},
                "league_games": None if self.league_group is None else "seeded",
                "record_bytes": len(self.record)}


def report(figures: dict[str, Any]) -> list[str]:
    abuse = figures["abusers"]
    league = abuse["league_ms"]
    described = {"groups": "a key making groups", "chat": f"{CHATTERS} players flooding a chat",
                 "league": f"{READERS} league readers", "uploads": f"{UPLOADERS} posters of 2 MB records"}
    lines = [f"abusers:           {name} ({ADDRESSES[name]}, {described[name]}): "
             + (", ".join(f"{status} {count}" for status, count in answers.items()) or "nothing answered")
             for name, answers in abuse["answers"].items()]
    if "league" not in abuse["answers"]:
        return lines
    lines.append(f"league reads:      {league['reads']} in the window, p50 {league['p50']:.1f} ms, "
                 f"p99 {league['p99']:.1f} ms, max {league['max']:.1f} ms")
    return lines
