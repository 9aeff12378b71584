"""A group's host removes a member from the group's page, on a phone in Brazilian Portuguese: a button
beside each member but the host, a question first, and the member is gone from the list."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from playwright.sync_api import Browser, expect

from tests.server.live import LiveServer

from .test_people import PHONE, key_of, new_person, overflow


def test_the_host_removes_a_member_from_the_group_page(browser: Browser, server: LiveServer,
                                                       screenshots: Path) -> None:
    contexts = [browser.new_context(**PHONE, locale="pt-BR") for _ in range(2)]  # phones that read pt-BR
    try:
        ana, bruno = (new_person(context, server, name, "pt-BR")
                      for context, name in zip(contexts, ["Ana", "Bruno"], strict=True))
        ana.fill("#group-name", "Sextas")
        ana.locator("#group-form button[type=submit]").click()
        ana.wait_for_url(re.compile(r"/groups/g_[\w-]+$"))
        group_id = ana.url.rsplit("/", 1)[1]
        expect(ana.locator("#invite-link")).to_have_attribute("href", re.compile("/join/"))
        invite = ana.locator("#invite-link").get_attribute("href")
        assert invite
        bruno.goto(f"{invite}?lang=pt-BR")
        bruno.locator("#join-button").click()
        bruno.wait_for_url(re.compile(rf"/groups/{group_id}$"))
        expect(bruno.locator("#members-list button")).to_have_count(0)  # not the host: no button
        ana.goto(f"{server.url}/groups/{group_id}?lang=pt-BR")
        members = ana.locator("#members-list li")
        expect(members).to_have_count(2)
        expect(members.nth(0).locator("button")).to_have_count(0)  # the host's own row
        button = members.nth(1).locator("button")
        expect(button).to_have_text("Remover")
        assert overflow(ana) <= 0
        ana.screenshot(path=str(screenshots / "group-remove-pt-BR-360.png"), full_page=True)
        asked: list[str] = []

        def answer(dialog: object) -> None:
            asked.append(dialog.message)  # type: ignore[attr-defined]
            dialog.accept()  # type: ignore[attr-defined]

        ana.once("dialog", answer)
        button.click()
        expect(members).to_have_count(1)
        assert asked and "Bruno" in asked[0]
        seen = httpx.get(f"{server.url}/api/groups/{group_id}", headers={"X-Player-Key": key_of(bruno)}, timeout=10)
        assert seen.status_code == 403 and seen.json()["code"] == "not_member"
    finally:
        for context in contexts:
            context.close()
