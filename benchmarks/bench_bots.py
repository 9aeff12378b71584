"""Do strong bots slow people? A person's action -> ack latency at one table while other tables of
nine ``expert`` bots play, on a real ``nimmt serve`` over loopback.

Each run starts ``nimmt serve`` (port 0, a fresh SQLite file, no bot delay, no limits), creates
``--tables`` tables of ten seats: a creator and nine ``expert`` bots, started at once; the load
generator plays each creator's seat at once whenever it is asked (a random legal card or row), so
the bots do all the thinking. After ``--warmup`` seconds, one person at a table of two (with a
``random`` bot) plays a card (or chooses a row) every ``--pause`` seconds, and the time from
sending the action to its ``ack`` is measured, for ``--seconds`` seconds or ``--actions`` actions,
whichever comes first. It prints p50, p95 and max, and how many bot actions the expert tables
stored meanwhile.

``--before REV`` runs the same against an earlier commit first (``git archive`` of its ``nimmt``
package into a temporary folder, served by a child process from there), so both are measured in
the same run on the same machine.

    .venv/bin/python benchmarks/bench_bots.py [--tables 8] [--seconds 20] [--before REV] [--bot-workers N]

**Playouts a second** (``--playouts``): how many rollouts the searching bots (``expert`` and
``field:dmc``) make in their time, at 2, 4 and 10 players: each decides a card at ``--positions``
seeded positions (random play of a round up to turns 0 to 8) with ``--budget`` seconds of CPU a
decision, and the rollouts of its estimates (options times samples) are divided by the CPU seconds
the decisions took. Each tree in a process of its own (``--old``: older trees or commits, a git
archive of each), the trees taken in turn ``--repeats`` times; the medians, and their ratio to the
first tree. Faster rollouts make a bot stronger at the same budget.

    taskset -c 0 .venv/bin/python benchmarks/bench_bots.py --playouts [--old 9ab894d] [--repeats 3]

Loopback only; every loop is bounded in count and in time.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from nimmt.cli.serve import ready_url

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Result:
    label: str
    latencies: list[float] = field(default_factory=list)  # seconds, action -> ack
    bot_actions: int = 0  # entries the expert tables stored while the person played
    errors: int = 0

    def line(self) -> str:
        if not self.latencies:
            return f"{self.label:>10}: no action measured"
        ms = sorted(x * 1000 for x in self.latencies)
        p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
        return (f"{self.label:>10}: {len(ms)} actions, ack p50 {statistics.median(ms):7.1f} ms, p95 {p95:7.1f} ms, "
                f"max {ms[-1]:7.1f} ms; expert tables stored {self.bot_actions} bot actions meanwhile"
                + (f"; {self.errors} errors" if self.errors else ""))


class Server:
    """``nimmt serve`` from ``tree`` (a folder holding a ``nimmt`` package) in a child process."""

    def __init__(self, tree: Path, db: Path, extra: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONUNBUFFERED": "1"}
        args = [sys.executable, "-m", "nimmt", "serve", "--port", "0", "--db", str(db), "--bot-delay", "0",
                "--limit-tables", "0", "--limit-joins", "0", "--limit-sockets", "0", "--limit-messages", "0",
                "--limit-connections", "0", *extra]
        self.process = subprocess.Popen(args, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True)
        assert self.process.stdout is not None
        self.url = ""
        deadline = time.monotonic() + 60
        self.url = ready_url(self.process.stdout, deadline)
        if not self.url:
            self.stop()
            raise SystemExit("nimmt serve did not start")
        threading.Thread(target=self.process.stdout.read, daemon=True).start()  # keep the pipe flowing

    @property
    def ws(self) -> str:
        return self.url.replace("http://", "ws://", 1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


async def _recv(socket: ClientConnection, timeout: float) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), timeout))
    return message


async def _hello(socket: ClientConnection, token: str) -> dict[str, Any]:
    await socket.send(json.dumps({"type": "hello", "token": token}))
    for _ in range(100):
        message = await _recv(socket, 30)
        if message["type"] == "state":
            return message
    raise RuntimeError("no state after hello")


async def _creator(server: Server, stop: asyncio.Event, rng: random.Random) -> tuple[str, str]:
    """Create a table of a person and nine experts, and play the person's seat at once when asked."""
    async with httpx.AsyncClient(timeout=120) as http:
        answer = await http.post(f"{server.url}/api/tables", json={
            "name": "Load", "seats": 10, "bots": ["expert"] * 9, "start": True})
    table = answer.json()
    return table["table_id"], table["token"]


