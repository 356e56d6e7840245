package dev.ratelimit.runtime.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.runtime.config.RateLimitBuildTimeConfig;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.key.KeyResolution;
import dev.ratelimit.runtime.key.KeySource;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.ManagementInterface;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The operators' endpoint ({@code quarkus.ratelimit.admin.enabled}) on the management interface, under
 * {@code <management root>/ratelimit/}: the policies, a key's state and its reset, a key's override, the keys denied
 * most lately. JSON in and out. Each operation needs an authenticated caller with the read or the write role; a caller
 * without credentials is challenged (401), one without the role refused (403). Identities never reach the log in clear:
 * a change is logged with a hash of the identity.
 */
@Singleton
public class AdminEndpoint {

    private static final Logger LOG = Logger.getLogger(AdminEndpoint.class);
    private static final String JSON = "application/json";

    private final DefaultRateLimiter limiter;
    private final KeyResolution keys;
    private final String readRole;
    private final String writeRole;
    private final String root;
    /** Whether the management interface takes Basic credentials: a 401 then says so. */
    private final boolean basic;

    AdminEndpoint(DefaultRateLimiter limiter, KeyResolution keys, RateLimitBuildTimeConfig config,
            @ConfigProperty(name = "quarkus.management.root-path", defaultValue = "/q") String managementRoot,
            @ConfigProperty(name = "quarkus.management.auth.basic", defaultValue = "false") boolean basic) {
        this.basic = basic;
        this.limiter = limiter;
        this.keys = keys;
        this.readRole = config.admin().readRole();
        this.writeRole = config.admin().writeRole();
        String r = managementRoot.endsWith("/") ? managementRoot.substring(0, managementRoot.length() - 1)
                : managementRoot;
        this.root = (r.startsWith("/") || r.isEmpty() ? r : "/" + r) + "/ratelimit";
    }

    /** The routes, on the management router (the event is fired only when the management interface is enabled). */
    void routes(@Observes ManagementInterface management) {
        Router router = management.router();
        String policy = root + "/policies/:policy";
        String key = policy + "/keys/:identity";
        router.get(root + "/policies").handler(rc -> allowed(rc, false, this::policies));
        router.get(key).handler(rc -> allowed(rc, false, this::state));
        router.delete(key).handler(rc -> allowed(rc, true, this::reset));
        router.put(key + "/override").handler(BodyHandler.create().setBodyLimit(4096))
                .handler(rc -> allowed(rc, true, this::setOverride));
        router.delete(key + "/override").handler(rc -> allowed(rc, true, this::clearOverride));
        router.get(policy + "/limited").handler(rc -> allowed(rc, false, this::limited));
        LOG.infof("Rate-limit admin endpoint at %s on the management interface", root);
    }

    /** Runs {@code op} for a caller with the role it needs; challenges (401) or refuses (403) any other. */
    private void allowed(RoutingContext rc, boolean write, Consumer<RoutingContext> op) {
        Uni<SecurityIdentity> deferred = rc.get(QuarkusHttpUser.DEFERRED_IDENTITY_KEY);
        Uni<SecurityIdentity> identity = deferred != null ? deferred
                : Uni.createFrom().item(rc.user() instanceof QuarkusHttpUser u ? u.getSecurityIdentity() : null);
        identity.subscribe().with(id -> {
            if (id == null || id.isAnonymous()) {
                challenge(rc);
            } else if (id.hasRole(writeRole) || !write && id.hasRole(readRole)) {
                try {
                    op.accept(rc);
                } catch (IllegalArgumentException | IllegalStateException e) {
                    error(rc, 400, e.getMessage());
                }
            } else {
                error(rc, 403, "This operation needs the role '" + (write ? writeRole : readRole) + "'"
                        + (write ? "" : " or '" + writeRole + "'") + " (quarkus.ratelimit.admin."
                        + (write ? "write-role" : "read-role") + ")");
            }
        }, failure -> challenge(rc));
    }

    /** 401, with the Basic challenge when the management interface takes Basic credentials. */
    private void challenge(RoutingContext rc) {
        if (basic) {
            rc.response().putHeader("WWW-Authenticate", "Basic realm=\"Quarkus\"");
        }
        error(rc, 401, "Authenticate: the rate-limit admin endpoint answers callers with the role '" + readRole
                + "' (reading) or '" + writeRole + "'");
    }

