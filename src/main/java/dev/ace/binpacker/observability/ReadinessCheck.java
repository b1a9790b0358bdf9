package dev.ace.binpacker.observability;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/** {@code /q/health/ready}: up only when the inventory is loaded (standalone) or every informer has synced. */
@org.eclipse.microprofile.health.Readiness
@ApplicationScoped
public class ReadinessCheck implements HealthCheck {
    @Inject
    Readiness readiness;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("ace-inventory");
        readiness.snapshot().forEach(b::withData);
        return b.status(readiness.allReady()).build();
    }
}
