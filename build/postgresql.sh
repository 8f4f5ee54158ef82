#!/usr/bin/env bash
# Installs PostgreSQL's server binaries (Debian's postgresql package) when
# /usr/lib/postgresql/<major>/bin holds none: the data API's PostgreSQL
# tests start throwaway clusters with them (docs/data-api.md, "Scaling
# out"). No cluster is created or started: the tests make their own.
set -euo pipefail
if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "the data API's PostgreSQL tests need PostgreSQL's server binaries (initdb, postgres): install them" \
		"(Debian's postgresql package puts them in /usr/lib/postgresql/<major>/bin; CHAINHOST_PG_BIN names another directory)" >&2
	exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
	sudo="sudo"
fi
echo "installing Debian's postgresql package for the data API's PostgreSQL tests"
# The package would make and start a cluster of its own: the tests need none.
$sudo mkdir -p /etc/postgresql-common
if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
	echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.conf >/dev/null
fi
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql; then
	$sudo apt-get update
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql
fi
