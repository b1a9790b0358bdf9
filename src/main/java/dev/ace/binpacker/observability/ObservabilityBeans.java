package dev.ace.binpacker.observability;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** CDI producers: one {@link Readiness}, and {@link Metrics} backed by Micrometer. */
@ApplicationScoped
public class ObservabilityBeans {
    @Produces
    @Singleton
    Readiness readiness() { return new Readiness(); }

    @Produces
    @Singleton
    MicrometerMetrics metrics(MeterRegistry registry, Readiness readiness) {
        MicrometerMetrics m = new MicrometerMetrics(registry);
        m.bindReadiness(readiness::allReady);
        return m;
    }
}
