"""Every page, wholly in one language: chosen from the browser, changeable, remembered."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from nimmt.i18n import LANGUAGES, catalog

from .helpers import create_table


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_renders_in_each_language(client: TestClient, language: str) -> None:
    table = create_table(client, seats=2)
    texts = catalog(language, "web")
    for path in ("/", "/rules", "/score", "/replay", f"/t/{table['table_id']}", f"/watch/{table['table_id']}"):
        response = client.get(f"{path}?lang={language}")
        assert response.status_code == 200, path
        page = response.text
        assert f'<html lang="{language}">' in page
        assert "{{" not in page and "%BODY%" not in page
        assert texts["nav_rules"] in page
        assert response.headers["content-language"] == language


def test_language_from_the_browser_then_the_cookie(client: TestClient) -> None:
    page = client.get("/", headers={"accept-language": "pt-BR,pt;q=0.9,en;q=0.5"})
    assert '<html lang="pt-BR">' in page.text
    page = client.get("/", headers={"accept-language": "en;q=0.3, de;q=0.9"})
    assert '<html lang="de">' in page.text
    page = client.get("/", headers={"accept-language": "ja"})
    assert '<html lang="en">' in page.text
    chosen = client.get("/?lang=es")
    assert chosen.cookies.get("nimmt_lang") == "es"
    assert '<html lang="es">' in client.get("/score", headers={"accept-language": "fr"}).text
    assert '<html lang="es">' in client.get("/?lang=klingon").text
    moved = client.get("/lang/fr?back=/rules", follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"] == "/rules"
    assert client.get("/lang/fr?back=//evil.example", follow_redirects=False).headers["location"] == "/"


def test_the_rules_page_holds_the_rules_and_the_faq(client: TestClient) -> None:
    page = client.get("/rules?lang=en").text
    assert re.search(r"<h1>.*rules", page)
    assert "66" in page and "<h2>" in page
