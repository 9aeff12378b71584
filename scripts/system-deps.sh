#!/usr/bin/env bash
# System packages the tests need (Debian): Chromium for the browser tests, PostgreSQL and Redis for
# the store and hub tests (scripts/services.sh starts throwaway servers of them on Unix sockets),
# nginx for the tests of two processes behind a proxy (tests/server/cluster.py runs its own, as a
# child). The packages' own services are not started: policy-rc.d says no while they are installed.
# Installs only what is missing, and only where it can (root with apt-get).
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
  need+=(postgresql)
fi
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || need+=(nginx)
# The table's reactions are emoji: Chromium draws them (in the browser tests' screenshots) from this font.
[ -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || need+=(fonts-noto-color-emoji)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "missing system packages: ${need[*]} (install them with apt-get as root)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
