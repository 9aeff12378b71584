"""Render nimmt's icon (nimmt/web/static/icons/icon.svg) to the PNGs the web app manifest and
the pages link to, and its maskable variant: the same card drawn smaller on the full-bleed blue, so
that whatever shape a phone cuts (a circle, a squircle, a rounded square: the central circle of 80%
of the width is all it keeps for sure) cuts nothing of the card. Run once after changing the SVG, and
commit the PNGs:

    .venv/bin/python scripts/make-icons.py

It draws the SVG in Chromium (Debian's package, as the browser tests do) through Playwright.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parents[1] / "nimmt" / "web" / "static" / "icons"
SIZES = {"icon-192.png": 192, "icon-512.png": 512, "apple-touch-icon.png": 180}
CHROMIUM = os.environ.get("NIMMT_CHROMIUM", "/usr/bin/chromium")
MASKABLE = {"icon-maskable-192.png": 192, "icon-maskable-512.png": 512}
CARD = '<g transform="rotate(-8 256 256)">'  # the card, drawn over the background
SMALLER = '<g transform="translate(256 256) scale(.8) translate(-256 -256) rotate(-8 256 256)">'


def maskable(svg: str) -> str:
    """The icon with its card inside the maskable safe zone, with room to spare."""
    if CARD not in svg:
        raise SystemExit(f"icon.svg no longer draws its card in {CARD!r}: change scripts/make-icons.py too")
    return svg.replace(CARD, SMALLER, 1)


def main() -> int:
    svg = (ICONS / "icon.svg").read_text(encoding="utf-8")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            drawings = [(name, size, svg) for name, size in SIZES.items()]
            drawings += [(name, size, maskable(svg)) for name, size in MASKABLE.items()]
            for name, size, drawn in drawings:
                page = browser.new_page(viewport={"width": size, "height": size}, device_scale_factor=1)
                page.set_content(
                    "<!doctype html><style>html, body { margin: 0; } "
                    f"svg {{ display: block; width: {size}px; height: {size}px; }}</style>{drawn}"
                )
                page.screenshot(path=str(ICONS / name), clip={"x": 0, "y": 0, "width": size, "height": size})
                page.close()
                print(f"{ICONS / name}: {size}×{size}")
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
