"""``nimmt serve``: the web table, on an embedded SQLite database (or PostgreSQL, and Redis)."""

from __future__ import annotations

import os
import re
import socket
import sys
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

import typer

from nimmt.server.addresses import is_loopback
from nimmt.server.limits import Limits

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI

    from nimmt.server.hub import Hub
    from nimmt.server.store import SqlStore

DEFAULT_LIMITS = Limits()
# The line that says the server listens: people read it, and so do programs that start a server.
_READY = re.compile(r"nimmt is ready: open (http://\S+)/ in your browser")


def ready_url(output: IO[str], deadline: float) -> str:
    """The address a ``nimmt serve`` started as a child process says it listens at, read from its
    ``output`` up to that line; "" if the output ends, or ``time.monotonic()`` passes ``deadline``, first."""
    while time.monotonic() < deadline:
        line = output.readline()
        if not line:
            break
        found = _READY.search(line)
        if found:
            return found.group(1)
    return ""

def default_database() -> Path:
    """``$XDG_DATA_HOME/nimmt/nimmt.sqlite3`` (or ``~/.local/share/...``), else ``./nimmt.sqlite3``."""
    base = os.environ.get("XDG_DATA_HOME") or (Path.home() / ".local" / "share")
    folder = Path(base) / "nimmt"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-test"
        probe.touch()
        probe.unlink()
        return folder / "nimmt.sqlite3"
    except OSError:
        return Path("nimmt.sqlite3").resolve()


