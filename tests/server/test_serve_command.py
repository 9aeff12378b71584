"""``nimmt serve``: it says where to go, keeps games in the file it is given, refuses bad options."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

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
