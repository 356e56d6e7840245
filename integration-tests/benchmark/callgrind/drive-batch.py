"""Sends the compact batch runs of batch.sh to the Redis under callgrind and prints the instructions Redis spent per
decision, per algorithm and side (a, b) and for the floor.

Arguments: port, the valgrind process id, the work directory (lib-a.lua, lib-b.lua, <side>-<algorithm>.lua,
floor.lua; callgrind's output), fcall or eval, the algorithms (comma-separated), entries per run, decisions per round,
rounds. A measurement empties the keys, decides each of the 10,000 keys twice with its script (uncounted: at an
explicit instant one window earlier, then at Redis TIME, so that a window's key holds a previous and a current count),
zeroes callgrind's counters, sends its runs (each `entries` consecutive keys of 10,000, pipelined 8 runs at a time), dumps
the counters and reads their total. A round measures every algorithm's a and b and the floor once; the order reverses
from one round to the next. A warm-up of each script comes first, uncounted.
"""
import sys

from cgredis import Counters, Redis
import time

port, pid, work, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
algorithms = [a for a in sys.argv[5].split(",") if a]
entries, n, rounds = int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
KEYS = 10000
LIMIT = 1000000  # per window, the benchmark's policies
# The benchmark's window is 1 s, and on 10,000 keys it visits a key every few tens of milliseconds: a window
# algorithm's key (and the floor's, TTL 1 s) lives from one visit to the next, a token bucket's (TTL: until its one
# unit has drained, 1 ms) never does. Under callgrind Redis runs some 50 times slower, and a visit comes every few
# seconds: the window algorithms and the floor get a window (TTL) of 100 s so that their keys still live between
# visits; the buckets keep the benchmark's 1,000,000 per second.
WINDOW_US = {"token-bucket": 1000000, "leaky-bucket": 1000000, "gcra": 1000000}
STRETCHED_US = 100000000
redis = Redis(port)
counters = Counters(pid, work)
encode, call = Redis.encode, redis.call


shas = {}
if mode == "fcall":
    for side in ("a", "b"):
        call("FUNCTION", "LOAD", "REPLACE", open(f"{work}/lib-{side}.lua", "rb").read())
else:
    for side in ("a", "b"):
        for alg in algorithms:
            shas[(side, alg)] = call("SCRIPT", "LOAD", open(f"{work}/{side}-{alg}.lua", "rb").read()).decode()
shas["floor"] = call("SCRIPT", "LOAD", open(f"{work}/floor.lua", "rb").read()).decode()


def run_of(side, alg, first, count, at):
    """One run of `count` entries from key `first`: a compact run of ours (see batch.lua) or the floor's; `at`: ''
    (Redis TIME) or an explicit instant (microseconds)."""
    keys = [f"rl:cg:{{u{(first + i) % KEYS}}}" for i in range(count)]
    if side == "floor":
        # the number of entries, the TTL (ms), each entry's cost
        return encode("EVALSHA", shas["floor"], count, *keys, count, STRETCHED_US // 1000, *(["1"] * count))
    head = ("FCALL", "cgb_" + side) if mode == "fcall" else ("EVALSHA", shas[(side, alg)])
    # the number of calls, one policy (algorithm, limit, window us, burst, shadow), 'S' and the time, then per entry
    # the policy's index plus the number of policies times (cost - 1): 1
    window = WINDOW_US.get(alg, STRETCHED_US)
    return encode(*head, count, *keys, count, 1, alg, LIMIT, window, LIMIT, "0", f"S{at}", *(["1"] * count))


def decide(side, alg, count, earlier=False):
    at = int(time.time() * 1000000) - WINDOW_US.get(alg, STRETCHED_US) if earlier else ""
    pending = []
    done = 0
    while done < count:
        size = min(entries, count - done)
        pending.append(run_of(side, alg, done, size, at))
        done += size
        if len(pending) == 8 or done == count:
            for reply in redis.pipeline(pending):
                if side != "floor" and any(reply[i] != b":1\r\n" for i in range(0, len(reply), 5)):
                    raise RuntimeError(f"{side} {alg}: a call was not admitted: {reply[:10]}")
            pending = []



sides = [(side, alg) for alg in algorithms for side in ("a", "b")] + [("floor", None)]
for side, alg in sides:
    decide(side, alg, 2000)
counters.control("-i", "on")
results = {s: [] for s in sides}
for r in range(rounds):
    for side, alg in (sides if r % 2 == 0 else list(reversed(sides))):
        call("FLUSHALL")
        decide(side, alg, KEYS, earlier=True)
        decide(side, alg, KEYS)
        counters.zero()
        decide(side, alg, n)
        name = f"{side}-{alg or 'floor'}"
        total = counters.dump(f"{name}-{r}")
        results[(side, alg)].append(total / n)
        print(f"round {r + 1} {alg or ''} {side}: {total / n:,.0f} instructions per decision", flush=True)


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


fl = median(results[("floor", None)])
print(f"floor (get-set-batch.lua, EVALSHA): median {fl:,.0f} (min {min(results[('floor', None)]):,.0f}, "
      f"max {max(results[('floor', None)]):,.0f})")
for alg in algorithms:
    ma, mb = median(results[("a", alg)]), median(results[("b", alg)])
    print(f"{alg}: a median {ma:,.0f} ({ma / fl:.3f}x floor), b median {mb:,.0f} ({mb / fl:.3f}x floor), "
          f"b - a {mb - ma:+,.0f} ({(mb - ma) / ma * 100:+.1f}%)")
