package dev.ratelimit.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;

/**
 * The rate-limit decisions recorded on a recent request's server span: the {@code ratelimit.decision} events, each as
 * its attributes. The request is found by its query string ({@code url.query}), which a caller makes unique.
 */
@Path("/traces/decisions")
public class TraceResource {

    private static final AttributeKey<String> URL_QUERY = AttributeKey.stringKey("url.query");

    @Inject
    RecentSpans spans;

    /** The decision events of the server span of the request whose query string was {@code query}; empty if none. */
    @GET
    public List<Map<String, Object>> of(@QueryParam("query") String query) {
        List<Map<String, Object>> decisions = new ArrayList<>();
        for (SpanData s : spans.all()) {
            if (s.getKind() == SpanKind.SERVER && query != null && query.equals(s.getAttributes().get(URL_QUERY))) {
                for (EventData e : s.getEvents()) {
                    if (e.getName().equals("ratelimit.decision")) {
                        Map<String, Object> attributes = new LinkedHashMap<>();
                        e.getAttributes().forEach((k, v) -> attributes.put(k.getKey(), v));
                        decisions.add(attributes);
                    }
                }
            }
        }
        return decisions;
    }
}