    private void policies(RoutingContext rc) {
        PolicyRegistry registry = limiter.policies();
        JsonArray all = new JsonArray();
        for (Policy p : new TreeMap<>(byName(registry)).values()) {
            JsonObject plans = new JsonObject();
            new TreeMap<>(registry.plans(p.name())).forEach((name, plan) -> plans.put(name, values(plan)));
            all.add(values(p).put("name", p.name()).put("algorithm", p.algorithm().configName()).put("key", p.key())
                    .put("mode", p.shadow() ? "shadow" : "enforce")
                    .put("onFailure", p.onFailure().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'))
                    .put("blockFor", p.blockFor().toString()).put("overrides", p.overrides())
                    .put("lease", p.lease() == Policy.LEASE_OFF ? "off" : p.lease() == Policy.LEASE_AUTO ? "auto"
                            : String.valueOf(p.lease()))
                    .put("maxWait", p.maxWait().toString()).put("plans", plans));
        }
        json(rc, 200, new JsonObject().put("policies", all));
    }

    private static Map<String, Policy> byName(PolicyRegistry registry) {
        Map<String, Policy> m = new TreeMap<>();
        for (Policy p : registry.all()) {
            m.put(p.name(), p);
        }
        return m;
    }

    private static JsonObject values(Policy p) {
        return new JsonObject().put("limit", p.limit()).put("window", p.window().toString())
                .put("windowMillis", p.window().toMillis()).put("burst", p.burst()).put("capacity", p.capacity());
    }

    /** The policy the path names, or null when none (answered 404). */
    private Policy policy(RoutingContext rc) {
        String name = rc.pathParam("policy");
        if (!limiter.policies().contains(name)) {
            error(rc, 404, "Unknown policy '" + name + "': the configured policies are "
                    + String.join(", ", byName(limiter.policies()).keySet()));
            return null;
        }
        return limiter.policies().get(name);
    }

    /** The identity the path names, as the policy counts it ({@code acme} for a header key: {@code hdr=acme}). */
    private String identity(RoutingContext rc, Policy p) {
        String value = rc.pathParam("identity");
        String identity = value == null || value.isBlank() ? null
                : KeySource.parse(p.key()).identityOf(value, keys);
        if (identity == null) {
            throw new IllegalArgumentException("'" + value + "' is no identity of policy '" + p.name() + "' (key "
                    + p.key() + "): give " + KeySource.parse(p.key()).example().replace("'", "")
                    + ", or the value alone");
        }
        return identity;
    }

    private void state(RoutingContext rc) {
        Policy p = policy(rc);
        if (p == null) {
            return;
        }
        String identity = identity(rc, p);
        String plan = rc.queryParams().get("plan");
        RateLimitCheck check = RateLimitCheck.of(p.name(), identity);
        if (plan != null && !plan.isBlank()) {
            check = check.onPlan(plan);
        }
        Uni<Optional<RateLimitOverride>> override = p.overrides() ? limiter.override(p.name(), identity)
                : Uni.createFrom().item(Optional.empty());
        Uni.combine().all().unis(limiter.state(check), override).asTuple().subscribe().with(t -> {
            JsonObject state = state(p, identity, t.getItem1());
            t.getItem2().ifPresent(o -> state.put("override", override(o)));
            json(rc, 200, state);
        }, f -> error(rc, 503, "The rate-limit backend did not answer: " + f.getMessage()));
    }

    private static JsonObject state(Policy p, String identity, PolicyDecision d) {
        return new JsonObject().put("policy", p.name()).put("identity", identity).put("allowed", d.allowed())
                .put("remaining", d.remaining()).put("limit", d.limit()).put("window", d.window().toString())
                .put("retryAfterMillis", d.retryAfter().toMillis()).put("resetMillis", d.reset().toMillis());
    }

    private static JsonObject override(RateLimitOverride o) {
        JsonObject j = new JsonObject();
        if (o.limit() != null) {
            j.put("limit", o.limit());
        }
        if (o.window() != null) {
            j.put("window", o.window().toString());
        }
        if (o.burst() != null) {
            j.put("burst", o.burst());
        }
        if (o.plan() != null) {
            j.put("plan", o.plan());
        }
        if (o.expiresAt() != null) {
            j.put("expiresAt", o.expiresAt().toString());
        }
        return j;
    }

    private void reset(RoutingContext rc) {
        Policy p = policy(rc);
        if (p == null) {
            return;
        }
        String identity = identity(rc, p);
        limiter.reset(p.name(), identity).chain(() -> limiter.state(p.name(), identity)).subscribe().with(d -> {
            logChange("reset", p, identity, rc);
            json(rc, 200, state(p, identity, d).put("reset", true));
        }, f -> error(rc, 503, "The rate-limit backend did not answer: " + f.getMessage()));
    }

    private void setOverride(RoutingContext rc) {
        Policy p = policy(rc);
        if (p == null) {
            return;
        }
        String identity = identity(rc, p);
        JsonObject body;
        try {
            body = rc.body().asJsonObject();
        } catch (RuntimeException e) {
            body = null;
        }
        if (body == null) {
            throw new IllegalArgumentException("Send a JSON object: {\"limit\": 600, \"window\": \"PT1M\", \"burst\": "
                    + "600, \"plan\": \"gold\", \"expiresAfter\": \"P30D\"} (any of them)");
        }
        RateLimitOverride o = null;
        if (body.getString("plan") != null) {
            o = RateLimitOverride.ofPlan(body.getString("plan"));
        }
        if (body.getValue("limit") != null) {
            o = o == null ? RateLimitOverride.ofLimit(body.getLong("limit")) : o.withLimit(body.getLong("limit"));
        }
        if (body.getString("window") != null) {
            Duration w = Duration.parse(body.getString("window"));
            o = o == null ? RateLimitOverride.ofWindow(w) : o.withWindow(w);
        }
        if (body.getValue("burst") != null) {
            o = o == null ? RateLimitOverride.ofBurst(body.getLong("burst")) : o.withBurst(body.getLong("burst"));
        }
        if (o == null) {
            throw new IllegalArgumentException("Set at least one of limit, window, burst, plan");
        }
        if (body.getString("expiresAfter") != null) {
            o = o.expiringAfter(Duration.parse(body.getString("expiresAfter")));
        } else if (body.getString("expiresAt") != null) {
            o = o.until(Instant.parse(body.getString("expiresAt")));
        }
        RateLimitOverride set = o;
        limiter.setOverride(p.name(), identity, set).subscribe().with(x -> {
            logChange("override set", p, identity, rc);
            json(rc, 200, new JsonObject().put("policy", p.name()).put("identity", identity).put("override",
                    override(set)));
        }, f -> error(rc, f instanceof IllegalArgumentException || f instanceof IllegalStateException ? 400 : 503,
                f.getMessage()));
    }

    private void clearOverride(RoutingContext rc) {
        Policy p = policy(rc);
        if (p == null) {
            return;
        }
        String identity = identity(rc, p);
        limiter.clearOverride(p.name(), identity).subscribe().with(x -> {
            logChange("override cleared", p, identity, rc);
            json(rc, 200, new JsonObject().put("policy", p.name()).put("identity", identity).put("cleared", true));
        }, f -> error(rc, f instanceof IllegalStateException ? 400 : 503, f.getMessage()));
    }

    private void limited(RoutingContext rc) {
        Policy p = policy(rc);
        if (p == null) {
            return;
        }
        String most = rc.queryParams().get("most");
        int n = most == null ? 20 : Math.max(1, Math.min(100, Integer.parseInt(most)));
        limiter.limited(p.name(), n).subscribe().with(top -> {
            JsonArray keysDenied = new JsonArray();
            top.forEach(e -> keysDenied.add(new JsonObject().put("identity", e.getKey()).put("denials", e.getValue())));
            json(rc, 200, new JsonObject().put("policy", p.name()).put("minutes", 5).put("keys", keysDenied));
        }, f -> error(rc, 503, "The rate-limit backend did not answer: " + f.getMessage()));
    }

    /** Logs a change by whom and of which key, the identity hashed: the log never holds one in clear. */
    private static void logChange(String what, Policy p, String identity, RoutingContext rc) {
        String who = rc.user() instanceof QuarkusHttpUser u && u.getSecurityIdentity() != null
                ? u.getSecurityIdentity().getPrincipal().getName() : "?";
        LOG.infof("Rate-limit admin: %s for policy '%s', identity sha256:%s, by '%s'", what, p.name(),
                sha256(identity), who);
    }

    static String sha256(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void json(RoutingContext rc, int status, JsonObject body) {
        if (rc.response().ended()) {
            return;
        }
        rc.response().setStatusCode(status).putHeader("Content-Type", JSON).end(body.encode());
    }

    private static void error(RoutingContext rc, int status, String message) {
        json(rc, status, new JsonObject().put("status", status).put("error", message == null ? "" : message));
    }
}
