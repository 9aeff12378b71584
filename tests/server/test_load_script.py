"""benchmarks/load.py, for real: 8 simulated people at two tables (and 4 who browse the lobby and
quick-match) against a real ``nimmt serve`` for a few seconds; they act, every action is answered,
and nothing fails."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from .live import LiveServer

ROOT = Path(__file__).resolve().parents[2]
NO_LIMITS = ["--limit-tables", "0", "--limit-joins", "0", "--limit-sockets", "0", "--limit-messages", "0",
             "--limit-connections", "0"]


def test_the_load_script_plays_and_reports(tmp_path: Path) -> None:
    with LiveServer(tmp_path / "load.sqlite3", args=NO_LIMITS) as server:
        assert server.process is not None
        done = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "load.py"), "--url", server.url,
             "--server-pid", str(server.process.pid), "--players", "8", "--seconds", "5", "--ramp", "1",
             "--think", "0.2", "--timeout", "20", "--lobby", "4", "--look-every", "0.2", "--json"],
            capture_output=True, text=True, timeout=120, cwd=ROOT,
        )
        log = "".join(server.output)
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["players"] == 8 + 4 and figures["tables_started"] == 2
    assert figures["players_held"] == 8 + 4  # the lobby's four sit at the tables quick match gave them
    lobby = figures["lobby"]
    assert lobby["joined"] + lobby["opened"] == 4 and lobby["opened"] >= 1, lobby
    assert "lobby:" in done.stdout and "quick matches" in done.stdout
    assert figures["actions"] >= 8, figures  # four people a table, each asked every turn, a turn within ~0.5 s
    assert figures["actions_per_second"] > 0
    assert 0 < figures["latency_ms"]["p50"] <= figures["latency_ms"]["p99"] <= figures["latency_ms"]["max"]
    assert figures["errors"] == {}, figures["errors"]
    assert figures["server_cpu_seconds"] is not None and figures["server_cpu_ms_per_action"] > 0
    assert figures["server_loop_lag_ms"]["looks"] >= 1  # read from the server's /metrics over the window
    assert "players held:" in done.stdout and "latency:" in done.stdout
    assert "Traceback" not in log, log


def test_the_load_script_starts_two_processes_behind_nginx_and_stops_them() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "load.py"), "--cluster", "--players", "8", "--seconds", "6",
         "--ramp", "1", "--think", "0.2", "--timeout", "20", "--stall", "3", "--json"],
        capture_output=True, text=True, timeout=240, cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["players"] == 8 and figures["tables_started"] == 2 and figures["players_held"] == 8
    assert figures["actions"] > 0 and figures["errors"] == {}, figures
    assert figures["server_cpu_seconds"] is not None and figures["server_cpu_seconds"] > 0  # both processes measured
    assert set(figures["services_cpu_seconds"]) == {"nginx", "postgres", "redis"}
    assert figures["server_tracebacks"] == 0, done.stdout
    servers = re.search(r"^servers: 2 nimmt serve processes, (.*)$", done.stdout, re.MULTILINE)
    assert servers is not None, done.stdout
    pids = [int(pid) for pid in re.findall(r"\(pid (\d+)\)", servers.group(1))]
    assert len(pids) == 2 and "behind nginx at http://127.0.0.1:" in servers.group(1)
    for pid in pids:  # stopped at the end, not left running
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()


def test_the_load_script_adds_abusers_and_the_health_probe(tmp_path: Path) -> None:
    """``--abusers``: a key making groups, a chat flooder, league readers and big uploads, each from a
    loopback address of its own, refused by the server's quotas while the players play on."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "load.py"), "--players", "8", "--seconds", "20", "--ramp", "2",
         "--think", "0.2", "--timeout", "20", "--abusers", "--league-games", "20", "--json"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["tables_started"] == 2 and figures["actions"] > 0 and figures["errors"] == {}, figures
    assert figures["health_ms"]["probes"] >= 1 and "200" in figures["health_ms"]["answers"]
    answers = figures["abusers"]["answers"]
    assert answers["groups"].get("429", 0) > 0 and answers["groups"].get("201", 0) <= 10, answers
    assert answers["chat"].get("429", 0) > 0, answers
    assert answers["league"].get("200", 0) > 0 and figures["abusers"]["league_ms"]["reads"] > 0, answers
    assert "abusers:" in done.stdout and "health probe:" in done.stdout
    assert figures["server_tracebacks"] == 0, done.stdout
