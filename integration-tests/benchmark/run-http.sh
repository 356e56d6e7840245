#!/usr/bin/env bash
# The HTTP suite in two layouts, against one redis-server this script starts (persistence off):
#
#   pinned  Redis on CPU 0 (taskset -c 0), the application and wrk on CPU 1 (taskset -c 1, the JVM
#           told it has one processor, wrk with one thread): the limiter's cost to the application,
#           with Redis' CPU no longer taken from it
#   shared  Redis, the application and wrk on every core, as a full run has them
#
#   integration-tests/benchmark/run-http.sh                            # both layouts, 3 s warm-up + 10 s per run
#   integration-tests/benchmark/run-http.sh pinned -Dbench.duration=5s # one layout, any -Dbench.* property
#
# Each layout writes benchmark-results.md into $BENCH_OUTPUT/<layout> (default
# integration-tests/benchmark/target/benchmark/http). Runs $BENCH_JAR (default the module's
# target/quarkus-app/quarkus-run.jar; a copy of another build's quarkus-app compares builds), and
# builds the benchmark first unless it is built;
# needs wrk and Linux (taskset, /proc). redis-server: $REDIS_SERVER, else the one on the PATH, else the
# 7.0.15 binary of org.signal:embedded-redis in the local Maven repository. The pinned layout needs
# two CPUs: APP_CPU (default 1) and REDIS_CPU (default 0).
set -euo pipefail
cd "$(dirname "$0")/../.."
layouts=(pinned shared)
if [[ $# -gt 0 && ( $1 == pinned || $1 == shared ) ]]; then
  layouts=("$1")
  shift
fi
jar=${BENCH_JAR:-integration-tests/benchmark/target/quarkus-app/quarkus-run.jar}
if [[ ! -f $jar ]]; then
  ./mvnw -B -Pbench -pl integration-tests/benchmark -am verify -DskipTests -Dbench.skip=true
fi
command -v wrk >/dev/null || { echo "wrk not found: apt-get install -y wrk" >&2; exit 1; }
redis=${REDIS_SERVER:-$(command -v redis-server || true)}
if [[ -z $redis ]]; then
  redis=$(mktemp -d)/redis-server
  unzip -p "$HOME/.m2/repository/org/signal/embedded-redis/0.9.1/embedded-redis-0.9.1.jar" \
    redis-server-7.0.15-linux-amd64 >"$redis"
  chmod +x "$redis"
fi
port=${BENCH_REDIS_PORT:-6399}
out=${BENCH_OUTPUT:-integration-tests/benchmark/target/benchmark/http}
app_cpu=${APP_CPU:-1}
redis_cpu=${REDIS_CPU:-0}
all_cpus=0-$(($(nproc --all) - 1))

dir=$(mktemp -d)
"$redis" --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --daemonize no \
  >"$dir/redis.log" 2>&1 &
redis_pid=$!
# waited for, so that the next run finds the port free
trap 'kill "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  if (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; then break; fi
  kill -0 "$redis_pid" 2>/dev/null || { cat "$dir/redis.log" >&2; exit 1; }
  sleep 0.1
done

for layout in "${layouts[@]}"; do
  if [[ $layout == pinned ]]; then
    taskset -p -c "$redis_cpu" "$redis_pid" >/dev/null
    pin=(taskset -c "$app_cpu")
    jvm=(-XX:ActiveProcessorCount=1)
  else
    taskset -p -c "$all_cpus" "$redis_pid" >/dev/null
    pin=()
    jvm=()
  fi
  "${pin[@]}" java -Xms1g -Xmx1g "${jvm[@]}" -Dbench.suites=http -Dbench.http.layout="$layout" \
    -Dbench.redis.url=redis://127.0.0.1:"$port" -Dbench.output="$out/$layout" "$@" -jar "$jar"
done
