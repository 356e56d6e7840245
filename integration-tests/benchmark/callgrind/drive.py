"""Sends the decisions of run.sh to the Redis under callgrind and prints the instructions Redis spent per decision.

Arguments: port, the valgrind process id, the work directory (a.lua, b.lua, lib-a.lua, lib-b.lua; callgrind's
output), fcall or eval, decisions per round, rounds. Each round zeroes callgrind's counters, sends one side's
decisions (pipelined 50 at a time, on 10,000 keys emptied first), dumps the counters and reads their total; the sides
alternate a, b then b, a. A warm-up of each side comes first, uncounted.
"""
import sys

from cgredis import Counters, Redis

port, pid, work, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
n, rounds = int(sys.argv[5]), int(sys.argv[6])
redis = Redis(port)
counters = Counters(pid, work)
encode, call = Redis.encode, redis.call


shas = {}
for side in ("a", "b"):
    if mode == "fcall":
        call("FUNCTION", "LOAD", "REPLACE", open(f"{work}/lib-{side}.lua", "rb").read())
    else:
        shas[side] = call("SCRIPT", "LOAD", open(f"{work}/{side}.lua", "rb").read()).decode()


def decisions(side, count):
    head = ("FCALL", "cg_" + side) if mode == "fcall" else ("EVALSHA", shas[side])
    pending = []
    for i in range(count):
        # one unit of a token bucket of 1,000,000 a second on key i of 10,000: every call an admission that writes
        pending.append(encode(*head, 1, f"rl:cg:{{u{i % 10000}}}", "", "0", "token-bucket", 1000000, 1000000,
                              1000000, "0", 1))
        if len(pending) == 50 or i == count - 1:
            redis.pipeline(pending)
            pending = []



decisions("a", 2000)
decisions("b", 2000)
counters.control("-i", "on")
results = {"a": [], "b": []}
for r in range(rounds):
    for side in (("a", "b") if r % 2 == 0 else ("b", "a")):
        call("FLUSHALL")
        counters.zero()
        decisions(side, n)
        total = counters.dump(f"{side}{r}")
        results[side].append(total / n)
        print(f"round {r + 1} {side}: {total / n:,.0f} instructions per decision", flush=True)
for side, values in results.items():
    values.sort()
    print(f"{side}: median {values[len(values) // 2]:,.0f} (min {values[0]:,.0f}, max {values[-1]:,.0f})")
