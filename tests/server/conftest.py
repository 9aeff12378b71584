from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note about httpx2: the test client works as it is
    from starlette.testclient import TestClient

from nimmt.server.app import create_app

from .services import postgres_url, redis_prefix, services  # real PostgreSQL and Redis

__all__ = ["postgres_url", "redis_prefix", "services"]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=0)) as test_client:
        yield test_client
