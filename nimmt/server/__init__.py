"""The multiplayer table in the browser: the ASGI app, the tables, their storage and delivery, and
the people part's routes.

Where things are (``docs/web.md``, *How the server is built*, says more;
``tests/server/test_server_map.py`` holds this list to the code):

- Composition: :mod:`.app`: ``create_app`` keeps the store, the hub, the metrics, the limits and the
  record checker on ``app.state`` and includes the routers of ``ROUTERS``; its lifespan makes, by
  their constructors, the people store, the lobby's listing, the table service (given its first
  listeners, the listing and the people part's keeper of finished games, and the keeper of abandoned
  ones), quick start, the notices and where people sit (which subscribe to the tables' changes), the
  clock scan and quick match's turns.
- Routes, one ``APIRouter`` per area in :mod:`.routes`, in the order of ``ROUTERS``: ``health``,
  ``lobby``, ``public``, ``records``, ``review``, ``scoresheet``, ``pages``, ``socket``, ``people``,
  ``groups``, ``standing``, ``chat``, ``people_pages``, ``push``, ``playing``; and what they share:
  ``common`` (the app's parts, the refusals) and ``quotas`` (what one key or address may make).
- The tables: :mod:`.tables` (``TableState``, the fold of a table's journal; ``Table``, that state
  at run time; the commands a table takes and ``TableHost``, each table's one writer and its write
  path; ``TableChanged``, the one event a table emits; ``TableService``, which holds the tables and
  composes its parts, the bots, the coach, presence, memory, the clocks and the reviews; the events
  on the wire and the refusals).
  :mod:`.connection` (one WebSocket), :mod:`.render` and :mod:`.patch` (a person's state, whole or
  as a patch), :mod:`.reactions` (emotes and their limit).
- The lobby: :mod:`.public` (the public tables the lobby lists), :mod:`.clocked` (timed tables whose
  clock runs), :mod:`.listing` (the listener that writes both rows as the tables change),
  :mod:`.quickstart` (quick-match tables that start by themselves), :mod:`.matching` (quick match's
  turns).
- Storage and delivery: :mod:`.journal` (a table's entries), :mod:`.store` (``Store``, ``SqlStore``
  on SQLite or PostgreSQL, and ``Database``, the one owner of the database's engines and connection
  settings, handed to the lobby's rows and the people store too), :mod:`.migrations` (the schema),
  :mod:`.hub` (news and presence between processes).
- Bots, reviews and records: :mod:`.botpool` (worker processes for the bots, the coach and reviews),
  :mod:`.review_jobs` (a review's jobs in those workers), :mod:`.uploads` (reviews of uploaded
  records), :mod:`.checker` (uploaded records, checked in a worker), :mod:`.replay` (a record turn
  by turn), :mod:`.people_games` (finished games handed to the people part), :mod:`.seated` (where
  each person sits: their games in progress).
- The edges: :mod:`.models` (shapes checked by pydantic), :mod:`.pages` (HTML shells),
  :mod:`.static` (the static files), :mod:`.addresses` (which addresses others can open),
  :mod:`.limits` (one client's limits), :mod:`.guard` (request heads bounded in uvicorn),
  :mod:`.metrics` (Prometheus and the JSON logs), :mod:`.push` (notices by Web Push: docs/push.md).
"""