def _legal(state: dict[str, Any]) -> dict[str, list[int]]:
    """The cards and rows a state lets this person choose: its ``legal`` in the bot protocol's form
    (``[{"card": 5}, ...]``), or the ``{"cards": [...], "rows": [...]}`` of servers before it (--before)."""
    legal = state.get("legal") or []
    if isinstance(legal, dict):
        return {"cards": legal.get("cards", []), "rows": legal.get("rows", [])}
    return {"cards": [a["card"] for a in legal if "card" in a], "rows": [a["row"] for a in legal if "row" in a]}


async def _play_creator(server: Server, table_id: str, token: str, stop: asyncio.Event, rng: random.Random,
                        versions: dict[str, int]) -> None:
    async with connect(f"{server.ws}/ws/{table_id}", max_size=2**20) as socket:
        state = await _hello(socket, token)
        while not stop.is_set():
            versions[table_id] = state["version"]
            legal = _legal(state)
            if legal["rows"]:
                await socket.send(json.dumps({"type": "choose_row", "row": rng.choice(legal["rows"]),
                                              "version": state["version"]}))
            elif legal["cards"]:
                await socket.send(json.dumps({"type": "play", "card": rng.choice(legal["cards"]),
                                              "version": state["version"]}))
            elif state["table"]["status"] == "over":
                return
            try:
                while True:  # the next state
                    message = await _recv(socket, 1.0)
                    if message["type"] == "state":
                        state = message
                        break
            except TimeoutError:
                continue


async def _measure(server: Server, result: Result, seconds: float, actions: int, pause: float,
                   rng: random.Random) -> None:
    async with httpx.AsyncClient(timeout=120) as http:
        answer = await http.post(f"{server.url}/api/tables", json={
            "name": "Person", "seats": 2, "bots": ["random"], "start": True})
    table = answer.json()
    deadline = time.monotonic() + seconds
    async with connect(f"{server.ws}/ws/{table['table_id']}", max_size=2**20) as socket:
        state = await _hello(socket, table["token"])
        ref = 0
        while time.monotonic() < deadline and len(result.latencies) < actions:
            legal = _legal(state)
            if state["table"]["status"] == "over":
                message: dict[str, Any] = {"type": "rematch"}
            elif legal["rows"]:
                message = {"type": "choose_row", "row": rng.choice(legal["rows"]), "version": state["version"]}
            elif legal["cards"]:
                message = {"type": "play", "card": rng.choice(legal["cards"]), "version": state["version"]}
            else:
                state = await _next_state(socket, state, deadline)
                continue
            ref += 1
            message["ref"] = str(ref)
            sent = time.perf_counter()
            await socket.send(json.dumps(message))
            while True:
                reply = await _recv(socket, max(1.0, deadline - time.monotonic() + 30))
                if reply["type"] == "state":
                    state = reply
                elif reply.get("ref") == str(ref):
                    break
            if reply["type"] == "ack":
                result.latencies.append(time.perf_counter() - sent)
            else:
                result.errors += 1
            await asyncio.sleep(pause)
            state = await _latest(socket, state)


