"""``nimmt serve``: it says where to go, keeps games in the file it is given, refuses bad options."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import httpx
from websockets.sync.client import connect

from nimmt.cli.serve import FEW_OPEN_FILES

from .live import LiveServer


def test_serve_prints_the_address_and_uses_the_database(tmp_path: Path) -> None:
    db = tmp_path / "games" / "nimmt.sqlite3"
    with LiveServer(db) as server:
        assert server.url.startswith("http://127.0.0.1:")
        page = httpx.get(f"{server.url}/", headers={"accept-language": "fr"})
        assert page.status_code == 200 and '<html lang="fr">' in page.text
    assert db.exists()


def test_serve_refuses_a_folder_as_database(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nimmt", "serve", "--port", "0", "--db", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr


def test_serve_refuses_a_negative_away_grace(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nimmt", "serve", "--port", "0", "--db", str(tmp_path / "db.sqlite3"),
         "--away-grace", "-1"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    assert "--away-grace" in result.stderr and "Traceback" not in result.stderr


def _greet(server: LiveServer) -> tuple[str | None, dict[str, object]]:
    """Open a WebSocket offering compression, as browsers do: the extension the server agreed to and
    the first state it sent."""
    created = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]}).json()
    with connect(f"{server.ws_url}/ws/{created['table_id']}", open_timeout=30, compression="deflate") as socket:
        socket.send(json.dumps({"type": "hello", "token": created["token"]}))
        state = json.loads(socket.recv(timeout=30))
        assert socket.response is not None
        return socket.response.headers.get("Sec-WebSocket-Extensions"), state


def test_serve_offers_websocket_compression_only_when_asked(tmp_path: Path) -> None:
    # Off by default (it costs CPU and memory on every message; updates are small patches), on with
    # --ws-compression; the messages read the same either way.
    with LiveServer(tmp_path / "plain.sqlite3") as server:
        extension, plain = _greet(server)
    assert extension is None
    with LiveServer(tmp_path / "deflate.sqlite3", args=["--ws-compression"]) as server:
        extension, deflated = _greet(server)
    assert extension is not None and extension.startswith("permessage-deflate")
    assert plain["type"] == deflated["type"] == "state"
    assert plain["table"]["seats"] == deflated["table"]["seats"]  # type: ignore[index]


def _open_files_of(limits: tuple[int, int], tmp_path: Path) -> tuple[str, str, str]:
    """Start nimmt serve with these (soft, hard) open-file limits; its /proc limits line and its output."""
    process = subprocess.Popen(
        [sys.executable, "-m", "nimmt", "serve", "--port", "0", "--db", str(tmp_path / "db.sqlite3")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, limits),
    )
    try:
        assert process.stdout is not None
        for _ in range(10):  # the ready line and the one that follows it
            line = process.stdout.readline()
            if line.startswith("games are kept"):
                break
        proc_limits = Path(f"/proc/{process.pid}/limits").read_text()
        line = next(line for line in proc_limits.splitlines() if line.startswith("Max open files"))
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    return line, out, err


def test_serve_raises_its_open_files_limit_to_the_hard_one(tmp_path: Path) -> None:
    # Every person's WebSocket is an open file: a soft limit of 1,024 (systemd's default) would refuse
    # the thousandth person. The process takes what the hard limit allows, and says so when that is low.
    hard = min(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 8192)
    assert hard > 512, "this test needs a hard limit above 512 open files"
    line, _, err = _open_files_of((512, hard), tmp_path)
    assert line.split()[3:5] == [str(hard), str(hard)]
    assert ("ulimit" in err) == (hard < FEW_OPEN_FILES)
    line, _, err = _open_files_of((300, 300), tmp_path)
    assert line.split()[3:5] == ["300", "300"]
    assert "at most 300 files" in err and "Traceback" not in err
