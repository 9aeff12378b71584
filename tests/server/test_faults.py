"""The documented deployment (docs/deploy/nginx-two.conf) run for real: two ``nimmt serve``
processes on PostgreSQL and Redis behind nginx (tests/server/cluster.py). nginx goes round-robin,
skips a process that died, takes it back once it is up again, and passes a database that is down
on as a clear 503; the proxy never serves one process's metrics as if they were the site's.

The games played across both processes while one dies, Redis restarts or PostgreSQL stops are in
tests/server/faults_pending.py until the server serves a table from any process (issue 9, item 3).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

import httpx
import pytest
from websockets.sync.client import connect

from .cluster import ANSWER, SITE, Cluster, Node, render_site


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    with Cluster(2) as running:
        yield running
        print(running.logs())  # shown with a failing test's report


def answered_by(cluster: Cluster, response: httpx.Response) -> Node:
    return cluster.node_at(response.headers.get("X-Upstream", ""))


def test_the_tested_site_is_the_documented_one() -> None:
    documented = SITE.read_text(encoding="utf-8")
    rendered = render_site([9101, 9102, 9103], 9100)
    servers = [line.strip() for line in rendered.splitlines() if line.strip().startswith("server 127.0.0.1:")]
    assert servers == [f"server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;" for port in (9101, 9102, 9103)]
    assert "listen 127.0.0.1:9100;" in rendered and "[::]" not in rendered
    # Nothing else differs from the file in docs/deploy/.
    kept = [line for line in rendered.splitlines() if "127.0.0.1:91" not in line]
    assert kept == [line for line in documented.splitlines()
                    if "server 127.0.0.1:80" not in line and not line.strip().startswith("listen ")]
    with pytest.raises(ValueError, match=re.escape("server 127.0.0.1:PORT")):
        render_site([1, 2], 3, site=documented.replace("server 127.0.0.1:8002", "server 10.0.0.2:8002"))


def test_nginx_skips_a_dead_process_and_takes_it_back(cluster: Cluster) -> None:
    first, second = cluster.nodes
    with httpx.Client(trust_env=False, timeout=ANSWER) as http:
        # Round-robin: both processes answer.
        assert {answered_by(cluster, http.get(f"{cluster.url}/healthz")) for _ in range(4)} == {first, second}
        # Each process's metrics are its own, scraped from it, never through the proxy.
        assert http.get(f"{cluster.url}/metrics").status_code == 404
        assert "nimmt_actions" in http.get(f"{first.url}/metrics").text
        first.kill()
        # Nothing is lost to the dead process: every request, creating tables too, reaches the other.
        for _ in range(4):
            health = http.get(f"{cluster.url}/healthz")
            assert health.status_code == 200 and answered_by(cluster, health) is second
            created = http.post(f"{cluster.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]})
            assert created.status_code == 201 and answered_by(cluster, created) is second, created.text
        table_id = created.json()["table_id"]
        for _ in range(2):
            with connect(f"{cluster.ws_url}/ws/{table_id}", open_timeout=ANSWER, proxy=None) as socket:
                assert socket.response is not None
                assert cluster.node_at(socket.response.headers["X-Upstream"]) is second
                socket.send(json.dumps({"type": "hello", "token": None}))
                assert json.loads(socket.recv(timeout=ANSWER))["type"] == "state"
        # Started again, it is back in the rotation once nginx's fail_timeout has passed.
        first.start()
        deadline = time.monotonic() + 60
        while answered_by(cluster, http.get(f"{cluster.url}/healthz")) is not first:
            assert time.monotonic() < deadline, "nginx never sent anything to the restarted process"
            time.sleep(0.2)


def test_a_database_that_is_down_is_a_clear_503_through_nginx(cluster: Cluster) -> None:
    with httpx.Client(trust_env=False, timeout=ANSWER) as http:
        cluster.stop_postgres()
        try:
            # Both processes say so (a 503 is an answer: nginx passes it on, it does not go on to
            # the other process nor count it as down).
            health = [http.get(f"{cluster.url}/healthz") for _ in range(2)]
            assert [response.status_code for response in health] == [503, 503]
            assert {answered_by(cluster, response) for response in health} == set(cluster.nodes)
            assert health[0].json()["store"] == "down"
            created = http.post(f"{cluster.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]})
            assert created.status_code == 503 and created.json()["code"] == "server_error", created.text
        finally:
            cluster.start_postgres()
        # Back: both processes find the database again by themselves.
        deadline = time.monotonic() + 60
        answered: set[Node] = set()
        while answered != set(cluster.nodes):
            assert time.monotonic() < deadline, f"only {answered} found PostgreSQL again"
            again = http.get(f"{cluster.url}/healthz")
            if again.status_code == 200:
                answered.add(answered_by(cluster, again))
            else:
                time.sleep(0.2)
        created = http.post(f"{cluster.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"]})
        assert created.status_code == 201, created.text
