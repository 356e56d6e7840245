package dev.ratelimit.runtime.policy;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;

import dev.ratelimit.KeyResolver;
import io.smallrye.common.annotation.Identifier;

/**
 * The syntax of a policy's {@code key}: {@code ip}, {@code principal}, {@code global},
 * {@code header:<Name>}, or the name of a {@code KeyResolver} bean.
 */
public final class KeySource {

    public static final String IP = "ip";
    public static final String PRINCIPAL = "principal";
    public static final String GLOBAL = "global";
    public static final String HEADER_PREFIX = "header:";

    private KeySource() {
    }

    /** A message describing what is wrong with {@code key}, or {@code null} when it is well-formed. */
    public static String validate(String key) {
        if (key == null || key.isBlank()) {
            return "use ip, principal, global, header:<Name> or the name of a KeyResolver bean";
        }
        if (key.startsWith(HEADER_PREFIX)) {
            String header = key.substring(HEADER_PREFIX.length());
            if (!header.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
                return "'" + header + "' is not a valid HTTP header name; use header:<Name>, e.g. header:X-Api-Key";
            }
        }
        return null;
    }

    /** Whether {@code key} names a user's {@code KeyResolver} bean rather than a built-in source. */
    public static boolean isResolverName(String key) {
        return !IP.equals(key) && !PRINCIPAL.equals(key) && !GLOBAL.equals(key) && !key.startsWith(HEADER_PREFIX);
    }

    /** The {@link KeyResolver} bean a key names, by {@code @Identifier} or else {@code @Named}, or {@code null}. */
    public static KeyResolver resolver(Instance<KeyResolver> all, String name) {
        Instance<KeyResolver> byId = all.select(Identifier.Literal.of(name));
        Instance<KeyResolver> found = byId.isResolvable() ? byId : all.select(NamedLiteral.of(name));
        return found.isResolvable() ? found.get() : null;
    }
}
