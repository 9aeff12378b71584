"""The lobby API fuzzed from its own OpenAPI description (issue 9): whatever a client sends, the
answer is never a 5xx, it conforms to the schema, and the server logs no traceback.

Schemathesis makes the requests (valid ones and, for the negative half, wrong types, missing and
extra fields, strange strings) for every operation of ``/openapi.json``; each path with a table
in it is tried on the made-up table and on a real one with a finished game, so the handlers behind
the 404 are reached too. The run is bounded and derandomized: the same examples on every run.
"""

from __future__ import annotations

import json
import logging
import random
import re
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import ignored_auth, positive_data_acceptance

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from nimmt.server.app import create_app
from nimmt.server.limits import Limits
from nimmt.server.models import NAME_PATTERN

from .helpers import Person, create_table

EXAMPLES = 40  # per operation: each a request or two, well under a minute for the whole API
BASE_URL = "http://testserver"
GOLDEN = Path(__file__).resolve().parents[1] / "data" / "records" / "golden"
# Fuzzing creates and joins many tables from one address: those rates are tested in test_limits.py.
FUZZ_LIMITS = Limits(tables_per_minute=0, joins_per_minute=0, messages_per_minute=0, replays_per_minute=0)

# The schema of the app as it is built: the same function the fixture's app comes from.
schema = schemathesis.openapi.from_dict(create_app(Path("unused.sqlite3")).openapi())


class _Problems(logging.Handler):
    """Every log record of ERROR or above, or with a traceback: none is allowed."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.records.append(record)


@dataclass
class Api:
    client: TestClient
    table_id: str  # a real table, with game 1 finished
    problems: _Problems
    group_id: str  # a real group, with a real-deck game in its league
    player_key: str  # the key of a member of that group

    def fresh_key(self) -> str:
        """The key of a new player (one a request may delete)."""
        return str(self.client.post("/api/players", json={"name": "Zoë"}).json()["key"])


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    app = create_app(tmp_path_factory.mktemp("fuzz") / "nimmt.sqlite3", bot_delay=0, away_grace=0, seed=9,
                     limits=FUZZ_LIMITS, quotas=())  # what a key may make: tests/server/test_quotas.py
    problems = _Problems()
    root = logging.getLogger()
    root.addHandler(problems)
    try:
        with TestClient(app, base_url=BASE_URL) as client:
            yield Api(client, _finished_table(client), problems, *_group_with_a_game(client))
    finally:
        root.removeHandler(problems)


def _finished_table(client: TestClient) -> str:
    """A table of Ana and a bot with its one-round game played to the end."""
    created = create_table(client, seats=2, bots=["random"], rounds=1)
    client.post(f"/api/tables/{created['table_id']}/join", json={"name": "unused"})  # full: refused, harmless
    with client.websocket_connect(f"/ws/{created['table_id']}") as socket:
        ana = Person(socket, created["token"])
        assert ana.send({"type": "start"})["type"] == "ack"
        rng = random.Random(9)
        deadline = time.monotonic() + 60  # a round is ten turns; the bot thinks in a worker process
        while ana.sync()["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the game never ended"
            if ana.act_randomly(rng, ana.state) is None:
                time.sleep(0.05)  # the bot's turn (within the message limit)
    return str(created["table_id"])


def _group_with_a_game(client: TestClient) -> tuple[str, str]:
    """A group of two players with a real-deck game saved into it: its id, and a member's key."""
    keys = [client.post("/api/players", json={"name": name}).json()["key"] for name in ("Ana", "Bruno")]
    ids = [client.get("/api/me", headers={"X-Player-Key": key}).json()["player"]["id"] for key in keys]
    group = client.post("/api/groups", json={"name": "Fuzz"}, headers={"X-Player-Key": keys[0]}).json()
    client.post("/api/invites", json={"invite": group["invite_url"].rsplit("/", 1)[1]},
                headers={"X-Player-Key": keys[1]})
    sheet = client.post("/api/scoresheet", json={"players": ["Ana", "Bruno"], "end_above": 5}).json()
    sheet = client.post("/api/scoresheet/round", json={"sheet": sheet, "penalties": [3, 9]}).json()
    saved = client.post(f"/api/groups/{group['id']}/sheets", json={"sheet": sheet, "players": ids},
                        headers={"X-Player-Key": keys[0]})
    assert saved.status_code == 201, saved.text
    return str(group["id"]), keys[0]


