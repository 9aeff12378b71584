"""The multiplayer table in the browser: ASGI app, table service, storage and delivery.

Where things are (``docs/web.md``, *How the server is built*, says more):

- :mod:`.app`: ``create_app``, which keeps the store, hub and table service on ``app.state`` and
  includes the routers of ``ROUTERS``; :mod:`.routes`: one ``APIRouter`` per area (``health``,
  ``lobby``, ``records``, ``scoresheet``, ``pages``, ``socket``) and what they share (``common``);
- :mod:`.tables`: ``TableState`` (the pure fold of a table's journal), ``Table`` (that state at
  run time: lock, tasks, presence, caches), ``TableService`` (loads, writes, and settles a table
  after each write) and its parts: ``bots``, ``coach``, ``presence``, ``memory``; ``events``
  (the core's events with their wire names) and ``errors`` (refusals and their codes);
- :mod:`.journal` (the entries), :mod:`.store` (``Store``; ``SqliteStore`` and ``PostgresStore``),
  :mod:`.migrations`, :mod:`.hub` (delivery between processes), :mod:`.connection` (one WebSocket),
  :mod:`.render` and :mod:`.patch` (a person's state), :mod:`.models` (shapes at the edges),
  :mod:`.limits`, :mod:`.metrics`, :mod:`.botpool` (worker processes for bots and the coach),
  :mod:`.pages` (HTML), :mod:`.replay` (a record turn by turn), :mod:`.checker` (uploaded records,
  checked in a worker), :mod:`.guard` (request heads bounded in uvicorn), :mod:`.public` (the
  lobby's public tables), :mod:`.reactions` (emotes and their limit), :mod:`.people_games`
  (finished games handed to the people part).
"""
