package dev.ace.binpacker.web;

import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.HttpServerOptions;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.TimeUnit;

/**
 * A TLS handshake must finish within {@link #HANDSHAKE_SECONDS} (Vert.x waits 10 s by default): a flood of
 * clients that open connections and stall mid-handshake holds the event loops for less time, and with
 * {@code quarkus.http.limits.max-connections} (application.properties) the number of handshakes at once
 * is bounded, so the API server's established HTTP/2 connection keeps being served (issue 17: 2,000
 * simultaneous handshakes once stalled a review for 12-24 s).
 */
@ApplicationScoped
public class HandshakeLimits implements HttpServerOptionsCustomizer {
    static final int HANDSHAKE_SECONDS = 3;

    @Override
    public void customizeHttpsServer(HttpServerOptions options) {
        options.setSslHandshakeTimeout(HANDSHAKE_SECONDS);
        options.setSslHandshakeTimeoutUnit(TimeUnit.SECONDS);
    }
}
