"""From the last card to the review on screen: tables played at once against a real ``nimmt serve``.

    taskset -c 0,1 .venv/bin/python benchmarks/bench_review_live.py [--tables 4] [--bots heuristic,beginner,random]

It starts ``nimmt serve`` on 127.0.0.1 (a fresh SQLite file, per-client limits off, as
``benchmarks/load.py`` does) and creates ``--tables`` tables of one person and the given bots, all
started together. The person (this script, over a WebSocket) plays a random legal card or row
``--think`` seconds (jittered ±50 %) after being asked, as a quick person would. When a table's game
is over (the state the person is sent says ``over``), the script asks for the game's review
(``GET /api/tables/{id}/games/{n}/review``) as the last screen does (``review.js``: at once, then
again after half the ``seconds`` the pending answer gave, at least 0.3 s and at most 3 s), until it
is ready: the seconds from the last card to that answer are the review's time to the screen. It
prints, per table, those seconds, the rounds and the decisions, the ``seconds`` the pending answers
gave, and the server's CPU; and the load average. ``--old-way`` makes the server review only after
the game (as before issue 29: the review's samples are the same, the steps during the game are off),
for a side by side run.
``--poll-every 3`` asks every 3 s instead, as the last screen did before. ``--busy N`` keeps N other
processes busy on the machine's cores while the tables play (a busier machine: plain Python loops at
the normal priority), to see what the page says then.
Bounded: at most 16 tables, every wait has a timeout (``--timeout``, default 600 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import Server, cpu_seconds  # the load test's server, as it starts it

POLL_SOONEST, POLL_MOST = 0.3, 3.0  # the last screen's waits between two asks (review.js)


async def person(url: str, table_id: str, token: str, think: float, rng: random.Random,
                 timeout: float) -> tuple[float, int, dict[str, Any]]:
    """Play the table's game as its person; returns when the last state came, the game's number and
    that state."""
    async with connect(f"{url.replace('http', 'ws', 1)}/ws/{table_id}", max_size=2**22) as socket:
        await socket.send(json.dumps({"type": "hello", "token": token}))
        started = False
        acted = -1  # the version of the last state acted on: one action a state
        while True:
            state = json.loads(await asyncio.wait_for(socket.recv(), timeout))
            if state.get("type") != "state":
                continue
            table = state["table"]
            if table["status"] == "over":
                return time.perf_counter(), int(table["game"]), state
            if not started and table["status"] == "lobby":
                started = True
                await socket.send(json.dumps({"type": "start"}))
                continue
            legal = state.get("legal") or []
            if legal and state["version"] > acted:
                acted = state["version"]
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                answer = rng.choice(legal)
                message = ({"type": "choose_row", "row": answer["row"]} if "row" in answer
                           else {"type": "play", "card": answer["card"]})
                await socket.send(json.dumps({**message, "version": state["version"]}))


async def table(http: httpx.AsyncClient, url: str, index: int, bots: list[str], think: float,
                timeout: float, every: float) -> dict[str, Any]:
    made = await http.post(f"{url}/api/tables", json={"name": f"P{index}", "seats": 1 + len(bots), "bots": bots})
    made.raise_for_status()
    table_id, token = made.json()["table_id"], made.json()["token"]
    ended, game, _ = await person(url, table_id, token, think, random.Random(index), timeout)
    promised: list[int] = []
    while True:
        answer = await http.get(f"{url}/api/tables/{table_id}/games/{game}/review")
        if answer.status_code == 200:
            review = answer.json()["review"]
            return {"table": index, "seconds": time.perf_counter() - ended, "promised": promised,
                    "decisions": len(review["decisions"]), "rounds": max(d["round"] for d in review["decisions"])}
        left = answer.json().get("seconds") if answer.status_code == 202 else None
        if left is not None:
            promised.append(left)
        if time.perf_counter() - ended > timeout:  # told in the table, the other tables go on
            return {"table": index, "seconds": math.inf, "promised": promised, "decisions": 0, "rounds": 0}
        await asyncio.sleep(every if every else min(max(left / 2 if left is not None else POLL_MOST, POLL_SOONEST),
                                                    POLL_MOST))


def _burn() -> None:
    """A busy process: plain Python, at the normal priority, until stopped."""
    n = 0
    while True:
        n = (n * 31 + 7) % 1000003


async def run(args: argparse.Namespace) -> None:
    bots = args.bots.split(",")
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(args.busy)]
    with tempfile.TemporaryDirectory() as folder:
        extra = ["--bot-delay", str(args.bot_delay)]
        env_old = os.environ.get("NIMMT_REVIEW_AS_PLAYED")
        if args.old_way:
            os.environ["NIMMT_REVIEW_AS_PLAYED"] = "0"
        try:
            server = Server(str(Path(folder) / "nimmt.sqlite3"), extra, args.timeout,
                            Path(args.log) if args.log else None)
        finally:
            if env_old is None:
                os.environ.pop("NIMMT_REVIEW_AS_PLAYED", None)
        try:
            await asyncio.sleep(args.warm)  # the workers start and load the kernels, as a server long up has
            for burner in burners:
                burner.start()
            before = cpu_seconds(server.pid) or 0.0
            async with httpx.AsyncClient(timeout=args.timeout, trust_env=False) as http:
                results = await asyncio.gather(*(table(http, server.url, i, bots, args.think, args.timeout,
                                                       args.poll_every) for i in range(args.tables)))
            used = (cpu_seconds(server.pid) or 0.0) - before
        finally:
            for burner in burners:
                if burner.pid is not None:
                    burner.terminate()
            server.stop()
    seconds = [r["seconds"] for r in results]
    print(f"{args.tables} tables of a person and {', '.join(bots)}, {'after the game' if args.old_way else 'as played'}"
          f", {args.busy} busy processes beside; load average {os.getloadavg()[0]:.1f}; server CPU {used:.1f} s "
          "(its workers not counted)")
    print("| table | rounds | decisions | last card -> review, s | pending answers said, s |\n|---|---:|---:|---:|---|")
    for r in results:
        took = f"{r['seconds']:.2f}" if math.isfinite(r["seconds"]) else f"none in {args.timeout:g} s"
        said = [x for i, x in enumerate(r["promised"]) if i == 0 or x != r["promised"][i - 1]]  # in order
        print(f"| {r['table']} | {r['rounds'] or '?'} | {r['decisions'] or '?'} | {took} | "
              f"{', '.join(map(str, said)) or '-'} |")
    print(f"median {statistics.median(seconds):.2f} s, most {max(seconds):.2f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "results": results}), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--bots", default="heuristic,beginner,random")
    parser.add_argument("--think", type=float, default=0.5, help="the person's seconds to act (jittered)")
    parser.add_argument("--bot-delay", type=float, default=0.3, help="nimmt serve --bot-delay")
    parser.add_argument("--warm", type=float, default=8.0, help="seconds to wait after the server started")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--old-way", action="store_true", help="review after the game only, as before")
    parser.add_argument("--poll-every", type=float, default=0.0,
                        help="ask every this many seconds instead (3: the last screen before issue 29's step 2)")
    parser.add_argument("--busy", type=int, default=0, help="other busy processes on the machine meanwhile (0 to 16)")
    parser.add_argument("--json")
    parser.add_argument("--log", help="keep the server's output in this file")
    args = parser.parse_args()
    if not 1 <= args.tables <= 16:
        raise SystemExit("--tables: 1 to 16")
    if not 0 <= args.busy <= 16:
        raise SystemExit("--busy: 0 to 16")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
