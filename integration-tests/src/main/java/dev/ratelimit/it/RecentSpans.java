package dev.ratelimit.it;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import jakarta.inject.Singleton;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;

/**
 * Keeps the last spans the application ended, in memory, for {@link TraceResource}: the demo shows what the rate
 * limiter adds to a request's trace without a tracing back end (quarkus-opentelemetry picks up span processor beans).
 */
@Singleton
public class RecentSpans implements SpanProcessor {

    private static final int KEPT = 500;

    private final Deque<SpanData> spans = new ArrayDeque<>();

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {
    }

    @Override
    public boolean isStartRequired() {
        return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {
        SpanData data = span.toSpanData();
        synchronized (spans) {
            if (spans.size() == KEPT) {
                spans.removeFirst();
            }
            spans.addLast(data);
        }
    }

    @Override
    public boolean isEndRequired() {
        return true;
    }

    /** The spans kept, oldest first. */
    public List<SpanData> all() {
        synchronized (spans) {
            return new ArrayList<>(spans);
        }
    }
}
