package io.readpast.testsupport;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The span exporter of the in-process tests (the test profile turns the SDK on and OTLP off):
 * Quarkus exports through every SpanExporter bean, so the spans land here.
 */
public class InMemorySpans {

    @Produces
    @Singleton
    InMemorySpanExporter exporter() {
        return InMemorySpanExporter.create();
    }
}
