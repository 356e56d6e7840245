package dev.ratelimit.runtime.openapi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A {@code paths} pattern covers a document operation when some path of its template matches the pattern. */
class PathTemplatesTest {

    @Test
    void aPrefixCoversItselfAndWhatIsBelowIt() {
        assertTrue(PathTemplates.mayMatch("/public/*", "/public"));
        assertTrue(PathTemplates.mayMatch("/public/*", "/public/{id}"));
        assertTrue(PathTemplates.mayMatch("/public/*", "/public/a/{id}/b"));
        assertTrue(PathTemplates.mayMatch("/*", "/anything/{x}"));
        assertFalse(PathTemplates.mayMatch("/public/*", "/publicity"));
        assertFalse(PathTemplates.mayMatch("/public/*", "/other/public"));
    }

    @Test
    void aVariableMayStandForTheSegmentAPatternNames() {
        assertTrue(PathTemplates.mayMatch("/admin/*", "/{section}"));
        assertTrue(PathTemplates.mayMatch("/admin/*", "/{section}/users"));
        assertTrue(PathTemplates.mayMatch("/pub/*", "/pu{x}/items"));
        assertTrue(PathTemplates.mayMatch("/orders/42", "/orders/{id}"));
        // one variable is one segment
        assertFalse(PathTemplates.mayMatch("/a/b/*", "/{x}"));
        assertFalse(PathTemplates.mayMatch("/a/b", "/{x}"));
    }

    @Test
    void anExactPathCoversOnlyThatPath() {
        assertTrue(PathTemplates.mayMatch("/api/login", "/api/login"));
        assertFalse(PathTemplates.mayMatch("/api/login", "/api/login/{step}"));
        assertFalse(PathTemplates.mayMatch("/api/login", "/api"));
    }
}
