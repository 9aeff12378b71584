"""A player from the first visit, and each person's language their own (docs/people.md): the name
typed at a table is the player's, the language a person chose is kept with their player (and a
device they add follows it), a link's ?lang= keeps nothing, and making players is limited per
address as joining is, so a group behind one home router is never refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from nimmt.server.app import create_app
from nimmt.server.limits import Limits

KEY = "X-Player-Key"


def player(client: TestClient, **body: Any) -> tuple[dict[str, Any], dict[str, str]]:
    answer = client.post("/api/players", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()["player"], {KEY: answer.json()["key"]}


def test_a_players_language_is_kept_with_them_and_followed_by_another_device(client: TestClient) -> None:
    ana, key = player(client, name="Ana")
    assert ana["language"] is None  # by default: the browser's
    changed = client.patch("/api/me", json={"language": "pt_br"}, headers=key)
    assert changed.json()["language"] == "pt-BR" and changed.cookies.get("nimmt_language") == "pt-BR"
    assert client.get("/api/me", headers=key).json()["player"]["language"] == "pt-BR"
    refused = client.patch("/api/me", json={"language": "klingon"}, headers=key)
    assert refused.status_code == 422 and refused.json()["code"] == "bad_language"
    # Another device, by a one-time code: it reads in the language Ana chose, whatever its browser says.
    code = client.post("/api/me/link", headers=key).json()["code"]
    client.cookies.clear()
    linked = client.post("/api/link", json={"code": code})
    assert linked.status_code == 201 and linked.cookies.get("nimmt_language") == "pt-BR"
    assert '<html lang="pt-BR">' in client.get("/me", headers={"accept-language": "fr"}).text
    # "" forgets the choice: the browser's language again (on the devices that have not kept one).
    assert client.patch("/api/me", json={"language": ""}, headers=key).json()["language"] is None
    assert player(client, name="Léa", language="fr")[0]["language"] == "fr"
    assert client.get("/api/me/export", headers=key).json()["player"]["language"] is None


def test_a_links_language_is_never_kept(client: TestClient) -> None:
    table = client.post("/api/tables", json={"name": "Bruna", "seats": 2, "language": "pt-BR"}).json()
    french = {"accept-language": "fr-FR,fr;q=0.9"}
    # The invite link of a pt-BR table carries no language: a French guest reads it in French.
    assert table["invite_url"].endswith(f"/t/{table['table_id']}")
    assert '<html lang="fr">' in client.get(f"/t/{table['table_id']}", headers=french).text
    # An older link with ?lang=pt-BR shows that page so, and keeps nothing: the next page is French.
    opened = client.get(f"/t/{table['table_id']}?lang=pt-BR", headers=french)
    assert '<html lang="pt-BR">' in opened.text and "nimmt_language" not in opened.cookies
    for path in ("/", "/me", "/lobby", "/rules", "/score", "/replay"):
        assert '<html lang="fr">' in client.get(path, headers=french).text, path


def test_the_name_typed_at_a_table_is_the_players(client: TestClient) -> None:
    ana, key = player(client)
    assert ana["name"] is None
    created = client.post("/api/tables", json={"name": "Ana", "seats": 2}, headers=key).json()
    assert client.get("/api/me", headers=key).json()["player"]["name"] == "Ana"
    _, bruno_key = player(client, name="Bruno")
    client.post(f"/api/tables/{created['table_id']}/join", json={"name": "Bruno B."}, headers=bruno_key)
    assert client.get("/api/me", headers=bruno_key).json()["player"]["name"] == "Bruno B."
    # A key nimmt does not know is as none: the table works, and no player is named.
    other = client.post("/api/tables", json={"name": "Zé", "seats": 2}, headers={KEY: "nk1_" + "A" * 43})
    assert other.status_code == 201


def test_a_quick_match_keeps_the_persons_player(client: TestClient) -> None:
    ana, key = player(client, name="Ana")
    seat = client.post("/api/lobby/quick", json={"name": "Ana", "language": "fr"}, headers=key)
    assert seat.status_code == 201, seat.text
    assert client.portal is not None
    table = client.portal.call(client.app.state.service.get, seat.json()["table_id"])  # type: ignore[attr-defined]
    assert table.seats[seat.json()["seat"]].player == ana["id"]


def test_a_group_behind_one_router_each_gets_a_player(tmp_path: Path) -> None:
    # Creating tables is limited to 2 a minute here; ten friends behind one address still each get
    # a player and a seat at the table one of them made (players are held by the store's quota).
    app = create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, limits=Limits(tables_per_minute=2,
                                                                            messages_per_minute=0))
    with TestClient(app) as client:
        _, host = player(client, name="Host")
        table = client.post("/api/tables", json={"name": "Host", "seats": 10}, headers=host).json()
        for number in range(9):
            _, key = player(client, name=f"Friend {number}")
            joined = client.post(f"/api/tables/{table['table_id']}/join", json={"name": f"Friend {number}"},
                                 headers=key)
            assert joined.status_code == 201, joined.text
