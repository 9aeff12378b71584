"""What a group's league costs to read, and what its readers cost everyone else (issue 28, item 3).

Makes a SQLite database with one group of six members and ``--games`` real-deck games (score
sheets of four seats), starts ``nimmt serve`` on it in another process, then measures:

- the league's first read (it may fold every game) and the median of the next ``--reads``;
- ``/healthz``'s median and 90th percentile alone, then while ``--readers`` clients read the league
  over and over (each reader one request at a time);
- then a member deletes their player (their seats become a former player's, so the group's standings
  must be folded again from every game): ``/healthz`` while the readers go on, and how long until
  the league answers again as fast as before.

The server is the ``nimmt`` found on ``PYTHONPATH``, so the same script measures two trees::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_league.py --games 4700
    PYTHONPATH=/tmp/nimmt-before .venv/bin/python benchmarks/bench_league.py --games 4700

The games are written through the people store (``record_game``), as the score page saves them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from nimmt.people.model import FinishedGame, SeatResult
from nimmt.people.store import SqlPeopleStore
from nimmt.server.store import SqlStore

T0 = datetime(2026, 1, 1, 20, tzinfo=UTC)


async def make(path: Path, games: int, seed: int) -> tuple[str, str]:
    """The database: a group of six and ``games`` sheets; the group's id and the key of one member."""
    url = f"sqlite+aiosqlite:///{path}"
    tables = SqlStore(url)  # migrates the database; its Database is handed to the people store
    await tables.start()
    people = SqlPeopleStore(tables.database)
    rng = random.Random(seed)
    try:
        made = [await people.new_player(name) for name in ("Ana", "Bruno", "Carla", "Dora", "Eli", "Fé")]
        players = [player for player, _ in made]
        group = await people.new_group(players[0].id, "Friday")
        for player in players[1:]:
            await people.join(group.invite, player.id)
        for number in range(games):
            seated = rng.sample(players, 4)
            penalties = (0, 1, 2, 3, 5, 7, 9, 12)
            rounds = tuple(tuple(rng.choice(penalties) for _ in seated) for _ in range(rng.randint(3, 7)))
            totals = [sum(row[seat] for row in rounds) for seat in range(4)]
            seats = tuple(SeatResult(n, player.id, player.name, None, totals[n]) for n, player in enumerate(seated))
            await people.record_game(FinishedGame(f"m{number:05d}", "sheet", T0 + timedelta(hours=number), 66,
                                                  seats, rounds, group_id=group.id))
    finally:
        await people.close()
        await tables.close()
    return group.id, made[-1][1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def timed(client: httpx.Client, path: str) -> float:
    start = time.perf_counter()
    answer = client.get(path)
    answer.raise_for_status()
    return time.perf_counter() - start


def quantiles(values: list[float]) -> str:
    ms = sorted(value * 1000 for value in values)
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    return f"median {statistics.median(ms):.1f} ms, p90 {p90:.1f} ms, max {ms[-1]:.1f} ms (n={len(ms)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4700)
    parser.add_argument("--reads", type=int, default=20)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--probes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "nimmt.sqlite3"
        start = time.perf_counter()
        group, key = asyncio.run(make(path, args.games, args.seed))
        print(f"{args.games} sheets written in {time.perf_counter() - start:.1f} s")
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "nimmt", "serve", "--db", str(path), "--port", str(port),
                                   "--limit-joins", "0", "--limit-tables", "0"],
                                  env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            with httpx.Client(base_url=base, timeout=120) as client:
                for _ in range(600):
                    try:
                        if client.get("/healthz").status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    time.sleep(0.1)
                league = f"/api/groups/{group}/league"
                print(f"league, first read: {timed(client, league) * 1000:.1f} ms")
                print(f"league, next reads: {quantiles([timed(client, league) for _ in range(args.reads)])}")
                alone = []
                for _ in range(args.probes):
                    alone.append(timed(client, "/healthz"))
                    time.sleep(0.02)
                print(f"/healthz alone: {quantiles(alone)}")
                stop = threading.Event()
                reads: list[float] = []

                def reader() -> None:
                    with httpx.Client(base_url=base, timeout=120) as own:
                        while not stop.is_set():
                            reads.append(timed(own, league))

                threads = [threading.Thread(target=reader) for _ in range(args.readers)]
                for thread in threads:
                    thread.start()
                time.sleep(0.5)
                busy = []
                for _ in range(args.probes):
                    busy.append(timed(client, "/healthz"))
                    time.sleep(0.02)
                print(f"/healthz with {args.readers} league readers: {quantiles(busy)}")
                print(f"league reads meanwhile: {quantiles(reads)}")
                # A member deletes their player while the readers go on.
                reads.clear()
                start = time.perf_counter()
                client.delete("/api/me", headers={"X-Player-Key": key}).raise_for_status()
                print(f"DELETE /api/me: {(time.perf_counter() - start) * 1000:.1f} ms")
                after = []
                for _ in range(args.probes):
                    after.append(timed(client, "/healthz"))
                    time.sleep(0.02)
                stop.set()
                for thread in threads:
                    thread.join()
                print(f"/healthz after the deletion, {args.readers} league readers on: {quantiles(after)}")
                print(f"league reads meanwhile (the first ones wait for the fold): {quantiles(reads)}")
                print(f"league, a read once it is over: {timed(client, league) * 1000:.1f} ms")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
