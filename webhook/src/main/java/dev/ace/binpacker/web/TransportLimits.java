package dev.ace.binpacker.web;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * What a caller may cost the webhook before any admission logic runs (DESIGN "What bad input gets").
 * <ul>
 * <li>413 for a body over 7 MiB on HTTP/2 too. The API server calls webhooks over HTTP/2; Quarkus' own
 * limit (and RESTEasy's, for a body without a length) answers with {@code Connection: close} and
 * closes the connection, which HTTP/2 forbids: the client got a GOAWAY for the whole connection,
 * every other admission on it included, and never a 413. Here the oversized stream gets its 413 and
 * ends alone. HTTP/1.1 is left to Quarkus, whose answer suits it. An HTTP/2 body sent without a
 * length (the API server always sends one) is read here with the same bound, and answered here,
 * since the REST layer cannot take a body already read.</li>
 * <li>A body the REST layer reads waits at most {@code quarkus.http.read-timeout} (10 s) for each
 * read, then the connection is closed; a connection that served a request and went silent is closed after
 * {@code quarkus.http.idle-timeout}, one that never sent a request much sooner ({@link ConnectionLimits}). The API
 * server gives a webhook at most 30 s, so nothing it sends is cut.</li>
 * </ul>
 */
@ApplicationScoped
public class TransportLimits {
    private static final String BUFFERED = "ace.buffered-body";

    private final BodyHandler bounded = BodyHandler.create(false).setBodyLimit(AdmissionResource.MAX_BODY).setHandleFileUploads(false);

    @Inject
    AdmissionEndpoint endpoint;

    void install(@Observes Router router) {
        router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 2).handler(this::check).failureHandler(ctx -> {
            if (ctx.statusCode() == 413) tooLarge(ctx, "more than " + AdmissionResource.MAX_BODY + " bytes");
            else ctx.next();
        });
        router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1).handler(this::serveBuffered);
    }

    void check(RoutingContext ctx) {
        HttpServerRequest req = ctx.request();
        if (req.version() != HttpVersion.HTTP_2) {
            ctx.next();
            return;
        }
        String length = req.getHeader(HttpHeaderNames.CONTENT_LENGTH);
        if (length != null) {
            long n;
            try {
                n = Long.parseLong(length.trim());
            } catch (NumberFormatException e) {
                n = -1;
            }
            if (n > AdmissionResource.MAX_BODY) tooLarge(ctx, n + " bytes");
            else ctx.next();
            return;
        }
        if (req.method() != HttpMethod.POST) {
            ctx.next();
            return;
        }
        ctx.put(BUFFERED, Boolean.TRUE);
        bounded.handle(ctx); // reads the stream; past the limit it fails with 413, answered by the failure handler
    }

    /** An HTTP/2 body read by {@link #check}: answered off the event loop (a ledger commit may be an API call). */
    void serveBuffered(RoutingContext ctx) {
        if (ctx.get(BUFFERED) == null) {
            ctx.next();
            return;
        }
        String path = ctx.normalizedPath();
        String webhook = switch (path) {
            case "/mutate" -> "mutate";
            case "/validate" -> "validate";
            case "/" + dev.ace.binpacker.admission.WorkloadAdmission.WEBHOOK -> dev.ace.binpacker.admission.WorkloadAdmission.WEBHOOK;
            default -> null;
        };
        if (webhook == null) {
            reply(ctx, endpoint.error(404, "no such endpoint: POST " + path));
            return;
        }
        byte[] body = ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes();
        String type = ctx.request().getHeader(HttpHeaderNames.CONTENT_TYPE);
        String warmUp = ctx.request().getHeader(WarmUpMark.HEADER);
        ctx.vertx().executeBlocking(() -> endpoint.answer(webhook, type, body, warmUp), false).onComplete(ar -> {
            if (ar.succeeded()) reply(ctx, ar.result());
            else ctx.fail(ar.cause());
        });
    }

    private static void reply(RoutingContext ctx, AdmissionEndpoint.Reply r) {
        if (ctx.response().ended()) return;
        ctx.response().setStatusCode(r.status()).putHeader(HttpHeaderNames.CONTENT_TYPE, "application/json").end(r.json());
    }

    private static void tooLarge(RoutingContext ctx, String size) {
        if (ctx.response().ended()) return;
        JsonObject body = new JsonObject().put("code", 413).put("message", "body of " + size + " is over the 7 MiB limit");
        // HTTP/2 ends just this stream; the connection and the admissions sharing it go on.
        ctx.response().setStatusCode(413).putHeader(HttpHeaderNames.CONTENT_TYPE, "application/json").end(body.encode());
    }
}
