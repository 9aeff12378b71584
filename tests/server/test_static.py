"""Static files: named at a versioned URL by every page, kept a year there, compressed; the plain URL is
revalidated by its ETag."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from nimmt.server.static import static_version


def test_pages_name_versioned_static_files_sent_compressed_and_kept_a_year(client: TestClient) -> None:
    page = client.get("/rules", headers={"accept-language": "fr"}).text
    urls = set(re.findall(r'="(/static/[^"]+)"', page))
    assert urls and all(url.startswith(f"/static/v-{static_version()}/") for url in urls), urls
    css = next(url for url in urls if url.endswith("app.css"))
    response = client.get(css, headers={"accept-encoding": "gzip"})
    assert response.status_code == 200
    assert response.headers["content-encoding"] == "gzip"
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert int(response.headers.get("content-length", "0") or 0) < len(response.content)  # sent smaller
    assert "body[data-screen" in response.text
    # A module's relative imports load the same release's files.
    assert client.get(f"/static/v-{static_version()}/js/common.js").status_code == 200
    icon = client.get(f"/static/v-{static_version()}/icons/icon-192.png", headers={"accept-encoding": "gzip"})
    assert icon.status_code == 200 and "content-encoding" not in icon.headers  # PNG is compressed already


def test_the_plain_url_is_revalidated_by_its_etag(client: TestClient) -> None:
    response = client.get("/static/app.css", headers={"accept-encoding": "identity"})
    assert response.status_code == 200 and response.headers["cache-control"] == "no-cache"
    assert "content-encoding" not in response.headers
    again = client.get("/static/app.css", headers={"if-none-match": response.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == "no-cache"
    assert client.get(f"/static/v-{static_version()}/nothing.css").status_code == 404
