#!/usr/bin/env bash
set -euo pipefail
./bin/pmc --help
