package dev.ratelimit.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Writes what a run measured: a Markdown summary with the targets checked, a CSV of every cell and
 * SVG charts, all into {@code bench.output}.
 */
final class Report {

    static final String MARKDOWN = "benchmark-results.md";
    static final String CSV = "benchmark-results.csv";
    static final String THROUGHPUT_SVG = "benchmark-throughput.svg";
    static final String LATENCY_SVG = "benchmark-latency-p99.svg";
    static final String COST_SVG = "benchmark-redis-cost.svg";
    static final String HTTP_SVG = "benchmark-http.svg";

    private final Settings settings;
    private final Environment env;
    private final List<RedisCost.Row> cost;
    private final List<LimiterSuite.Row> cells;
    private final List<HttpBench.Row> http;
    private final String httpSkipped;

    Report(Settings settings, Environment env, List<RedisCost.Row> cost, List<LimiterSuite.Row> cells,
            List<HttpBench.Row> http, String httpSkipped) {
        this.settings = settings;
        this.env = env;
        this.cost = cost;
        this.cells = cells;
        this.http = http;
        this.httpSkipped = httpSkipped;
    }

    /** Writes every file; returns the Markdown. */
    String write() throws IOException {
        Path dir = settings.output();
        Files.createDirectories(dir);
        String md = markdown();
        Files.writeString(dir.resolve(MARKDOWN), md);
        if (!cells.isEmpty()) {
            Files.writeString(dir.resolve(CSV), csv());
            int c = maxConcurrency();
            Files.writeString(dir.resolve(THROUGHPUT_SVG), chart(c, false));
            Files.writeString(dir.resolve(LATENCY_SVG), chart(c, true));
        }
        if (!cost.isEmpty()) {
            List<String> groups = new ArrayList<>();
            double[][] values = new double[cost.size()][3];
            for (int i = 0; i < cost.size(); i++) {
                RedisCost.Row r = cost.get(i);
                groups.add(r.algorithm());
                values[i][0] = r.oursMicros();
                values[i][1] = r.oursBatchedMicros();
                values[i][2] = r.anchorMicros();
            }
            Files.writeString(dir.resolve(COST_SVG), SvgChart.bars("Redis CPU per decision",
                    "INFO commandstats usec_per_call (FCALL of our functions where loaded, EVALSHA of the anchors and the floor), one script at a time; " + env.redis(), groups,
                    List.of("ours, one call per decision", "ours, " + RedisCost.BATCH + " decisions per call",
                            "simple anchor script, one call per decision"),
                    values, "%.2f", "microseconds per decision (lower is better)"));
        }
        if (!http.isEmpty()) {
            List<HttpSummary> sums = HttpSummary.of(http);
            List<String> groups = new ArrayList<>();
            double[][] values = new double[sums.size()][2];
            for (int i = 0; i < sums.size(); i++) {
                HttpSummary h = sums.get(i);
                groups.add(h.keySet());
                values[i][0] = h.unlimitedRps();
                values[i][1] = h.limitedRps();
            }
            Files.writeString(dir.resolve(HTTP_SVG), SvgChart.bars("HTTP requests per second (wrk, "
                    + settings.httpConnections() + " connections, layout " + settings.httpLayout() + ")", env.redis(),
                    groups, List.of("without @RateLimit", "with @RateLimit"), values, "%,.0f",
                    "requests per second (higher is better)"));
        }
        return md;
    }

    private String chart(int concurrency, boolean latency) {
        List<String> contenders = contenders();
        List<String> keySets = keySets();
        double[][] values = new double[contenders.size()][keySets.size()];
        for (int g = 0; g < contenders.size(); g++) {
            for (int s = 0; s < keySets.size(); s++) {
                Optional<LimiterSuite.Row> r = find(keySets.get(s), concurrency, contenders.get(g));
                values[g][s] = r.map(x -> latency ? x.p99() / 1000 : x.decisionsPerSecond()).orElse(-1.0);
            }
        }
        return latency
                ? SvgChart.bars("p99 latency, " + concurrency + " concurrent callers", env.cpu() + ", " + env.redis(),
                        contenders, keySets, values, "%,.1f", "milliseconds (lower is better)")
                : SvgChart.bars("Rate-limit decisions per second, " + concurrency + " concurrent callers",
                        env.cpu() + ", " + env.redis(), contenders, keySets, values, "%,.0f",
                        "decisions per second (higher is better)");
    }

