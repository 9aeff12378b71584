from __future__ import annotations

from tests.server.services import postgres_url, services  # real PostgreSQL, started by scripts/services.sh

__all__ = ["postgres_url", "services"]