async def _latest(socket: ClientConnection, state: dict[str, Any]) -> dict[str, Any]:
    """The newest state among those already sent (ping, then read up to the pong)."""
    await socket.send(json.dumps({"type": "ping"}))
    for _ in range(10_000):
        message = await _recv(socket, 60)
        if message["type"] == "state":
            state = message
        elif message["type"] == "pong":
            return state
    return state


async def _next_state(socket: ClientConnection, state: dict[str, Any], deadline: float) -> dict[str, Any]:
    try:
        while time.monotonic() < deadline:
            message = await _recv(socket, max(0.1, deadline - time.monotonic()))
            if message["type"] == "state":
                return message
    except TimeoutError:
        pass
    return state


async def _run(server: Server, label: str, tables: int, seconds: float, actions: int, pause: float,
               warmup: float) -> Result:
    rng = random.Random(1)
    stop = asyncio.Event()
    versions: dict[str, int] = {}
    made = [await _creator(server, stop, rng) for _ in range(tables)]
    players = [asyncio.create_task(_play_creator(server, t, token, stop, random.Random(i), versions))
               for i, (t, token) in enumerate(made)]
    await asyncio.sleep(warmup)
    before = sum(versions.values())
    result = Result(label)
    try:
        await asyncio.wait_for(_measure(server, result, seconds, actions, pause, rng), seconds + 120)
    finally:
        result.bot_actions = sum(versions.values()) - before
        stop.set()
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
    return result


