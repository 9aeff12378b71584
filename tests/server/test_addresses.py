"""Addresses that work for the people at the table: ``nimmt serve --host 0.0.0.0`` prints an address
other devices can open (this machine's on its network), bound to loopback it says how to let them
in, and links and QR codes are made of ``--public-url`` (or NIMMT_PUBLIC_URL) when one is given,
never of a loopback address without a warning on the page."""

from __future__ import annotations

import ipaddress
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from nimmt.cli.serve import network_address
from nimmt.server.addresses import is_loopback

from .live import LiveServer

_OTHERS = re.compile(r"other devices on your network \(the phones at the table\): open (http://\S+)/")


def _addresses_of_this_machine() -> list[str] | None:
    """Every address of this machine's interfaces but loopback, as ``ip`` lists them; None without ``ip``."""
    try:
        shown = subprocess.run(["ip", "-j", "addr"], capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = [info["local"] for link in json.loads(shown) for info in link.get("addr_info", [])]
    return [address for address in found
            if not is_loopback(address) and not ipaddress.ip_address(address).is_link_local]


def _said(server: LiveServer) -> str:
    """What the server printed after its ready line, up to the last of those lines (read by a thread)."""
    for _ in range(400):
        said = "".join(server.output)
        if "games are kept in" in said:
            return said
        time.sleep(0.05)
    raise AssertionError(f"nimmt serve did not finish saying where to go: {server.output}")


def _page_data(html: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html)
    assert found is not None
    data: dict[str, object] = json.loads(found.group(1))
    return data


def test_on_every_interface_it_prints_the_address_phones_open(tmp_path: Path) -> None:
    ours = _addresses_of_this_machine()
    with LiveServer(tmp_path / "nimmt.sqlite3", args=["--host", "0.0.0.0"]) as server:
        said = _said(server)
        printed = _OTHERS.search(said)
        if ours == []:
            # A sandbox with loopback alone: it says so, and makes no address up.
            assert printed is None and "no network address but its own" in said, said
            pytest.skip("this machine has no network address but loopback: nothing else to open")
        if ours is None and printed is None:
            pytest.skip(f"no `ip` to list this machine's addresses, and the server found none: {said}")
        assert printed is not None, said
        other = printed.group(1)
        host = other.removeprefix("http://").rsplit(":", 1)[0].strip("[]")
        assert not is_loopback(host)
        if ours is not None:
            assert host in ours, (host, ours)
        # Another device's way in: the address printed answers, from the network side.
        assert httpx.get(f"{other}/api/bots", timeout=10).status_code == 200
        # A page opened at 127.0.0.1 on this computer makes its links of that address, not of loopback.
        created = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2}).json()
        assert created["invite_url"] == f"{other}/t/{created['table_id']}"
        data = _page_data(httpx.get(f"{server.url}/t/{created['table_id']}").text)
        assert data["site"] == other and data["site_local"] is False


def test_on_loopback_it_says_how_to_let_phones_in_and_the_page_warns(tmp_path: Path) -> None:
    with LiveServer(tmp_path / "nimmt.sqlite3") as server:
        assert server.url.startswith("http://127.0.0.1:")
        said = _said(server)
        assert "--host 0.0.0.0" in said, said
        created = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2}).json()
        assert created["invite_url"] == f"{server.url}/t/{created['table_id']}"
        page = httpx.get(f"{server.url}/t/{created['table_id']}").text
        assert _page_data(page)["site_local"] is True  # the invite box says phones cannot open it
        assert "data-share-warning" in page


@pytest.mark.parametrize("how", ["option", "environment"])
def test_links_use_the_configured_public_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  how: str) -> None:
    public = "https://nimmt.example.org"
    args: list[str] = []
    if how == "option":
        args = ["--public-url", f"{public}/"]
    else:
        monkeypatch.setenv("NIMMT_PUBLIC_URL", public)
    with LiveServer(tmp_path / "nimmt.sqlite3", args=args) as server:
        assert f"invite links and QR codes use {public}/" in _said(server)
        created = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 3, "language": "pt-BR"}).json()
        table_id = created["table_id"]
        assert created["invite_url"] == f"{public}/t/{table_id}"
        assert created["watch_url"] == f"{public}/watch/{table_id}"
        svg = httpx.get(f"{server.url}/api/tables/{table_id}/invite.svg").text
        assert f"<title>{public}/t/{table_id}</title>" in svg
        data = _page_data(httpx.get(f"{server.url}/t/{table_id}").text)
        assert data["site"] == public and data["site_local"] is False
        # A one-time code's link for another device too.
        made = httpx.post(f"{server.url}/api/players", json={"name": "Ana"}).json()
        link = httpx.post(f"{server.url}/api/me/link", headers={"X-Player-Key": made["key"]}).json()
        assert link["link_url"].startswith(f"{public}/link/")


@pytest.mark.parametrize("given", ["nimmt.example.org", "ftp://nimmt.example.org", "https://x.org/?a=1", "https://"])
def test_a_public_address_that_is_not_one_is_refused(tmp_path: Path, given: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nimmt", "serve", "--port", "0", "--db", str(tmp_path / "db.sqlite3"),
         "--public-url", given], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--public-url" in result.stderr and "Traceback" not in result.stderr


def test_the_network_address_is_never_a_loopback_one() -> None:
    found = network_address()
    assert found is None or not is_loopback(found)


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("app.localhost", True), ("192.168.1.20", False), ("nimmt.example.org", False), ("", False), (None, False)])
def test_loopback_addresses(host: str | None, loopback: bool) -> None:
    assert is_loopback(host) is loopback