def serve(
    host: Annotated[
        str, typer.Option(help="Address to listen on (0.0.0.0: every device on your network).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port).")] = 8000,
    db: Annotated[
        str | None, typer.Option("--db", help="SQLite file for tables and games, or a database URL: "
                                 "postgresql+asyncpg://user:password@host/database.")
    ] = None,
    hub: Annotated[
        str | None, typer.Option("--hub", help="Redis URL (redis://host:6379/0) to carry table updates between "
                                 "server processes; by default they stay in this process.")
    ] = None,
    bot_delay: Annotated[
        float, typer.Option(min=0.0, max=10.0, help="Seconds a bot waits before it plays.")
    ] = 0.8,
    away_grace: Annotated[
        float, typer.Option(min=0.0, max=3600.0, help="Seconds a player must be away before anyone at the table "
                            "may let a bot play their seat.")
    ] = 30.0,
    seed: Annotated[
        int | None, typer.Option(help="Deal and let bots play from this seed (for demos and tests).", hidden=True)
    ] = None,
    limit_tables: Annotated[
        int, typer.Option(min=0, help="Tables one address may create per minute (0: no limit).")
    ] = DEFAULT_LIMITS.tables_per_minute,
    limit_joins: Annotated[
        int, typer.Option(min=0, help="Tables one address may join per minute (0: no limit).")
    ] = DEFAULT_LIMITS.joins_per_minute,
    limit_sockets: Annotated[
        int, typer.Option(min=0, help="WebSockets one address may open per minute (0: no limit).")
    ] = DEFAULT_LIMITS.sockets_per_minute,
    limit_messages: Annotated[
        int, typer.Option(min=0, help="WebSocket messages one address may send per minute (0: no limit).")
    ] = DEFAULT_LIMITS.messages_per_minute,
    limit_connections: Annotated[
        int, typer.Option(min=0, help="Connections one address may hold open at once (0: no limit).")
    ] = DEFAULT_LIMITS.connections,
    limit_replays: Annotated[
        int, typer.Option(min=0, help="Records one address may post to be checked and replayed per minute "
                          "(0: no limit).")
    ] = DEFAULT_LIMITS.replays_per_minute,
    people_quotas: Annotated[
        bool, typer.Option("--people-quotas/--no-people-quotas", help="Hold what one key or address may make "
                           "(players, groups, codes, sheets, chat: counted in the database, docs/deploy/README.md, "
                           "Limits); off only for load tests from one address.")
    ] = True,
    bot_workers: Annotated[
        int | None, typer.Option(min=1, max=256, help="Processes in which bots and the coach think "
                                 "(default: the cores but one, at least one).")
    ] = None,
    bot_budget: Annotated[
        float, typer.Option(min=0.05, max=60.0, help="Most seconds a bot may think about one decision.")
    ] = 2.0,
    idle_minutes: Annotated[
        float, typer.Option(min=0.0, help="Minutes after which a table nobody is connected to, whose bots have "
                            "nothing to do, leaves memory (it comes back from the database when asked for; "
                            "0: never).")
    ] = 10.0,
    log_json: Annotated[
        bool, typer.Option("--log-json", help="Write the log as JSON lines on stderr (one line per record).")
    ] = False,
    ws_compression: Annotated[
        bool, typer.Option("--ws-compression/--no-ws-compression",
                           help="Offer WebSocket compression (permessage-deflate): fewer bytes for a first "
                                "state, more server CPU and memory for every message (off by default).")
    ] = False,
    public_url: Annotated[
        str | None, typer.Option("--public-url", envvar="NIMMT_PUBLIC_URL",
                                 help="The address people open (https://nimmt.example.org, or behind a proxy): "
                                      "invite links and QR codes are made of it.")
    ] = None,
) -> None:
    """Start the web table: create a table in the browser and share the invite link."""
    try:
        import uvicorn

        from nimmt.server.app import create_app
    except ImportError as error:  # the web extra is not installed
        typer.echo(f"nimmt serve needs the web extra: pip install 'nimmt[web]' ({error.name} is missing)", err=True)
        raise typer.Exit(2) from None
    public = _public_url(public_url)
    store, kept_in = _store(db)
    the_hub = _hub(hub)
    _check(store, the_hub, kept_in)
    listener = _listen(host, port)
    _warn_of_few_open_files()
    bound = listener.getsockname()[1]
    network = network_address() if _all_interfaces(host) else None
    _say_ready(host, bound, kept_in, public, network)
    app = create_app(store=store, hub=the_hub, bot_delay=bot_delay, seed=seed, limits=Limits(
        tables_per_minute=limit_tables, joins_per_minute=limit_joins, sockets_per_minute=limit_sockets,
        messages_per_minute=limit_messages, connections=limit_connections, replays_per_minute=limit_replays),
        away_grace=away_grace, quotas=None if people_quotas else (),
        bot_workers=bot_workers, bot_budget=bot_budget, idle_after=idle_minutes * 60 or None,
        public_url=public, network_url=_url(network, bound) if network else None)
    server = uvicorn.Server(_uvicorn_config(app, log_json, ws_compression))
    collect_garbage_for_a_server()
    # The store's writer thread (SQLite) needs the GIL back after every call into the database;
    # with CPython's 5 ms switch interval it waited that long each time while the event loop was
    # busy, and a group of actions waited for many such turns (docs/web.md, "What runs it").
    sys.setswitchinterval(SWITCH_INTERVAL)
    server.run(sockets=[listener])


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket (bound before uvicorn starts, so that port 0 can be told as the port it got)."""
    try:
        listener = socket.create_server((host, port), reuse_port=False)
        # A socket made this way says protocol 0, and asyncio sets TCP_NODELAY only on TCP's own: without
        # it every second write (an HTTP body after its headers, two messages in a row) waited ~40 ms
        # for the client's delayed ACK.
        return socket.socket(listener.family, listener.type, socket.IPPROTO_TCP, fileno=listener.detach())
    except OSError as error:
        typer.echo(f"cannot listen on {host}:{port}: {error.strerror or error}", err=True)
        raise typer.Exit(2) from None


def _warn_of_few_open_files() -> None:
    open_files = _raise_open_files_limit()
    if open_files < FEW_OPEN_FILES:
        typer.echo(f"this process may open at most {open_files} files (ulimit -n): every person's connection "
                   f"is one, so it holds fewer than {open_files} people at once; raise the hard limit "
                   "(LimitNOFILE= in a systemd unit) to serve more", err=True)


def _all_interfaces(host: str) -> bool:
    return host in ("0.0.0.0", "::", "")


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _public_url(given: str | None) -> str | None:
    """``--public-url`` checked: http(s), a host, nothing after the path (exit 2 otherwise)."""
    if not given:
        return None
    parts = urlsplit(given.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        typer.echo(f"--public-url {given}: give the address people open, such as https://nimmt.example.org "
                   "(http or https, a host, no ? or #)", err=True)
        raise typer.Exit(2)
    return f"{parts.scheme}://{parts.netloc}{parts.path}".rstrip("/")


def network_address() -> str | None:
    """This machine's address on its network (the one its default route leaves from), or None
    when it has none but loopback. A UDP socket's connect sends nothing: it only picks the route."""
    for probe, family in (("192.0.2.1", socket.AF_INET), ("2001:db8::1", socket.AF_INET6)):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                address = str(udp.getsockname()[0])
        except OSError:
            continue
        if address and not is_loopback(address) and address not in ("0.0.0.0", "::"):
            return address
    return None


def _say_ready(host: str, port: int, kept_in: str, public: str | None = None, network: str | None = None) -> None:
    """The lines a host reads, the first of them the one :func:`ready_url` looks for; then where
    other devices (the phones at the table) go, or how to let them in."""
    everywhere = _all_interfaces(host)
    shown = "127.0.0.1" if everywhere else host
    typer.echo(f"nimmt is ready: open {_url(shown, port)}/ in your browser")
    if everywhere and network:
        typer.echo(f"other devices on your network (the phones at the table): open {_url(network, port)}/")
    elif everywhere:
        typer.echo("other devices cannot reach it: this machine has no network address but its own (loopback)")
    elif is_loopback(host):
        typer.echo("other devices cannot open it (only this computer can): to let the phones on your network in, "
                   "start it with --host 0.0.0.0 (make serve ARGS='--host 0.0.0.0')")
    if public:
        typer.echo(f"other devices: invite links and QR codes use {public}/")
    typer.echo(f"games are kept in {kept_in}; press Ctrl+C to stop")
    sys.stdout.flush()