def schema_valid_is_not_bad_request(_ctx: schemathesis.CheckContext, response: schemathesis.Response,
                                    case: schemathesis.Case[Any]) -> bool | None:
    """A request the description calls valid may be refused for what it asks (a table that cannot
    start, two players of one name: 409 or 422 with their own codes), never as ``bad_request``:
    that would mean the models check something the description does not say."""
    if case.meta is None or not case.meta.generation.mode.is_positive or response.status_code != 422:
        return None
    code = response.json().get("code")
    assert code != "bad_request", f"a request valid by the description is a bad_request: {response.text[:300]}"
    return True


def _send(client: TestClient, case: schemathesis.Case[Any]) -> Any:
    """The case sent through the app's test client (its lifespan, its log), as schemathesis would."""
    request = case.as_transport_kwargs(base_url=BASE_URL)
    body: dict[str, Any] = {}
    if "json" in request:
        body["json"] = request["json"]
    elif request.get("data") is not None:
        body["content"] = request["data"]
    return client.request(request["method"], request["url"], params=request.get("params"),
                          headers=request.get("headers"), **body)


@schema.parametrize()
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
def test_the_lobby_api_answers_every_request_within_its_description(case: schemathesis.Case[Any], api: Api) -> None:
    tries = [case]
    path = case.path_parameters or {}
    if "table_id" in path:
        # The same request at the real table, with the game as made up, and as one it may have.
        games = [path.get("game")]
        if isinstance(path.get("game"), int):
            games.append(path["game"] % 3)  # game 1 is finished, game 2 is not
        for game in games:
            on_real = case.operation.Case(**{k: getattr(case, k) for k in ("query", "headers", "cookies", "body")
                                             if getattr(case, k, None) is not None})
            on_real.path_parameters = {**path, "table_id": api.table_id}
            if game is not None:
                on_real.path_parameters["game"] = game
            tries.append(on_real)
    if "group_id" in path:  # the same request about the real group
        on_group = case.operation.Case(**{k: getattr(case, k) for k in ("query", "headers", "cookies", "body")
                                          if getattr(case, k, None) is not None})
        on_group.path_parameters = {**path, "group_id": api.group_id}
        tries.append(on_group)
    if case.operation.definition.raw.get("security"):  # about a person: each try again with a real key
        key = api.fresh_key() if case.method.upper() == "DELETE" else api.player_key
        for attempt in list(tries):
            signed = case.operation.Case(**{k: getattr(attempt, k) for k in ("query", "cookies", "body")
                                            if getattr(attempt, k, None) is not None})
            signed.path_parameters = attempt.path_parameters
            signed.headers = {**(attempt.headers or {}), "X-Player-Key": key}
            tries.append(signed)
    for attempt in tries:
        response = _send(api.client, attempt)
        assert response.status_code < 500, f"{attempt.operation.label}: {response.status_code} {response.text[:300]}"
        # Refusals by the game's rules are 409/422 with codes of their own (the built-in check would
        # take every 422 to a valid request for a fault): the narrower check above stands for it.
        # A real key is no "generated auth" that ought to be refused (schemathesis cannot tell them apart).
        signed = [ignored_auth] if "X-Player-Key" in (attempt.headers or {}) else []
        attempt.validate_response(response, excluded_checks=[positive_data_acceptance, *signed],
                                  additional_checks=[schema_valid_is_not_bad_request])
    assert not api.problems.records, [api.problems.format(r) for r in api.problems.records]


# -- the pages (not in the API's description) ---------------------------------------------------
_segment = st.text(st.characters(codec="utf-8"), min_size=1, max_size=30)
_header = st.text(st.characters(codec="latin-1", exclude_characters="\r\n"), max_size=60)


@st.composite
def _page_requests(draw: st.DrawFn, table_id: str) -> tuple[str, dict[str, str], dict[str, bytes]]:
    table = draw(st.just(table_id) | _segment)
    game = draw(st.integers(-3, 3) | st.integers() | st.sampled_from([2**31, 2**63, 2**64]) | _segment)
    path = draw(st.sampled_from(["/t/{}", "/watch/{}", "/replay/{}/{}", "/lang/{}", "/static/{}", "/{}"]))
    path = path.format(quote(str(table), safe=""), quote(str(game), safe=""))
    query = draw(st.dictionaries(st.sampled_from(["lang", "back", "x"]), _segment | st.sampled_from(["fr", "//x"]),
                                 max_size=2))
    headers = draw(st.fixed_dictionaries({}, optional={"Accept-Language": _header, "Cookie": _header,
                                                       "If-None-Match": _header}))
    return path, query, {name: value.encode("latin-1") for name, value in headers.items()}  # as on the wire


