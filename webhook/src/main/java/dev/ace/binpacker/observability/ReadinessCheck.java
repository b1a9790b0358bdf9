package dev.ace.binpacker.observability;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/**
 * {@code /q/health/ready}: up only when every component of {@link Readiness} is: the inventory
 * (standalone) or the ledger and informers (in a cluster), and the warmed-up HTTPS handler. A failed
 * component shows its last error as {@code <component>-error}.
 */
@org.eclipse.microprofile.health.Readiness
@ApplicationScoped
public class ReadinessCheck implements HealthCheck {
    @Inject
    Readiness readiness;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("ace-inventory");
        readiness.snapshot().forEach(b::withData);
        readiness.errors().forEach((k, v) -> b.withData(k + "-error", v));
        return b.status(readiness.allReady()).build();
    }
}
