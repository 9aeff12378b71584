from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note about httpx2: the test client works as it is
    from starlette.testclient import TestClient

from nimmt.server.app import create_app
from nimmt.server.limits import Limits

from .services import postgres_url, redis_prefix, services  # real PostgreSQL and Redis

__all__ = ["postgres_url", "redis_prefix", "services"]


# Test clients look again at the table in quick loops while bots play: the limit on messages a
# minute is for the open internet, and tests/server/test_limits.py checks it with its own app.
TEST_LIMITS = Limits(messages_per_minute=0)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=0, limits=TEST_LIMITS)
    with TestClient(app) as test_client:
        yield test_client
