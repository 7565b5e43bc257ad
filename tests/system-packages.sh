#!/bin/sh
# Installs with apt what the test suite needs from the system and is missing, and does
# nothing when it is all there:
#   python3-venv  for `python3 -m venv` (Debian's Python lacks ensurepip without it);
#   chromium      the browser tests (tests/e2e) drive it and never download one; skipped
#                 when $BASRA_CHROMIUM names a Chromium that exists;
#   postgresql    the storage tests also run on a throwaway PostgreSQL server that the
#                 test session starts (tests/conftest.py);
#   redis-server, nginx
#                 the tests of many servers (tests/web/test_cluster.py) start their own
#                 Redis and nginx balancer on loopback ports (tests/support/services.py);
#   prometheus    tests/web/test_operations.py starts it with deploy/prometheus and checks
#                 that it scrapes a server's --metrics-port;
#   libicu-dev, pkg-config, g++, python3-dev
#                 PyICU (the confusable skeletons of account names) builds against the
#                 system's ICU when pip installs the package.
# With `app`, only what installing and serving the app needs (python3-venv and PyICU's).
# Uses sudo when not root. Usage: sh tests/system-packages.sh [app]
set -eu

missing=""
python3 -c "import ensurepip" 2>/dev/null || missing="$missing python3-venv"
pkg-config --exists icu-uc 2>/dev/null || missing="$missing libicu-dev pkg-config"
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
python3 -c "import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" \
  || missing="$missing python3-dev"
if [ "${1:-}" != "app" ]; then
  [ -x "${BASRA_CHROMIUM:-/usr/bin/chromium}" ] || missing="$missing chromium"
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
  command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
  command -v prometheus >/dev/null 2>&1 || missing="$missing prometheus"
fi
[ -n "$missing" ] || exit 0

sudo=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
if ! command -v apt-get >/dev/null 2>&1 || { [ "$(id -u)" -ne 0 ] && [ -z "$sudo" ]; }; then
  echo "tests/system-packages.sh: cannot install$missing here (needs apt-get, and root or sudo): install them by hand" >&2
  exit 1
fi

echo "Installing$missing with apt-get"
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
