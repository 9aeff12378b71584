"""The ``nimmt`` command. Each module here that defines ``register(app)`` adds its commands."""
