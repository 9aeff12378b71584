"""A local push endpoint for the notices' tests (docs/push.md): a loopback HTTP server that takes
what nimmt sends as a browser's push service would, and a device's key pair (what a browser makes
when it subscribes) that decrypts it. Nothing of nimmt's is replaced: the tests only stand where the
push service and the browser stand."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class Device:
    """A browser's side of a subscription: its P-256 key pair and its authentication secret."""

    def __init__(self) -> None:
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    @property
    def p256dh(self) -> str:
        return b64(self.private.public_key().public_bytes(serialization.Encoding.X962,
                                                          serialization.PublicFormat.UncompressedPoint))

    def subscription(self, endpoint: str) -> dict[str, Any]:
        return {"endpoint": endpoint, "keys": {"p256dh": self.p256dh, "auth": b64(self.auth)}}

    def read(self, received: Received) -> dict[str, Any]:
        """The notice, decrypted as the browser would (RFC 8291, aes128gcm)."""
        assert received.headers.get("content-encoding") == "aes128gcm"
        plain = http_ece.decrypt(received.body, private_key=self.private, auth_secret=self.auth, version="aes128gcm")
        data: dict[str, Any] = json.loads(plain.decode("utf-8"))
        return data


def check_vapid(received: Received, site_key: str) -> dict[str, Any]:
    """The request's VAPID header (RFC 8292): signed by the site's key, for this endpoint's origin;
    its claims."""
    scheme, _, params = received.headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert fields["k"] == site_key
    head, claims, signature = fields["t"].split(".")
    raw = unb64(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(site_key))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{claims}".encode("ascii"), ec.ECDSA(hashes.SHA256()))  # raises if forged
    data: dict[str, Any] = json.loads(unb64(claims))
    return data


@dataclass
class Endpoint:
    """The local push service: what it received, and what it answers per path (201 by default)."""

    url: str = ""
    received: list[Received] = field(default_factory=list)
    status: dict[str, int] = field(default_factory=dict)  # path -> status
    hold: dict[str, threading.Event] = field(default_factory=dict)  # path -> answered only once set
    held: list[str] = field(default_factory=list)  # paths whose request is being held now
    lock: threading.Lock = field(default_factory=threading.Lock)

    def at(self, path: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path == path]

    def wait(self, path: str, count: int = 1, within: float = 60.0) -> list[Received]:
        """The requests to ``path`` once there are ``count`` (fails after ``within`` seconds)."""
        deadline = time.monotonic() + within
        while len(got := self.at(path)) < count:
            assert time.monotonic() < deadline, f"{path}: {len(got)} notices, not {count}"
            time.sleep(0.05)
        return got


@contextmanager
def push_endpoint() -> Iterator[Endpoint]:
    endpoint = Endpoint()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            gate = endpoint.hold.get(self.path)
            if gate is not None:
                with endpoint.lock:
                    endpoint.held.append(self.path)
                gate.wait(60)
            with endpoint.lock:
                endpoint.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            status = endpoint.status.get(self.path, 201)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    endpoint.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        for gate in endpoint.hold.values():
            gate.set()
        server.shutdown()
        server.server_close()
