"""Reading QR codes in tests: ``decode_qr`` on a PNG (a browser's screenshot, or a rendered image)."""

from __future__ import annotations

import io

import zxingcpp
from PIL import Image


def decode_qr(png_bytes: bytes) -> list[str]:
    """The text of every QR code found in the PNG image ``png_bytes``, in the order zxing-cpp finds them
    (an empty list when there is none or none can be read)."""
    with Image.open(io.BytesIO(png_bytes)) as image:
        found = zxingcpp.read_barcodes(image.convert("RGB"))
    return [result.text for result in found if result.valid and result.format == zxingcpp.BarcodeFormat.QRCode]
