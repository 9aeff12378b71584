from __future__ import annotations

from tests.server.services import database_url, postgres_url, services  # real PostgreSQL (scripts/services.sh)

__all__ = ["database_url", "postgres_url", "services"]
