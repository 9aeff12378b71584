"""Real PostgreSQL and Redis servers for the tests, started by ``scripts/services.sh``.

``NIMMT_TEST_POSTGRES_URL`` and ``NIMMT_TEST_REDIS_URL`` name servers to use instead (both, or the
script starts both). Each test that needs a database gets a new one of its own, dropped after it;
each hub test publishes under a prefix of its own, so tests never see each other's data.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from .helpers import run

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "services.sh"


@dataclass(frozen=True)
class Services:
    postgres_url: str  # postgresql+asyncpg://... of a database the tests may create databases from
    redis_url: str


def _start() -> Iterator[Services]:
    given = os.environ.get("NIMMT_TEST_POSTGRES_URL"), os.environ.get("NIMMT_TEST_REDIS_URL")
    if given[0] and given[1]:
        yield Services(given[0], given[1])
        return
    # Short: the servers' Unix sockets live in this folder (a socket's path is at most 107 bytes).
    folder = tempfile.mkdtemp(prefix="nimmt-svc-", dir="/tmp")
    try:
        # With this process's id: should it be killed, the servers stop all the same.
        started = subprocess.run(["bash", str(SCRIPT), "start", folder, str(os.getpid())], capture_output=True,
                                 text=True, timeout=120, check=False)
        if started.returncode != 0:
            raise RuntimeError(f"scripts/services.sh could not start PostgreSQL and Redis:\n{started.stderr}")
        urls = dict(line.split("=", 1) for line in started.stdout.split())
        yield Services(urls["NIMMT_TEST_POSTGRES_URL"], urls["NIMMT_TEST_REDIS_URL"])
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", folder], capture_output=True, timeout=120, check=False)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def services() -> Iterator[Services]:
    """Both servers, for the whole test session (of this worker)."""
    yield from _start()


def with_database(url: str, database: str) -> str:
    return make_url(url).set(database=database).render_as_string(hide_password=False)


async def _admin(url: str, statement: str) -> None:
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as connection:
            await connection.execute(text(statement))
    finally:
        await engine.dispose()


@pytest.fixture
def postgres_url(services: Services) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database, dropped after the test."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    run(_admin(services.postgres_url, f'CREATE DATABASE "{name}"'))
    try:
        yield with_database(services.postgres_url, name)
    finally:
        run(_admin(services.postgres_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def redis_prefix() -> str:
    """Channel names of this test's own."""
    return f"test:{uuid.uuid4().hex[:12]}:"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind: a SQLite file, then a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'nimmt.sqlite3'}"
    else:
        yield request.getfixturevalue("postgres_url")
