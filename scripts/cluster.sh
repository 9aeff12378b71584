#!/usr/bin/env bash
# The documented deployment on this machine, by hand: PostgreSQL and Redis of its own, two (or
# --processes N) nimmt serve processes on loopback ports, and nginx in front running
# docs/deploy/nginx-two.conf (ports replaced), as tests/server/cluster.py starts it for the fault
# tests. Ctrl+C stops everything and removes its temporary folder.
#
#   bash scripts/cluster.sh [--processes N] [--bot-delay SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m tests.server.cluster "$@"
