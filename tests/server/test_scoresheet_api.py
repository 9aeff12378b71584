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
