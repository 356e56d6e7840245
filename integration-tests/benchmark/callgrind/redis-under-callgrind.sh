# Sourced by run.sh and batch.sh: starts redis-server under callgrind on 127.0.0.1:$port, writing to $work, and waits
# until it accepts connections. Sets $pid; on exit the server is stopped and $work removed (kept when CALLGRIND_KEEP
# is set). redis-server: $REDIS_SERVER, else the 7.0.15 binary of org.signal:embedded-redis in the local Maven
# repository ($MAVEN_REPO, else ~/.m2/repository).
redis=${REDIS_SERVER:-}
if [[ -z $redis ]]; then
  redis=$work/redis-server
  unzip -p "${MAVEN_REPO:-$HOME/.m2/repository}/org/signal/embedded-redis/0.9.1/embedded-redis-0.9.1.jar" \
    redis-server-7.0.15-linux-amd64 >"$redis"
  chmod +x "$redis"
fi
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/out.%p" \
  "$redis" --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; [[ -n ${CALLGRIND_KEEP:-} ]] || rm -rf "$work"' EXIT
for _ in $(seq 300); do
  if (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; then break; fi
  sleep 0.1
done
