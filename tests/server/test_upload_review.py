"""Reviews of uploaded records (``POST /api/replay/review``, nimmt/server/uploads.py): the same numbers
as the terminal's review, made in the bot pool's workers; bad, too large and too long records get a
clear refusal; each address may post only so many a minute."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from nimmt.records import loads
from nimmt.review import DEFAULT_SEED, review
from nimmt.server.app import MAX_RECORD_UPLOAD, create_app
from nimmt.server.limits import Limits
from nimmt.server.uploads import MAX_REVIEW_UPLOAD

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "records" / "golden"
SAMPLES = 64  # few: the numbers must match the terminal's at the same samples and seed, not be precise
FEW = 8  # fewer, where the same numbers are not what is tested


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(tmp_path_factory.mktemp("uploads") / "nimmt.sqlite3", bot_delay=0,
                     limits=Limits(messages_per_minute=0, replays_per_minute=0))
    with TestClient(app) as test_client:
        app.state.uploads.samples = SAMPLES
        yield test_client


def prepared_review(client: TestClient, text: bytes) -> Any:
    """The review's answer, once the bots' kernels are prepared (a tree whose kernels were never
    compiled compiles them first)."""
    deadline = time.monotonic() + 900
    while (answer := client.post("/api/replay/review", content=text)).status_code == 503:
        assert answer.json()["code"] == "preparing" and time.monotonic() < deadline, answer.text
        time.sleep(2)
    return answer


def test_an_uploaded_record_gets_the_terminals_review(client: TestClient) -> None:
    text = (GOLDEN / "hand_one_round.json").read_bytes()
    answer = prepared_review(client, text)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"status": "ready",
                             "review": review(loads(text), samples=SAMPLES, seed=DEFAULT_SEED).to_json()}
    decisions = answer.json()["review"]["decisions"]  # ten cards each, and three rows chosen
    assert len(decisions) == 23 and all(min(o["loss"] for o in d["options"]) == 0 for d in decisions)


def test_the_replay_page_gets_the_turns_at_once_then_the_review_from_one_reading(client: TestClient) -> None:
    """``Accept: application/x-ndjson``: the turns (as ``POST /api/replay`` answers) then the review, the
    record read and checked once, in the record checker's worker (the bot pool only reviews); a
    record the rules refuse is a plain refusal; one too long to review still gets its turns."""
    text = (GOLDEN / "hand_one_round.json").read_bytes()
    app = client.app
    app.state.uploads.samples = FEW  # type: ignore[attr-defined]  # the same numbers, sooner
    prepared_review(client, text)
    checks: list[str] = []
    jobs: list[str] = []
    checker, pool = app.state.checker, app.state.service.pool  # type: ignore[attr-defined]
    checker_run, pool_run = checker.checked, pool.run

    async def counted(function: Any, *args: Any, **kwargs: Any) -> Any:
        checks.append(function.__name__)
        return await checker_run(function, *args, **kwargs)

    async def job(key: str, function: Any, *args: Any, **kwargs: Any) -> Any:
        jobs.append(function.__name__)
        return await pool_run(key, function, *args, **kwargs)

    checker.checked, pool.run = counted, job
    try:
        ndjson = {"Accept": "application/x-ndjson"}
        answer = client.post("/api/replay/review", content=text, headers=ndjson)
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/x-ndjson")
        turns, reviewed = (json.loads(line) for line in answer.text.splitlines())
        assert checks == ["read_upload"] and set(jobs) == {"review_part", "whole_review"}
        assert turns == client.post("/api/replay", content=text).json()
        assert reviewed == {"status": "ready",
                            "review": review(loads(text), samples=FEW, seed=DEFAULT_SEED).to_json()}
        refused = client.post("/api/replay/review", content=b"not json", headers=ndjson)
        assert refused.status_code == 422 and refused.json()["code"] == "bad_record"
        app.state.uploads.most = 5  # type: ignore[attr-defined]
        long = client.post("/api/replay/review", content=text, headers=ndjson)
        first, last = (json.loads(line) for line in long.text.splitlines())
        assert first == turns and last["status"] == "refused" and last["code"] == "too_long"
        assert "nimmt replay --review" in last["message"]
    finally:
        checker.checked, pool.run = checker_run, pool_run
        app.state.uploads.most = 400  # type: ignore[attr-defined]
        app.state.uploads.samples = SAMPLES  # type: ignore[attr-defined]


def test_a_bad_too_large_or_too_long_record_is_refused_clearly(client: TestClient) -> None:
    record = json.loads((GOLDEN / "hand_one_round.json").read_text(encoding="utf-8"))
    record["rounds"][0]["turns"][0]["cards"] = [5, 5]
    for body, code in [(b"not json", "bad_record"), (b'{"format": "nimmt/1", "players": []}', "bad_record"),
                       (json.dumps(record).encode(), "bad_record"),
                       ((GOLDEN / "hand_one_round.json").read_text(encoding="utf-8")
                        .replace('"Ana"', '"A\\ud83d"').encode(), "bad_record")]:
        answer = client.post("/api/replay/review", content=body)
        assert answer.status_code == 422 and answer.json()["code"] == code, answer.text
        assert answer.json()["message"]
    too_large = client.post("/api/replay/review", content=b" " * (MAX_REVIEW_UPLOAD + 1))
    assert too_large.status_code == 413 and too_large.json()["code"] == "too_large"
    client.app.state.uploads.most = 5  # type: ignore[attr-defined]
    try:
        too_long = client.post("/api/replay/review", content=(GOLDEN / "hand_one_round.json").read_bytes())
    finally:
        client.app.state.uploads.most = 400  # type: ignore[attr-defined]
    assert too_long.status_code == 413 and too_long.json()["code"] == "too_long", too_long.text
    assert "nimmt replay --review" in too_long.json()["message"]


def test_reviews_of_uploads_count_against_the_uploads_limit(tmp_path: Path) -> None:
    app = create_app(tmp_path / "nimmt.sqlite3", limits=Limits(replays_per_minute=2))
    # Each refused as too large before any worker: what is tested is the count, one for both paths.
    with TestClient(app) as client:
        answers = [client.post(path, content=b" " * (most + 1)) for path, most in [
            ("/api/replay", MAX_RECORD_UPLOAD), ("/api/replay/review", MAX_REVIEW_UPLOAD),
            ("/api/replay/review", MAX_REVIEW_UPLOAD)]]
    assert [a.status_code for a in answers] == [413, 413, 429]
    assert answers[2].json()["code"] == "rate_limited" and int(answers[2].headers["Retry-After"]) >= 1
