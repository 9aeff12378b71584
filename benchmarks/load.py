"""A load test of ``nimmt serve``: simulated people at tables of four, over real WebSockets.

    .venv/bin/python benchmarks/load.py --players 400 --seconds 60 [--think 2] [--ramp S] [--url URL] [--lobby N]

It starts a real ``nimmt serve`` on 127.0.0.1 (port 0, a fresh SQLite file in a temporary folder,
no bots, **every per-client limit off**: the whole load comes from one address, which the limits of
``nimmt/server/limits.py`` would refuse), or with ``--url http://127.0.0.1:PORT`` uses one already
running (give ``--server-pid`` to measure its CPU). Then, spread evenly over the ramp, it creates
tables of four people through the HTTP API (``POST /api/tables``, three ``POST .../join``, each
giving a seat token), opens one WebSocket per person, says ``hello`` asking for patches, as the web
page does (``--no-patches``: whole states only), and the creator starts the
table once all four are there. From then on each person acts whenever the table asks them (a random
legal card from the state they were sent, or a row when asked; the host asks for a rematch when a
game is over), ``--think`` seconds (default 2, jittered ±50 %) after they were asked, as a person
would.

For each ``play`` and ``choose_row`` it measures the time from sending it to having both its
``ack`` and the sender's own ``state`` with a version at least the ack's (the person sees their
move). It prints, over the steady part of the run (after the ramp): players held (connected at the
end), actions per second, that latency's p50/p95/p99/max, errors by code (the server's codes, and
``timeout``, ``closed``, ``connect_failed``, ``http_<status>`` seen by the generator), the server's
CPU seconds per action (``/proc/<pid>/stat`` before and after) and the generator's own CPU: it runs
on the same machine, in one asyncio event loop (one core at most), sharing the cores with the
server.

``--cluster`` runs the documented deployment instead (``docs/deploy/``): ``--processes`` (default 2)
``nimmt serve`` processes on a PostgreSQL and a Redis of their own (``scripts/services.sh``: Unix
sockets in a temporary folder, ``fsync`` off) behind Debian's nginx running
``docs/deploy/nginx-two.conf`` (its ports replaced), all started here through
``tests/server/cluster.py``'s harness and stopped at the end (a watcher stops them should this
process be killed). Every person then goes through nginx; the figures add the CPU of nginx,
PostgreSQL and Redis per action beside the processes'.

``--lobby N`` adds N people who browse the lobby's list and quick-match into public tables
(``benchmarks/load_lobby.py``): the list's and quick match's latencies are reported beside.

``--abusers`` adds abusive clients beside them, each from a loopback address of its own (a key
making groups, a chat flooder, league readers, big uploads: ``benchmarks/load_abuse.py``); the
normal players' latencies and the health probe's, with and without them, are in
``docs/deploy/README.md``. Every run probes ``/healthz`` twice a second and reports its latency.

``--soak`` runs the cluster while things go wrong (processes killed, Redis restarted, hostile
clients) and reports acknowledged actions lost: ``benchmarks/soak.py``.

Bounded: at most 4,000 players, 600 s and 8 processes, every wait has a timeout (``--timeout``,
default 30 s), and traffic goes to 127.0.0.1 only. ``--json`` adds the figures as one JSON line at
the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from nimmt.cli.serve import collect_garbage_for_a_server, ready_url
from nimmt.server.patch import apply_patch

if TYPE_CHECKING:
    from tests.server.cluster import Cluster

ROOT = Path(__file__).resolve().parents[1]
MAX_PLAYERS = 4000
MAX_PROCESSES = 8
MAX_SECONDS = 600.0
SEATS = 4
NO_LIMITS = ["--limit-tables", "0", "--limit-joins", "0", "--limit-sockets", "0", "--limit-messages", "0",
             "--limit-connections", "0"]
MEASURED = ("play", "choose_row")  # the actions whose latency is measured


class Server:
    """``nimmt serve`` on 127.0.0.1 in a child process, its output drained (and its tracebacks counted)."""

    lines = 0
    tracebacks = 0

    def __init__(self, db: str, extra: list[str], timeout: float, log: Path | None) -> None:
        self.log = log.open("w") if log is not None else None
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.args = ["--host", "127.0.0.1", "--port", "0", "--db", db, "--bot-delay", "0", *NO_LIMITS, *extra]
        self.process = subprocess.Popen([sys.executable, "-m", "nimmt", "serve", *self.args], env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.samples: list[str] = []  # the first few lines after start, to show what went wrong
        assert self.process.stdout is not None
        self.url = ""
        deadline = time.monotonic() + max(timeout, 60)  # a loaded machine may take long to import
        self.url = ready_url(self.process.stdout, deadline)
        if not self.url:
            self.stop()
            raise SystemExit("nimmt serve did not start")
        threading.Thread(target=self._drain, daemon=True).start()  # a full pipe would stall the server

    def _drain(self) -> None:
        assert self.process.stdout is not None
        with contextlib.suppress(ValueError, OSError):
            for line in self.process.stdout:
                if line.startswith(("nimmt is ready", "games are kept")):
                    continue
                self.lines += 1
                if self.log is not None:
                    self.log.write(line)
                self.tracebacks += line.startswith("Traceback")
                if len(self.samples) < 5:
                    self.samples.append(line.rstrip()[:200])

    @property
    def pid(self) -> int:
        return self.process.pid

    def groups(self) -> dict[str, list[int]]:
        return {"nimmt": [self.pid]}

    def cpu(self) -> dict[str, dict[int, float]]:
        return {"nimmt": {self.pid: c} if (c := cpu_seconds(self.pid)) is not None else {}}

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if self.log is not None:
            self.log.close()


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds of process ``pid`` so far (``/proc/<pid>/stat``), or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14, 15


def waited_seconds(pid: int) -> float | None:
    """Seconds the main thread of process ``pid`` (the event loop) has so far spent ready to run but
    waiting for a core (``/proc/<pid>/schedstat``'s second field), or None."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def children(parent: int) -> list[int]:
    """The processes whose parent is ``parent`` (PostgreSQL's backends under its postmaster)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                text = (entry / "stat").read_text()
                if int(text[text.rindex(")") + 2:].split()[1]) == parent:
                    found.append(int(entry.name))
    return found


class Processes:
    """``--cluster``: N ``nimmt serve`` processes on PostgreSQL and Redis behind nginx, by the fault
    tests' harness (``tests/server/cluster.py``), with nginx allowed enough connections for the load
    (two for each person: theirs and the one to a process)."""

    def __init__(self, processes: int, players: int, extra: list[str]) -> None:
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))  # run as a script: the harness lives in tests/server/
        from tests.server import cluster

        connections = 2 * players + 2048

        class Wide(cluster.Cluster):
            def _start_nginx(self) -> None:
                main_config = cluster._main_config
                def wide(folder: Path) -> str:
                    text = main_config(folder)
                    wider = text.replace("worker_connections 512;", f"worker_connections {connections};")
                    if wider == text:
                        raise SystemExit("tests/server/cluster.py's nginx.conf changed: 'worker_connections 512;' "
                                         "not found")
                    return wider.replace("worker_processes 1;", f"worker_processes 1;\nworker_rlimit_nofile "
                                         f"{connections + 64};")
                cluster._main_config = wide
                try:
                    super()._start_nginx()
                finally:
                    cluster._main_config = main_config

        self.cluster: Cluster = Wide(processes, bot_delay=0, args=[*NO_LIMITS, *extra])
        self.cluster.start()
        self.url = self.cluster.url
        self.lines = 0
        self.tracebacks = 0
        self.nginx_errors: list[str] = []

    def cpu(self) -> dict[str, dict[int, float]]:
        """CPU seconds so far, by group (the nimmt processes; nginx, PostgreSQL, Redis) and pid."""
        return {name: {pid: c for pid in pids if (c := cpu_seconds(pid)) is not None}
                for name, pids in self.groups().items()}

    def groups(self) -> dict[str, list[int]]:
        def pid(child: Any) -> list[int]:
            return [child.process.pid] if child.process is not None and child.process.poll() is None else []
        services = self.cluster.services
        postmaster = []
        with contextlib.suppress(OSError, ValueError, IndexError):
            postmaster = [int((services / "pg" / "data" / "postmaster.pid").read_text().split()[0])]
        redis = []
        with contextlib.suppress(OSError, ValueError):
            redis = [int((services / "redis.pid").read_text().strip())]
        return {"nimmt": [p for node in self.cluster.nodes for p in pid(node)],
                "nginx": pid(self.cluster.nginx) + [p for n in pid(self.cluster.nginx) for p in children(n)],
                "postgres": postmaster + [p for m in postmaster for p in children(m)],
                "redis": redis}

    def count_log(self) -> None:
        output = [line for node in self.cluster.nodes for line in node.output
                  if not line.startswith(("nimmt is ready", "games are kept", "--- nimmt"))]
        self.lines = len(output)
        self.tracebacks = sum(line.startswith("Traceback") for line in output)

    @property
    def samples(self) -> list[str]:
        return [f"{node.name}: {line.rstrip()[:200]}" for node in self.cluster.nodes for line in node.output
                if not line.startswith(("nimmt is ready", "games are kept", "--- nimmt"))][:5]

    def stop(self) -> None:
        self.nginx_errors = self._nginx_errors()
        self.cluster.stop()
        self.count_log()  # the shutdown's lines too

    def _nginx_errors(self) -> list[str]:
        """nginx's own complaints (its error log at warn and above), the most frequent first, counted."""
        found: Counter[str] = Counter()
        with contextlib.suppress(OSError):
            for line in (self.cluster.folder / "error.log").read_text(errors="replace").splitlines():
                if match := re.search(r"\[(warn|error|crit|alert|emerg)\] [\d#]+: (?:\*\d+ )?([^,]*)", line):
                    found[f"[{match[1]}] {match[2][:140]}"] += 1
        return [f"{count} x {text}" for text, count in found.most_common(6)]

    @property
    def description(self) -> str:
        nodes = ", ".join(f"{node.name} (pid {node.process.pid if node.process else '?'}) at {node.url}"
                          for node in self.cluster.nodes)
        return (f"{len(self.cluster.nodes)} nimmt serve processes, {nodes}, on PostgreSQL and Redis of their own "
                f"(scripts/services.sh, fsync off), behind nginx at {self.url} (docs/deploy/nginx-two.conf), "
                f"with every per-client limit off ({' '.join(NO_LIMITS)}): all the load comes from one address")


def percentile(sorted_values: list[float], share: float) -> float:
    """The nearest-rank percentile of values already sorted (0 for none)."""
    if not sorted_values:
        return 0.0
    rank = max(1, -(-round(share * len(sorted_values) * 1000) // 1000))  # ceil(share * n), without float noise
    return sorted_values[min(len(sorted_values), rank) - 1]


@dataclass
class Pending:
    ref: str
    kind: str
    sent: float
    ack_version: int | None = None


@dataclass
class Stats:
    window_start: float = float("inf")
    window_end: float = float("inf")
    latencies: list[float] = field(default_factory=list)  # seconds, of measured actions done in the window
    kinds: Counter[str] = field(default_factory=Counter)  # actions done in the window, by kind
    errors: Counter[str] = field(default_factory=Counter)  # the whole run
    error_details: Counter[str] = field(default_factory=Counter)  # code: what the generator saw, for the report
    setup_latencies: list[float] = field(default_factory=list)  # a table: created, joined, greeted, started
    connected: int = 0
    frames: int = 0  # messages received in the window
    frame_bytes: int = 0
    peak: int = 0
    tables_started: int = 0
    stalls: int = 0  # tables found stalled (and reloaded)
    stalled_behind: int = 0  # people of those tables at an older version than a tablemate
    stalled_at: Counter[str] = field(default_factory=Counter)  # status/phase of the newest state there

    def in_window(self, when: float) -> bool:
        return self.window_start <= when < self.window_end


@dataclass(frozen=True)
class Scraped:
    """What is read from a server's ``/metrics``: its ``nimmt_event_loop_lag_seconds`` histogram
    (upper bound in seconds, inf included -> looks at most that late; and the sum of the lags) and its
    ``nimmt_store_conflicts_total`` (writes that lost a race to another process)."""

    lag_buckets: dict[float, float] = field(default_factory=dict)
    lag_seconds: float = 0.0
    conflicts: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Scraped:
        buckets = {float(m[1]): float(m[2])
                   for m in re.finditer(r'^nimmt_event_loop_lag_seconds_bucket\{le="([^"]+)"\} (\S+)$', text, re.M)}
        total = re.search(r"^nimmt_event_loop_lag_seconds_sum (\S+)$", text, re.M)
        conflicts = re.search(r"^nimmt_store_conflicts_total (\S+)$", text, re.M)
        return cls(buckets, float(total[1]) if total else 0.0, float(conflicts[1]) if conflicts else 0.0)

    def plus(self, other: Scraped) -> Scraped:
        bounds = self.lag_buckets.keys() | other.lag_buckets.keys()
        return Scraped({b: self.lag_buckets.get(b, 0.0) + other.lag_buckets.get(b, 0.0) for b in bounds},
                       self.lag_seconds + other.lag_seconds, self.conflicts + other.conflicts)

    def since(self, before: Scraped) -> Scraped:
        """What happened between ``before`` and this."""
        return Scraped({b: n - before.lag_buckets.get(b, 0.0) for b, n in self.lag_buckets.items()},
                       self.lag_seconds - before.lag_seconds, self.conflicts - before.conflicts)


class Person:
    """One simulated person: one WebSocket, acting on the latest state they were sent."""

    def __init__(self, run: Run, table_id: str, seat: int, token: str, rng: random.Random) -> None:
        self.run = run
        self.table_id = table_id
        self.seat = seat
        self.token = token
        self.rng = rng
        self.socket: ClientConnection | None = None
        self.state: dict[str, Any] | None = None
        self.version = -1  # the newest state's version
        self.pending: Pending | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.refs = 0
        self.greeted = asyncio.Event()
        self.open = False
        self.reloading = False
        self.heard = time.perf_counter()  # when the server last sent this person anything

    async def play(self) -> None:
        """Connect, and connect again as long as :meth:`reload` asks it (a page reloaded)."""
        while True:
            self.reloading = False
            await self.connection()
            if not self.reloading or self.run.stopping:
                return

    def reload(self) -> None:
        """Close the socket and open another, as a person whose page shows nothing new reloads it."""
        if self.socket is not None and self.open:
            self.reloading = True
            self.run.spawn(self.socket.close())

    async def connection(self) -> None:
        stats = self.run.stats
        try:
            async with connect(f"{self.run.ws_url}/ws/{self.table_id}", open_timeout=self.run.timeout,
                               close_timeout=2, max_size=2**20, compression=self.run.compression) as socket:
                self.socket = socket
                await socket.send(json.dumps({"type": "hello", "token": self.token, "patches": self.run.patches}))
                first = json.loads(await asyncio.wait_for(socket.recv(), self.run.timeout))
                self.open = True
                stats.connected += 1
                stats.peak = max(stats.peak, stats.connected)
                self.greeted.set()
                self.handle(first)
                async for raw in socket:
                    self.heard = time.perf_counter()
                    if stats.in_window(self.heard):
                        stats.frames += 1
                        stats.frame_bytes += len(raw)
                    self.handle(json.loads(raw))
                if not self.run.stopping and not self.reloading:  # the server closed the socket
                    stats.errors[f"closed_{socket.close_code}"] += 1
        except (ConnectionClosed, OSError, TimeoutError, InvalidHandshake) as error:
            if not self.run.stopping and not self.reloading:
                code = "closed" if isinstance(error, ConnectionClosed) else (
                    "timeout" if isinstance(error, TimeoutError) and not self.open else "connect_failed")
                stats.errors[code] += 1
                stats.error_details[f"{code}: {type(error).__name__}: {str(error)[:120]}"] += 1
        finally:
            if self.open:
                stats.connected -= 1
            self.open = False
            self.greeted.set()  # whoever waits for this person waits no more
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

    def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "patch" and self.state is not None:  # what changed since the last state, merged in
            message = apply_patch(self.state, message["patch"])
            kind = "state"
        if kind == "state":
            self.state = message
            self.version = max(self.version, message["version"])
            if self.pending is not None and self.pending.ack_version is not None \
                    and self.version >= self.pending.ack_version:
                self.done()
        elif kind == "ack":
            if self.pending is not None and message.get("ref") == self.pending.ref:
                self.pending.ack_version = message["version"]
                if self.version >= message["version"]:  # its state came first: it may ask something already
                    self.done()
                    self.consider()
            return
        elif kind == "error":
            self.run.stats.errors[message.get("code", "?")] += 1
            if self.pending is None or message.get("ref") != self.pending.ref:
                return
            self.pending = None
        else:
            return  # pong, advice: nothing to do
        self.consider()

    def done(self) -> None:
        assert self.pending is not None
        now = time.perf_counter()
        stats = self.run.stats
        if stats.in_window(now):
            stats.kinds[self.pending.kind] += 1
            if self.pending.kind in MEASURED:
                stats.latencies.append(now - self.pending.sent)
        self.pending = None

    def consider(self) -> None:
        """Asked for something (a card, a row, a rematch as the host)? Answer after thinking."""
        if self.run.stopping or self.pending is not None or self.timer is not None or self.state is None:
            return
        if self._decision(self.state) is not None:
            think = self.run.think * self.rng.uniform(0.5, 1.5)
            self.timer = asyncio.get_running_loop().call_later(think, self.act)

    def _decision(self, state: dict[str, Any]) -> dict[str, Any] | None:
        legal = state.get("legal") or []  # the bot protocol's answers: [{"card": 5}, ...] or [{"row": 0}, ...]
        if isinstance(legal, dict):  # a server from before that: {"cards": [...], "rows": [...]}
            legal = [{"row": r} for r in legal.get("rows", [])] or [{"card": c} for c in legal.get("cards", [])]
        if legal:
            answer = self.rng.choice(legal)
            if "row" in answer:
                return {"type": "choose_row", "row": answer["row"], "version": state["version"]}
            return {"type": "play", "card": answer["card"], "version": state["version"]}
        table = state.get("table") or {}
        if table.get("status") == "over" and table.get("you") is not None and table.get("host") == table.get("you"):
            return {"type": "rematch"}
        return None

    def act(self) -> None:
        self.timer = None
        if self.run.stopping or self.pending is not None or self.state is None or self.socket is None:
            return
        message = self._decision(self.state)  # on the latest state: what the person sees when they click
        if message is None:
            return
        self.refs += 1
        message["ref"] = str(self.refs)
        self.pending = Pending(message["ref"], message["type"], time.perf_counter())
        self.run.send(self.socket, json.dumps(message))

    def start_table(self) -> None:
        """The creator's ``start`` once everyone is there."""
        if self.socket is not None and self.open:
            self.refs += 1
            self.pending = Pending(str(self.refs), "start", time.perf_counter())
            self.run.send(self.socket, json.dumps({"type": "start", "ref": str(self.refs)}))


class Run:
    person_class = Person  # benchmarks/soak.py's people connect again after a drop

    def __init__(self, args: argparse.Namespace, url: str, server_pid: int | None,
                 server: Server | Processes | None) -> None:
        self.server = server
        self.url = url
        self.ws_url = url.replace("http://", "ws://", 1)
        self.server_pid = server_pid
        self.players = args.players
        self.seconds = args.seconds
        self.ramp = args.ramp
        self.think = args.think
        self.timeout = args.timeout
        self.compression: str | None = None if args.no_compression else "deflate"
        self.patches: bool = not args.no_patches
        self.rng = random.Random(args.seed)
        self.stats = Stats()
        self.people: list[Person] = []
        self.tables: list[list[Person]] = []
        self.stall: float = args.stall
        self.tasks: set[asyncio.Task[Any]] = set()
        self.stopping = False
        self.figures: dict[str, Any] = {}
        self.lags: list[float] = []  # seconds: how late the generator's own timer fired, in the window
        self.lobby: Any = None  # --lobby: the people who browse the lobby and quick-match (load_lobby.py)
        self.health: list[float] = []  # seconds: GET /healthz, in the window
        self.health_answers: Counter[str] = Counter()
        self.abusers: Any = None  # --abusers: abusive clients beside the players (load_abuse.py)
        if getattr(args, "abusers", False):
            from load_abuse import Abusers  # beside this script

            self.abusers = Abusers(self, getattr(args, "league_group", None), args.abuse_record, args.abusers)
        if getattr(args, "lobby", 0):
            from load_lobby import LobbyGoers  # beside this script

            self.lobby = LobbyGoers(self, args.lobby, args.look_every)

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def send(self, socket: ClientConnection, text: str) -> None:
        async def sending() -> None:
            with contextlib.suppress(ConnectionClosed):  # the reader counts a closed socket
                await asyncio.wait_for(socket.send(text), self.timeout)
        self.spawn(sending())

    async def table(self, http: httpx.AsyncClient, index: int, gate: asyncio.Semaphore) -> None:
        began = time.perf_counter()
        async with gate:
            tokens: list[tuple[int, str]] = []
            answer = await http.post(f"{self.url}/api/tables", json={"name": f"P{index}-0", "seats": SEATS})
            if answer.status_code != 201:
                self.stats.errors[f"http_{answer.status_code}"] += 1
                return
            table_id = answer.json()["table_id"]
            tokens.append((0, answer.json()["token"]))
            for seat in range(1, SEATS):
                answer = await http.post(f"{self.url}/api/tables/{table_id}/join", json={"name": f"P{index}-{seat}"})
                if answer.status_code != 200 and answer.status_code != 201:
                    self.stats.errors[f"http_{answer.status_code}"] += 1
                    return
                tokens.append((answer.json()["seat"], answer.json()["token"]))
        people = [self.person_class(self, table_id, seat, token, random.Random(self.rng.random()))
                  for seat, token in tokens]
        self.people.extend(people)
        self.tables.append(people)
        for person in people:
            self.spawn(person.play())
        waits = [asyncio.ensure_future(p.greeted.wait()) for p in people]
        try:
            await asyncio.wait(waits, timeout=self.timeout)
        finally:
            for wait in waits:
                wait.cancel()
        creator = next(p for p in people if p.seat == 0)
        if all(p.open for p in people):
            creator.start_table()
            self.stats.tables_started += 1
            self.stats.setup_latencies.append(time.perf_counter() - began)

    async def watchdog(self) -> None:
        """An action with no answer within the timeout counts as ``timeout``; the person goes on. A
        table where nobody has been sent anything for ``--stall`` seconds, nobody is about to act
        and no action is unanswered is stalled (someone missed an update that asked them to act):
        counted, and its people reload (connect again, and are sent the whole state)."""
        while not self.stopping:
            await asyncio.sleep(1.0)
            now = time.perf_counter()
            for person in self.people:
                if person.pending is not None and now - person.pending.sent > self.timeout:
                    self.stats.errors["timeout"] += 1
                    person.pending = None
                    person.consider()
            if not self.stall:
                continue
            for people in self.tables:
                if all(p.open and p.pending is None and p.timer is None and now - p.heard > self.stall
                       for p in people):
                    self.stats.stalls += 1
                    self.stats.stalled_behind += sum(p.version < max(q.version for q in people) for p in people)
                    newest = max(people, key=lambda p: p.version).state or {}
                    self.stats.stalled_at[f"{(newest.get('table') or {}).get('status')}/"
                                          f"{(newest.get('view') or {}).get('phase')}"] += 1
                    for person in people:
                        person.reload()

    async def lag_probe(self) -> None:
        """How late this generator's own event loop runs a 10 ms timer: its share of the latencies."""
        while not self.stopping:
            asked = time.perf_counter()
            await asyncio.sleep(0.01)
            woke = time.perf_counter()
            if self.stats.in_window(woke):
                self.lags.append(woke - asked - 0.01)

    async def health_probe(self) -> None:
        """``GET /healthz`` twice a second, as a monitor would: its latency and answers in the window."""
        async with httpx.AsyncClient(timeout=self.timeout, trust_env=False) as http:
            while not self.stopping:
                asked = time.perf_counter()
                try:
                    answer = await http.get(f"{self.url}/healthz")
                    status = str(answer.status_code)
                    if answer.status_code != 200:  # what failed, as it says
                        status += f" {answer.json().get('failed')}: {answer.json().get('error')}"
                except (httpx.HTTPError, ValueError) as error:
                    status = type(error).__name__
                answered = time.perf_counter()
                if self.stats.in_window(answered):
                    self.health.append(answered - asked)
                    self.health_answers[status] += 1
                await asyncio.sleep(max(0.0, 0.5 - (answered - asked)))

    async def main(self) -> None:
        tables = self.players // SEATS
        began = time.perf_counter()
        self.stats.window_start = began + self.ramp
        self.stats.window_end = began + self.seconds
        self.spawn(self.watchdog())
        self.spawn(self.lag_probe())
        self.spawn(self.health_probe())
        if self.abusers is not None:
            self.spawn(self.abusers.main())
        gate = asyncio.Semaphore(16)  # tables being created at once, at most
        # Idle connections closed after 2 s, before the server's 5 s: a request on one it is closing fails.
        limits = httpx.Limits(max_connections=16, max_keepalive_connections=16, keepalive_expiry=2.0)
        async with httpx.AsyncClient(timeout=self.timeout, limits=limits, trust_env=False) as http:
            setups: list[asyncio.Task[Any]] = []
            if self.lobby is not None:
                setups.append(self.spawn(self._guarded(self.lobby.main(http))))
            for index in range(tables):
                delay = began + index * self.ramp / tables - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                if time.perf_counter() >= self.stats.window_end:
                    break
                setups.append(self.spawn(self._guarded(self.table(http, index, gate))))
            await asyncio.sleep(max(0.0, self.stats.window_start - time.perf_counter()))
            cpu_before = self.cpu()
            scraped_before = await self.scrape(http)
            waited_before = self.waited(cpu_before)
            own_before = resource.getrusage(resource.RUSAGE_SELF)
            start = time.perf_counter()
            await asyncio.sleep(max(0.0, self.stats.window_end - start))
            end = time.perf_counter()
            cpu_after = self.cpu()
            scraped_after = await self.scrape(http)
            waited_after = self.waited(cpu_after)
            own_after = resource.getrusage(resource.RUSAGE_SELF)
            if isinstance(self.server, Processes):
                self.server.count_log()
            log = (self.server.lines, self.server.tracebacks) if self.server is not None else None
            held = sum(1 for p in self.people if p.open)
            in_flight = sum(1 for p in self.people if p.pending is not None)
            self.stopping = True
            for task in setups:
                task.cancel()
        await self._close()
        window = end - start
        actions = sum(self.stats.kinds[k] for k in MEASURED)
        ms = sorted(x * 1000 for x in self.stats.latencies)
        lags = sorted(x * 1000 for x in self.lags)
        health = sorted(x * 1000 for x in self.health)
        scraped = scraped_after.since(scraped_before)
        used = {name: sum(cpu - cpu_before.get(name, {}).get(pid, 0.0) for pid, cpu in pids.items())
                for name, pids in cpu_after.items()}  # a process born in the window counts whole
        server_cpu = used.pop("nimmt", None) if cpu_after.get("nimmt") else None
        own_cpu = (own_after.ru_utime + own_after.ru_stime) - (own_before.ru_utime + own_before.ru_stime)
        self.figures = {
            "players": tables * SEATS + (self.lobby.count if self.lobby is not None else 0), "tables": tables,
            "tables_started": self.stats.tables_started,
            "players_held": held, "peak_connected": self.stats.peak, "window_seconds": round(window, 2),
            "actions": actions, "actions_per_second": round(actions / window, 1) if window > 0 else 0.0,
            "other_actions": {k: v for k, v in self.stats.kinds.items() if k not in MEASURED},
            "latency_ms": {"p50": round(percentile(ms, 0.50), 1), "p95": round(percentile(ms, 0.95), 1),
                           "p99": round(percentile(ms, 0.99), 1), "max": round(ms[-1], 1) if ms else 0.0},
            "in_flight_at_end": in_flight,
            "messages_per_action": round(self.stats.frames / actions, 2) if actions else None,
            "bytes_per_message": round(self.stats.frame_bytes / self.stats.frames) if self.stats.frames else None,
            "patches": self.patches, "stalls": self.stats.stalls, "stalled_at": dict(self.stats.stalled_at),
            "stalled_behind": self.stats.stalled_behind,
            "errors": dict(self.stats.errors.most_common()),
            "error_details": dict(self.stats.error_details.most_common(8)),
            "server_cpu_seconds": None if server_cpu is None else round(server_cpu, 2),
            "server_cpu_ms_per_action": (round(server_cpu * 1000 / actions, 2)
                                         if server_cpu is not None and actions else None),
            "generator_cpu_seconds": round(own_cpu, 2),
            "generator_lag_ms": {"p50": round(percentile(lags, 0.50), 1), "p99": round(percentile(lags, 0.99), 1),
                                 "max": round(lags[-1], 1) if lags else 0.0},
            "server_loop_lag_ms": lag_summary(scraped),
            "store_conflicts": scraped.conflicts,
            "server_waited_for_cpu_seconds": round(sum(w - waited_before.get(pid, 0.0)
                                                       for pid, w in waited_after.items()), 2),
            "services_cpu_seconds": {name: round(cpu, 2) for name, cpu in used.items()},
            "services_cpu_ms_per_action": {name: round(cpu * 1000 / actions, 3) if actions else None
                                           for name, cpu in used.items()},
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "server_log_lines": None if log is None else log[0],
            "server_tracebacks": None if log is None else log[1],
            "setup_p50_ms": round(percentile(sorted(x * 1000 for x in self.stats.setup_latencies), 0.5), 1),
            "health_ms": {"probes": len(health), "p50": round(percentile(health, 0.50), 1),
                          "p99": round(percentile(health, 0.99), 1), "max": round(health[-1], 1) if health else 0.0,
                          "answers": dict(self.health_answers.most_common())},
        }
        if self.abusers is not None:
            self.figures["abusers"] = self.abusers.figures()
        if self.lobby is not None:
            self.figures["lobby"] = self.lobby.figures()

    async def scrape(self, http: httpx.AsyncClient) -> Scraped:
        """What the servers' ``/metrics`` say so far, summed over the processes."""
        urls = [node.url for node in self.server.cluster.nodes] if isinstance(self.server, Processes) else [self.url]
        found = Scraped()
        for url in urls:
            with contextlib.suppress(httpx.HTTPError):
                found = found.plus(Scraped.parse((await http.get(f"{url}/metrics")).text))
        return found

    @staticmethod
    def waited(cpu: dict[str, dict[int, float]]) -> dict[int, float]:
        """For each server process: seconds its event loop has waited for a core so far."""
        return {pid: w for pid in cpu.get("nimmt", {}) if (w := waited_seconds(pid)) is not None}

    def cpu(self) -> dict[str, dict[int, float]]:
        """CPU seconds so far of what is measured, by group and pid (``nimmt``: the servers)."""
        if self.server is not None:
            return self.server.cpu()
        if self.server_pid and (used := cpu_seconds(self.server_pid)) is not None:
            return {"nimmt": {self.server_pid: used}}
        return {}

    async def _guarded(self, coroutine: Any) -> None:
        try:
            await coroutine
        except httpx.HTTPError as error:
            if not self.stopping:
                self.stats.errors[f"http_{type(error).__name__}"] += 1
                request = getattr(error, "_request", None)
                where = f"{request.method} {request.url.path}" if request is not None else "?"
                self.stats.error_details[f"http_{type(error).__name__}: {where}: {str(error)[:120]}"] += 1

    async def _close(self) -> None:
        async def close(person: Person) -> None:
            if person.socket is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(person.socket.close(), 5)
        await asyncio.gather(*(close(p) for p in self.people))
        for task in list(self.tasks):
            task.cancel()
        await asyncio.wait_for(asyncio.gather(*self.tasks, return_exceptions=True), self.timeout)


def _raise_open_files(players: int) -> None:
    """Room for a socket per person here, and in a server started from here (it inherits the limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, players * 2 + 256)) if hard != resource.RLIM_INFINITY else max(soft, players * 2 + 256)
    if wanted > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < players + 64:
        raise SystemExit(f"too few open files allowed ({soft}) for {players} players: raise ulimit -n")


def _loopback(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname != "127.0.0.1" or not parts.port:
        raise SystemExit("--url must be http://127.0.0.1:PORT: this load test sends traffic to 127.0.0.1 only")
    return f"http://127.0.0.1:{parts.port}"


def lag_summary(scraped: Scraped) -> dict[str, float | None]:
    """p50 and p99 of the event loop's lag (the bucket bound that holds them, ms) and its mean."""
    histogram = scraped.lag_buckets
    total = histogram.get(float("inf"), 0.0)
    if total <= 0:
        return {"looks": 0, "p50_at_most": None, "p99_at_most": None, "mean": None}
    bounds = sorted(histogram)

    def at_most(share: float) -> float:
        return next(b for b in bounds if histogram[b] >= share * total) * 1000

    return {"looks": total, "p50_at_most": at_most(0.5), "p99_at_most": at_most(0.99),
            "mean": round(scraped.lag_seconds * 1000 / total, 2)}


def report(figures: dict[str, Any], think: float, stall: float) -> str:
    lat = figures["latency_ms"]
    errors = ", ".join(f"{code} {count}" for code, count in figures["errors"].items()) or "none"
    other = ", ".join(f"{kind} {count}" for kind, count in figures["other_actions"].items())
    cpu = figures["server_cpu_seconds"]
    window = figures["window_seconds"]
    lines = [
        f"players held:      {figures['players_held']} of {figures['players']} connected at the end "
        f"(peak {figures['peak_connected']}; {figures['tables_started']} of {figures['tables']} tables started, "
        f"setup p50 {figures['setup_p50_ms']:.0f} ms)",
        f"actions:           {figures['actions']} play/choose_row in {window:.1f} s = "
        f"{figures['actions_per_second']:.1f} per second" + (f" (also {other})" if other else "")
        + f"; think {think:g} s ±50 %; " + ("patches" if figures["patches"] else "whole states"),
        f"latency:           p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms, p99 {lat['p99']:.1f} ms, "
        f"max {lat['max']:.1f} ms (send -> ack and own state at that version); "
        f"{figures['in_flight_at_end']} in flight at the end",
        f"messages:          {figures['messages_per_action']} received per action, {figures['bytes_per_message']} "
        "bytes each on average (acks, states, patches)",
        f"errors:            {errors}",
        *(f"  | {count} x {detail}" for detail, count in figures["error_details"].items()),
        f"stalled tables:    {figures['stalls']} (nobody sent anything for {stall:g} s, nobody asked to act; "
        f"{figures['stalled_behind']} of their people were at an older version than a tablemate: a missed "
        "update); their people reloaded" + "".join(f"; {n} at {at}" for at, n in figures["stalled_at"].items()),
        "server CPU:        " + ("n/a (give --server-pid)" if cpu is None else
                                 f"{cpu:.1f} s in {window:.1f} s ({100 * cpu / window:.0f} % of one core) = "
                                 f"{figures['server_cpu_ms_per_action'] or 0:.2f} ms per action"
                                 + (" (nimmt processes together)" if figures["services_cpu_seconds"] else "")
                                 + f"; its event loop{'s' if figures['services_cpu_seconds'] else ''} waited "
                                 f"{figures['server_waited_for_cpu_seconds']:.1f} s for a core (ready to run)"),
    ]
    health = figures["health_ms"]
    lines.append(f"health probe:      {health['probes']} GET /healthz in the window, p50 {health['p50']:.1f} ms, "
                 f"p99 {health['p99']:.1f} ms, max {health['max']:.1f} ms; answers "
                 + ", ".join(f"{status} {count}" for status, count in health["answers"].items()))
    if "abusers" in figures:
        from load_abuse import report as abuse_report  # beside this script

        lines += abuse_report(figures)
    lag = figures["server_loop_lag_ms"]
    if lag["looks"]:
        lines.append(f"server loop lag:   mean {lag['mean']:.1f} ms, p50 at most {lag['p50_at_most']:g} ms, "
                     f"p99 at most {lag['p99_at_most']:g} ms over {lag['looks']:.0f} looks "
                     "(nimmt_event_loop_lag_seconds: how late its event loop ran a timer, what every message "
                     "waited on top of its own work)")
    if figures["store_conflicts"]:
        lines.append(f"store conflicts:   {figures['store_conflicts']:.0f} writes found their number taken by another "
                     f"process ({100 * figures['store_conflicts'] / max(1, figures['actions']):.1f} % of the actions; "
                     "each costs a read of the store and a retry)")
    if figures["services_cpu_seconds"]:
        lines.append("services CPU:      " + ", ".join(
            f"{name} {used:.1f} s = {figures['services_cpu_ms_per_action'][name] or 0:.2f} ms per action"
            for name, used in figures["services_cpu_seconds"].items()))
    lines += [
        f"generator CPU:     {figures['generator_cpu_seconds']:.1f} s in {window:.1f} s "
        f"({100 * figures['generator_cpu_seconds'] / window:.0f} % of one core; same machine); its event loop "
        f"ran a 10 ms timer late by p50 {figures['generator_lag_ms']['p50']:.1f} ms, p99 "
        f"{figures['generator_lag_ms']['p99']:.1f} ms, max {figures['generator_lag_ms']['max']:.1f} ms",
        "load average:      " + " ".join(f"{x:.2f}" for x in figures["load_average"]) + " at the end",
    ]
    if "lobby" in figures:
        from load_lobby import report as lobby_report  # beside this script

        lines[3:3] = lobby_report(figures)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100, help=f"people, in tables of four (at most {MAX_PLAYERS})")
    parser.add_argument("--seconds", type=float, default=60.0, help="the whole run, ramp included (default 60)")
    parser.add_argument("--ramp", type=float, help="seconds over which tables are created and started "
                        "(default: a quarter of --seconds, at most 20); figures are of the time after it")
    parser.add_argument("--think", type=float, default=2.0, help="seconds a person thinks before acting (±50 %%)")
    parser.add_argument("--timeout", type=float, default=30.0, help="the longest wait for anything (default 30)")
    parser.add_argument("--url", help="an already running nimmt serve, http://127.0.0.1:PORT (its limits must allow "
                        "the load: --limit-* 0)")
    parser.add_argument("--server-pid", type=int, help="with --url: the server's pid, to measure its CPU")
    parser.add_argument("--db", help="the started server's --db (default: a fresh SQLite file in a temporary folder)")
    parser.add_argument("--cluster", action="store_true", help="start --processes nimmt serve processes on a "
                        "PostgreSQL and a Redis of their own behind nginx (docs/deploy/), and load them through it")
    parser.add_argument("--processes", type=int, default=2, help=f"with --cluster: how many (default 2, at most "
                        f"{MAX_PROCESSES})")
    parser.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                        help="one more option for the started nimmt serve (repeat it: --serve-arg=--hub ...)")
    parser.add_argument("--server-log", type=Path, help="write what the started server prints to this file")
    parser.add_argument("--no-compression", action="store_true",
                        help="do not offer permessage-deflate (browsers offer it; so does this by default)")
    parser.add_argument("--stall", type=float, default=10.0, help="seconds of silence after which a table where "
                        "nobody is asked to act counts as stalled and its people reload (default 10; 0: never)")
    parser.add_argument("--no-patches", action="store_true",
                        help="ask for whole states only (the web page asks for patches; so does this by default)")
    parser.add_argument("--lobby", type=int, default=0, help="more people, who browse the lobby and quick-match "
                        "(benchmarks/load_lobby.py), arriving over the ramp")
    parser.add_argument("--look-every", type=float, default=3.0, help="with --lobby: seconds between two looks "
                        "at the lobby's list (±50 %%; the page polls every 3)")
    parser.add_argument("--abusers", nargs="?", const="groups,chat,league,uploads", default="",
                        help="abusive clients beside the players, each from a loopback address of its own: a key "
                        "making groups, a chat flooder, league readers, big uploads (benchmarks/load_abuse.py); "
                        "a comma-separated list picks some (default: all four)")
    parser.add_argument("--league-games", type=int, default=2000, help="with --abusers and a server started here: "
                        "score sheets written into the league the readers read, before the run (default 2,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="end with the figures as one JSON line")
    parser.add_argument("--soak", action="store_true", help="the cluster for --seconds while processes are "
                        "killed, Redis restarted and hostile clients mixed in; reports acknowledged actions lost, "
                        "p99, memory over time, tracebacks (benchmarks/soak.py)")
    args = parser.parse_args(argv)
    args.players -= args.players % SEATS
    if not SEATS <= args.players <= MAX_PLAYERS or not 1 <= args.seconds <= MAX_SECONDS \
            or not 0.01 <= args.think <= 60 or not 0.5 <= args.timeout <= 120 or not 0 <= args.lobby <= MAX_PLAYERS\
            or not 0.05 <= args.look_every <= 60:
        parser.error(f"keep it bounded: {SEATS} to {MAX_PLAYERS} players, 1 to {MAX_SECONDS:g} s, "
                     f"think 0.01 to 60 s, timeout 0.5 to 120 s, --lobby 0 to {MAX_PLAYERS}")
    if args.cluster and (args.url or args.db):
        parser.error("--cluster starts its own PostgreSQL and processes: no --url or --db with it")
    if set(filter(None, args.abusers.split(","))) - {"groups", "chat", "league", "uploads"}:
        parser.error("--abusers: a comma-separated list of groups, chat, league, uploads")
    if not 1 <= args.processes <= MAX_PROCESSES:
        parser.error(f"--processes: 1 to {MAX_PROCESSES}")
    if args.ramp is None:
        args.ramp = min(20.0, args.seconds / 4)
    if not 0 <= args.ramp < args.seconds:
        parser.error("--ramp must be shorter than --seconds")
    _raise_open_files(args.players + args.lobby)
    if args.soak:
        from soak import run_soak  # benchmarks/soak.py, beside this script

        run_soak(args)
        return
    print(f"nimmt load test: {args.players} players ({args.players // SEATS} tables of {SEATS} people)"
          + (f" and {args.lobby} in the lobby (browsing, quick-matching)" if args.lobby else "")
          + f", think {args.think:g} s ±50 %, ramp {args.ramp:g} s, {args.seconds:g} s in all "
          f"(figures over the last {args.seconds - args.ramp:g} s); {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} before", flush=True)
    server: Server | Processes | None = None
    args.abuse_record = b""
    if "uploads" in args.abusers:  # the big uploads' record, made before anything is measured
        from load_abuse import big_record  # beside this script

        args.abuse_record = big_record()
    with tempfile.TemporaryDirectory(prefix="nimmt-load-") as folder:
        if args.cluster:
            server = Processes(args.processes, args.players, list(args.serve_arg))
            url, pid = server.url, None
            print(f"servers: {server.description}", flush=True)
        elif args.url:
            url, pid = _loopback(args.url), args.server_pid
            print(f"server: {url} (already running; its per-client limits are its own)", flush=True)
        else:
            db = args.db or str(Path(folder) / "load.sqlite3")
            server = Server(db, list(args.serve_arg), args.timeout, args.server_log)
            url, pid = server.url, server.pid
            shown_db = re.sub(r"//([^:@/]+):[^@/]*@", r"//\1:***@", db)  # no password in the output
            print(f"server: nimmt serve (pid {pid}) at {url}, --db {shown_db}, with every per-client limit off "
                  f"({' '.join(NO_LIMITS)}): all the load comes from one address", flush=True)
            if "league" in args.abusers and args.league_games:
                from load_abuse import seed_league  # beside this script

                from nimmt.server.store import async_url

                began = time.perf_counter()
                args.league_group = asyncio.run(seed_league(
                    async_url(db) if "://" in db else f"sqlite+aiosqlite:///{db}", min(args.league_games, 20_000)))
                print(f"league: {args.league_games} score sheets written into group {args.league_group} in "
                      f"{time.perf_counter() - began:.0f} s, before the run", flush=True)
        run = Run(args, url, pid, server)
        # The generator's own pauses count in every latency it measures: the same collector settings
        # as nimmt serve (its full collections of thousands of sockets' states stopped it for 100 ms
        # and more), and uvloop when installed, as under nimmt serve.
        collect_garbage_for_a_server()
        with contextlib.suppress(ImportError):
            import uvloop
            asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
        try:
            asyncio.run(asyncio.wait_for(run.main(), args.seconds + 3 * args.timeout + 30))
        finally:
            if server is not None:
                server.stop()
    if not run.figures:
        raise SystemExit("the run did not finish in time")
    print(report(run.figures, args.think, args.stall))
    if server is not None:
        print(f"server log:        {run.figures['server_log_lines']} lines, {run.figures['server_tracebacks']} "
              f"tracebacks until the end of the run ({server.lines} lines, {server.tracebacks} tracebacks with "
              "the shutdown)" + "".join(f"\n  | {line}" for line in server.samples))
    if isinstance(server, Processes):
        print(f"nginx error log:   {'none' if not server.nginx_errors else ''}"
              + "".join(f"\n  | {line}" for line in server.nginx_errors))
    if args.json:
        print(json.dumps(run.figures, sort_keys=True))


if __name__ == "__main__":
    main()
