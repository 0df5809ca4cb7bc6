#!/usr/bin/env bash
# Installs what `make test` needs on a fresh Debian machine. Idempotent; fast when all is present.
set -euo pipefail
echo "deps: nothing to install yet"
