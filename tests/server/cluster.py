"""Two (or more) real ``nimmt serve`` processes behind a real nginx, on PostgreSQL and Redis of
their own, for the fault tests: any of them may be killed, stopped and started again.

- PostgreSQL and Redis are started by ``scripts/services.sh`` in a folder of this cluster's own
  (Unix sockets only), not the test session's shared ones, since the tests stop and restart them.
- The processes listen on loopback ports picked here; nginx (Debian's ``/usr/sbin/nginx``, a child
  process with ``daemon off``, its prefix, temp folders, logs and pid file in the same folder)
  listens on another. Its site is ``docs/deploy/nginx-two.conf``, the documented deployment, with
  only its ports replaced (:func:`render_site`), so the tests run the documented configuration.
- nginx adds ``X-Upstream: <address of the process>`` to every answer (101s too), so a test can
  tell which process a connection landed on.
- :class:`Person` is someone at a table, connected through nginx, who remembers every action the
  server acknowledged, so a test can look for each one in the game's record afterwards.
- A watcher stops whatever is left (processes, nginx, both servers) should the test process be
  killed before it could; every wait is bounded.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import httpx
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from nimmt.cli.serve import ready_url
from nimmt.records import GameRecord, loads, score

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ROOT / "scripts" / "services.sh"
SITE = ROOT / "docs" / "deploy" / "nginx-two.conf"
NGINX = Path("/usr/sbin/nginx")
WAIT = 90.0  # seconds anything may take to start on a loaded machine


def free_port() -> int:
    """A loopback port nothing listens on now (the OS's pick)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def render_site(upstreams: Sequence[int], listen: int, site: str | None = None) -> str:
    """``docs/deploy/nginx-two.conf`` with its processes on ``upstreams`` and itself on
    ``127.0.0.1:listen``; everything else as documented. Each upstream block's run of ``server
    127.0.0.1:PORT ...;`` lines becomes one line per port, with that run's parameters. Fails if the
    file no longer has the lines it replaces, so the documented file and the tested one cannot
    drift apart unseen."""
    text = SITE.read_text(encoding="utf-8") if site is None else site
    runs = re.compile(r"(?:^ *server 127\.0\.0\.1:\d+(?: [^;\n]*)?;\n){2,}", re.MULTILINE)
    line = re.compile(r"^( *)server 127\.0\.0\.1:\d+( [^;\n]*)?;$", re.MULTILINE)

    def ports(run: re.Match[str]) -> str:
        first = line.search(run.group(0))
        assert first is not None
        indent, options = first.group(1), first.group(2) or ""
        return "".join(f"{indent}server 127.0.0.1:{port}{options};\n" for port in upstreams)

    text, blocks = runs.subn(ports, text)
    alone = sum(1 for _ in line.finditer(text)) - blocks * len(upstreams)  # a process listed once: not replaced
    if not blocks or alone:
        raise ValueError(f"{SITE}: expected each upstream to list its processes as two or more consecutive "
                         "'server 127.0.0.1:PORT ...;' lines")
    text, plain = re.subn(r"^( *)listen 80;$", rf"\g<1>listen 127.0.0.1:{listen};", text, flags=re.MULTILINE)
    text, six = re.subn(r"^ *listen \[::\]:80;\n", "", text, flags=re.MULTILINE)
    if plain != 1 or six != 1:
        raise ValueError(f"{SITE}: expected one 'listen 80;' and one 'listen [::]:80;'")
    return text


def _main_config(folder: Path) -> str:
    """nginx's main file around the site: everything it writes stays in ``folder``."""
    user = f"user {getpass.getuser()};\n" if os.geteuid() == 0 else ""  # as root, workers would be 'nobody'
    temp = "\n".join(f"    {kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi",
                                                                         "uwsgi", "scgi"))
    return f"""{user}daemon off;
worker_processes 1;
pid {folder / 'nginx.pid'};
error_log {folder / 'error.log'} notice;
events {{
    worker_connections 512;
}}
http {{
    log_format upstream '$time_local $request $status upstream=$upstream_addr ($upstream_status)';
    access_log {folder / 'access.log'} upstream;
{temp}
    add_header X-Upstream $upstream_addr always;
    include {folder / 'site.conf'};
}}
"""


