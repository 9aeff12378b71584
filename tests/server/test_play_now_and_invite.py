"""Play now (a table of bots that starts at once) and the invite link's QR code."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from starlette.testclient import TestClient

from tests.qr import decode_qr

from .helpers import Person, create_table, legal_cards


def test_play_now_starts_the_game_at_once(client: TestClient) -> None:
    response = client.post("/api/tables", json={"name": "Ana", "seats": 4, "bots": ["beginner"] * 3, "start": True})
    assert response.status_code == 201, response.text
    created = response.json()
    info = client.get(f"/api/tables/{created['table_id']}").json()
    assert info["status"] == "playing" and info["game"] == 1
    assert [s["bot"] for s in info["seats"]] == [None, "beginner", "beginner", "beginner"]
    with client.websocket_connect(f"/ws/{created['table_id']}") as socket:
        ana = Person(socket, created["token"])
        state = ana.sync()
        # Ana's page opens on her first card decision (the bots may have chosen theirs already).
        assert state["view"]["round"] == 1 and state["view"]["turn"] == 0
        assert sorted(legal_cards(state)) == sorted(state["view"]["hand"]) and len(state["view"]["hand"]) == 10
        assert state["table"]["creator"] is True and state["table"]["host"] == 0
        assert ana.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})["type"] \
            == "ack"
        assert ana.send({"type": "start"})["code"] == "already_started"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"name": "Ana", "seats": 4, "bots": ["random"], "start": True}, 422, "seats_not_filled"),
        ({"name": "Ana", "seats": 2, "start": True}, 422, "seats_not_filled"),
        ({"name": "Ana", "seats": 4, "bots": ["random"] * 3, "start": "yes"}, 422, "bad_request"),
        ({"name": "Ana", "seats": 4, "bots": ["random", "random", "nobody"], "start": True}, 409, "unknown_bot"),
        ({"name": "", "seats": 4, "bots": ["random"] * 3, "start": True}, 422, "bad_request"),
    ],
)
def test_play_now_refuses_what_cannot_start(client: TestClient, body: dict[str, object], status: int,
                                            code: str) -> None:
    response = client.post("/api/tables", json=body)
    assert response.status_code == status and response.json()["code"] == code, response.text
    assert response.json()["message"]
    if code == "seats_not_filled":
        assert response.json()["params"]["free"] == body["seats"] - 1 - len(body.get("bots", []))  # type: ignore[operator, arg-type]


def _raster(svg: str, scale: int = 8) -> bytes:
    """The served SVG drawn as a PNG, by reading its paths: a white square of the viewBox, and the dark
    modules as horizontal strokes of width 1 (``M x y``, then ``h length`` and ``m dx dy``)."""
    box = re.search(r'viewBox="0 0 (\d+) (\d+)"', svg)
    assert box is not None, svg[:200]
    size = int(box.group(1))
    assert int(box.group(2)) == size
    dark = re.search(r'<path[^>]*stroke="#000"[^>]*d="([^"]+)"', svg)
    assert dark is not None and 'fill="#fff"' in svg
    image = Image.new("L", (size * scale, size * scale), 255)
    pixels = image.load()
    assert pixels is not None
    x = y = 0.0
    for command, args in re.findall(r"([MmHh])([-\d.\s]+)", dark.group(1)):
        numbers = [float(n) for n in args.split()]
        if command in "Mm":
            x, y = (numbers[0], numbers[1]) if command == "M" else (x + numbers[0], y + numbers[1])
        else:
            end = x + numbers[0] if command == "h" else numbers[0]
            for column in range(int(x) * scale, int(end) * scale):
                for row in range(int(y - 0.5) * scale, int(y + 0.5) * scale):
                    pixels[column, row] = 0
            x = end
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_the_invite_qr_code_reads_as_the_invite_link(client: TestClient) -> None:
    table = create_table(client, seats=3)
    table_id = table["table_id"]
    response = client.get(f"/api/tables/{table_id}/invite.svg")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert "max-age" in response.headers["cache-control"] and response.headers["etag"]
    assert response.headers["x-content-type-options"] == "nosniff"
    svg = response.text
    assert svg.startswith("<svg") and "<script" not in svg and 'width="' in svg
    # The link carries no language: whoever opens it reads the table in their own (docs/people.md).
    assert decode_qr(_raster(svg)) == [table["invite_url"]] == [f"http://testserver/t/{table_id}"]
    # Asked again with its ETag: not sent again.
    again = client.get(f"/api/tables/{table_id}/invite.svg", headers={"if-none-match": response.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    # An older page's lang= changes nothing: the same link.
    german = client.get(f"/api/tables/{table_id}/invite.svg?lang=de")
    assert decode_qr(_raster(german.text)) == [f"http://testserver/t/{table_id}"]
    french = client.post("/api/tables", json={"name": "Léa", "seats": 2, "language": "fr"}).json()
    assert decode_qr(_raster(client.get(f"/api/tables/{french['table_id']}/invite.svg").text)) == \
        [french["invite_url"]]


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/tables/nosuchtable/invite.svg", 404, "unknown_table"),
        ("/api/tables/x/invite.svg", 404, "unknown_table"),
        ("/api/tables/{id}/invite.svg?lang=xx", 422, "bad_request"),
        ("/api/tables/{id}/invite.svg?lang=" + "e" * 500, 422, "bad_request"),
    ],
)
def test_the_invite_qr_code_refuses_bad_requests(client: TestClient, path: str, status: int, code: str) -> None:
    table = create_table(client, seats=2)
    response = client.get(path.replace("{id}", table["table_id"]))
    assert response.status_code == status and response.json()["code"] == code, response.text
    assert len(response.text) < 300
