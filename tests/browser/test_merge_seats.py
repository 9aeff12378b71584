"""Two phones of one person, each with a player of its own, become one person by a one-time code,
and the seat goes with them (issue 30, item 2; nimmt/people/aliases.py): Ana plays a turn-based
game on her phone (fr), then shows a code on her other phone (pt-BR) and types it on the first one,
which asks and merges its player into the other phone's. The other phone's home page then lists
the table, awaiting her move, and opens her seat, where she plays on."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Browser, expect

from nimmt.i18n import catalog
from tests.browser.helpers import act, next_decision, play_card
from tests.browser.test_playing import DAY, PHONES, _hand, _player, _post, _state, _with_key, _ws
from tests.server.live import LiveServer


def _view(message: dict[str, Any]) -> dict[str, Any]:
    view: dict[str, Any] = message.get("view") or {}
    return view


def test_a_phone_merged_into_another_leaves_its_seat_to_the_person(browser: Browser, server: LiveServer) -> None:
    ana_phone, bruno, ana_other = _player(server, "Ana"), _player(server, "Bruno"), _player(server, "Ana")
    _post(server, "/api/groups", {"name": "Sexta à noite"}, ana_phone)  # her phone's player has a group
    duel = _post(server, "/api/tables", {"name": "Ana", "seats": 2, "options": {"clock": DAY}}, ana_phone)
    table_id = duel["table_id"]
    bruno_seat = _post(server, f"/api/tables/{table_id}/join", {"name": "Bruno"}, bruno)
    phone = _with_key(browser, ana_phone, PHONES["360x640"])
    other = _with_key(browser, ana_other, PHONES["360x640"])
    try:
        with _ws(server, table_id) as socket, _ws(server, table_id) as bruno_socket:
            socket.send(json.dumps({"type": "hello", "token": duel["token"]}))
            bruno_socket.send(json.dumps({"type": "hello", "token": bruno_seat["token"]}))
            _state(socket, lambda m: True)
            socket.send(json.dumps({"type": "start"}))
            state = _state(bruno_socket, lambda m: bool(_hand(m)) and bool(m.get("legal")))
            bruno_socket.send(json.dumps({"type": "play", "card": max(_hand(state)), "version": state["version"]}))
            first = _state(bruno_socket, lambda m: _view(m).get("my_card") is not None)

            # Ana plays her card on her phone, at the table's page (her key finds her seat there).
            page = phone.new_page()
            page.goto(f"{server.url}/t/{table_id}?lang=fr")
            play_card(page, next_decision(page)["cards"][0])
            # Bruno takes a row if his card asks for one, until the table awaits Ana again (a row or a card).
            turn = (_view(first).get("round"), _view(first).get("turn"))
            while True:
                state = _state(bruno_socket, lambda m: True)
                view = _view(state)
                if any("row" in action for action in state.get("legal") or []):
                    bruno_socket.send(json.dumps({"type": "choose_row", "row": 0, "version": state["version"]}))
                elif 0 in (view.get("waiting_for") or []) and (
                        view.get("phase") == "choose_row" or (view.get("round"), view.get("turn")) != turn):
                    break  # her row to take, or the next turn's card

        # Her other phone shows a one-time code; she types it on the first phone, which asks first.
        code_page = other.new_page()
        code_page.goto(f"{server.url}/me?lang=pt-BR")
        code_page.locator("#link-make").click()
        expect(code_page.locator("#link-code")).not_to_be_empty()
        found = re.search(r"\b([A-Z0-9]{5}) ?([A-Z0-9]{5})\b", code_page.locator("#link-code").inner_text())
        assert found is not None
        me = phone.new_page()
        me.goto(f"{server.url}/me?lang=fr")
        me.locator("#merge-code-input").fill(found.group(1) + found.group(2))
        me.locator("#merge-code-form button[type=submit]").click()
        expect(me.locator("#link-merge")).to_be_visible()
        me.locator("#link-merge-yes").click()
        expect(me.locator("#link-merge")).to_be_hidden()

        # The other phone's home page lists the table, her move awaited; it opens her seat, she plays.
        texts = catalog("pt-BR", "web")
        home = other.new_page()
        home.goto(f"{server.url}/?lang=pt-BR")
        listed = home.locator(f'#playing-list > li[data-table="{table_id}"]')
        expect(listed.locator(".playing-badge")).to_have_text(texts["playing_your_move"])
        listed.locator("a").click()
        home.wait_for_url(f"**/t/{table_id}")
        assert act(home, next_decision(home)) in ("card", "row")
        assert home.evaluate(f"() => localStorage.getItem('nimmt:seat:{table_id}')") is not None
    finally:
        phone.close()
        other.close()
