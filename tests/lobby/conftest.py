from __future__ import annotations

from tests.server.conftest import client
from tests.server.services import postgres_url, redis_prefix, services  # real PostgreSQL and Redis

__all__ = ["client", "postgres_url", "redis_prefix", "services"]
