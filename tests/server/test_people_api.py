"""The people API on a real app and store (SQLite): players and keys, a second device, groups and
their league (against a table worked out by hand), ratings, export and delete, and bad input."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from openskill.models import BradleyTerryFull
from starlette.testclient import TestClient

from nimmt.scoresheet import ScoreSheet

from .helpers import Person

KEY = "X-Player-Key"


def new_player(client: TestClient, name: str) -> tuple[dict[str, Any], dict[str, str]]:
    answer = client.post("/api/players", json={"name": name})
    assert answer.status_code == 201, answer.text
    data = answer.json()
    assert data["player"]["name"] == name and data["key"].startswith("nk1_")
    return data["player"], {KEY: data["key"]}


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["code"] == code, response.text


def test_a_player_is_their_key(client: TestClient) -> None:
    ana, key = new_player(client, "Ana")
    me = client.get("/api/me", headers=key).json()
    assert me["player"] == ana and [device["how"] for device in me["devices"]] == ["first"]
    assert client.patch("/api/me", json={"name": " Ana ❤ "}, headers=key).json()["name"] == "Ana ❤"
    assert client.patch("/api/me", json={"public": True}, headers=key).json()["public"] is True
    refused(client.get("/api/me"), 401, "no_key")
    for forged in (key[KEY][:-2] + "xy", key[KEY] + "a", "nk1_" + "A" * 43, "x", "Bearer " + key[KEY]):
        refused(client.get("/api/me", headers={KEY: forged}), 401, "unknown_key")
    for bad in ("", "   ", "x" * 25, "A\u0007B"):
        refused(client.patch("/api/me", json={"name": bad}, headers=key), 422, "bad_request")
    assert client.get("/api/me", headers=key).json()["player"]["name"] == "Ana ❤"  # nothing changed
    unnamed = client.post("/api/players", json={}).json()
    assert unnamed["player"]["name"] is None


def test_a_second_device_by_a_one_time_code(client: TestClient) -> None:
    ana, key = new_player(client, "Ana")
    link = client.post("/api/me/link", headers=key)
    assert link.status_code == 201
    code = link.json()
    assert code["link_url"].endswith(f"/link/{code['code']}") and code["qr"].startswith("data:image/svg+xml;base64,")
    phone = client.post("/api/link", json={"code": code["code"].lower()})
    assert phone.status_code == 201 and phone.json()["player"]["id"] == ana["id"]
    phone_key = {KEY: phone.json()["key"]}
    assert phone_key != key and client.get("/api/me", headers=phone_key).json()["player"]["id"] == ana["id"]
    refused(client.post("/api/link", json={"code": code["code"]}), 409, "code_used")  # a second device racing
    refused(client.post("/api/link", json={"code": "ABCDEFGHJK"}), 404, "code_unknown")
    late = client.post("/api/me/link", headers=key).json()
    people = client.app.state.people  # type: ignore[attr-defined]
    people.clock = lambda: datetime.now(UTC) + timedelta(minutes=6)
    refused(client.post("/api/link", json={"code": late["code"]}), 410, "code_expired")
    people.clock = lambda: datetime.now(UTC)
    # The phone is stolen: the first device signs it out, and its key is nobody's from then on.
    devices = client.get("/api/me", headers=key).json()["devices"]
    assert [device["how"] for device in devices] == ["first", "code"]
    assert client.delete(f"/api/me/devices/{devices[1]['id']}", headers=key).status_code == 204
    refused(client.get("/api/me", headers=phone_key), 401, "unknown_key")
    refused(client.delete(f"/api/me/devices/{devices[1]['id']}", headers=key), 404, "unknown_device")


def sheet(players: list[str], rounds: list[list[int]]) -> dict[str, Any]:
    made = ScoreSheet(tuple(players))
    for penalties in rounds:
        made = made.add_round(penalties)
    assert made.is_over
    return made.to_json()


def test_a_groups_league_is_the_table_worked_out_by_hand(client: TestClient) -> None:
    ana, ana_key = new_player(client, "Ana")
    bruno, bruno_key = new_player(client, "Bruno")
    carla, carla_key = new_player(client, "Carla")
    dora, dora_key = new_player(client, "Dora")
    group = client.post("/api/groups", json={"name": "Friday table"}, headers=ana_key).json()
    assert group["host"] and group["invite_open"] and group["invite_qr"].startswith("data:image/svg")
    invite = group["invite_url"].rsplit("/", 1)[1]
    # Before joining, the invite names its group (no key needed; never its id or members' names).
    assert client.get(f"/api/invites/{invite.lower()}").json() == {"name": "Friday table", "members": 1,
                                                                   "invite_open": True}
    for key in (bruno_key, carla_key):
        assert client.post("/api/invites", json={"invite": invite}, headers=key).status_code == 200
    # Three real-deck games: seats in different orders, a shared win, totals above 66 and exactly at it.
    games = [
        (sheet(["Ana", "Bruno", "Carla"], [[10, 20, 5], [30, 50, 10]]), [ana, bruno, carla]),  # 40 70 15
        (sheet(["Ana", "Bruno"], [[40, 40], [30, 30]]), [ana, bruno]),  # 70 70: they share the win
        (sheet(["Carla", "Ana", "Bruno"], [[0, 67, 3]]), [carla, ana, bruno]),  # 0 67 3
    ]
    saved = []
    for played, seated in games:
        answer = client.post(f"/api/groups/{group['id']}/sheets", headers=bruno_key,
                             json={"sheet": played, "players": [player["id"] for player in seated]})
        assert answer.status_code == 201, answer.text
        saved.append(answer.json()["id"])
    # Bruno saved them: they count for him at once, for Ana and Carla once each says it was them.
    early = {row["name"]: row["games"] for row in client.get(f"/api/groups/{group['id']}/league").json()["rows"]}
    assert early == {"Bruno": 3, "Ana": 0, "Carla": 0}
    for key in (ana_key, carla_key):
        pending = [game for game in client.get("/api/me/games", headers=key).json()["games"] if not game["confirmed"]]
        assert len(pending) in (2, 3) and client.get("/api/me/standing", headers=key).json()["pending_sheets"] == len(
            pending)
        for game in pending:
            assert client.post(f"/api/me/games/{game['id']}/seat", json={"mine": True}, headers=key).status_code == 204
    league = client.get(f"/api/groups/{group['id']}/league").json()
    table = [(row["name"], row["games"], row["wins"], row["bullheads_per_round"], row["best_round"],
              row["worst_round"], row["past_66"]) for row in league["rows"]]
    assert table == [
        ("Carla", 2, 2.0, 15 / 3, 0, 10, 0),
        ("Bruno", 3, 0.5, 143 / 5, 3, 50, 2),
        ("Ana", 3, 0.5, 177 / 5, 10, 67, 2),
    ]
    assert league["games"] == 3 and all(len(row["form"]) == row["games"] for row in league["rows"])
    detail = client.get(f"/api/groups/{group['id']}", headers=carla_key).json()
    assert [member["name"] for member in detail["members"]] == ["Ana", "Bruno", "Carla"]
    assert detail["league"] == league
    svg = client.get(f"/api/groups/{group['id']}/form.svg?lang=fr")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert "Carla" in svg.text and "têtes de bœuf" in svg.text
    # Dora is no member: she sees neither the group nor may save into it; the host closes the invite.
    refused(client.get(f"/api/groups/{group['id']}", headers=dora_key), 403, "not_member")
    refused(client.post(f"/api/groups/{group['id']}/sheets", headers=dora_key,
                        json={"sheet": games[1][0], "players": [None, None]}), 403, "not_member")
    refused(client.patch(f"/api/groups/{group['id']}/invite", json={"open": False}, headers=bruno_key),
            403, "not_host")
    closed = client.patch(f"/api/groups/{group['id']}/invite", json={"open": False}, headers=ana_key).json()
    assert closed["invite_url"] is None and not closed["invite_open"]
    refused(client.post("/api/invites", json={"invite": invite}, headers=dora_key), 403, "invite_closed")
    assert client.get(f"/api/invites/{invite}").json() == {"name": "Friday table", "members": 3,
                                                           "invite_open": False}
    renewed = client.patch(f"/api/groups/{group['id']}/invite", json={"open": True, "renew": True},
                           headers=ana_key).json()
    refused(client.post("/api/invites", json={"invite": invite}, headers=dora_key), 404, "invite_unknown")
    refused(client.get(f"/api/invites/{invite}"), 404, "invite_unknown")
    for page, shown in ((f"/join/{invite}", '"invited": null'), (f"/join/{renewed['invite_url'].rsplit('/', 1)[1]}",
                                                                  '"name": "Friday table"')):
        assert shown in client.get(f"{page}?lang=fr").text
    new_invite = renewed["invite_url"].rsplit("/", 1)[1]
    assert client.post("/api/invites", json={"invite": new_invite}, headers=dora_key).status_code == 200
    dora_row = next(row for row in client.get(f"/api/groups/{group['id']}/league").json()["rows"]
                    if row["player"] == dora["id"])
    assert (dora_row["games"], dora_row["bullheads_per_round"], dora_row["form"]) == (0, None, [])
    # A sheet not over, one seat too many, a stranger in a seat, a member seated twice: refused.
    not_over = ScoreSheet(("Ana", "Bruno")).add_round([5, 5]).to_json()
    for body, code in (({"sheet": not_over, "players": [ana["id"], bruno["id"]]}, "bad_game"),
                       ({"sheet": games[1][0], "players": [ana["id"], bruno["id"], None]}, "bad_game"),
                       ({"sheet": games[1][0], "players": ["p_stranger", None]}, "bad_game"),
                       ({"sheet": games[1][0], "players": [ana["id"], ana["id"]]}, "bad_game"),
                       ({"sheet": {"format": "other"}, "players": [None, None]}, "bad_sheet")):
        refused(client.post(f"/api/groups/{group['id']}/sheets", headers=ana_key, json=body), 422, code)
    assert client.get(f"/api/groups/{group['id']}/league").json()["games"] == 3
    refused(client.get("/api/groups/g_nowhere/league"), 404, "unknown_group")


def test_ratings_move_as_openskill_says(client: TestClient) -> None:
    ana, ana_key = new_player(client, "Ana")
    bruno, bruno_key = new_player(client, "Bruno")
    client.patch("/api/me", json={"public": True}, headers=ana_key)
    group = client.post("/api/groups", json={"name": "Two"}, headers=ana_key).json()
    client.post("/api/invites", json={"invite": group["invite_url"].rsplit("/", 1)[1]}, headers=bruno_key)
    client.post(f"/api/groups/{group['id']}/sheets", headers=ana_key,
                json={"sheet": sheet(["Ana", "Bruno"], [[10, 60], [10, 20]]), "players": [ana["id"], bruno["id"]]})
    model = BradleyTerryFull()
    [[ana_after], [bruno_after]] = model.rate([[model.rating()], [model.rating()]], ranks=[20.0, 80.0])
    # A score sheet never moves the overall ratings: Ana, public, played no game at nimmt's tables
    # and is not listed; Bruno sees his own row (a newcomer, at 1000), shown to him alone.
    rows = {row["player"]: row for row in client.get("/api/ratings").json()["rows"]}
    assert ana["id"] not in rows and bruno["id"] not in rows
    mine = {row["player"]: row for row in client.get("/api/ratings", headers=bruno_key).json()["rows"]}
    assert mine[bruno["id"]]["you"] and mine[bruno["id"]]["rating"] == 1000  # shown to him alone
    assert {row["name"] for row in rows.values() if row["bot"]} == {"beginner", "expert", "heuristic", "learned",
                                                                   "montecarlo", "random"}
    # In the group, the sheet counts for Bruno once he says it was him.
    league = {row["player"]: row for row in client.get(f"/api/groups/{group['id']}/league").json()["rows"]}
    assert league[bruno["id"]]["rating"] is None and league[bruno["id"]]["games"] == 0
    [game] = client.get("/api/me/games", headers=bruno_key).json()["games"]
    assert not game["confirmed"]
    client.post(f"/api/me/games/{game['id']}/seat", json={"mine": True}, headers=bruno_key)
    league = {row["player"]: row for row in client.get(f"/api/groups/{group['id']}/league").json()["rows"]}
    assert league[bruno["id"]]["rating"] == round(1000 + 20 * (bruno_after.mu - 3 * bruno_after.sigma))
    assert league[ana["id"]]["rating"] == round(1000 + 20 * (ana_after.mu - 3 * ana_after.sigma))


def test_a_group_of_one_cannot_farm_the_public_ratings(client: TestClient) -> None:
    """Issue 28's first exploit: 60 score sheets in a group of one (0 for them, 11 for nine empty
    names) put them at the top of /api/ratings (624, above the expert's 288). Now sheets count in
    their group alone (30 here: a player's quota of sheets a day; two days would make the 60)."""
    cheat, key = new_player(client, "Cheat")
    client.patch("/api/me", json={"public": True}, headers=key)
    group = client.post("/api/groups", json={"name": "Mine"}, headers=key).json()
    names = ["Cheat", *(f"N{n}" for n in range(9))]
    rounds = [[0, *([11] * 9)]] * 7
    for _ in range(30):
        answer = client.post(f"/api/groups/{group['id']}/sheets", headers=key,
                             json={"sheet": sheet(names, rounds), "players": [cheat["id"], *([None] * 9)]})
        assert answer.status_code == 201
    rows = client.get("/api/ratings", headers=key).json()["rows"]
    top = rows[0]
    assert top["bot"] and top["name"] == "expert"  # the expert's reference stays first
    mine = next(row for row in rows if row["player"] == cheat["id"])
    assert mine["rating"] == 1000 and mine["games"] == 0 and mine["you"]
    assert all(row["player"] != cheat["id"] for row in client.get("/api/ratings").json()["rows"])
    standing = client.get("/api/me/standing", headers=key).json()["standings"]
    assert standing[0]["scope"] == "*" and standing[0]["rating"] == 1000
    assert standing[1]["group"] == group["id"] and standing[1]["games"] == 30  # their own group's figures
    assert standing[1]["rating"] > 1000  # in their own group, against nobody they know: theirs alone


def test_a_host_cannot_sink_a_member(client: TestClient) -> None:
    """Issue 28: a host sank a member's public rating (-19 to -252) with 15 sheets, and the fake games
    stayed in the member's My games after they left. Now: sheets never touch the overall rating, an
    unconfirmed seat counts for nobody, "this was not me" takes it out, and leaving drops the rest."""
    host, host_key = new_player(client, "Host")
    victim, victim_key = new_player(client, "Vic")
    client.patch("/api/me", json={"public": True}, headers=victim_key)
    group = client.post("/api/groups", json={"name": "Trap"}, headers=host_key).json()
    client.post("/api/invites", json={"invite": group["invite_url"].rsplit("/", 1)[1]}, headers=victim_key)
    for _ in range(15):
        client.post(f"/api/groups/{group['id']}/sheets", headers=host_key,
                    json={"sheet": sheet(["Host", "Vic"], [[0, 70]]), "players": [host["id"], victim["id"]]})
    overall = next(row for row in client.get("/api/ratings", headers=victim_key).json()["rows"]
                   if row["player"] == victim["id"])
    assert overall["rating"] == 1000 and overall["games"] == 0
    league = {row["player"]: row for row in client.get(f"/api/groups/{group['id']}/league").json()["rows"]}
    assert league[victim["id"]]["games"] == 0 and league[victim["id"]]["rating"] is None
    games = client.get("/api/me/games", headers=victim_key).json()["games"]
    assert len(games) == 15 and not any(game["confirmed"] for game in games)
    # "This was not me": the game leaves their games at once.
    assert client.post(f"/api/me/games/{games[0]['id']}/seat", json={"mine": False},
                       headers=victim_key).status_code == 204
    assert len(client.get("/api/me/games", headers=victim_key).json()["games"]) == 14
    refused(client.post(f"/api/me/games/{games[0]['id']}/seat", json={"mine": True}, headers=victim_key),
            404, "not_in_game")
    # The host's word is about the host's own seat alone: the member's stays unconfirmed.
    assert client.post(f"/api/me/games/{games[1]['id']}/seat", json={"mine": True}, headers=host_key).status_code == 204
    assert not any(game["confirmed"] for game in client.get("/api/me/games", headers=victim_key).json()["games"])
    # Leaving the group: the sheets they never confirmed leave their games too.
    assert client.post(f"/api/groups/{group['id']}/leave", headers=victim_key).status_code == 204
    assert client.get("/api/me/games", headers=victim_key).json()["games"] == []
    assert client.get("/api/me/standing", headers=victim_key).json()["pending_sheets"] == 0


def test_export_then_delete(client: TestClient) -> None:
    ana, ana_key = new_player(client, "Ana")
    bruno, bruno_key = new_player(client, "Bruno")
    group = client.post("/api/groups", json={"name": "Friday"}, headers=ana_key).json()
    client.post("/api/invites", json={"invite": group["invite_url"].rsplit("/", 1)[1]}, headers=bruno_key)
    client.post(f"/api/groups/{group['id']}/sheets", headers=ana_key,
                json={"sheet": sheet(["Ana", "Bruno"], [[10, 60], [10, 20]]), "players": [ana["id"], bruno["id"]]})
    exported = client.get("/api/me/export", headers=ana_key)
    assert exported.status_code == 200 and "attachment" in exported.headers["content-disposition"]
    data = exported.json()
    assert data["player"]["name"] == "Ana" and data["groups"][0]["name"] == "Friday"
    assert len(data["games"]) == 1 and ana_key[KEY] not in exported.text
    assert client.delete("/api/me", headers=ana_key).status_code == 204
    refused(client.get("/api/me", headers=ana_key), 401, "unknown_key")
    refused(client.get("/api/me/export", headers=ana_key), 401, "unknown_key")
    [game] = client.get("/api/me/games", headers=bruno_key).json()["games"]
    assert [(seat["name"], seat["player"]) for seat in game["seats"]] == [(None, None), ("Bruno", bruno["id"])]
    rows = client.get(f"/api/groups/{group['id']}/league").json()["rows"]
    assert [row["name"] for row in rows] == ["Bruno"]  # the former player has no row of their own
    detail = client.get(f"/api/groups/{group['id']}", headers=bruno_key).json()
    assert detail["group"]["host"] and [member["name"] for member in detail["members"]] == ["Bruno"]


def test_pages_are_in_every_language(client: TestClient) -> None:
    _, key = new_player(client, "Ana")
    group = client.post("/api/groups", json={"name": "Friday"}, headers=key).json()
    for path, marker in (("/me", "people.css"), ("/link/ABCDEFGHJK", "ABCDEFGHJK"), ("/join/ABCDEFGHJK", "ABCDEFGHJK"),
                         (f"/groups/{group['id']}", group["id"]), (f"/groups/{group['id']}/screen", group["id"]),
                         ("/ratings", "ratings.js")):
        for lang, word in (("fr", "Mes parties"), ("pt-BR", "Meus jogos"), ("de", "Meine Partien")):
            page = client.get(f"{path}?lang={lang}")
            assert page.status_code == 200, (path, page.text)
            assert marker in page.text and word in page.text and f'lang="{lang}"' in page.text
    assert client.get("/groups/g_nowhere").status_code == 404


def test_a_tables_game_is_kept_for_its_players_and_its_group(client: TestClient) -> None:
    ana, ana_key = new_player(client, "Ana")
    bruno, bruno_key = new_player(client, "Bruno")
    group = client.post("/api/groups", json={"name": "Friday"}, headers=ana_key).json()
    invite = group["invite_url"].rsplit("/", 1)[1]
    # A group's table needs a member's key: without one, with a stranger's, or a group nobody made: refused.
    body = {"name": "Ana", "seats": 3, "bots": ["random"], "options": {"rounds": 1}, "group": group["id"]}
    refused(client.post("/api/tables", json=body), 401, "no_key")
    refused(client.post("/api/tables", json=body, headers=bruno_key), 403, "not_member")
    refused(client.post("/api/tables", json={**body, "group": "g_nowhere"}, headers=ana_key), 404, "unknown_group")
    # Public and in a group at once: refused with its own code, and no table is made (the lobby stays empty).
    public = {**body, "options": {"rounds": 1, "public": True, "clock": 86400}}
    refused(client.post("/api/tables", json=public, headers=ana_key), 422, "public_group")
    assert client.get("/api/lobby").json() == []
    client.post("/api/invites", json={"invite": invite}, headers=bruno_key)
    created = client.post("/api/tables", json=body, headers=ana_key).json()
    joined = client.post(f"/api/tables/{created['table_id']}/join", json={"name": "Bruno"}, headers=bruno_key).json()
    rng = random.Random(3)
    with client.websocket_connect(f"/ws/{created['table_id']}") as first, \
            client.websocket_connect(f"/ws/{created['table_id']}") as second:
        people = [Person(first, created["token"]), Person(second, joined["token"])]
        assert people[0].send({"type": "start"})["type"] == "ack"
        deadline = time.monotonic() + 120
        while people[0].sync()["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the game never ended"
            if not any([person.act_randomly(rng) for person in people]):
                time.sleep(0.05)  # the bot's turn
        final = people[0].sync()
    totals = final["view"]["totals"]
    for key, seat in ((ana_key, 0), (bruno_key, 1)):
        [game] = client.get("/api/me/games", headers=key).json()["games"]
        assert (game["seat"], game["bullheads"], game["group_id"]) == (seat, totals[seat], group["id"])
        assert [s["player"] for s in game["seats"]] == [ana["id"], bruno["id"], None]
        assert game["seats"][2]["bot"] == "random" and game["rounds"] == 1
        assert client.get(game["record_url"]).json()["players"] == ["Ana", "Bruno", "Bot 3"]
    league = client.get(f"/api/groups/{group['id']}/league").json()
    assert league["games"] == 1 and {row["name"]: row["games"] for row in league["rows"]} == {"Ana": 1, "Bruno": 1}
    # A table without keys works as before, and keeps nothing for anybody.
    anonymous = client.post("/api/tables", json={"name": "Zoë", "seats": 2, "bots": ["random"]})
    assert anonymous.status_code == 201
    forged = client.post("/api/tables", json={"name": "Zoë", "seats": 2}, headers={KEY: "nk1_forged"})
    assert forged.status_code == 201  # a key nimmt does not know is as none: the table is played all the same