    private String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("# quarkus-ratelimit benchmark results\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| date | ").append(env.date()).append(" |\n");
        md.append("| CPU | ").append(env.cpu()).append(" |\n");
        md.append("| RAM | ").append(env.memory()).append(" |\n");
        md.append("| OS | ").append(env.os()).append(" |\n");
        md.append("| JDK | ").append(env.jdk()).append(" |\n");
        md.append("| Redis | ").append(env.redis()).append(" |\n");
        md.append("| Quarkus | ").append(env.quarkus()).append(" |\n");
        md.append(String.format(Locale.ROOT, "| load | closed loop, asynchronous callers, %.1f s warm-up + %.1f s measured per cell,"
                + " each limiter-suite cell %d times%s |%n", settings.warmupMillis() / 1000.0, settings.durationMillis() / 1000.0,
                settings.repetitions(), settings.warmupPass()
                        ? "; before the first, a warm-up pass (`bench.warmup.pass`): every contender once per key set, with the"
                                + " most callers, for the warm-up time, not measured"
                        : "; no warm-up pass (`bench.warmup.pass=false`): the first cells measured ran while the JIT compiled"));
        md.append("| command | `").append(commandLine()).append("` |\n\n");
        if (!cells.isEmpty() || !cost.isEmpty() || !http.isEmpty()) {
            md.append("## Targets\n\n");
            if (!cells.isEmpty()) {
                md.append(String.format(Locale.ROOT, "A target on the limiter suite's rows of one key set and number of"
                        + " callers is judged only where that cell group's A/A spread is at most %.2f: `%s`, `%s` and `%s`"
                        + " run the same Lua function with the same values, so the spread of their paired ratios to the"
                        + " floor (the highest median less the lowest) is the run's own noise; above it, the target reads"
                        + " `not judged`. Counts (admissions, script calls per decision) are judged whatever the"
                        + " spread.%n%n", AA_LIMIT, AA.get(0), AA.get(1), AA.get(2)));
            }
            md.append("| target | measured | met |\n|---|---|---|\n");
            for (String[] t : targets()) {
                md.append("| ").append(t[0]).append(" | ").append(t[1]).append(" | ").append(t[2]).append(" |\n");
            }
            md.append('\n');
        }
        if (!cells.isEmpty()) {
            md.append("## Decisions per second and latency\n\n");
            md.append(String.format(Locale.ROOT, "Each cell measured %d times, the contenders of a key set and number of"
                    + " callers one after the other in rotated order, with `FLUSHALL` before each; every figure is the median"
                    + " of the repetitions, with the range of decisions/s beside it. `vs floor, paired`: in each repetition,"
                    + " the row's decisions/s over those of `%s` with the same key set and callers in that repetition (the"
                    + " rotation runs both within seconds of each other, so the machine's drift moves both alike); the"
                    + " median over the repetitions, with their range. `vs floor, medians`: the ratio of the two medians,"
                    + " as reported before. Failed calls are counted apart and left out of the latencies and the CPU figures."
                    + " Admitted: the calls Redis decided and admitted, of those it decided (every contender is set up to"
                    + " admit them all; a cell where they differ is in bold).%n%n", settings.repetitions(), Floors.BATCH_GET_SET));
            md.append("CPU per decision: what this JVM (every thread: callers, clients, GC, JIT) and Redis (`INFO cpu`) spent"
                    + " over the measured period, divided by the decisions made; less noisy than decisions/s on a shared"
                    + " machine, and it says which side a contender spends in. `JIT CPU`: the part of the JVM's spent by"
                    + " its JIT compiler threads (`C1`/`C2 CompilerThread`, `utime + stime` of `/proc/self/task/<tid>/stat`"
                    + ", counted in clock ticks of " + JitCpu.tickMillis() + " ms; n/a off Linux), and `JVM CPU without"
                    + " JIT` the rest: a cell measured while C2 still compiles pays for it in the first, not in the"
                    + " second.\n\n");
            md.append("Redis commands per decision: the commands Redis ran over the measured periods (`INFO commandstats`,"
                    + " every command but the `INFO` the suite sends, those run by scripts included), divided by the"
                    + " decisions made: the work, not the round trips; for ours, whose every call is one script call,"
                    + " the calls per decision are in the leasing table's last column.\n\n");
            md.append("| key set | callers | contender | decisions/s | min–max | vs floor, paired | vs floor, medians | p50 µs | p99 µs | p99.9 µs | failed"
                    + " | admitted | JVM CPU µs/decision | JIT CPU µs/decision | JVM CPU without JIT µs/decision"
                    + " | Redis CPU µs/decision | Redis commands/decision |\n");
            md.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (LimiterSuite.Row r : cells) {
                Optional<LimiterSuite.Row> floor = find(r.keySet(), r.concurrency(), Floors.BATCH_GET_SET);
                md.append(String.format(Locale.ROOT, "| %s | %d | %s | %,.0f | %,.0f–%,.0f | %s | %s | %,.0f | %,.0f | %,.0f | %d | %s | %s | %s | %s | %s | %s |%n",
                        r.keySet(), r.concurrency(), r.contender(), r.decisionsPerSecond(), r.minDecisionsPerSecond(),
                        r.maxDecisionsPerSecond(), floor.map(f -> Paired.of(r, f).percent()).orElse(""),
                        floor.map(f -> pct(r.decisionsPerSecond() / f.decisionsPerSecond())).orElse(""), r.p50(),
                        r.p99(), r.p999(), r.failures(), admitted(r), micros(r.jvmCpuMicros()),
                        jitMicros(r.jitCpuMicros()), jitMicros(r.jvmCpuWithoutJitMicros()), micros(r.redisCpuMicros()),
                        perDecision(r.perDecision(LimiterSuite.Tally.REDIS_COMMANDS))));
            }
            md.append('\n');
            List<Aa> checks = keySets().stream().flatMap(k -> concurrencies().stream().map(n -> aa(k, n)))
                    .flatMap(Optional::stream).toList();
            if (!checks.isEmpty()) {
                md.append("### A/A check\n\n");
                md.append(String.format(Locale.ROOT, "`%s`, `%s` and `%s` run the same Lua function with the same values:"
                        + " whatever sets their paired ratios to the floor apart is noise. Spread: the highest median less"
                        + " the lowest; a cell group's targets are judged where it is at most %.2f.%n%n", AA.get(0),
                        AA.get(1), AA.get(2), AA_LIMIT));
                md.append("| key set | callers | " + String.join(" | ", AA) + " | spread | targets |\n");
                md.append("|---|---:|---:|---:|---:|---:|---|\n");
                for (Aa a : checks) {
                    md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %.3f | %s |%n", a.keySet(),
                            a.concurrency(), a.ratios().get(0).times(), a.ratios().get(1).times(), a.ratios().get(2).times(),
                            a.spread(), a.judged() ? "judged" : "not judged"));
                }
                md.append('\n');
            }
            List<String[]> around = aroundTheBackend();
            if (!around.isEmpty()) {
                md.append("### The limiter around the backend\n\n");
                md.append(String.format(Locale.ROOT, "`%s` decides through `RateLimiter.check`, `%s` calls the same backend"
                        + " (script, executor, connections) without the limiter around it (timeout, circuit breaker, deny"
                        + " cache, decision objects): the paired ratio, each repetition's decisions/s of the first over the"
                        + " second's, is what that layer leaves of the backend's throughput; the JVM CPU per decision"
                        + " (without the JIT's) is what it adds.%n%n", LimiterSuite.OURS + "token-bucket",
                        LimiterSuite.BACKEND_ONLY));
                md.append("| key set | callers | RateLimiter over backend only, paired | JVM CPU µs/decision without JIT,"
                        + " RateLimiter | backend only |\n|---|---:|---:|---:|---:|\n");
                for (String[] a : around) {
                    md.append("| ").append(String.join(" | ", a)).append(" |\n");
                }
                md.append('\n');
            }
            List<Leasing> leasing = leasing();
            if (!leasing.isEmpty()) {
                md.append("### Quota leasing\n\n");
                md.append("`ours: <algorithm> leased`: the policy of `ours: <algorithm>` with `lease=auto` (slices of at most a"
                        + " tenth of the capacity); `diagnostic: <algorithm> leased, limit 10M/s` the same admitting 10"
                        + " times more, compared with the same `ours: <algorithm>` (a policy that admits every call costs"
                        + " the same whatever its limit); `ours: <algorithm> 1e8/s leased` against `ours: <algorithm> 1e8/s`,"
                        + " both 10,000,000 per 100 ms window (10^8 per second: neither denies here, so their ratio is"
                        + " leasing's alone). Pair ratio: within each repetition, the leased row's decisions/s over"
                        + " the plain row's (the two ran in the same repetition, one after the other or a few cells apart);"
                        + " the median over the repetitions, with its range. From a slice: the decisions made in this"
                        + " process from a slice (`Source.LEASE`), no Redis call. Slices per decision: the slices Redis"
                        + " granted (`RateLimitMetrics.leased`) over the decisions; given back: the share of the leased"
                        + " units returned unused when their slice ended. Script calls per decision: the `EVALSHA` and"
                        + " `FCALL` calls Redis ran (every call the limiter makes is one: slices, settlements and the"
                        + " calls decided alone) over the decisions.\n\n");
                md.append("| key set | callers | contender | decisions/s | plain decisions/s | pair ratio (min–max) | from a slice"
                        + " | slices/decision | units/slice | given back | Redis commands/decision | script calls/decision |\n");
                md.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
                for (Leasing l : leasing) {
                    LimiterSuite.Row r = l.leased();
                    md.append(String.format(Locale.ROOT, "| %s | %d | %s | %,.0f | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                            r.keySet(), r.concurrency(), r.contender(), r.decisionsPerSecond(),
                            l.plain() == null ? "" : String.format(Locale.ROOT, "%,.0f", l.plain().decisionsPerSecond()),
                            l.ratios().isEmpty() ? "" : String.format(Locale.ROOT, "%.2f× (%.2f–%.2f)", l.ratio(),
                                    l.ratioMin(), l.ratioMax()),
                            Double.isNaN(r.fromSlice()) ? "n/a" : String.format(Locale.ROOT, "%.2f%%", 100 * r.fromSlice()),
                            perDecision(r.perDecision(LimiterSuite.Tally.SLICES)),
                            Double.isNaN(r.unitsPerSlice()) ? "n/a" : String.format(Locale.ROOT, "%,.0f", r.unitsPerSlice()),
                            Double.isNaN(r.returnedShare()) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * r.returnedShare()),
                            perDecision(r.perDecision(LimiterSuite.Tally.REDIS_COMMANDS)),
                            perDecision(r.perDecision(LimiterSuite.Tally.SCRIPT_CALLS))));
                }
                md.append('\n');
            }
            List<Cluster> clusters = clusters();
            if (!clusters.isEmpty()) {
                md.append("### Redis Cluster against one Redis\n\n");
                md.append("`cluster: <algorithm> (3 primaries)`: the backend on an executor of the limiter's shape (its"
                        + " `max-batch` and connections, the Quarkus client's options with the client type set to cluster),"
                        + " called directly, on a Redis Cluster of three primaries and no replica started by the run on"
                        + " this machine (the same redis-server binary and settings as the one Redis, the slots split in"
                        + " three); `one redis: <algorithm>` the same backend built the same way on the one Redis: scripts"
                        + " by `EVALSHA` on both (no function library: the extension loads none on a cluster), so the"
                        + " only difference is cluster or not. On a cluster a run of the batch script holds the calls of"
                        + " one slot: a burst on a hot key still goes as one run, calls on many keys mostly alone. Every"
                        + " node is emptied (`FLUSHALL`) before every cell. Paired: each repetition's cluster decisions/s"
                        + " over the one Redis' in that repetition, the median and the range. Decisions per script call:"
                        + " the decisions over the `EVALSHA`/`EVAL`/`FCALL` calls `INFO commandstats` counted, summed"
                        + " over every node of the cluster; Redis CPU summed over the nodes too.\n\n");
                md.append("| key set | callers | algorithm | one Redis decisions/s | min–max | cluster decisions/s | min–max"
                        + " | cluster over one Redis, paired | decisions per script call, one Redis | cluster"
                        + " | Redis CPU µs/decision, one Redis | cluster | JVM CPU without JIT µs/decision, one Redis"
                        + " | cluster |\n");
                md.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
                for (Cluster k : clusters) {
                    LimiterSuite.Row one = k.one();
                    LimiterSuite.Row on = k.cluster();
                    md.append(String.format(Locale.ROOT, "| %s | %d | %s | %,.0f | %,.0f–%,.0f | %,.0f | %,.0f–%,.0f | %s"
                            + " | %s | %s | %s | %s | %s | %s |%n", on.keySet(), on.concurrency(), k.algorithm(),
                            one.decisionsPerSecond(), one.minDecisionsPerSecond(), one.maxDecisionsPerSecond(),
                            on.decisionsPerSecond(), on.minDecisionsPerSecond(), on.maxDecisionsPerSecond(),
                            k.paired().times(), perDecision(decisionsPerScriptCall(one)),
                            perDecision(decisionsPerScriptCall(on)), micros(one.redisCpuMicros()),
                            micros(on.redisCpuMicros()), jitMicros(one.jvmCpuWithoutJitMicros()),
                            jitMicros(on.jvmCpuWithoutJitMicros())));
                }
                md.append('\n');
            }
            List<String[]> inexact = leasingAgainstBucket4j();
            if (!inexact.isEmpty()) {
                md.append("### Quota leasing against Bucket4j's inexact modes\n\n");
                md.append(String.format(Locale.ROOT, "`%s` and `%s`: Bucket4j's Lettuce integration with"
                        + " `Optimizations.delaying(new DelayParameters(%,d, Duration.ofMillis(%d)))` and"
                        + " `Optimizations.predicting(` the same `)` (its default prediction parameters), one optimized proxy"
                        + " per key kept for the run: each decides in this process on a local copy of the bucket and"
                        + " synchronizes with Redis after at most %,d tokens (a tenth of the capacity) or %d ms, as"
                        + " `lease=auto` leases at most a tenth of the capacity for at most 100 ms; `predicting` also"
                        + " subtracts what it predicts the other processes consume. Both may overconsume across"
                        + " processes, as leasing may not. Set against `%s` (the same 1,000,000 per second token"
                        + " bucket), paired repetition by repetition. Where a closed loop asks more than the policy"
                        + " admits (the hot key), both meet the limit: Bucket4j then denies in the process, a decision"
                        + " counted as such, where our deny cache answers, counted as failed; compare admitted/s"
                        + " (decisions/s times the share admitted) there.%n%n", LimiterSuite.BUCKET4J_DELAYING,
                        LimiterSuite.BUCKET4J_PREDICTING, Contenders.BUCKET4J_DELAY.maxUnsynchronizedTokens,
                        Contenders.BUCKET4J_DELAY.maxUnsynchronizedTimeoutNanos / 1_000_000,
                        Contenders.BUCKET4J_DELAY.maxUnsynchronizedTokens,
                        Contenders.BUCKET4J_DELAY.maxUnsynchronizedTimeoutNanos / 1_000_000,
                        LimiterSuite.OURS + "token-bucket" + LimiterSuite.LEASED));
                md.append("| key set | callers | peer | peer decisions/s | peer admitted | peer admitted/s"
                        + " | peer Redis commands/decision | ours leased decisions/s | ours leased admitted/s"
                        + " | ours leased failed | ours leased over the peer, paired |\n");
                md.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
                for (String[] a : inexact) {
                    md.append("| ").append(String.join(" | ", a)).append(" |\n");
                }
                md.append('\n');
            }
            List<LimiterSuite.Row> counted = cells.stream().filter(r -> r.callsPerConnection().length > 0).toList();
            if (!counted.isEmpty()) {
                md.append("### Calls per connection\n\n");
                md.append("The share of the calls each connection of the executor carried over the measured periods (counted by"
                        + " the client the benchmark gives it: Redis 7.0 keeps no count per connection), in the order the"
                        + " connections were opened. An executor's connections help only if its callers spread over them.\n\n");
                md.append("| key set | callers | contender | connections used | calls per connection |\n|---|---:|---|---:|---|\n");
                for (LimiterSuite.Row r : counted) {
                    md.append(String.format(Locale.ROOT, "| %s | %d | %s | %d | %s |%n", r.keySet(), r.concurrency(),
                            r.contender(), java.util.Arrays.stream(r.callsPerConnection()).filter(n -> n > 0).count(),
                            r.connectionShares()));
                }
                md.append('\n');
            }
        }
        if (!cost.isEmpty()) {
            md.append("## Redis-side cost per decision\n\n");
            md.append("`usec_per_call` (INFO commandstats) of `FCALL` of our functions where the application loaded them, else `EVALSHA`, and of `EVALSHA` of the anchors and the floor, with only that script running, ")
                    .append(String.format(Locale.ROOT, "%,d keys", settings.keys()))
                    .append(", one caller, a policy of ").append(RedisCost.LIMIT).append(" per minute; `MEMORY USAGE` summed over the keys one identity leaves (key `")
                    .append(RedisCost.MEMORY_KEY).append("`).\n\n");
            md.append("Ours is measured twice: one decision per call (an idle application), and ").append(RedisCost.BATCH)
                    .append(" decisions per run of the batch script (what the limiter sends under load, `max-batch`), ")
                    .append("divided by ").append(RedisCost.BATCH).append(".\n\n");
            md.append("The floor (`" + RedisCost.FLOOR + "`: one `GET` and one `SET … PX` per decision, its keys living "
                    + "the policy's window) is measured the same way; the last column divides each row's batched cost "
                    + "by the floor's.\n\n");
            md.append("| algorithm | ours µs/call | ours µs/decision, batched | anchor script | anchor µs/call "
                    + "| ours bytes (1 decision) | anchor bytes (1) | ours bytes (100 decisions) | anchor bytes (100) "
                    + "| batched ÷ floor |\n");
            md.append("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
            double floor = cost.stream().filter(r -> RedisCost.FLOOR.equals(r.algorithm()))
                    .mapToDouble(RedisCost.Row::oursBatchedMicros).findFirst().orElse(Double.NaN);
            for (RedisCost.Row r : cost) {
                md.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %s | %.2f | %d | %d | %d | %d | %.2f |%n",
                        r.algorithm(), r.oursMicros(), r.oursBatchedMicros(), r.anchor(), r.anchorMicros(),
                        r.oursBytes1(), r.anchorBytes1(), r.oursBytes100(), r.anchorBytes100(),
                        r.oursBatchedMicros() / floor));
            }
            md.append('\n');
        }
        if (!http.isEmpty() || httpSkipped != null) {
            md.append("## HTTP, layout ").append(settings.httpLayout()).append("\n\n");
            if (httpSkipped != null) {
                md.append("Skipped: ").append(httpSkipped).append("\n\n");
            } else {
                md.append(String.format(Locale.ROOT,
                        "`wrk -t%d -c%d --latency` against one non-blocking JAX-RS method with and without `@RateLimit` "
                                + "(token bucket, per client address or per `X-Client` header), after a warm-up of both, "
                                + "measured in rounds of A/B/B/A (unlimited, limited, limited, unlimited; `bench.repetitions` rounds). Redis: %s. "
                                + "CPU per request: what this JVM and Redis (`INFO cpu`) spent over a measured run, divided by "
                                + "the requests wrk completed; idle: the share of all cores' time, and of this JVM's cores' "
                                + "time, nobody used (`/proc/stat`). Every limited run is checked against the limiter's "
                                + "decision counts: every request admitted by Redis (outcome `allowed`), no other outcome. "
                                + "Decisions per Redis call: the requests of a limited run divided by the script calls Redis "
                                + "ran meanwhile (`INFO commandstats`), how many decisions a script call carried on average.%n%n",
                        wrkThreads(), settings.httpConnections(), env.redis()));
                md.append("Per key set, the median of its A/B/B/A rounds; the ratio and the CPU the limiter adds are "
                        + "taken within each round, and carry their range (min–max) over the rounds.\n\n");
                md.append("| key set | rounds | without @RateLimit req/s | with @RateLimit req/s | ratio | JVM CPU µs/req without "
                        + "| JVM CPU µs/req with | added by the limiter µs/req | Redis CPU µs/req with | decisions per Redis call |\n");
                md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
                for (HttpSummary h : HttpSummary.of(http)) {
                    md.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.0f | %s | %.2f | %.2f | %s | %.2f | %.1f |%n",
                            h.keySet(), h.rounds(), h.unlimitedRps(), h.limitedRps(), ratioRange(h), h.unlimitedJvmMicros(),
                            h.limitedJvmMicros(), addedRange(h), h.limitedRedisMicros(), h.limitedDecisionsPerCall()));
                }
                md.append("\nEach run:\n\n");
                md.append("| endpoint | clients | run | requests/s | p50 µs | p90 µs | p99 µs | non-2xx "
                        + "| socket errors | JVM CPU µs/req | Redis CPU µs/req | idle | idle, JVM's cores | decisions per Redis call "
                        + "| decisions |\n");
                md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
                for (HttpBench.Row r : http) {
                    md.append(String.format(Locale.ROOT,
                            "| `%s` | %s | %d | %,.0f | %,.0f | %,.0f | %,.0f | %d | %d | %.2f | %.2f | %s | %s | %s | %s |%n",
                            r.endpoint(), r.keySet(), r.order(), r.requestsPerSecond(), r.p50Micros(), r.p90Micros(),
                            r.p99Micros(), r.non2xx(), r.errors(), r.jvmCpuMicros(), r.redisCpuMicros(),
                            r.idlePercent() < 0 ? "n/a" : pct(r.idlePercent() / 100),
                            r.appIdlePercent() < 0 ? "n/a" : pct(r.appIdlePercent() / 100),
                            r.limited() ? String.format(Locale.ROOT, "%.1f", r.decisionsPerCall()) : "-", r.decisions()));
                }
                md.append('\n');
            }
        }
        return md.toString();
    }

    private List<String[]> targets() {
        List<String[]> out = new ArrayList<>();
        int c = cells.isEmpty() ? 0 : maxConcurrency();
        List<String> keySets = keySets();
        for (Leasing l : leasing()) {
            LimiterSuite.Row r = l.leased();
            if (r.concurrency() != c || !r.contender().startsWith(LimiterSuite.OURS)) {
                continue; // the targets are set for the rows of the policies as configured
            }
            if (l.plain() != null && !l.ratios().isEmpty() && r.keys() == 1) {
                out.add(new String[] { String.format(Locale.ROOT, "%s, %d callers, %s: ≥ 3× %s", r.contender(), c,
                        r.keySet(), l.plain().contender()),
                        String.format(Locale.ROOT, "%.2f× (pairs %.2f–%.2f; %,.0f vs %,.0f/s)", l.ratio(), l.ratioMin(),
                                l.ratioMax(), r.decisionsPerSecond(), l.plain().decisionsPerSecond()),
                        judged(r.keySet(), c, l.ratio() >= 3) });
            } else if (l.plain() != null && !l.ratios().isEmpty()) {
                // a few hot keys and a long tail: leasing pays on the hot ones; uniform keys: it must not cost
                boolean zipf = r.keySet().startsWith("Zipf");
                double target = zipf ? 1.5 : 1.0;
                out.add(new String[] { String.format(Locale.ROOT, "%s, %d callers, %s: %s %s", r.contender(), c,
                        r.keySet(), zipf ? "≥ 1.5×" : "not slower than", l.plain().contender()),
                        String.format(Locale.ROOT, "%.2f× (pairs %.2f–%.2f; %,.0f vs %,.0f/s)", l.ratio(), l.ratioMin(),
                                l.ratioMax(), r.decisionsPerSecond(), l.plain().decisionsPerSecond()),
                        judged(r.keySet(), c, l.ratio() >= target) });
            }
            double calls = r.perDecision(LimiterSuite.Tally.SCRIPT_CALLS);
            out.add(new String[] { String.format(Locale.ROOT, "%s, %d callers, %s: ≤ 0.01 Redis calls per decision",
                    r.contender(), c, r.keySet()),
                    String.format(Locale.ROOT, "%s script calls (%s slices) per decision",
                            perDecision(calls), perDecision(r.perDecision(LimiterSuite.Tally.SLICES))),
                    r.keys() == 1 ? mark(calls <= 0.01) : "(target set for the hot key)" });
        }
        for (String keySet : keySets) {
            aa(keySet, c).ifPresent(a -> out.add(new String[] {
                    String.format(Locale.ROOT, "A/A, %d callers, %s: the paired ratios to %s of %s spread ≤ %.2f", c,
                            keySet, Floors.BATCH_GET_SET, String.join(", ", AA), AA_LIMIT),
                    String.format(Locale.ROOT, "%.3f (%s)", a.spread(), a.medians()),
                    a.judged() ? "yes: this group's targets are judged" : "**no**: this group's targets are not judged" }));
        }
        for (String keySet : keySets) {
            Optional<LimiterSuite.Row> floor = find(keySet, c, Floors.BATCH_GET_SET);
            if (floor.isEmpty()) {
                continue;
            }
            double worstP99 = 0;
            String worstP99Name = "";
            for (LimiterSuite.Row r : ours(keySet, c)) {
                // judged on the pairs of one repetition each, not on the ratio of two medians that may come from
                // different repetitions (the medians stay beside it)
                Paired paired = Paired.of(r, floor.get());
                double target = r.contender().equals(LimiterSuite.OURS + "sliding-window-log") ? 0.6 : 0.9;
                out.add(new String[] { String.format(Locale.ROOT, "%s, %d callers, %s: ≥ %.1f× %s (paired)", r.contender(), c,
                        keySet, target, Floors.BATCH_GET_SET),
                        String.format(Locale.ROOT, "%s (medians %,.0f vs %,.0f/s: %.2f×)", paired.times(),
                                r.decisionsPerSecond(), floor.get().decisionsPerSecond(),
                                r.decisionsPerSecond() / floor.get().decisionsPerSecond()),
                        judged(keySet, c, paired.median() >= target) });
                double p = r.p99() / floor.get().p99();
                if (p > worstP99) {
                    worstP99 = p;
                    worstP99Name = r.contender();
                }
            }
            if (worstP99Name.isEmpty()) {
                continue; // none of ours ran: nothing to check, and not a pass
            }
            out.add(new String[] { "RateLimiter, " + c + " callers, " + keySet + ": p99 ≤ 1.5× " + Floors.BATCH_GET_SET + "'s",
                    String.format(Locale.ROOT, "highest %.2f× (%s; floor %,.0f µs)", worstP99, worstP99Name, floor.get().p99()),
                    judged(keySet, c, worstP99 <= 1.5) });
        }
        for (int k = 0; k < keySets.size(); k++) {
            String keySet = keySets.get(k);
            double target = k == 0 ? 2 : 1.2; // the hot key first, then the spread key set
            for (List<String> configurations : List.of(List.of(LimiterSuite.REDISSON),
                    List.of(LimiterSuite.BUCKET4J, LimiterSuite.BUCKET4J_BATCHING))) {
                Optional<LimiterSuite.Row> best = configurations.stream().map(name -> find(keySet, c, name))
                        .flatMap(Optional::stream).max(java.util.Comparator.comparingDouble(LimiterSuite.Row::decisionsPerSecond));
                Optional<LimiterSuite.Row> slowest = ours(keySet, c).stream()
                        .min(java.util.Comparator.comparingDouble(LimiterSuite.Row::decisionsPerSecond));
                if (best.isPresent() && slowest.isPresent()) {
                    double ratio = slowest.get().decisionsPerSecond() / best.get().decisionsPerSecond();
                    out.add(new String[] {
                            String.format(Locale.ROOT, "≥ %.1f× the best of %s, %s, %d callers", target,
                                    String.join(" / ", configurations), keySet, c),
                            String.format(Locale.ROOT, "%.1f× (slowest of ours: %s %,.0f/s; best peer: %s %,.0f/s)", ratio,
                                    slowest.get().contender(), slowest.get().decisionsPerSecond(), best.get().contender(),
                                    best.get().decisionsPerSecond()),
                            judged(keySet, c, ratio >= target) });
                }
            }
        }
        for (Cluster k : clusters()) {
            LimiterSuite.Row on = k.cluster();
            LimiterSuite.Row one = k.one();
            if (on.concurrency() != c) {
                continue;
            }
            String medians = String.format(Locale.ROOT, "%,.0f vs %,.0f/s", on.decisionsPerSecond(),
                    one.decisionsPerSecond());
            if (on.keys() == 1) {
                out.add(new String[] { String.format(Locale.ROOT, "%s, %d callers, %s: ≥ 0.8× %s (paired)",
                        on.contender(), c, on.keySet(), one.contender()),
                        k.paired().times() + " (medians " + medians + ")",
                        judged(on.keySet(), c, k.paired().median() >= 0.8) });
            } else if (on.keys() == settings.keys() && !on.keySet().startsWith("Zipf")) {
                // within the spread of one Redis: not below its slowest repetition
                out.add(new String[] { String.format(Locale.ROOT, "%s, %d callers, %s: within the spread of %s",
                        on.contender(), c, on.keySet(), one.contender()),
                        String.format(Locale.ROOT, "median %,.0f/s against %,.0f–%,.0f/s; paired %s",
                                on.decisionsPerSecond(), one.minDecisionsPerSecond(), one.maxDecisionsPerSecond(),
                                k.paired().times()),
                        judged(on.keySet(), c, on.decisionsPerSecond() >= one.minDecisionsPerSecond()) });
            }
        }
        if (!keySets.isEmpty()) {
            List<String> below = new ArrayList<>();
            for (LimiterSuite.Row r : cells) {
                if (r.contender().startsWith(LimiterSuite.OURS)) {
                    // Bucket4j's inexact modes have a table of their own: deciding in the process, they deny there
                    // once at the policy's limit, where our leased rows' deny cache answers (counted as failed)
                    for (String peer : LimiterSuite.EXACT_PEERS) {
                        // below only where the ranges do not overlap: the peer's slowest repetition beat our fastest
                        find(r.keySet(), r.concurrency(), peer).filter(p -> p.minDecisionsPerSecond() > r.maxDecisionsPerSecond())
                                .ifPresent(p -> below.add(r.contender() + " < " + peer + " (" + r.keySet() + ", "
                                        + r.concurrency() + ")"));
                    }
                }
            }
            out.add(new String[] { "never below a peer where their min–max ranges do not overlap",
                    below.isEmpty() ? "no cell below" : String.join("; ", below), mark(below.isEmpty()) });
            List<String> denied = new ArrayList<>();
            boolean inexactOnHot = false;
            for (LimiterSuite.Row r : cells) {
                if (r.keys() == 1 && LimiterSuite.INEXACT_PEERS.contains(r.contender())) {
                    // deciding in the process, they ask the hot key more than the policy's 1,000,000 a second and
                    // deny there, as our leased rows do (whose denials, from the deny cache, count as failed)
                    inexactOnHot = true;
                    continue;
                }
                if (!r.allAdmitted()) {
                    denied.add(String.format(Locale.ROOT, "%s (%s, %d): %d of %d", r.contender(), r.keySet(), r.concurrency(),
                            r.admitted(), r.decided()));
                }
            }
            out.add(new String[] { "every decision an admission (admitted = decided, every cell" + (inexactOnHot
                    ? "; Bucket4j's inexact modes on the hot key apart: they meet the policy's limit there, their admitted"
                            + " share is in their table)"
                    : ")"),
                    denied.isEmpty() ? "all admitted" : String.join("; ", denied), mark(denied.isEmpty()) });
        }
        if (!cost.isEmpty()) {
            List<String> dearer = new ArrayList<>();
            for (RedisCost.Row r : anchored()) {
                if (r.oursMicros() > r.anchorMicros()) {
                    dearer.add(String.format(Locale.ROOT, "%s %.2f > %.2f µs", r.algorithm(), r.oursMicros(), r.anchorMicros()));
                }
            }
            out.add(new String[] { "each script costs Redis ≤ its anchor per call",
                    dearer.isEmpty() ? "all within" : String.join("; ", dearer), mark(dearer.isEmpty()) });
            List<String> dearerBatched = new ArrayList<>();
            for (RedisCost.Row r : anchored()) {
                if (r.oursBatchedMicros() > r.anchorMicros()) {
                    dearerBatched.add(String.format(Locale.ROOT, "%s %.2f > %.2f µs", r.algorithm(), r.oursBatchedMicros(),
                            r.anchorMicros()));
                }
            }
            out.add(new String[] { "(beyond the issue) per decision when batched under load ≤ the anchor's per call",
                    dearerBatched.isEmpty() ? "all within" : String.join("; ", dearerBatched),
                    mark(dearerBatched.isEmpty()) });
            Map<String, Long> bytes = new LinkedHashMap<>();
            cost.stream().filter(r -> r.algorithm().equals("token-bucket") || r.algorithm().equals("gcra"))
                    .forEach(r -> bytes.put(r.algorithm(), r.oursBytes1()));
            out.add(new String[] { "token bucket and GCRA ≤ ~80 bytes per key", bytes.toString(),
                    mark(bytes.values().stream().allMatch(b -> b <= 80)) });
        }
        for (HttpSummary h : HttpSummary.of(http)) {
            boolean pinned = HttpBench.Layout.PINNED.equals(settings.httpLayout());
            String where = "HTTP, layout " + settings.httpLayout() + " (" + h.keySet() + ")";
            out.add(new String[] { where + ": with @RateLimit ≥ 85% of without", ratioRange(h),
                    pinned ? mark(h.ratio() >= 0.85) : "(target set for the pinned layout)" });
            out.add(new String[] { where + ": JVM CPU the limiter adds ≤ ~2 µs per request", addedRange(h),
                    pinned ? mark(h.added() <= 2.0) : "(target set for the pinned layout)" });
        }
        return out;
    }

    /** The median ratio of a key set's rounds, with its range when there are several. */
    private static String ratioRange(HttpSummary h) {
        return h.rounds() > 1 ? pct(h.ratio()) + " (" + pct(h.ratioMin()) + "–" + pct(h.ratioMax()) + ")" : pct(h.ratio());
    }

    /** The median JVM CPU the limiter adds per request, with its range when there are several rounds. */
    private static String addedRange(HttpSummary h) {
        return h.rounds() > 1
                ? String.format(Locale.ROOT, "%.2f µs (%.2f–%.2f)", h.added(), h.addedMin(), h.addedMax())
                : String.format(Locale.ROOT, "%.2f µs", h.added());
    }

    private int wrkThreads() {
        return HttpBench.Layout.PINNED.equals(settings.httpLayout()) ? env.appCpus().size() : 2;
    }

    /**
     * One key set of the HTTP suite, compared round by round: in each A/B/B/A round, the limited endpoint's mean
     * requests/s over the unlimited one's (the ratio) and its JVM CPU per request less the unlimited one's (what the
     * limiter adds; CPU summed over a round's runs of an endpoint, divided by their requests). Each figure is the
     * median over the rounds; the ratio and the added CPU also carry their range over the rounds.
     */
    record HttpSummary(String keySet, int rounds, double unlimitedRps, double limitedRps, double unlimitedJvmMicros,
            double limitedJvmMicros, double limitedRedisMicros, double limitedDecisionsPerCall, double ratio,
            double ratioMin, double ratioMax, double added, double addedMin, double addedMax) {

        static List<HttpSummary> of(List<HttpBench.Row> rows) {
            List<HttpSummary> out = new ArrayList<>();
            for (String keySet : rows.stream().map(HttpBench.Row::keySet).distinct().toList()) {
                List<Double> offRps = new ArrayList<>();
                List<Double> onRps = new ArrayList<>();
                List<Double> offJvm = new ArrayList<>();
                List<Double> onJvm = new ArrayList<>();
                List<Double> onRedis = new ArrayList<>();
                List<Double> onPerCall = new ArrayList<>();
                List<Double> ratios = new ArrayList<>();
                List<Double> added = new ArrayList<>();
                for (int round : rows.stream().filter(r -> r.keySet().equals(keySet)).map(HttpBench.Row::round).distinct()
                        .toList()) {
                    List<HttpBench.Row> off = rows.stream()
                            .filter(r -> r.keySet().equals(keySet) && r.round() == round && !r.limited()).toList();
                    List<HttpBench.Row> on = rows.stream()
                            .filter(r -> r.keySet().equals(keySet) && r.round() == round && r.limited()).toList();
                    if (off.isEmpty() || on.isEmpty()) {
                        continue;
                    }
                    double unlimitedRps = meanRps(off);
                    double limitedRps = meanRps(on);
                    double unlimitedJvm = perRequest(off, HttpBench.Row::jvmCpuMicros);
                    double limitedJvm = perRequest(on, HttpBench.Row::jvmCpuMicros);
                    offRps.add(unlimitedRps);
                    onRps.add(limitedRps);
                    offJvm.add(unlimitedJvm);
                    onJvm.add(limitedJvm);
                    onRedis.add(perRequest(on, HttpBench.Row::redisCpuMicros));
                    onPerCall.add(decisionsPerCall(on));
                    ratios.add(limitedRps / unlimitedRps);
                    added.add(limitedJvm - unlimitedJvm);
                }
                if (ratios.isEmpty()) {
                    continue;
                }
                out.add(new HttpSummary(keySet, ratios.size(), median(offRps), median(onRps), median(offJvm),
                        median(onJvm), median(onRedis), median(onPerCall), median(ratios), min(ratios), max(ratios),
                        median(added), min(added), max(added)));
            }
            return out;
        }

        private static double median(List<Double> values) {
            return LimiterSuite.Row.median(values);
        }

        private static double min(List<Double> values) {
            return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        }

        private static double max(List<Double> values) {
            return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        }

        private static double meanRps(List<HttpBench.Row> rows) {
            return rows.stream().mapToDouble(HttpBench.Row::requestsPerSecond).average().orElse(0);
        }

        private static double perRequest(List<HttpBench.Row> rows, java.util.function.ToDoubleFunction<HttpBench.Row> micros) {
            double cpu = 0;
            long requests = 0;
            for (HttpBench.Row r : rows) {
                cpu += micros.applyAsDouble(r) * r.requests();
                requests += r.requests();
            }
            return requests == 0 ? 0 : cpu / requests;
        }

        /** Requests over script calls, summed over the runs. */
        private static double decisionsPerCall(List<HttpBench.Row> rows) {
            long calls = 0;
            long requests = 0;
            for (HttpBench.Row r : rows) {
                calls += r.redisCalls();
                requests += r.requests();
            }
            return calls == 0 ? 0 : (double) requests / calls;
        }
    }

    /**
     * Per cell group and inexact Bucket4j row ({@link LimiterSuite#INEXACT_PEERS}), the peer's figures and
     * {@code ours: token-bucket leased}'s decisions/s over the peer's, paired (empty where ours did not run).
     */
    private List<String[]> leasingAgainstBucket4j() {
        List<String[]> out = new ArrayList<>();
        for (LimiterSuite.Row peer : cells) {
            if (!LimiterSuite.INEXACT_PEERS.contains(peer.contender())) {
                continue;
            }
            Optional<LimiterSuite.Row> ours = find(peer.keySet(), peer.concurrency(),
                    LimiterSuite.OURS + "token-bucket" + LimiterSuite.LEASED);
            out.add(new String[] { peer.keySet(), Integer.toString(peer.concurrency()), peer.contender(),
                    String.format(Locale.ROOT, "%,.0f", peer.decisionsPerSecond()), admitted(peer),
                    String.format(Locale.ROOT, "%,.0f", admittedPerSecond(peer)),
                    perDecision(peer.perDecision(LimiterSuite.Tally.REDIS_COMMANDS)),
                    ours.map(o -> String.format(Locale.ROOT, "%,.0f", o.decisionsPerSecond())).orElse("n/a"),
                    ours.map(o -> String.format(Locale.ROOT, "%,.0f", admittedPerSecond(o))).orElse("n/a"),
                    ours.map(o -> String.format(Locale.ROOT, "%,d", o.failures())).orElse("n/a"),
                    ours.map(o -> Paired.of(o, peer).times()).orElse("n/a") });
        }
        return out;
    }

    /** A cluster row, its one-Redis row (same key set and callers) and their paired ratio. */
    record Cluster(String algorithm, LimiterSuite.Row cluster, LimiterSuite.Row one, Paired paired) {
    }

    /** Every cluster row whose one-Redis row ran too, in the order of the cells. */
    private List<Cluster> clusters() {
        List<Cluster> out = new ArrayList<>();
        for (LimiterSuite.Row r : cells) {
            String oneName = LimiterSuite.oneRedisOf(r.contender());
            if (oneName == null) {
                continue;
            }
            find(r.keySet(), r.concurrency(), oneName).ifPresent(one -> out.add(new Cluster(
                    oneName.substring(LimiterSuite.ONE_REDIS.length()), r, one, Paired.of(r, one))));
        }
        return out;
    }

    /** Decisions per script call ({@code EVALSHA}, {@code EVAL}, {@code FCALL}); NaN when none was counted. */
    private static double decisionsPerScriptCall(LimiterSuite.Row r) {
        double calls = r.perDecision(LimiterSuite.Tally.SCRIPT_CALLS);
        return calls > 0 ? 1 / calls : Double.NaN;
    }

    /** The median decisions/s times the share of the decisions admitted over all repetitions. */
    private static double admittedPerSecond(LimiterSuite.Row r) {
        return r.decided() == 0 ? 0 : r.decisionsPerSecond() * r.admitted() / r.decided();
    }

    /**
     * Per cell group where both ran, {@code ours: token-bucket} against the backend alone ({@value
     * LimiterSuite#BACKEND_ONLY}): the key set, the callers, their paired ratio, and the JVM CPU per decision without the
     * JIT's of each.
     */
    private List<String[]> aroundTheBackend() {
        List<String[]> out = new ArrayList<>();
        for (LimiterSuite.Row backend : cells) {
            if (!backend.contender().equals(LimiterSuite.BACKEND_ONLY)) {
                continue;
            }
            find(backend.keySet(), backend.concurrency(), LimiterSuite.OURS + "token-bucket").ifPresent(ours -> out.add(
                    new String[] { backend.keySet(), Integer.toString(backend.concurrency()),
                            Paired.of(ours, backend).times(), jitMicros(ours.jvmCpuWithoutJitMicros()),
                            jitMicros(backend.jvmCpuWithoutJitMicros()) }));
        }
        return out;
    }

    /**
     * The A/A rows: three of ours that run the same Lua function on the same values (the token bucket, the leaky
     * bucket and GCRA share one decision in Redis), so that what sets their ratios to the floor apart is the run's
     * noise, measured in the run itself.
     */
    static final List<String> AA = List.of(LimiterSuite.OURS + "token-bucket", LimiterSuite.OURS + "leaky-bucket",
            LimiterSuite.OURS + "gcra");
    /** The largest A/A spread at which a target is judged: below it, a few percent are the run's to tell. */
    static final double AA_LIMIT = 0.03;

    /**
     * The A/A check of one cell group: the {@link #AA} rows' paired ratios to the floor, in {@link #AA}'s order, and
     * their spread, the highest median less the lowest.
     */
    record Aa(String keySet, int concurrency, List<Paired> ratios) {
        double spread() {
            double max = ratios.stream().mapToDouble(Paired::median).max().orElse(Double.NaN);
            double min = ratios.stream().mapToDouble(Paired::median).min().orElse(Double.NaN);
            return max - min;
        }

        boolean judged() {
            return spread() <= AA_LIMIT;
        }

        /** {@code 0.84, 0.81, 0.83}: the medians in {@link #AA}'s order. */
        String medians() {
            return String.join(", ", ratios.stream().map(p -> String.format(Locale.ROOT, "%.2f", p.median())).toList());
        }
    }

    /** The A/A check of a cell group, when the floor and all three {@link #AA} rows ran in it. */
    private Optional<Aa> aa(String keySet, int concurrency) {
        Optional<LimiterSuite.Row> floor = find(keySet, concurrency, Floors.BATCH_GET_SET);
        List<Paired> ratios = new ArrayList<>();
        for (String name : AA) {
            Optional<LimiterSuite.Row> r = find(keySet, concurrency, name);
            if (floor.isEmpty() || r.isEmpty()) {
                return Optional.empty();
            }
            ratios.add(Paired.of(r.get(), floor.get()));
        }
        return Optional.of(new Aa(keySet, concurrency, ratios));
    }

    /**
     * The verdict on a target of a cell group: met or not where its A/A spread allows judging, {@code not judged} with
     * the spread where it is too wide, and met or not with a note where the group had no A/A check.
     */
    private String judged(String keySet, int concurrency, boolean met) {
        Optional<Aa> a = aa(keySet, concurrency);
        if (a.isEmpty()) {
            return mark(met) + " (no A/A check)";
        }
        return a.get().judged() ? mark(met)
                : String.format(Locale.ROOT, "not judged: A/A spread %.2f", a.get().spread());
    }

    /** The Redis cost rows that have an anchor (all but the floor's). */
    private List<RedisCost.Row> anchored() {
        return cost.stream().filter(r -> !RedisCost.FLOOR.equals(r.algorithm())).toList();
    }

    /**
     * Our rows deciding every call in Redis, one per algorithm (leased rows and the leasing comparison's plain rows
     * apart: the targets against the floor and peers are theirs).
     */
    private List<LimiterSuite.Row> ours(String keySet, int concurrency) {
        return cells.stream().filter(r -> r.keySet().equals(keySet) && r.concurrency() == concurrency
                && r.contender().startsWith(LimiterSuite.OURS) && !r.leased()
                && !LimiterSuite.neverDenies(r.contender())).toList();
    }

    /**
     * A leased row, its plain row (the same contender name without {@code leased}; null when it did not run) and the
     * ratios of their decisions/s repetition by repetition.
     */
    record Leasing(LimiterSuite.Row leased, LimiterSuite.Row plain, List<Double> ratios) {
        double ratio() {
            return LimiterSuite.Row.median(ratios);
        }

        double ratioMin() {
            return ratios.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        }

        double ratioMax() {
            return ratios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        }
    }

    /**
     * One row's decisions/s over another's, repetition by repetition. The contenders of a cell group (one key set, one
     * number of callers) all run in every repetition, one after the other in rotated order, so the two of a pair met
     * the same machine within seconds: the machine's drift, tens of percent from one minute to the next on a shared
     * host, moves both alike, where a ratio of two medians may set one repetition against another.
     */
    record Paired(List<Double> ratios) {

        /** {@code row}'s decisions/s over {@code base}'s in each repetition both ran. */
        static Paired of(LimiterSuite.Row row, LimiterSuite.Row base) {
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < Math.min(row.rates().size(), base.rates().size()); i++) {
                ratios.add(row.rates().get(i) / base.rates().get(i));
            }
            return new Paired(ratios);
        }

        double median() {
            return LimiterSuite.Row.median(ratios);
        }

        double min() {
            return ratios.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        }

        double max() {
            return ratios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        }

        /** {@code 0.84× (0.80–0.88)}: the median and the range. */
        String times() {
            return ratios.isEmpty() ? "n/a" : String.format(Locale.ROOT, "%.2f× (%.2f–%.2f)", median(), min(), max());
        }

        /** {@code 84% (80–88%)}: the median and the range. */
        String percent() {
            return ratios.isEmpty() ? "n/a" : String.format(Locale.ROOT, "%.0f%% (%.0f–%.0f%%)", 100 * median(),
                    100 * min(), 100 * max());
        }
    }

    private List<Leasing> leasing() {
        List<Leasing> out = new ArrayList<>();
        for (LimiterSuite.Row r : cells) {
            if (!r.leased()) {
                continue;
            }
            String plainName = LimiterSuite.plainOf(r.contender());
            LimiterSuite.Row plain = plainName == null ? null : find(r.keySet(), r.concurrency(), plainName).orElse(null);
            out.add(new Leasing(r, plain, plain == null ? List.of() : Paired.of(r, plain).ratios()));
        }
        return out;
    }

    private Optional<LimiterSuite.Row> find(String keySet, int concurrency, String contender) {
        return cells.stream().filter(r -> r.keySet().equals(keySet) && r.concurrency() == concurrency
                && r.contender().equals(contender)).findFirst();
    }

    private List<String> keySets() {
        return cells.stream().map(LimiterSuite.Row::keySet).distinct().toList();
    }

    private List<String> contenders() {
        return cells.stream().map(LimiterSuite.Row::contender).distinct().toList();
    }

    private List<Integer> concurrencies() {
        return cells.stream().map(LimiterSuite.Row::concurrency).distinct().toList();
    }

    private int maxConcurrency() {
        return cells.stream().mapToInt(LimiterSuite.Row::concurrency).max().orElse(0);
    }

    /**
     * One line per cell, medians of its repetitions. The columns after {@code redis_cpu_us_per_call} came later and
     * are only added at the end: the range of decisions/s, the repetitions, the calls decided and admitted (sums
     * over the measured periods), and the calls each connection carried when counted ({@code 120/118}, else empty);
     * then the decisions/s of each repetition in the order they ran ({@code /}-separated), Redis commands and script
     * calls per decision (every row), and for leased rows the slices per decision, the share of decisions made from a
     * slice, the mean units per slice and the share of leased units given back (empty for other rows); then the JIT
     * compiler threads' CPU per decision and the JVM's without it (empty off Linux), and the row's decisions/s over
     * the floor's ({@link Floors#BATCH_GET_SET}, same key set and callers) repetition by repetition: the median and the
     * range of those pairs (empty without the floor); then decisions per script call, and for the cluster rows their
     * decisions/s over their one-Redis row's, paired (median, min, max; empty for the other rows).
     * CPU is per decision; {@code NaN} when no call was decided.
     */
    private String csv() {
        StringBuilder out = new StringBuilder(
                "key_set,callers,contender,decisions_per_s,p50_us,p99_us,p999_us,failed,jvm_cpu_us_per_call,redis_cpu_us_per_call,"
                        + "decisions_per_s_min,decisions_per_s_max,repetitions,decided,admitted,calls_per_connection,"
                        + "decisions_per_s_runs,redis_commands_per_decision,script_calls_per_decision,slices_per_decision,"
                        + "from_slice_share,units_per_slice,returned_share,jit_cpu_us_per_call,jvm_cpu_us_per_call_without_jit,"
                        + "vs_floor_paired,vs_floor_paired_min,vs_floor_paired_max,decisions_per_script_call,"
                        + "vs_one_redis_paired,vs_one_redis_paired_min,vs_one_redis_paired_max\n");
        for (LimiterSuite.Row r : cells) {
            // contender names may hold commas: quoted, as CSV has it
            out.append(String.format(Locale.ROOT, "%s,%d,\"%s\",%.1f,%.0f,%.0f,%.0f,%d,%.2f,%.2f,%.1f,%.1f,%d,%d,%d,%s",
                    r.keySet().replace(",", ""), r.concurrency(), r.contender(), r.decisionsPerSecond(), r.p50(), r.p99(),
                    r.p999(), r.failures(), r.jvmCpuMicros(), r.redisCpuMicros(), r.minDecisionsPerSecond(),
                    r.maxDecisionsPerSecond(), r.repetitions(), r.decided(), r.admitted(),
                    java.util.Arrays.stream(r.callsPerConnection()).mapToObj(Long::toString)
                            .collect(java.util.stream.Collectors.joining("/"))));
            out.append(String.format(Locale.ROOT, ",%s,%.3e,%.3e", r.rates().stream()
                    .map(x -> String.format(Locale.ROOT, "%.1f", x)).collect(java.util.stream.Collectors.joining("/")),
                    r.perDecision(LimiterSuite.Tally.REDIS_COMMANDS), r.perDecision(LimiterSuite.Tally.SCRIPT_CALLS)));
            if (r.leased()) {
                out.append(String.format(Locale.ROOT, ",%.3e,%.6f,%.1f,%.4f", r.perDecision(LimiterSuite.Tally.SLICES),
                        r.fromSlice(), r.unitsPerSlice(), r.returnedShare()));
            } else {
                out.append(",,,,");
            }
            out.append(String.format(Locale.ROOT, ",%s,%s", csvNumber(r.jitCpuMicros(), "%.3f"),
                    csvNumber(r.jvmCpuWithoutJitMicros(), "%.2f")));
            Paired vsFloor = find(r.keySet(), r.concurrency(), Floors.BATCH_GET_SET).map(f -> Paired.of(r, f))
                    .orElse(new Paired(List.of()));
            out.append(String.format(Locale.ROOT, ",%s,%s,%s", csvNumber(vsFloor.median(), "%.4f"),
                    csvNumber(vsFloor.min(), "%.4f"), csvNumber(vsFloor.max(), "%.4f")));
            String oneName = LimiterSuite.oneRedisOf(r.contender());
            Paired vsOne = oneName == null ? new Paired(List.of())
                    : find(r.keySet(), r.concurrency(), oneName).map(o -> Paired.of(r, o)).orElse(new Paired(List.of()));
            out.append(String.format(Locale.ROOT, ",%s,%s,%s,%s", csvNumber(decisionsPerScriptCall(r), "%.3f"),
                    csvNumber(vsOne.median(), "%.4f"), csvNumber(vsOne.min(), "%.4f"), csvNumber(vsOne.max(), "%.4f")));
            out.append(System.lineSeparator());
        }
        return out.toString();
    }

    /** A number for the CSV; empty when not measured (NaN). */
    private static String csvNumber(double value, String format) {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, format, value);
    }

    /** Admitted of decided; in bold where they differ. */
    private static String admitted(LimiterSuite.Row r) {
        String text = String.format(Locale.ROOT, "%,d of %,d", r.admitted(), r.decided());
        return r.allAdmitted() ? text : "**" + text + "**";
    }

    /** A count per decision, e.g. Redis commands; n/a when nothing was decided. */
    private static String perDecision(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        if (value >= 0.1 || value == 0) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        // small: two significant digits, written out (0.0000066, not 6.6e-06)
        return new java.math.BigDecimal(value).round(new java.math.MathContext(2)).toPlainString();
    }

    /** A figure of the JIT's CPU, finer than the others (a tick is 10 ms); n/a when not counted (off Linux). */
    private static String jitMicros(double value) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.2f", value);
    }

    /** A CPU figure; n/a when nothing was decided. */
    private static String micros(double value) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String commandLine() {
        return ProcessHandle.current().info().commandLine().orElse("java -jar quarkus-run.jar")
                .replace(System.getProperty("user.dir") + "/", "");
    }

    private static String pct(double ratio) {
        return String.format(Locale.ROOT, "%.0f%%", ratio * 100);
    }

    private static String mark(boolean met) {
        return met ? "yes" : "**no**";
    }
}
