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
    Readiness readiness() {
        Readiness r = new Readiness();
        r.expect(Readiness.WARM_UP); // before anything else can report ready: no window where a cold replica looks ready
        return r;
    }

    @Produces
    @Singleton
    MicrometerMetrics metrics(MeterRegistry registry, Readiness readiness) {
        MicrometerMetrics m = new MicrometerMetrics(registry);
        m.bindReadiness(readiness::allReady);
        return m;
    }
}
