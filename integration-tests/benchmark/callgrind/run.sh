#!/usr/bin/env bash
# Instructions Redis spends per decision, counted by valgrind's callgrind: the token bucket's one-call script of two
# git revisions, as a function (FCALL, what the extension sends on Redis 7) or as a script (EVALSHA), alternated over
# rounds on 10,000 keys. Instruction counts do not depend on the machine's load, so a Lua change can be compared on a
# busy host where timings cannot.
#
#   integration-tests/benchmark/callgrind/run.sh <rev-a> <rev-b> [fcall|eval] [decisions per round] [rounds]
#   integration-tests/benchmark/callgrind/run.sh 3adf95b HEAD fcall 20000 4
#
# Needs valgrind (apt-get install -y valgrind) and python3; redis-server: $REDIS_SERVER, else the 7.0.15 binary of
# org.signal:embedded-redis in the local Maven repository.
set -euo pipefail
cd "$(dirname "$0")/../../.."
a=${1:?first revision}; b=${2:?second revision}; mode=${3:-fcall}; n=${4:-20000}; rounds=${5:-4}
port=${CALLGRIND_REDIS_PORT:-6402}
work=$(mktemp -d)
lua=runtime/src/main/resources/dev/ratelimit/lua
# the files of decide/token-bucket, in the order the build composes them (LuaScripts.compose)
files=(prelude.lua kv-entry.lua bucket.lua token-bucket.lua decide.lua entry.lua)
compose() {
  for f in "${files[@]}"; do git show "$1:$lua/$f"; echo; done
}
for side in a b; do
  rev=${!side}
  # as a script (FunctionLibrary.script) and as a library of one function (FunctionLibrary.of, one function)
  { printf 'local KEYS, ARGV = KEYS, ARGV\n'; compose "$rev"; printf '\nreturn main()\n'; } >"$work/$side.lua"
  { printf '#!lua name=cg_%s\nlocal function build()\nlocal KEYS, ARGV\n' "$side"; compose "$rev"
    printf 'return function(keys, args)\n  KEYS, ARGV = keys, args\n  return main()\nend\nend\nlocal run\n'
    printf "redis.register_function('cg_%s', function(keys, args)\n  if not run then run = build() end\n" "$side"
    printf '  return run(keys, args)\nend)\n'; } >"$work/lib-$side.lua"
done
# shellcheck source=redis-under-callgrind.sh
. integration-tests/benchmark/callgrind/redis-under-callgrind.sh
echo "a = $a, b = $b, $mode, $n decisions per round, $rounds rounds"
python3 integration-tests/benchmark/callgrind/drive.py "$port" "$pid" "$work" "$mode" "$n" "$rounds"
