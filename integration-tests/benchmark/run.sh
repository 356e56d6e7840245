#!/usr/bin/env bash
# Runs the benchmark: builds the extension and the benchmark application, starts a redis-server 7.0
# on loopback (the binary shipped in org.signal:embedded-redis), measures, and writes the results
# (Markdown, CSV, SVG charts) into docs/modules/ROOT/assets/images/.
#
#   integration-tests/benchmark/run.sh                       # defaults: 3 s warm-up + 10 s per cell
#   integration-tests/benchmark/run.sh -Dbench.duration=5s   # any -Dbench.* property (see README.md)
#
# The HTTP suite drives the application with wrk; without it that suite is skipped (and says so).
# Install it with: apt-get install -y wrk   (Debian/Ubuntu)   or   brew install wrk   (macOS)
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v wrk >/dev/null 2>&1; then
  echo "wrk not found: the HTTP suite will be skipped. Install it with: apt-get install -y wrk" >&2
fi
# a relative bench.output is from the repository root (Maven would run the benchmark in its module)
args=()
for a in "$@"; do
  if [[ $a == -Dbench.output=* && ${a#-Dbench.output=} != /* ]]; then
    a="-Dbench.output=$PWD/${a#-Dbench.output=}"
  fi
  args+=("$a")
done
exec ./mvnw -B -Pbench -pl integration-tests/benchmark -am verify -DskipTests "${args[@]}"
