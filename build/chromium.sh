#!/usr/bin/env bash
# Installs Debian's chromium package when no chromium is on the PATH: the
# explorer's end-to-end tests drive it headless with playwright-core
# (docs/explorer.md, "Tests"). CHAINHOST_CHROMIUM names another binary.
set -euo pipefail
if [ -n "${CHAINHOST_CHROMIUM:-}" ] || command -v chromium >/dev/null; then
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "the explorer's tests need Chromium: install it (Debian's chromium package), or name its binary in CHAINHOST_CHROMIUM" >&2
	exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
	sudo="sudo"
fi
echo "installing Debian's chromium package for the explorer's tests"
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; then
	$sudo apt-get update
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
fi
