"""The web client's static files: compressed, and cached by a versioned URL.

Pages name every file under ``/static/v-<version>/``, where the version is a hash of all the static
files: such a URL never changes its content, so a browser keeps it a year without asking again
(``immutable``), and a new release is new URLs. The plain ``/static/...`` (the web app manifest's
icons, old pages) is revalidated each time with its ``ETag`` (``304`` when unchanged). Text files
are sent gzip-compressed to browsers that accept it.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
GZIP_FROM = 500  # bytes: smaller files are sent as they are


def static_folder() -> Path:
    return Path(str(resources.files("nimmt.web") / "static"))


@cache
def static_version() -> str:
    """A hash of every static file's path and content: the part of the URL that changes when any does
    (a module's relative imports then load the same release's files)."""
    digest = hashlib.sha256()
    folder = static_folder()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def versioned(html: str) -> str:
    """The page with its static URLs (in attributes: ``="/static/...``) at this release's version."""
    return html.replace('="/static/', f'="/static/v-{static_version()}/')


class _CachedFiles(StaticFiles):
    """Static files sent with one ``Cache-Control`` (their ETag and ``304`` are Starlette's)."""

    def __init__(self, *, directory: Path, cache_control: str) -> None:
        super().__init__(directory=str(directory))
        self.cache_control = cache_control

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = self.cache_control
        return response


def static_apps() -> list[tuple[str, ASGIApp]]:
    """The mounts, most specific first: the versioned URLs (kept a year), then the plain ones."""
    folder = static_folder()
    return [
        (f"/static/v-{static_version()}",
         GZipMiddleware(_CachedFiles(directory=folder, cache_control=IMMUTABLE), minimum_size=GZIP_FROM)),
        ("/static", GZipMiddleware(_CachedFiles(directory=folder, cache_control=REVALIDATE), minimum_size=GZIP_FROM)),
    ]