@given(data=st.data())
@settings(max_examples=EXAMPLES * 2, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
def test_the_pages_answer_any_path_without_a_server_error(api: Api, data: st.DataObject) -> None:
    path, query, headers = data.draw(_page_requests(api.table_id))
    answer = api.client.get(path, params=query, headers=headers, follow_redirects=False)
    assert answer.status_code < 500, (path, query, headers, answer.text[:300])
    if answer.status_code >= 400:  # a refusal is JSON with its code, as the API's
        assert answer.json()["code"], (path, answer.text[:300])
    assert not api.problems.records, [api.problems.format(r) for r in api.problems.records]


# -- what the fuzzing found, each as a plain test ------------------------------------------------
def test_a_method_a_path_does_not_have_is_refused_with_the_methods_it_has(client: TestClient) -> None:
    answer = client.request("TRACE", "/healthz")
    assert answer.status_code == 405 and answer.json()["code"] == "method_not_allowed"
    assert answer.headers["Allow"] == "GET"  # RFC 9110: a 405 names the methods that work
    assert set(client.delete("/api/tables").headers["Allow"].split(", ")) == {"POST"}


def test_the_description_names_every_refusal_with_its_shape(client: TestClient) -> None:
    described = client.get("/openapi.json").json()
    assert "HTTPValidationError" not in described["components"]["schemas"]  # never sent: ours is ApiErrorBody
    error = {"$ref": "#/components/schemas/ApiErrorBody"}
    table = described["paths"]["/api/tables/{table_id}"]["get"]["responses"]
    assert {status: table[status]["content"]["application/json"]["schema"] for status in ("404", "422", "429")} \
        == {"404": error, "422": error, "429": error}
    assert set(described["paths"]["/api/tables/{table_id}/join"]["post"]["responses"]) \
        >= {"201", "400", "404", "409", "413", "422", "429", "503"}
    assert described["paths"]["/api/replay"]["post"]["requestBody"]["required"] is True
    create = described["components"]["schemas"]["CreateTable"]["properties"]
    assert create["language"]["enum"] == ["en", "pt-PT", "pt-BR", "fr", "de", "es"]
    assert "pattern" in create["name"]


def test_a_body_that_is_not_utf8_is_a_bad_request(client: TestClient) -> None:
    answer = client.post("/api/tables", content=b'{"name": "\xff"}', headers={"Content-Type": "application/json"})
    assert answer.status_code == 400 and answer.json()["code"] == "bad_request"


@pytest.mark.parametrize("name", ["\u3000", " \u00a0 ", "A\x07na", "A\u0085na", "\ufeff", "Ana\u202e",
                                  "\u2067Ana"])
def test_a_name_the_description_refuses_is_refused(client: TestClient, name: str) -> None:
    assert not re.match(NAME_PATTERN, name)
    answer = client.post("/api/tables", json={"name": name, "seats": 2})
    assert answer.status_code == 422 and answer.json()["code"] == "bad_request"


def test_a_name_is_made_plain_and_may_hold_letters_of_any_script(client: TestClient) -> None:
    """nimmt/names.py: spaces made plain, invisible characters dropped, NFC; letters of every script kept."""
    for sent, kept in [(" Ana ", "Ana"), ("\u3000Zoë 🐂", "Zoë 🐂"), ("Zoe\u0301\u200b", "Zoé"),
                       ("Ana\u00a0\u00a0Maria", "Ana Maria"), ("محمد 2", "محمد 2"), ("明美", "明美")]:
        assert re.match(NAME_PATTERN, sent)
        table = client.post("/api/tables", json={"name": sent, "seats": 2}).json()["table_id"]
        assert client.get(f"/api/tables/{table}").json()["seats"][0]["name"] == kept


def test_whole_numbers_may_come_as_7_0_but_not_as_text(client: TestClient) -> None:
    created = client.post("/api/tables", json={"name": "Ana", "seats": 3.0, "options": {"rounds": 2.0}})
    assert created.status_code == 201, created.text
    assert client.get(f"/api/tables/{created.json()['table_id']}").json()["options"]["rounds"] == 2
    for seats in ("3", 3.5, True):
        refused = client.post("/api/tables", json={"name": "Ana", "seats": seats})
        assert refused.status_code == 422 and refused.json()["code"] == "bad_request", seats
    sheet = client.post("/api/scoresheet", json={"players": ["Ana", "Bruno"], "end_above": 10.0}).json()
    added = client.post("/api/scoresheet/round", json={"sheet": sheet, "penalties": [3.0, 0]})
    assert added.status_code == 200 and added.json()["totals"] == [3, 0]


def _post_text(client: TestClient, path: str, text: str) -> Any:
    return client.post(path, content=text.encode("ascii"), headers={"Content-Type": "application/json"})


def test_text_that_is_not_unicode_is_refused_wherever_it_is_in_a_body(client: TestClient) -> None:
    """JSON's escapes can spell a lone surrogate; no answer could hold one (it cannot be written as
    UTF-8), so such a body is refused: once it made a 500 where the text went back out unchecked."""
    sheet = client.post("/api/scoresheet", json={"players": ["Ana", "Bruno"]}).json()
    broken_sheet = json.dumps(sheet).replace('"Ana"', '"A\\ud800"')
    record = (GOLDEN / "five_players_end_above_30.json").read_text(encoding="utf-8")
    assert _post_text(client, "/api/replay", record).status_code == 200
    for path, text, code in [
        ("/api/tables", '{"name": "Ana", "seats": 2, "bots": ["\\ud800"]}', "bad_request"),
        ("/api/tables", '{"name": "Ana", "seats": 2, "options": {"x\\udc00": 1}}', "bad_request"),
        ("/api/scoresheet/round", f'{{"sheet": {broken_sheet}, "penalties": [1, 2]}}', "bad_request"),
        ("/api/scoresheet/undo", f'{{"sheet": {broken_sheet}}}', "bad_request"),
        ("/api/replay", record.replace('"Bot 1"', '"Bot \\ud83d"', 1), "bad_record"),
    ]:
        answer = _post_text(client, path, text)
        assert answer.status_code == 422 and answer.json()["code"] == code, (path, answer.text)
        assert "not valid Unicode" in answer.json()["message"]
    # A pair of surrogates is one character like any other.
    paired = _post_text(client, "/api/tables", '{"name": "Ana \\ud83d\\udc02", "seats": 2}')
    assert paired.status_code == 201, paired.text
    assert client.get(f"/api/tables/{paired.json()['table_id']}").json()["seats"][0]["name"] == "Ana \U0001f402"


# -- heads, against a real nimmt serve (uvicorn's parser and the guard in front of the app) ---------
@pytest.fixture(scope="module")
def live_heads(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from .live import LiveServer

    with LiveServer(tmp_path_factory.mktemp("heads_fuzz") / "nimmt.sqlite3") as server:
        yield server


def _raw(server: Any, head: bytes) -> bytes:
    import contextlib
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        with contextlib.suppress(OSError):  # refused and closed before all of it was read
            sock.sendall(head)
        received = b""
        while b"\r\n" not in received:
            try:
                chunk = sock.recv(4096)
            except OSError:
                break
            if not chunk:
                break
            received += chunk
        return received.split(b"\r\n", 1)[0]


@given(url=st.integers(0, 3 * 8192), headers=st.lists(st.integers(0, 12_000), max_size=6))
@settings(max_examples=30, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_heads_of_any_size_get_their_bound_s_answer(live_heads: Any, url: int, headers: list[int]) -> None:
    """A URL or headers of any size: answered at once by the bound they pass (414 for the URL,
    431 for the whole head), else by the route; never a 5xx, never a traceback."""
    from nimmt.server.guard import MOST_HEAD_BYTES, MOST_URL_BYTES

    target = b"/healthz?" + b"a" * url
    head = b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n" + b"".join(
        b"X-F%d: %s\r\n" % (index, b"v" * size) for index, size in enumerate(headers)) + b"\r\n"
    status = _raw(live_heads, head)
    if len(target) > MOST_URL_BYTES:
        assert status.startswith(b"HTTP/1.1 414 "), status
    elif len(head) > MOST_HEAD_BYTES:
        assert status.startswith(b"HTTP/1.1 431 "), status
    else:
        assert status.startswith(b"HTTP/1.1 200 "), status
    assert "Traceback" not in "".join(live_heads.output)
