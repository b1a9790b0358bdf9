package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.AceConfig;
import io.vertx.core.http.HttpServerOptions;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The HTTPS options ConnectionLimits sets, and the refusal of timeouts that would switch a guard off. */
class ConnectionLimitsTest {
    private static ConnectionLimits limits(Duration firstRequest, Duration handshake) {
        AceConfig.Connections connections = (AceConfig.Connections) Proxy.newProxyInstance(AceConfig.class.getClassLoader(),
                new Class<?>[] {AceConfig.Connections.class}, (p, m, a) -> switch (m.getName()) {
                    case "firstRequestTimeout" -> firstRequest;
                    case "handshakeTimeout" -> handshake;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        AceConfig ace = (AceConfig) Proxy.newProxyInstance(AceConfig.class.getClassLoader(), new Class<?>[] {AceConfig.class},
                (p, m, a) -> {
                    if (m.getName().equals("connections")) return connections;
                    throw new UnsupportedOperationException(m.getName());
                });
        ConnectionLimits l = new ConnectionLimits();
        l.ace = ace;
        return l;
    }

    /** As Quarkus hands them over: quarkus.http.idle-timeout=120s in milliseconds. */
    private static HttpServerOptions quarkusOptions() {
        return new HttpServerOptions().setIdleTimeoutUnit(TimeUnit.MILLISECONDS).setIdleTimeout(120_000);
    }

    @Test
    void the_server_waits_for_a_first_request_and_a_handshake_no_longer_than_configured() {
        HttpServerOptions options = quarkusOptions();
        limits(Duration.ofSeconds(10), Duration.ofSeconds(5)).customizeHttpsServer(options);
        assertEquals(10_000, options.getIdleTimeoutUnit().toMillis(options.getIdleTimeout()));
        assertEquals(5_000, options.getSslHandshakeTimeoutUnit().toMillis(options.getSslHandshakeTimeout()));
    }

    @Test
    void a_first_request_timeout_longer_than_the_idle_timeout_leaves_the_idle_timeout() {
        HttpServerOptions options = quarkusOptions();
        limits(Duration.ofMinutes(5), Duration.ofSeconds(5)).customizeHttpsServer(options);
        assertEquals(120_000, options.getIdleTimeoutUnit().toMillis(options.getIdleTimeout()));
    }

    @Test
    void a_timeout_of_zero_is_refused_with_its_name() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> limits(Duration.ZERO, Duration.ofSeconds(5)).customizeHttpsServer(quarkusOptions()));
        assertTrue(e.getMessage().contains("ace.connections.first-request-timeout"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> limits(Duration.ofSeconds(10), Duration.ZERO).customizeHttpsServer(quarkusOptions()));
    }
}