def _uvicorn_config(app: FastAPI, log_json: bool, ws_compression: bool) -> uvicorn.Config:
    import uvicorn

    from nimmt.server.guard import MOST_HEAD_BYTES, guarded_http

    logging_options: dict[str, Any] = {"log_level": "warning"}
    if log_json:
        from nimmt.server.metrics import json_log_config

        logging_options = {"log_config": json_log_config("INFO"), "log_level": "info", "access_log": False}
    return uvicorn.Config(
        app,
        **logging_options,
        # Heads bounded in size and time, and counted against the per-address cap while they come
        # (nimmt/server/guard.py; docs/web.md, "Limits").
        http=guarded_http(app.state.limits),
        h11_max_incomplete_event_size=MOST_HEAD_BYTES,  # the same bound if uvicorn is ever run on h11
        timeout_keep_alive=5,  # an idle kept-alive connection closes after 5 s (nginx keeps its own 4 s)
        ws_max_size=64 * 1024,
        # Off by default: updates are small patches, and each socket's compressor costs CPU on every
        # message and ~40 KB of memory (docs/web.md, "Performance").
        ws_per_message_deflate=ws_compression,
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )


# Seconds a thread holding the GIL runs before another thread that wants it gets it (CPython: 0.005).
SWITCH_INTERVAL = 0.0005

# Below this many open files a host is told (a public site holds a socket per person, and more).
FEW_OPEN_FILES = 4096


def _raise_open_files_limit() -> int:
    """Every person's WebSocket is an open file: the soft limit goes up to the hard one (a service
    manager's soft default, often 1,024, would refuse people long before the CPU is busy).
    Returns the limit now in force."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            return soft  # not allowed here: keep what we have
        return wanted
    return soft


# Young collections every this many new container objects (CPython's default: 700), and a full one
# after this many of those (default 10 and 10).
GC_THRESHOLDS = (50_000, 20, 10)


def collect_garbage_for_a_server() -> None:
    """A long-running server keeps many objects (every table, state and connection): CPython's
    default thresholds ran a full collection every few seconds under load, each pausing the event
    loop for 100 ms or more (every action waiting then), and spent about a tenth of the CPU in the
    collector (docs/web.md, "What runs it"). The objects made while starting (modules, the app) are
    frozen out of every collection, and collections run less often; reference cycles are still
    collected. ``benchmarks/load.py`` calls it too, for the same reasons."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _store(db: str | None) -> tuple[SqlStore, str]:
    """The store for ``--db`` (a file, or a URL) and how to name it to the host."""
    from nimmt.server.store import SqlStore

    if db is not None and "://" in db:
        try:
            store = SqlStore(db)
        except Exception as error:  # a URL SQLAlchemy cannot use: unknown scheme, missing driver...
            typer.echo(f"--db: cannot use {db.split('://')[0]}:// URLs ({error}); give a file or "
                       "postgresql+asyncpg://user:password@host/database", err=True)
            raise typer.Exit(2) from None
        return store, store.shown_url
    database = (Path(db) if db else default_database()).expanduser().resolve()
    if database.exists() and database.is_dir():
        typer.echo(f"--db {database} is a folder; give a file name", err=True)
        raise typer.Exit(2)
    try:
        database.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        typer.echo(f"cannot create the folder for {database}: {error.strerror}", err=True)
        raise typer.Exit(2) from None
    return SqlStore.sqlite(database), str(database)


def _hub(url: str | None) -> Hub:
    """The hub for ``--hub``: Redis, or (without it) this process alone."""
    from nimmt.server.hub import LocalHub, RedisHub

    if url is None:
        return LocalHub()
    if not url.startswith(("redis://", "rediss://", "unix://")):
        typer.echo(f"--hub {url}: give a Redis URL, redis://host:6379/0", err=True)
        raise typer.Exit(2)
    return RedisHub(url)


def _check(store: SqlStore, hub: Hub, kept_in: str) -> None:
    """Reach the database (bringing its schema up to date) and Redis before saying "ready", so that a
    wrong URL or a server that is down is one clear line, not a traceback."""
    import asyncio

    async def reach() -> str | None:
        try:
            await store.start()
        except Exception as error:
            return f"cannot use the database {kept_in}: {error}"
        finally:
            await store.close()
        try:
            await hub.start()
        except Exception as error:
            return f"cannot reach Redis at {getattr(hub, 'shown_url', '?')}: {error}"
        finally:
            await hub.close()
        return None

    problem = asyncio.run(reach())
    if problem is not None:
        typer.echo(problem, err=True)
        raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
