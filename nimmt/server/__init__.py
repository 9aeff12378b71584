"""The multiplayer table in the browser: ASGI app, table service, storage and delivery.

Layers: :mod:`.models` (pydantic shapes at the edges), :mod:`.store` (the storage interface and
its SQLAlchemy implementation), :mod:`.hub` (delivery of updates), :mod:`.table` (the one owner of
each table's state, on top of the rules core), :mod:`.app` (HTTP, WebSocket and pages).
"""
