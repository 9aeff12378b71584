"""The table's WebSocket, ``/ws/{table_id}``: one :class:`~nimmt.server.connection.Connection`
per socket (the messages are described in ``docs/protocol.md``)."""

from __future__ import annotations

import contextlib

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ..connection import Connection
from ..limits import ClientLimits, client_key
from ..metrics import Metrics
from ..tables import ActionError
from .common import find_table, service_of

router = APIRouter()


@router.websocket("/ws/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str) -> None:
    await websocket.accept()
    service = service_of(websocket)
    table = await find_table(service, table_id)
    if table is None:
        with contextlib.suppress(WebSocketDisconnect):  # the client may be gone already
            await websocket.send_json(ActionError("unknown_table", f"there is no table {table_id!r}",
                                                  table=table_id).to_message())
            await websocket.close(code=4404)
        return
    state = websocket.app.state
    metrics: Metrics = state.metrics
    limits: ClientLimits = state.limits
    connection = Connection(websocket, service, state.hub, table)
    connection.client = client_key(websocket.scope)
    connection.message_wait = limits.message
    connection.metrics = metrics
    service.socket_opened(table)  # the table stays in memory while a connection is open
    metrics.connections.inc()
    try:
        await connection.run()
    finally:
        metrics.connections.dec()
        service.socket_closed(table)