def _archive(revision: str, into: Path) -> None:
    data = subprocess.run(["git", "archive", revision, "nimmt"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")


# The child of --playouts, run with PYTHONPATH set to the tree measured: JSON on its last line.
PLAYOUTS = """
import json, random, sys, time
from nimmt.bots import make_bot
from nimmt.core import ChooseRow, Phase, PlayCard, apply, deal_cards, new_game, view
players, budget, positions = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])

def position(seed, turn):
    rng = random.Random(seed)
    state = apply(new_game(players), deal_cards(players, rng)).state
    while True:
        if state.phase is Phase.CHOOSE_ROW:
            state = apply(state, ChooseRow(state.waiting_for[0], 0)).state
            continue
        p = state.waiting_for[0]
        if state.turn >= turn and p == 0 and len(state.waiting_for) == players:
            return view(state, 0)
        state = apply(state, PlayCard(p, rng.choice(state.hands[p]))).state

found = {}
for name in ("expert", "field:dmc"):
    bot = make_bot(name, random.Random(1))
    bot.time_budget = budget
    bot.clock = "cpu"
    count = bot._search if name == "expert" else bot.values
    count(position(0, 0), "card")  # the kernels loaded, not timed
    done, cpu = 0, 0.0
    for i in range(positions):
        seen = position(1000 + i, i % 9)
        start = time.process_time()
        estimates = count(seen, "card")
        cpu += time.process_time() - start
        done += sum(e.samples for e in estimates)
    found[name] = done / cpu
print(json.dumps(found))
"""


def playouts(trees: list[tuple[str, Path]], repeats: int, budget: float, positions: int) -> None:
    """The --playouts figures: see the module's docstring."""
    sizes = (2, 4, 10)
    rates: dict[tuple[str, int, str], list[float]] = {}
    for _ in range(repeats):
        for players in sizes:
            for label, tree in trees:  # the trees in turn
                env = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_NUM_THREADS": "1"}
                done = subprocess.run([sys.executable, "-c", PLAYOUTS, str(players), str(budget), str(positions)],
                                      env=env, cwd=tree, capture_output=True, text=True, check=True, timeout=900)
                for bot, rate in json.loads(done.stdout.splitlines()[-1]).items():
                    rates.setdefault((label, players, bot), []).append(rate)
                    print(f"  {label}: {players} players, {bot}: {rate:,.0f} playouts per CPU-second", flush=True)
    first = trees[0][0]
    print(f"playouts per CPU-second, median of {repeats} ({budget} s a decision, {positions} positions), "
          f"load average {os.getloadavg()[0]:.1f}:")
    print("| bot | players | " + " | ".join(label for label, _ in trees) + " | " +
          " | ".join(f"{label} / {first}" for label, _ in trees[1:]) + " |")
    print("|---|---:|" + "---:|" * (2 * len(trees) - 1))
    for bot in ("expert", "field:dmc"):
        for players in sizes:
            medians = [statistics.median(rates[(label, players, bot)]) for label, _ in trees]
            print(f"| `{bot}` | {players} | " + " | ".join(f"{m:,.0f}" for m in medians) + " | " +
                  " | ".join(f"{m / medians[0]:.2f}x" for m in medians[1:]) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8, help="tables of nine expert bots (default 8; 0: a baseline)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measuring time per run (default 20)")
    parser.add_argument("--actions", type=int, default=300, help="at most this many measured actions per run")
    parser.add_argument("--pause", type=float, default=0.05, help="seconds between the person's actions")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds the bots play before measuring")
    parser.add_argument("--before", metavar="REV", help="also measure an earlier commit, first")
    parser.add_argument("--bot-workers", type=int, help="nimmt serve --bot-workers (this tree only)")
    parser.add_argument("--playouts", action="store_true", help="only the searching bots' playouts a second")
    parser.add_argument("--old", default="", help="with --playouts: older trees or commits, comma-separated")
    parser.add_argument("--repeats", type=int, default=3, help="with --playouts: runs of each tree")
    parser.add_argument("--budget", type=float, default=0.25, help="with --playouts: CPU seconds a decision")
    parser.add_argument("--positions", type=int, default=12, help="with --playouts: decisions per bot and size")
    args = parser.parse_args()
    if args.playouts:
        if not 1 <= args.repeats <= 20 or not 0 < args.budget <= 5 or not 1 <= args.positions <= 200:
            raise SystemExit("keep it bounded: 1-20 repeats, up to 5 s a decision, 1-200 positions")
        with tempfile.TemporaryDirectory() as folder:
            trees: list[tuple[str, Path]] = []
            for index, old in enumerate(o for o in args.old.split(",") if o):
                if Path(old).is_dir():
                    trees.append((old, Path(old)))
                    continue
                tree = Path(folder) / str(index)
                tree.mkdir()
                _archive(old, tree)
                cache = ROOT / "nimmt" / "batch" / "__pycache__"
                if cache.is_dir():  # the same sources load, the others compile
                    shutil.copytree(cache, tree / "nimmt" / "batch" / "__pycache__", dirs_exist_ok=True)
                trees.append((old[:9], tree))
            trees.append(("this tree", ROOT))
            playouts(trees, args.repeats, args.budget, args.positions)
        return
    if not 0 <= args.tables <= 40 or not 0 < args.seconds <= 300 or not 1 <= args.actions <= 10_000:
        raise SystemExit("keep it bounded: 0-40 tables, up to 300 s, up to 10,000 actions")
    print(f"{args.tables} tables of 9 expert bots; a person at a table of two acts every {args.pause} s "
          f"for {args.seconds} s (at most {args.actions} actions); {os.cpu_count()} cores", flush=True)
    runs: list[tuple[str, Path, list[str]]] = []
    with tempfile.TemporaryDirectory() as folder:
        if args.before:
            old = Path(folder) / "before"
            old.mkdir()
            _archive(args.before, old)
            runs.append((f"before ({args.before[:9]})", old, []))
        extra = ["--bot-workers", str(args.bot_workers)] if args.bot_workers else []
        runs.append(("after", ROOT, extra))
        for index, (label, tree, options) in enumerate(runs):
            server = Server(tree, Path(folder) / f"db{index}.sqlite3", options)
            try:
                result = asyncio.run(_run(server, label, args.tables, args.seconds, args.actions, args.pause,
                                          args.warmup))
            finally:
                server.stop()
            print(result.line(), flush=True)


if __name__ == "__main__":
    main()
