"""``benchmarks/load.py --soak``: the documented deployment under load while things go wrong.

    .venv/bin/python benchmarks/load.py --soak --players 200 --seconds 300 [--processes 2] [--json]

load.py's people (tables of four over real WebSockets, through nginx, on two ``nimmt serve``
processes, one PostgreSQL and one Redis: ``--cluster``) play for ``--seconds`` (at most 600), and
meanwhile, at a quarter, a half and three quarters of the run: ``kill -9`` of the first process
(started again 3 s later), Redis stopped for 5 s, ``kill -9`` of the second process. A person
whose socket drops connects again through nginx 0.5 to 2 s later, as the page does. Hostile clients
take turns every 2 s from the same machine: a 1 MB header, a head trickled a byte a second,
integers past 64 bits and broken JSON over a WebSocket, a record of 180 KB to replay.

At the end both processes are killed and started again, so that every table is rebuilt from
PostgreSQL alone, and each table's version is read as a spectator: an acknowledged action whose
version is above its table's is **lost** (the journal is append-only and numbered, so a version
at least the acknowledged one holds it). Reported: acknowledged actions and lost (must be 0), the
action latency's p50/p99 overall and minute by minute, each process's memory every 10 s,
tracebacks in the processes' logs (must be 0), what the hostile clients were answered.

Bounded: the run's own bounds (players, 600 s, a timeout on every wait), hostile clients one at a
time, loopback only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import time
from collections import Counter
from pathlib import Path
from typing import Any

from load import SEATS, Person, Processes, Run, percentile
from websockets.asyncio.client import connect

FAULTS = ((0.25, "kill -9 of the first process"), (0.50, "Redis stopped for 5 s"),
          (0.75, "kill -9 of the second process"))


class SoakPerson(Person):
    """A person who connects again after a drop, and whose acknowledged actions are remembered."""

    run: SoakRun

    async def play(self) -> None:
        while not self.run.stopping:
            self.reloading = False
            self.pending = None  # an action in flight on a dropped socket was never acknowledged
            await self.connection()
            if self.run.stopping:
                return
            await asyncio.sleep(self.rng.uniform(0.5, 2.0))

    def handle(self, message: dict[str, Any]) -> None:
        if message.get("type") == "ack" and self.pending is not None and message.get("ref") == self.pending.ref \
                and self.pending.kind in ("play", "choose_row"):
            self.run.acked.append((self.table_id, int(message["version"])))
        super().handle(message)

    def done(self) -> None:
        if self.pending is not None and self.pending.kind in ("play", "choose_row"):
            now = time.perf_counter()
            self.run.timeline.append((now, now - self.pending.sent))
        super().done()


class SoakRun(Run):
    person_class = SoakPerson

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.acked: list[tuple[str, int]] = []
        self.timeline: list[tuple[float, float]] = []  # (when, seconds) of each measured action
        self.memory: list[tuple[float, list[int]]] = []  # (seconds into the run, RSS kB of each process)
        self.hostile: Counter[str] = Counter()
        self.faults: list[str] = []
        self.began = 0.0

    @property
    def cluster(self) -> Any:
        assert isinstance(self.server, Processes)
        return self.server.cluster

    async def main(self) -> None:
        self.began = time.perf_counter()
        self.spawn(self._faults())
        self.spawn(self._hostile())
        self.spawn(self._memory())
        await super().main()

    # -- what goes wrong ----------------------------------------------------------------------
    async def _faults(self) -> None:
        nodes = self.cluster.nodes
        for share, what in FAULTS:
            await asyncio.sleep(max(0.0, self.began + share * self.seconds - time.perf_counter()))
            if self.stopping:
                return
            at = time.perf_counter() - self.began
            if "Redis" in what:
                await asyncio.to_thread(self.cluster.stop_redis)
                await asyncio.sleep(5)
                await asyncio.to_thread(self.cluster.start_redis)
            else:
                node = nodes[0] if "first" in what else nodes[-1]
                await asyncio.to_thread(node.kill)
                await asyncio.sleep(3)
                await asyncio.to_thread(node.start)
            self.faults.append(f"{at:.0f} s: {what}, back {time.perf_counter() - self.began - at:.0f} s later")

    async def _hostile(self) -> None:
        kinds = ("huge_header", "trickle", "big_integers", "broken_json", "replay")
        record = _long_record()
        turn = 0
        while not self.stopping:
            await asyncio.sleep(2.0)
            kind = kinds[turn % len(kinds)]
            turn += 1
            node = self.cluster.nodes[turn % len(self.cluster.nodes)]
            try:
                answer = await asyncio.wait_for(self._attack(kind, node.url, record), self.timeout)
            except Exception as error:  # a process being killed: the attack found nobody
                answer = type(error).__name__
            self.hostile[f"{kind}: {answer}"] += 1

    async def _attack(self, kind: str, url: str, record: bytes) -> str:
        host, port = url.removeprefix("http://").split(":")
        if kind in ("huge_header", "trickle"):
            return await asyncio.to_thread(_raw_head, host, int(port), kind == "trickle")
        if kind == "replay":
            import httpx

            async with httpx.AsyncClient(timeout=self.timeout, trust_env=False) as http:
                return str((await http.post(f"{url}/api/replay", content=record)).status_code)
        # A person of a real table, on a second device: their token lets the message reach the checks
        # of an action (a spectator's is refused before).
        person = random.choice(random.choice(self.tables)) if self.tables else None
        table, token = (person.table_id, person.token) if person is not None else ("nothing", None)
        async with connect(f"{url.replace('http://', 'ws://')}/ws/{table}", open_timeout=self.timeout) as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            await asyncio.wait_for(ws.recv(), self.timeout)
            if kind == "big_integers":
                await ws.send(json.dumps({"type": "play", "card": 2**64, "version": 2**70, "ref": "x"}))
            else:
                await ws.send('{"type": "play", "card": ')
            answer = json.loads(await asyncio.wait_for(ws.recv(), self.timeout))
            return str(answer.get("code", answer.get("type")))

    async def _memory(self) -> None:
        while not self.stopping:
            rss = [_rss_kb(node.process.pid) if node.process is not None else 0 for node in self.cluster.nodes]
            self.memory.append((time.perf_counter() - self.began, rss))
            await asyncio.sleep(10.0)

    # -- what was kept ------------------------------------------------------------------------
    async def lost(self) -> tuple[int, int]:
        """Both processes killed and started again; each table's version read back as a spectator:
        (tables checked, acknowledged actions above their table's version)."""
        for node in self.cluster.nodes:
            await asyncio.to_thread(node.kill)
        for node in self.cluster.nodes:
            await asyncio.to_thread(node.start)
        newest: dict[str, int] = {}
        for table_id, version in self.acked:
            newest[table_id] = max(version, newest.get(table_id, -1))
        kept: dict[str, int] = {}
        for table_id in newest:
            async with connect(f"{self.ws_url}/ws/{table_id}", open_timeout=self.timeout) as ws:
                await ws.send(json.dumps({"type": "hello"}))
                kept[table_id] = int(json.loads(await asyncio.wait_for(ws.recv(), self.timeout))["version"])
        return len(kept), sum(1 for table_id, version in self.acked if version > kept[table_id])

    def soak_figures(self, checked: int, lost: int) -> dict[str, Any]:
        minutes: dict[int, list[float]] = {}
        for when, seconds in self.timeline:
            minutes.setdefault(int((when - self.began) // 60), []).append(seconds * 1000)
        everything = sorted(ms for values in minutes.values() for ms in values)
        assert isinstance(self.server, Processes)
        self.server.count_log()
        return {
            "acknowledged": len(self.acked), "lost": lost, "tables_checked": checked,
            "p50_ms": round(percentile(everything, 0.5), 1), "p99_ms": round(percentile(everything, 0.99), 1),
            "p99_ms_by_minute": {m: round(percentile(sorted(v), 0.99), 1) for m, v in sorted(minutes.items())},
            "memory_kb": [[round(t), rss] for t, rss in self.memory],
            "tracebacks": self.server.tracebacks, "log_lines": self.server.lines,
            "traceback_kinds": dict(_tracebacks(self.cluster.nodes).most_common(8)),
            "faults": self.faults, "hostile": dict(sorted(self.hostile.items())),
            "errors": dict(self.stats.errors.most_common()),
        }


def _tracebacks(nodes: list[Any]) -> Counter[str]:
    """Each traceback in the processes' output by its last line (the exception)."""
    found: Counter[str] = Counter()
    for node in nodes:
        inside = False
        for line in node.output:
            if line.startswith("Traceback"):
                inside = True
            elif inside and line.strip() and not line.startswith((" ", "\t")):
                found[line.strip()[:160]] += 1
                inside = False
    return found


def _raw_head(host: str, port: int, trickle: bool) -> str:
    """A 1 MB header, or a head a byte a second (for 15 s at most): the status line answered."""
    with socket.create_connection((host, port), timeout=20) as sock:
        try:
            if trickle:
                for byte in b"GET / HTTP/1.1\r\nX-Slow: " + b"s" * 20:
                    sock.sendall(bytes([byte]))
                    time.sleep(1.0)
            else:
                sock.sendall(b"GET / HTTP/1.1\r\nX-Big: " + b"a" * 1024 * 1024)
        except OSError:
            pass  # refused and closed: the rest is not read
        with contextlib.suppress(OSError):
            return sock.recv(200).split(b"\r\n")[0].decode("latin-1") or "closed"
    return "closed"


def _rss_kb(pid: int) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _long_record() -> bytes:
    """A finished game of 10 random bots over 150 rounds: some 180 KB, seconds of checking."""
    from nimmt.bots import make_bot
    from nimmt.core import Rules
    from nimmt.match import play_game

    bots = [make_bot("random", random.Random(seat)) for seat in range(10)]
    return json.dumps(play_game(bots, random.Random(1), Rules(rounds=150)).to_json()).encode()


def report(figures: dict[str, Any]) -> str:
    memory = figures["memory_kb"]
    lines = [
        f"soak: {figures['acknowledged']} actions acknowledged, {figures['lost']} lost "
        f"({figures['tables_checked']} tables rebuilt from PostgreSQL alone and read back)",
        f"latency: p50 {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms; p99 by minute "
        + ", ".join(f"{m}: {v} ms" for m, v in figures["p99_ms_by_minute"].items()),
        "memory (RSS of each process, MB): " + ", ".join(
            f"{t} s: " + "/".join(f"{kb / 1024:.0f}" for kb in rss) for t, rss in memory[:: max(1, len(memory) // 12)]),
        f"tracebacks in the processes' logs: {figures['tracebacks']} ({figures['log_lines']} lines)"
        + "".join(f"\n  | {count} × {kind}" for kind, count in figures["traceback_kinds"].items()),
        "faults: " + "; ".join(figures["faults"]),
        "hostile clients answered: " + ", ".join(f"{k} ×{v}" for k, v in figures["hostile"].items()),
        f"errors seen by the people: {figures['errors'] or 'none'}",
    ]
    return "\n".join(lines)


def run_soak(args: Any) -> None:
    """``load.py --soak``: start the cluster, play, break things, check, report."""
    import os

    print(f"nimmt soak: {args.players} players ({args.players // SEATS} tables), {args.processes} processes "
          f"behind nginx on PostgreSQL and Redis, {args.seconds:g} s, think {args.think:g} s; faults at "
          + ", ".join(f"{share:.0%}: {what}" for share, what in FAULTS)
          + f"; hostile clients every 2 s; load average {os.getloadavg()[0]:.2f} before", flush=True)
    server = Processes(args.processes, args.players, list(args.serve_arg))
    run = SoakRun(args, server.url, None, server)
    figures: dict[str, Any] = {}

    async def everything() -> None:
        await run.main()
        checked, lost = await run.lost()
        figures.update(run.soak_figures(checked, lost))

    try:
        asyncio.run(asyncio.wait_for(everything(), args.seconds + 6 * args.timeout + 120))
    finally:
        server.stop()
    print(report(figures))
    if args.json:
        print(json.dumps({**figures, "load": run.figures}, sort_keys=True))
