"""The app's routes, one :class:`fastapi.APIRouter` per area (each module's ``router``), put
together by :func:`nimmt.server.app.create_app` (its ``ROUTERS``). What they share, the service and
the store (from ``app.state``) and the refusals, is in :mod:`.common`."""
