package dev.ace.binpacker.web;

import dev.ace.binpacker.cluster.AceConfig;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.timeout.IdleStateHandler;
import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;

/**
 * A connection that never sends a request cannot hold one of the {@code quarkus.http.limits.max-connections} slots for
 * long (issue 34: 400 idle handshaken connections held all 256 slots for the 120 s idle timeout, and no new caller was
 * answered).
 * <ul>
 * <li>The TLS handshake must finish within {@code ace.connections.handshake-timeout} (Vert.x closes the connection
 * otherwise); a TCP connection that sends nothing is closed then too.</li>
 * <li>The HTTPS server's idle timeout is {@code ace.connections.first-request-timeout}: a handshaken connection that
 * sends no request within it is closed. On a connection's first request, {@link #served} gives the connection the
 * configured {@code quarkus.http.idle-timeout} instead, so the API server's keep-alive HTTP/1.1 and HTTP/2 connections
 * live as long as before.</li>
 * </ul>
 * Vert.x 4.5 has no per-connection idle timeout, so {@link #served} replaces the connection's Netty
 * {@code IdleStateHandler} (named {@code idle} by Vert.x's HttpServerWorker), reached through Vert.x's
 * {@code ConnectionBase}; a connection of another kind is left with the short timeout, never with none.
 */
@ApplicationScoped
public class ConnectionLimits implements HttpServerOptionsCustomizer {
    /** Vert.x's name for the idle handler it adds to every HTTP/1.1 and HTTP/2 server connection. */
    static final String IDLE = "idle";

    @Inject
    AceConfig ace;

    /** {@code quarkus.http.idle-timeout} in milliseconds, for connections that have sent a request. */
    private volatile long servedIdleMillis;

    @Override
    public void customizeHttpsServer(HttpServerOptions options) {
        long configured = options.getIdleTimeoutUnit().toMillis(options.getIdleTimeout());
        long first = ace.connections().firstRequestTimeout().toMillis();
        long handshake = ace.connections().handshakeTimeout().toMillis();
        if (first <= 0 || handshake <= 0) {
            throw new IllegalArgumentException("ace.connections.first-request-timeout and handshake-timeout must be positive, got "
                    + ace.connections().firstRequestTimeout() + " and " + ace.connections().handshakeTimeout());
        }
        servedIdleMillis = configured;
        if (configured <= 0 || first < configured) {
            options.setIdleTimeoutUnit(TimeUnit.MILLISECONDS).setIdleTimeout((int) first);
        }
        options.setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS).setSslHandshakeTimeout(handshake);
    }

    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(this::onRequest);
    }

    void onRequest(RoutingContext ctx) {
        served(ctx.request().connection(), servedIdleMillis);
        ctx.next();
    }

    /** Gives a connection that has sent a request the idle timeout of served connections (0: none). */
    static void served(HttpConnection connection, long idleMillis) {
        if (!(connection instanceof ConnectionBase base)) return;
        ChannelPipeline pipeline = base.channel().pipeline();
        ChannelHandler current = pipeline.get(IDLE);
        if (!(current instanceof IdleStateHandler idle) || idle.getAllIdleTimeInMillis() == idleMillis) return;
        if (idleMillis <= 0) pipeline.remove(IDLE);
        else pipeline.replace(IDLE, IDLE, new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS));
    }
}