class _Child:
    """A child process whose output is kept (in memory and in a log file), with its pid in the
    cluster's folder for the watcher."""

    def __init__(self, name: str, folder: Path) -> None:
        self.name = name
        self.folder = folder
        self.process: subprocess.Popen[str] | None = None
        self.output: list[str] = []

    def spawn(self, command: Sequence[str], *, env: dict[str, str] | None = None) -> IO[str]:
        self.process = subprocess.Popen(list(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        env=env, stdin=subprocess.DEVNULL)
        (self.folder / "pids" / f"{self.name}.pid").write_text(str(self.process.pid))
        assert self.process.stdout is not None
        return self.process.stdout

    def drain(self, stream: IO[str]) -> None:
        """Keep reading what the child prints, so a full pipe never stalls it."""
        def read() -> None:
            with contextlib.suppress(ValueError, OSError), open(self.folder / f"{self.name}.log", "a") as log:
                for line in stream:
                    self.output.append(line)
                    log.write(line)
                    log.flush()

        threading.Thread(target=read, daemon=True, name=f"drain-{self.name}").start()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal(self, sig: signal.Signals, wait: float = 15.0) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(wait)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        (self.folder / "pids" / f"{self.name}.pid").unlink(missing_ok=True)


class Node(_Child):
    """One ``nimmt serve`` process on a fixed loopback port (the same one when started again)."""

    def __init__(self, name: str, folder: Path, port: int, args: Sequence[str]) -> None:
        super().__init__(name, folder)
        self.port = port
        self.args = tuple(args)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def address(self) -> str:
        """How nginx names this process in ``X-Upstream``."""
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        if self.running:
            return
        self.output.append(f"--- {self.name} started at {time.strftime('%H:%M:%S')}\n")
        stream = self.spawn([sys.executable, "-m", "nimmt", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                             *self.args], env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + WAIT
        if not ready_url(stream, deadline):
            self.signal(signal.SIGKILL)
            raise AssertionError(f"{self.name} did not say it is ready:\n{''.join(self.output)}")
        self.drain(stream)
        _wait_for(f"{self.url}/healthz", deadline, f"{self.name} did not answer /healthz")

    def kill(self) -> None:
        """``kill -9``: a crash, a pulled plug."""
        self.output.append(f"--- {self.name} killed at {time.strftime('%H:%M:%S')}\n")
        self.signal(signal.SIGKILL)

    def stop(self) -> None:
        self.signal(signal.SIGTERM)


def _wait_for(url: str, deadline: float, problem: str) -> None:
    with httpx.Client(trust_env=False, timeout=5) as client:
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if client.get(url).status_code == 200:
                    return
            time.sleep(0.1)
    raise AssertionError(problem)


class Cluster:
    """PostgreSQL, Redis, ``processes`` times ``nimmt serve`` and nginx in front, all started by
    :meth:`start` (or ``with``) and stopped by :meth:`stop`, whatever state the tests left them in."""

    def __init__(self, processes: int = 2, *, bot_delay: float = 0.2, args: Sequence[str] = (),
                 safe_postgres: bool = False) -> None:
        if not NGINX.exists():
            raise RuntimeError(f"{NGINX} is missing: run 'bash scripts/system-deps.sh' as root "
                               "(Debian: apt-get install nginx)")
        # Short: the servers' Unix sockets live in here (a socket's path is at most 107 bytes).
        self.folder = Path(tempfile.mkdtemp(prefix="nimmt-cl-", dir="/tmp"))
        self.folder.chmod(0o755)  # as root, PostgreSQL runs as 'postgres' and must reach svc/ inside
        (self.folder / "pids").mkdir()
        self.services = self.folder / "svc"
        self.postgres_url = ""
        self.redis_url = ""
        self.bot_delay = bot_delay
        self.args = tuple(args)
        self.safe_postgres = safe_postgres  # fsync and synchronous_commit on (the others run without)
        self.port = free_port()
        self.nodes: list[Node] = []
        self._count = processes
        self.nginx = _Child("nginx", self.folder)

    @property
    def url(self) -> str:
        """nginx's address: where people connect."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    # -- starting and stopping everything ----------------------------------------------------------
    def start(self) -> Cluster:
        try:
            self._watch()
            self._start_services()
            for i in range(self._count):
                self.nodes.append(Node(f"nimmt{i + 1}", self.folder, free_port(), [
                    "--db", self.postgres_url, "--hub", self.redis_url, "--bot-delay", str(self.bot_delay),
                    "--away-grace", "0", *self.args]))
            for node in self.nodes:
                node.start()
            self._start_nginx()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        self.nginx.signal(signal.SIGTERM)  # fast shutdown: open WebSockets are cut
        for node in self.nodes:
            node.stop()
        subprocess.run(["bash", str(SERVICES), "stop", str(self.services)], capture_output=True, timeout=120,
                       check=False)
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def _watch(self) -> None:
        """Should this process die without stopping the cluster, end what it started: a watcher in
        a session of its own, which leaves by itself once the folder is gone (a clean stop)."""
        script = (
            'while kill -0 "$1" 2>/dev/null && [ -d "$2" ]; do sleep 1; done; '
            '[ -d "$2" ] || exit 0; '
            'for f in "$2"/pids/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done; '
            'bash "$3" stop "$2/svc"; rm -rf "$2"'
        )
        subprocess.Popen(["bash", "-c", script, "watch", str(os.getpid()), str(self.folder), str(SERVICES)],
                         start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)

    def _start_services(self) -> None:
        env = {**os.environ, "NIMMT_PG_SAFE": "1" if self.safe_postgres else ""}
        started = subprocess.run(["bash", str(SERVICES), "start", str(self.services), str(os.getpid())],
                                 capture_output=True, text=True, timeout=120, check=False, env=env)
        if started.returncode != 0:
            raise RuntimeError(f"scripts/services.sh could not start PostgreSQL and Redis:\n{started.stderr}")
        urls = dict(line.split("=", 1) for line in started.stdout.split())
        self.postgres_url = urls["NIMMT_TEST_POSTGRES_URL"]
        self.redis_url = urls["NIMMT_TEST_REDIS_URL"]

    def _start_nginx(self) -> None:
        (self.folder / "site.conf").write_text(render_site([node.port for node in self.nodes], self.port))
        (self.folder / "nginx.conf").write_text(_main_config(self.folder))
        command = [str(NGINX), "-p", str(self.folder), "-c", str(self.folder / "nginx.conf"),
                   "-e", str(self.folder / "error.log")]
        checked = subprocess.run([*command, "-t", "-q"], capture_output=True, text=True, timeout=30, check=False)
        if checked.returncode != 0:
            raise RuntimeError(f"nginx refuses the configuration:\n{checked.stderr}")
        self.nginx.drain(self.nginx.spawn(command))
        _wait_for(f"{self.url}/healthz", time.monotonic() + WAIT, "nginx did not pass /healthz on")

    # -- faults ----------------------------------------------------------------------------------
    def stop_redis(self) -> None:
        """Stop Redis (as ``systemctl stop`` would); what it held is gone (nimmt keeps no data there)."""
        pid_file = self.services / "redis.pid"
        pid = int(pid_file.read_text().strip())
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)

    def start_redis(self) -> None:
        """Start Redis again on the same socket, as scripts/services.sh starts it."""
        socket_path = self.services / "redis.sock"
        socket_path.unlink(missing_ok=True)
        subprocess.run(["redis-server", "--port", "0", "--unixsocket", str(socket_path), "--unixsocketperm", "700",
                        "--daemonize", "yes", "--pidfile", str(self.services / "redis.pid"),
                        "--logfile", str(self.services / "redis.log"), "--dir", str(self.services),
                        "--save", "", "--appendonly", "no"], check=True, timeout=30, capture_output=True)
        deadline = time.monotonic() + 30
        while not socket_path.exists():
            if time.monotonic() > deadline:
                raise AssertionError("Redis did not start again")
            time.sleep(0.05)

    def stop_postgres(self) -> None:
        """Stop PostgreSQL at once (its connections are cut), keeping its data."""
        subprocess.run(["bash", str(SERVICES), "pg-stop", str(self.services)], check=True, timeout=120,
                       capture_output=True)

    def kill_postgres(self) -> None:
        """``kill -9`` PostgreSQL (all its processes), as a crash would; :meth:`start_postgres` then
        recovers it from its write-ahead log."""
        subprocess.run(["bash", str(SERVICES), "pg-kill", str(self.services)], check=True, timeout=60,
                       capture_output=True)

    def start_postgres(self) -> None:
        subprocess.run(["bash", str(SERVICES), "pg-start", str(self.services)], check=True, timeout=120,
                       capture_output=True)

    # -- what happened ----------------------------------------------------------------------------
    def node_at(self, address: str) -> Node:
        """The process nginx names ``address`` (the last one it tried, when it tried several)."""
        last = address.split(",")[-1].strip()
        for node in self.nodes:
            if node.address == last:
                return node
        raise AssertionError(f"nginx named no process of this cluster: {address!r}")

    def logs(self) -> str:
        """Everything the processes and nginx said, for a failing test's report."""
        parts = [f"===== {node.name} ({node.address})\n{''.join(node.output)}" for node in self.nodes]
        for name in ("error.log", "access.log"):
            path = self.folder / name
            if path.exists():
                parts.append(f"===== nginx {name}\n{path.read_text(errors='replace')[-20000:]}")
        return "\n".join(parts)


# -- people at a table, through nginx -------------------------------------------------------------
ANSWER = 30.0  # seconds any one answer may take on a loaded machine
GAME = 180.0  # seconds a whole game may take, faults and all


class Dropped(Exception):
    """The person's connection closed (its process died)."""


@dataclass(frozen=True)
class Acked:
    """An action the server acknowledged: the seat, where in the game, what."""

    seat: int
    round: int
    turn: int
    kind: str  # "play" or "choose_row"
    value: int  # the card, or the row
    version: int  # the version the ack named


class Person:
    """Someone at the table, connected through nginx, who remembers every acknowledged action."""

    def __init__(self, cluster: Cluster, table_id: str, token: str, name: str) -> None:
        self.cluster, self.table_id, self.token, self.name = cluster, table_id, token, name
        self.socket: ClientConnection | None = None
        self.node: Node | None = None
        self.state: dict[str, Any] = {}
        self.acked: list[Acked] = []
        self.connections = 0
        self.refused = 0  # connections nginx refused (no live process), tried again

    def connect(self, on: Node | None = None) -> dict[str, Any]:
        """Open the table through nginx (landing on ``on``, if given: round-robin gets there within
        a few tries) and say hello; the state the server sends back."""
        self.close()
        for _ in range(12):
            socket = self._open()
            assert socket.response is not None
            node = self.cluster.node_at(socket.response.headers.get("X-Upstream", ""))
            if on is None or node is on:
                break
            socket.close()
        else:
            raise AssertionError(f"nginx never sent {self.name} to {on.name if on else '?'}")
        self.socket, self.node = socket, node
        self.connections += 1
        self.socket.send(json.dumps({"type": "hello", "token": self.token}))
        return self.until("state")

    def _open(self) -> ClientConnection:
        """A WebSocket through nginx. Like the web page, try again a moment later while nginx has no
        live process to offer (502: it still counts a restarted one as down, for fail_timeout)."""
        deadline = time.monotonic() + ANSWER
        while True:
            try:
                return connect(f"{self.cluster.ws_url}/ws/{self.table_id}", open_timeout=ANSWER, proxy=None,
                               legacy=True)
            except InvalidStatus as error:
                if error.response.status_code not in (502, 503, 504) or time.monotonic() > deadline:
                    raise
                self.refused += 1
                time.sleep(0.3)

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()
            self.socket = None

    def receive(self, timeout: float) -> dict[str, Any] | None:
        """The next message (None if none within ``timeout``); a state is kept as the latest."""
        assert self.socket is not None
        try:
            message: dict[str, Any] = json.loads(self.socket.recv(timeout=timeout))
        except TimeoutError:
            return None
        except ConnectionClosed as error:
            raise Dropped(self.name) from error
        if message["type"] == "state":
            self.state = message
        return message

    def until(self, kind: str, timeout: float = ANSWER) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            message = self.receive(left)
            if message is None:
                continue
            if message["type"] == kind or (kind == "answer" and message["type"] in ("ack", "error")):
                return message
            assert message["type"] != "error", f"{self.name} waited for {kind} and was refused: {message}"
        raise AssertionError(f"{self.name} got no {kind} within {timeout} s (on {self.node and self.node.name})")

    def state_from(self, version: int, timeout: float = ANSWER) -> dict[str, Any]:
        """Wait, without asking anything, for a pushed state of ``version`` or later."""
        deadline = time.monotonic() + timeout
        while self.state.get("version", -1) < version:
            left = deadline - time.monotonic()
            assert left > 0, f"{self.name} was never sent version {version} (has {self.state.get('version')})"
            self.receive(left)
        return self.state

    def send(self, message: dict[str, Any]) -> None:
        assert self.socket is not None
        try:
            self.socket.send(json.dumps(message))
        except ConnectionClosed as error:
            raise Dropped(self.name) from error

    def sync(self) -> dict[str, Any]:
        """The current state (a pong comes after every update published before the ping)."""
        self.send({"type": "ping"})
        self.until("pong")
        return self.state

    def decision(self, rng: random.Random, state: dict[str, Any]) -> dict[str, Any] | None:
        """A legal action on ``state``, or None when nothing is asked of this person."""
        if state["legal"]:  # the bot protocol's answers: all {"card": N} or all {"row": R}
            answer = rng.choice(state["legal"])
            if "row" in answer:
                return {"type": "choose_row", "row": answer["row"], "version": state["version"]}
            return {"type": "play", "card": answer["card"], "version": state["version"]}
        return None

    def act(self, message: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
        """Send ``message`` (made on ``state``) and return the answer; an ack is remembered, and
        the state it made is waited for, so the next decision is made on it."""
        self.send(message)
        answer = self.until("answer")
        if answer["type"] == "ack":
            view = state["view"]
            self.acked.append(Acked(view["player"], view["round"], view["turn"], message["type"],
                                    message.get("card", message.get("row", -1)), answer["version"]))
            self.state_from(answer["version"])
        return answer

    def act_now(self, rng: random.Random) -> bool:
        """Look at the table and do what it asks of this person, if anything: whether it did."""
        state = self.sync()
        message = self.decision(rng, state)
        if message is None:
            return False
        answer = self.act(message, state)
        assert answer["type"] == "ack", f"{self.name}: {message} refused: {answer}"
        return True


def play(rng: random.Random, people: list[Person], until: Callable[[dict[str, Any]], bool],
         deadline: float, cluster: Cluster) -> dict[str, Any]:
    """Each person does what the table asks of them, until ``until`` holds on the state (or the
    game is over); a person whose connection drops connects again through nginx."""
    while True:
        state = people[0].sync()
        if until(state) or state["table"]["status"] == "over":
            return state
        assert time.monotonic() < deadline, f"the game stalled at {state['view']['phase']}, turn " \
            f"{state['view']['turn']}, waiting for {state['view']['waiting_for']}\n{cluster.logs()}"
        acted = False
        for person in people:
            try:
                acted = person.act_now(rng) or acted
            except Dropped:
                person.connect()
        if not acted:
            time.sleep(0.05)  # the bots' turn: a tight loop would meet the message limit


def over(state: dict[str, Any]) -> bool:
    return bool(state["table"]["status"] == "over")


def cards_asked(turn: int) -> Callable[[dict[str, Any]], bool]:
    """From ``turn`` on, at a moment when the person looking must choose a card."""
    def met(state: dict[str, Any]) -> bool:
        view = state["view"]
        return bool(view["turn"] >= turn and view["phase"] == "choose_cards"
                    and any("card" in answer for answer in state["legal"]))
    return met


def bots_done(person: Person, deadline: float, cluster: Cluster) -> dict[str, Any]:
    """The state once the table waits for no bot (nobody acts meanwhile): then nothing changes it
    until a person acts (a bot's card a moment after a look would)."""
    while True:
        state = person.sync()
        seats = state["table"]["seats"]
        if all(seats[seat]["bot"] is None for seat in state["view"]["waiting_for"]):
            return state
        assert time.monotonic() < deadline, f"the bots never chose\n{cluster.logs()}"
        time.sleep(0.05)


def past_turn(turn: int) -> Callable[[dict[str, Any]], bool]:
    """Once ``turn`` is complete."""
    def met(state: dict[str, Any]) -> bool:
        return bool(state["view"]["turn"] > turn)
    return met


def check_record(cluster: Cluster, table_id: str, people: list[Person], final: dict[str, Any]) -> GameRecord:
    """The finished game's record holds every acknowledged action, where it was made."""
    with httpx.Client(trust_env=False, timeout=ANSWER) as http:
        response = http.get(f"{cluster.url}/api/tables/{table_id}/games/1/record")
    assert response.status_code == 200, response.text
    record = loads(response.content)
    result = score(record)
    assert result.finished and list(result.totals) == final["view"]["totals"]
    acked = [action for person in people for action in person.acked]
    assert acked, "nobody acted"
    for action in acked:
        turn = record.rounds[action.round - 1].turns[action.turn]
        if action.kind == "play":
            assert turn.cards[action.seat] == action.value, f"acknowledged, not in the record: {action}"
        else:
            assert (action.seat, action.value) in turn.rows_taken, f"acknowledged, not in the record: {action}"
    return record



def seat_two_people(cluster: Cluster, *, bots: int = 2) -> tuple[str, Person, Person]:
    """A table of Ana, Bruno and ``bots`` random bots (one round), created and joined through
    nginx; Ana connected to the first process, Bruno to the second, and the game started."""
    with httpx.Client(trust_env=False, timeout=ANSWER) as http:
        created = http.post(f"{cluster.url}/api/tables", json={
            "name": "Ana", "seats": 2 + bots, "bots": ["random"] * bots, "options": {"rounds": 1}})
        assert created.status_code == 201, created.text
        table_id = created.json()["table_id"]
        joined = http.post(f"{cluster.url}/api/tables/{table_id}/join", json={"name": "Bruno"})
        assert joined.status_code == 201, joined.text
    ana = Person(cluster, table_id, created.json()["token"], "Ana")
    bruno = Person(cluster, table_id, joined.json()["token"], "Bruno")
    ana.connect(cluster.nodes[0])
    bruno.connect(cluster.nodes[1])
    ana.send({"type": "start"})
    assert ana.until("answer")["type"] == "ack"
    return table_id, ana, bruno


def main(argv: Sequence[str] | None = None) -> int:
    """``scripts/cluster.sh``: the tests' cluster, by hand, until Ctrl+C."""
    import argparse

    parser = argparse.ArgumentParser(prog="scripts/cluster.sh", description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=2, help="nimmt serve processes behind nginx (default 2)")
    parser.add_argument("--bot-delay", type=float, default=0.8, help="seconds a bot waits before it plays")
    options = parser.parse_args(argv)
    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopping.set())
    with Cluster(options.processes, bot_delay=options.bot_delay) as cluster:
        print(f"nimmt behind nginx: open {cluster.url}/ in your browser")
        for node in cluster.nodes:
            print(f"  {node.name}: {node.url} (its /metrics, /healthz; log {cluster.folder / (node.name + '.log')})")
        print(f"  PostgreSQL: {cluster.postgres_url}\n  Redis: {cluster.redis_url}")
        print(f"  nginx: {cluster.folder / 'nginx.conf'}, {cluster.folder / 'site.conf'}, "
              f"{cluster.folder / 'access.log'}")
        print("Ctrl+C stops everything and removes the folder", flush=True)
        stopping.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
