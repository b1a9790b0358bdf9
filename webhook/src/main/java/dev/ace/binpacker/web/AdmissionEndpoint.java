package dev.ace.binpacker.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.admission.BadReviewException;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.admission.WorkloadAdmission;
import dev.ace.binpacker.observability.Metrics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.Locale;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * The transport checks (body present, size, content type, JSON, envelope), then the engine, as an
 * HTTP status and a JSON body: every failure is a status with a one-line JSON message, so the API
 * server applies the webhook's failurePolicy. Shared by the JAX-RS resource and {@link TransportLimits}.
 */
@ApplicationScoped
public class AdmissionEndpoint {
    private static final Logger LOG = Logger.getLogger(AdmissionEndpoint.class);

    /** What the edge answers. */
    public record Reply(int status, String json) {}

    @Inject
    AdmissionEngine engine;
    @Inject
    ReviewCodec codec;
    @Inject
    Metrics metrics;
    @Inject
    WorkloadAdmission workloads;
    @Inject
    ReviewBudget budget;

    @Inject
    WarmUpMark warmUp;

    /**
     * @param webhook      {@code mutate}, {@code validate} or {@code validate-workloads}
     * @param warmUpHeader the request's {@value WarmUpMark#HEADER} header, null when absent
     */
    public Reply answer(String webhook, String contentType, byte[] body, String warmUpHeader) {
        Function<AdmissionRequest, AdmissionResult> handler = switch (webhook) {
            case "mutate" -> engine::mutate;
            case WorkloadAdmission.WEBHOOK -> workloads::validate;
            default -> engine::validate;
        };
        long t0 = System.nanoTime();
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            return reject(webhook, t0, 415, "content type must be application/json, got '" + contentType + "'");
        }
        if (body == null || body.length == 0) return reject(webhook, t0, 400, "empty body: expected an AdmissionReview");
        if (body.length > AdmissionResource.MAX_BODY) return reject(webhook, t0, 413, "body of " + body.length + " bytes is over the 7 MiB limit");
        JsonNode tree;
        try {
            tree = codec.mapper().readTree(body);
        } catch (IOException e) {
            return reject(webhook, t0, 400, "body is not JSON: " + firstLine(e.getMessage()));
        }
        AdmissionRequest request;
        try {
            request = codec.decode(tree);
            if (warmUp.isWarmUp(warmUpHeader)) request = request.asWarmUp();
        } catch (BadReviewException e) {
            return reject(webhook, t0, e.status(), e.getMessage());
        }
        try {
            ObjectNode out = codec.complete(request.uid(), request.apiVersion(), budget.within(request, handler, t0));
            return new Reply(200, out.toString());
        } catch (RuntimeException e) {
            LOG.errorf(e, "%s failed for request uid=%s (%s %s/%s)", webhook, request.uid(), request.operation(),
                    request.namespace(), request.name());
            return error(500, "internal error answering uid " + request.uid() + "; see the webhook log");
        }
    }

    private Reply reject(String webhook, long t0, int status, String message) {
        metrics.admission(webhook, "UNKNOWN", "bad_request", false, System.nanoTime() - t0);
        return error(status, message);
    }

    Reply error(int status, String message) {
        ObjectNode o = codec.mapper().createObjectNode();
        o.put("code", status);
        o.put("message", message);
        return new Reply(status, o.toString());
    }

    private static String firstLine(String s) {
        if (s == null) return "undecodable";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
