"""The score sheet for real cards, over HTTP: totals, the end under the same rule, the winners."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient


def test_a_sheet_to_the_end(client: TestClient) -> None:
    sheet: dict[str, Any] = client.post("/api/scoresheet", json={"players": ["Ana", "Bruno", "Carla"]}).json()
    assert sheet["totals"] == [0, 0, 0] and not sheet["finished"] and sheet["countdown"] == [66, 66, 66]
    sheet = client.post("/api/scoresheet/round", json={"sheet": sheet, "penalties": [30, 36, 10]}).json()
    sheet = client.post("/api/scoresheet/round", json={"sheet": sheet, "penalties": [0, 30, 10]}).json()
    assert sheet["totals"] == [30, 66, 20] and not sheet["finished"]  # exactly 66 plays on
    sheet = client.post("/api/scoresheet/round", json={"sheet": sheet, "penalties": [10, 1, 10]}).json()
    assert sheet["finished"] and sheet["winners"] == [2] and sheet["countdown"] == [26, -1, 36]
    over = client.post("/api/scoresheet/round", json={"sheet": sheet, "penalties": [1, 1, 1]})
    assert over.status_code == 422 and over.json()["code"] == "sheet_over"
    sheet = client.post("/api/scoresheet/undo", json={"sheet": sheet}).json()
    assert sheet["totals"] == [30, 66, 20] and not sheet["finished"]


def test_shared_wins_and_fixed_rounds(client: TestClient) -> None:
    sheet = client.post("/api/scoresheet", json={"players": ["A", "B"], "rounds": 1}).json()
    sheet = client.post("/api/scoresheet/round", json={"sheet": sheet, "penalties": [4, 4]}).json()
    assert sheet["finished"] and sheet["winners"] == [0, 1]


def test_sheet_errors_are_clear(client: TestClient) -> None:
    sheet = client.post("/api/scoresheet", json={"players": ["A", "B"]}).json()
    cases = [
        ({"sheet": sheet, "penalties": [1]}, "sheet_count"),
        ({"sheet": sheet, "penalties": [100, 100]}, "sheet_sum"),
        ({"sheet": sheet, "penalties": [-1, 3]}, "sheet_penalty"),
        ({"sheet": {"format": "other"}, "penalties": [1, 1]}, "bad_sheet"),
        ({"sheet": sheet, "penalties": ["1", 1]}, "bad_request"),
    ]
    for body, code in cases:
        response = client.post("/api/scoresheet/round", json=body)
        assert response.status_code == 422 and response.json()["code"] == code, body
    assert client.post("/api/scoresheet/undo", json={"sheet": sheet}).json()["code"] == "sheet_nothing_to_undo"
    same = client.post("/api/scoresheet", json={"players": ["Ana", "ana"]})
    assert same.status_code == 422 and same.json()["code"] == "sheet_same_name"
    assert client.post("/api/scoresheet", json={"players": ["Solo"]}).json()["code"] == "bad_request"


def test_a_sheet_sent_back_is_checked_again(client: TestClient) -> None:
    """The sheet comes back from the page with every request: what was never the server's answer
    (names it would refuse, a threshold or rounds past their range, numbers past 64 bits) is
    refused with a code, never echoed."""
    sheet: dict[str, Any] = client.post("/api/scoresheet", json={"players": ["Ana", "Bruno"]}).json()
    forged = [
        {**sheet, "players": ["Ana\x07", "Bruno"]},
        {**sheet, "players": ["Ana\u202e", "Bruno"]},
        {**sheet, "players": ["A" * 1000, "Bruno"]},
        {**sheet, "players": ["a\u0301\u0301\u0301\u0301\u0301\u0301", "Bruno"]},
        {**sheet, "players": ["Ana", "Bruno"] * 6},
        {**sheet, "rules": {"end_above": 2**70, "rounds": None}},
        {**sheet, "rules": {"end_above": 1001, "rounds": None}},
        {**sheet, "rules": {"end_above": 66, "rounds": 2**64}},
        {**sheet, "rules": {"end_above": 66, "rounds": 31}},
        {**sheet, "rounds": [[0, 0]] * 1001},
        {**sheet, "rounds": [[2**64, 0]]},
    ]
    for bad in forged:
        for route, body in (("round", {"sheet": bad, "penalties": [1, 1]}), ("undo", {"sheet": bad})):
            response = client.post(f"/api/scoresheet/{route}", json=body)
            assert response.status_code == 422, (route, str(bad)[:80], response.text[:200])
            assert response.json()["code"] == "bad_sheet"
            assert "Ana\x07" not in response.text and "A" * 100 not in response.text
    for players in (["Ana\u202e", "Bruno"], ["\u200b", "Bruno"]):
        refused = client.post("/api/scoresheet", json={"players": players})
        assert refused.status_code == 422, players
    cleaned = client.post("/api/scoresheet", json={"players": ["Zoe\u0301\u200b", "Bruno"]}).json()
    assert cleaned["players"] == ["Zoé", "Bruno"]


def test_penalties_past_the_protocol_s_integers_are_refused_unechoed(client: TestClient) -> None:
    sheet: dict[str, Any] = client.post("/api/scoresheet", json={"players": ["Ana", "Bruno"]}).json()
    for number in (2**64, -(2**64), 10**40):
        huge = client.post("/api/scoresheet/round", json={"sheet": sheet, "penalties": [number, 1]})
        assert huge.status_code == 422 and huge.json()["code"] == "bad_request", huge.text
        assert str(number) not in huge.text
