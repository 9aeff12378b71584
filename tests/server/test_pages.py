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
    # A link's ?lang= shows that one page in its language and keeps nothing.
    linked = client.get("/?lang=es", headers={"accept-language": "fr"})
    assert '<html lang="es">' in linked.text and "nimmt_language" not in linked.cookies
    assert '<html lang="fr">' in client.get("/score", headers={"accept-language": "fr"}).text
    # The menu keeps the choice: it wins over the browser's and over a link's.
    moved = client.get("/lang?lang=es&back=/score", follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"] == "/score"
    assert moved.cookies.get("nimmt_language") == "es"
    assert '<html lang="es">' in client.get("/score", headers={"accept-language": "fr"}).text
    assert '<html lang="es">' in client.get("/?lang=pt-BR").text
    assert '<html lang="es">' in client.get("/?lang=klingon").text
    moved = client.get("/lang/fr?back=/rules", follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"] == "/rules"
    for evil in ("//evil.example", "https://evil.example", "/\\evil.example"):
        assert client.get(f"/lang/fr?back={evil}", follow_redirects=False).headers["location"] == "/"


def test_a_language_an_old_link_kept_is_forgotten(client: TestClient) -> None:
    # Before, a link's ?lang= was kept in the nimmt_lang cookie: it is read no more, and removed.
    client.cookies.set("nimmt_lang", "pt-BR")
    page = client.get("/", headers={"accept-language": "fr"})
    assert '<html lang="fr">' in page.text
    assert 'nimmt_lang=""' in page.headers["set-cookie"] and "Max-Age=0" in page.headers["set-cookie"]


def test_the_menu_goes_back_to_the_page_without_a_links_language(client: TestClient) -> None:
    page = client.get("/?group=g1&lang=pt-BR&x=1").text
    assert '<form class="lang" id="lang-form" method="get" action="/lang">' in page
    assert '<input type="hidden" name="back" value="/?group=g1&amp;x=1">' in page


def test_the_pages_say_where_links_point(client: TestClient) -> None:
    data = client.get("/rules").text
    assert '"site": "http://testserver"' in data and '"site_local": false' in data
    assert '"chosen": null' in data and '"lang_from": "browser"' in data


def test_the_rules_page_holds_the_rules_and_the_faq(client: TestClient) -> None:
    page = client.get("/rules?lang=en").text
    assert re.search(r"<h1>.*rules", page)
    assert "66" in page and "<h2>" in page
