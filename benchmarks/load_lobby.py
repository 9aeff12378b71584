"""People in the lobby for ``benchmarks/load.py --lobby N``: strangers who browse the open tables
and quick-match.

Each of the N people arrives at a moment spread over the ramp, looks at the lobby's list as the
page does (``GET /api/lobby`` in their language, every 3 s ±50 % (``--look-every``), one to four looks), then asks for
a quick match (``POST /api/lobby/quick``): a seat at the open table in their language that has
waited longest, or a new table of four. They then sit at that table like every other simulated
person (one WebSocket, acting when asked); the person in seat 0 starts the table once its four
seats are taken (a table that never fills waits). Languages are drawn: half English, a quarter
Brazilian Portuguese, a quarter French, so that tables fill at different speeds.

Measured over the steady part of the run: the list's and quick match's latencies (request to
answer), how many quick matches took a seat at a waiting table and how many opened one, and how
many quick tables started; their people's card and row latencies count with everybody's.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

import httpx
from load import Person, percentile  # benchmarks/load.py, beside this script

if TYPE_CHECKING:
    from load import Run

LANGUAGES = ["en", "en", "pt-BR", "fr"]
LOOK_EVERY = 3.0  # seconds between two looks at the list, as the lobby page polls


class QuickPerson(Person):
    """A person who came by quick match: in seat 0 they start the table once its seats are taken."""

    lobby: LobbyGoers

    def _decision(self, state: dict[str, Any]) -> dict[str, Any] | None:
        table = state.get("table") or {}
        if table.get("status") == "lobby" and self.seat == 0 and not self.lobby.started_by(self):
            seats = table.get("seats") or []
            if seats and all(seat.get("taken") for seat in seats):
                return {"type": "start"}
            return None
        return super()._decision(state)

    def act(self) -> None:
        super().act()
        if self.pending is not None and self.pending.kind == "start":
            self.lobby.starting.add(id(self))


class LobbyGoers:
    """The lobby's people of one run (see the module)."""

    def __init__(self, run: Run, count: int, look_every: float = LOOK_EVERY) -> None:
        self.run = run
        self.count = count
        self.look_every = look_every
        self.rng = random.Random(run.rng.random())
        self.looks: list[float] = []  # seconds, GET /api/lobby, in the window
        self.quick: list[float] = []  # seconds, POST /api/lobby/quick, in the window
        self.outcomes: Counter[str] = Counter()  # joined a waiting table / opened one (the whole run)
        self.starting: set[int] = set()  # the seat-0 people who sent their table's start

    def started_by(self, person: Person) -> bool:
        return id(person) in self.starting

    async def main(self, http: httpx.AsyncClient) -> None:
        began = time.perf_counter()
        people = []
        for index in range(self.count):
            delay = began + index * self.run.ramp / max(1, self.count) - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if self.run.stopping or time.perf_counter() >= self.run.stats.window_end:
                break
            people.append(self.run.spawn(self.run._guarded(self.person(http, index))))
        await asyncio.gather(*people, return_exceptions=True)

    async def person(self, http: httpx.AsyncClient, index: int) -> None:
        rng = random.Random(self.rng.random())
        language = rng.choice(LANGUAGES)
        stats = self.run.stats
        for _look in range(rng.randint(1, 4)):
            asked = time.perf_counter()
            answer = await http.get(f"{self.run.url}/api/lobby", params={"language": language})
            if answer.status_code != 200:
                stats.errors[f"http_{answer.status_code}"] += 1
            elif stats.in_window(time.perf_counter()):
                self.looks.append(time.perf_counter() - asked)
            await asyncio.sleep(self.look_every * rng.uniform(0.5, 1.5))
            if self.run.stopping:
                return
        asked = time.perf_counter()
        answer = await http.post(f"{self.run.url}/api/lobby/quick", json={"name": f"L{index}", "language": language})
        if answer.status_code != 201:
            stats.errors[f"http_{answer.status_code}"] += 1
            return
        if stats.in_window(time.perf_counter()):
            self.quick.append(time.perf_counter() - asked)
        seat = answer.json()
        self.outcomes["joined" if seat["seat"] > 0 else "opened"] += 1
        person = QuickPerson(self.run, seat["table_id"], seat["seat"], seat["token"], rng)
        person.lobby = self
        self.run.people.append(person)
        await person.play()

    def figures(self) -> dict[str, Any]:
        looks = sorted(x * 1000 for x in self.looks)
        quick = sorted(x * 1000 for x in self.quick)

        def summary(values: list[float]) -> dict[str, float]:
            return {"count": len(values), "p50": round(percentile(values, 0.5), 1),
                    "p95": round(percentile(values, 0.95), 1), "p99": round(percentile(values, 0.99), 1),
                    "max": round(values[-1], 1) if values else 0.0}

        return {"people": self.count, "list_ms": summary(looks), "quick_ms": summary(quick),
                "joined": self.outcomes["joined"], "opened": self.outcomes["opened"],
                "quick_tables_started": len(self.starting)}


def report(figures: dict[str, Any]) -> list[str]:
    lobby = figures["lobby"]

    def shown(name: str, values: dict[str, float]) -> str:
        return (f"{name} {values['count']} in the window: p50 {values['p50']:.1f} ms, p95 {values['p95']:.1f} ms, "
                f"p99 {values['p99']:.1f} ms, max {values['max']:.1f} ms")

    return [
        f"lobby:             {lobby['people']} people browsed and quick-matched: {lobby['joined']} took a seat at "
        f"a waiting table, {lobby['opened']} opened one; {lobby['quick_tables_started']} quick tables filled and "
        "started (their people's actions count above)",
        f"  | {shown('list looks', lobby['list_ms'])}",
        f"  | {shown('quick matches', lobby['quick_ms'])}",
    ]
