"""Alembic's environment for nimmt: migrations run on the connection :func:`upgrade` gives."""

from __future__ import annotations

from alembic import context


def _run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("nimmt's migrations run through nimmt.server.migrations.upgrade(connection)")
    context.configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


if hasattr(context, "config"):  # run by Alembic (a test collector importing this file only looks)
    _run()
