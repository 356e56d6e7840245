#!/usr/bin/env bash
# Instructions Redis spends per decision of a compact batch run (see batch.lua: one policy, one entry per key, Redis
# TIME, every call charged), counted by valgrind's callgrind: each named algorithm's batch script at two git revisions,
# and the floor the benchmark's targets are set against (floor: batch GET/SET, the benchmark's
# src/main/resources/floors/get-set-batch.lua: TIME once per run, GET and SET ... PX 1000 per key), alternated over
# rounds. Each run names `entries` different keys of 10,000, visited in turn, so a key is touched once per run, as
# on the benchmark's uniform key set. Before each counted pass the keys are emptied and every one is decided once by
# the same side, uncounted: the counted decisions find the key holding that side's own state, as in steady state.
# Instruction counts do not depend on the machine's load, so `a vs b` (before vs after) and `ours vs floor` are both
# read from one run on a busy host.
#
#   integration-tests/benchmark/callgrind/batch.sh <rev-a> <rev-b> [algorithms] [fcall|eval] [entries per run]
#       [decisions per round] [rounds]
#   integration-tests/benchmark/callgrind/batch.sh main HEAD token-bucket,fixed-window,sliding-window-counter fcall 32 20000 3
#
# fcall loads each revision's batch script as a library of one function holding every algorithm (FunctionLibrary.of,
# what the extension sends on Redis 7); eval runs the batch script of the one algorithm (batch/<algorithm>) with
# EVALSHA. The floor always runs with EVALSHA, as the benchmark sends it. Policies: the benchmark's, 1,000,000 per
# window (burst = limit), cost 1: every decision an admission that writes; the window is the benchmark's 1 s for the
# buckets, 100 s for the window algorithms and the floor's TTL (see drive-batch.py: valgrind slows Redis down, and
# their keys must still live from one visit to the next, as in the benchmark).
# Needs valgrind (apt-get install -y valgrind) and python3; redis-server: $REDIS_SERVER, else the 7.0.15 binary of
# org.signal:embedded-redis in the local Maven repository ($MAVEN_REPO, else ~/.m2/repository).
set -euo pipefail
cd "$(dirname "$0")/../../.."
a=${1:?first revision}; b=${2:?second revision}; algorithms=${3:-token-bucket,fixed-window,sliding-window-counter}
mode=${4:-fcall}; entries=${5:-32}; n=${6:-20000}; rounds=${7:-3}
port=${CALLGRIND_REDIS_PORT:-6403}
work=$(mktemp -d)
[[ -z ${CALLGRIND_KEEP:-} ]] || echo "work directory (kept): $work"
lua=runtime/src/main/resources/dev/ratelimit/lua
floor=integration-tests/benchmark/src/main/resources/floors/get-set-batch.lua
# the order LuaScripts.compose gives a batch script: prelude, kv-batch, the shared algorithm files, each algorithm's
# own (Algorithm.values() order), decide, batch
every=(bucket.lua fixed-window.lua sliding-window-log.lua sliding-window-counter.lua token-bucket.lua leaky-bucket.lua
  gcra.lua concurrency.lua)
own() {
  case $1 in
    token-bucket|leaky-bucket|gcra) echo "bucket.lua $1.lua" ;;
    *) echo "$1.lua" ;;
  esac
}
compose() {
  for f in prelude.lua kv-batch.lua $2 decide.lua batch.lua; do git show "$1:$lua/$f"; echo; done
}
for side in a b; do
  rev=${!side}
  git rev-parse --verify -q "$rev^{commit}" >/dev/null || { echo "no revision $rev" >&2; exit 1; }
  # as a library of one function (FunctionLibrary.of) holding every algorithm
  { printf '#!lua name=cgb_%s\nlocal function build()\nlocal KEYS, ARGV\n' "$side"; compose "$rev" "${every[*]}"
    printf 'return function(keys, args)\n  KEYS, ARGV = keys, args\n  return main()\nend\nend\nlocal run\n'
    printf "redis.register_function('cgb_%s', function(keys, args)\n  if not run then run = build() end\n" "$side"
    printf '  return run(keys, args)\nend)\n'; } >"$work/lib-$side.lua"
  # as the script of each algorithm (FunctionLibrary.script of batch/<algorithm>)
  for alg in ${algorithms//,/ }; do
    { printf 'local KEYS, ARGV = KEYS, ARGV\n'; compose "$rev" "$(own "$alg")"; printf '\nreturn main()\n'; } \
      >"$work/$side-$alg.lua"
  done
done
# the floor of the working tree (it is the benchmark's definition, not a revision under test)
cp "$floor" "$work/floor.lua"
# shellcheck source=redis-under-callgrind.sh
. integration-tests/benchmark/callgrind/redis-under-callgrind.sh
echo "a = $a ($(git rev-parse --short "$a")), b = $b ($(git rev-parse --short "$b")), $mode, $entries entries per run," \
  "$n decisions per round, $rounds rounds"
python3 integration-tests/benchmark/callgrind/drive-batch.py "$port" "$pid" "$work" "$mode" "$algorithms" "$entries" \
  "$n" "$rounds"
