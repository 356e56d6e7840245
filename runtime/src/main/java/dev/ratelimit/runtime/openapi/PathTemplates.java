package dev.ratelimit.runtime.openapi;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import dev.ratelimit.runtime.policy.PathPattern;

/**
 * Whether a {@code paths} pattern of a policy may apply to an operation of the OpenAPI document, known by its path
 * template ({@code /orders/{id}}): whether some path the template stands for {@link PathPattern#matches matches} the
 * pattern. A template variable stands for one non-empty segment, as in JAX-RS without a regular expression (the
 * document no longer shows one).
 */
final class PathTemplates {

    /** A template variable; literal parts are kept as strings. */
    private static final Object VARIABLE = new Object();

    private PathTemplates() {
    }

    /** Whether some path of {@code template} matches {@code pattern}. */
    static boolean mayMatch(String pattern, String template) {
        List<Object> parts = parse(template);
        if (pattern.endsWith("/*")) {
            String prefix = pattern.substring(0, pattern.length() - 2);
            // the prefix itself, or anything below it
            return prefix.isEmpty() || regex(parts).matcher(prefix).matches() || startsWith(parts, 0, prefix + '/', 0);
        }
        Pattern paths = regex(parts);
        return paths.matcher(pattern).matches() || paths.matcher(pattern + '/').matches();
    }

    /** Whether {@code parts} from {@code p} can produce a string that starts with {@code s} from {@code i}. */
    private static boolean startsWith(List<Object> parts, int p, String s, int i) {
        if (i == s.length()) {
            return true;
        }
        if (p == parts.size()) {
            return false;
        }
        Object part = parts.get(p);
        if (part == VARIABLE) {
            // one or more characters of a segment; s ends with '/', which no variable can take
            for (int end = i + 1; end <= s.length() && s.charAt(end - 1) != '/'; end++) {
                if (startsWith(parts, p + 1, s, end)) {
                    return true;
                }
            }
            return false;
        }
        String literal = (String) part;
        int n = Math.min(literal.length(), s.length() - i);
        if (!literal.regionMatches(0, s, i, n)) {
            return false;
        }
        return n < literal.length() || startsWith(parts, p + 1, s, i + n);
    }

    private static Pattern regex(List<Object> parts) {
        StringBuilder sb = new StringBuilder();
        for (Object part : parts) {
            sb.append(part == VARIABLE ? "[^/]+" : Pattern.quote((String) part));
        }
        return Pattern.compile(sb.toString());
    }

    /** Literals and variables; a variable's braces may nest (a regular expression with a quantifier). */
    private static List<Object> parse(String template) {
        List<Object> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int depth = 0;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c == '{') {
                if (depth++ == 0 && literal.length() > 0) {
                    parts.add(literal.toString());
                    literal.setLength(0);
                }
            } else if (c == '}' && depth > 0) {
                if (--depth == 0) {
                    parts.add(VARIABLE);
                }
            } else if (depth == 0) {
                literal.append(c);
            }
        }
        if (literal.length() > 0) {
            parts.add(literal.toString());
        }
        return parts;
    }
}
