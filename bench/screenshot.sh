#!/usr/bin/env bash
# Headless Chromium screenshots of the simulator reports, checked in under docs/benchmarks/.
#   bench/screenshot.sh            (needs `chromium`: apt-get install -y chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
shot() { # html png width height
  local profile
  profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars \
    --window-size="$3,$4" --screenshot="$PWD/$2" "file://$PWD/$1" 2>/dev/null
  rm -rf "$profile"
  echo "wrote $2"
}
shot docs/benchmarks/openb-default.html docs/benchmarks/openb-default.png 1300 2750
shot docs/benchmarks/fleet-rate60/fleet.html docs/benchmarks/fleet-rate60/fleet.png 1300 2200
