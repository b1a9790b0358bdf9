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
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.Locale;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * The HTTPS edge: transport checks only (body present, size, content type, JSON, envelope), then
 * the engine. Every failure here is an HTTP status with a one-line JSON message; the API server
 * then applies the webhook's failurePolicy.
 */
@Path("/")
public class AdmissionResource {
    private static final Logger LOG = Logger.getLogger(AdmissionResource.class);
    /** controller-runtime's limit: an AdmissionReview of a Pod is far smaller. */
    public static final int MAX_BODY = 7 * 1024 * 1024;

    @Inject
    AdmissionEngine engine;
    @Inject
    ReviewCodec codec;
    @Inject
    Metrics metrics;
    @Inject
    WorkloadAdmission workloads;

    @POST
    @Path("mutate")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response mutate(@HeaderParam("Content-Type") String contentType, byte[] body) {
        return serve("mutate", contentType, body, engine::mutate);
    }

    @POST
    @Path("validate")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response validate(@HeaderParam("Content-Type") String contentType, byte[] body) {
        return serve("validate", contentType, body, engine::validate);
    }

    /** Workload objects (Deployment, Job, LeaderWorkerSet...): their pod templates judged at apply time. */
    @POST
    @Path("validate-workloads")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response validateWorkloads(@HeaderParam("Content-Type") String contentType, byte[] body) {
        return serve(WorkloadAdmission.WEBHOOK, contentType, body, workloads::validate);
    }

    private Response serve(String webhook, String contentType, byte[] body, Function<AdmissionRequest, AdmissionResult> handler) {
        long t0 = System.nanoTime();
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith(MediaType.APPLICATION_JSON)) {
            return reject(webhook, t0, 415, "content type must be application/json, got '" + contentType + "'");
        }
        if (body == null || body.length == 0) return reject(webhook, t0, 400, "empty body: expected an AdmissionReview");
        if (body.length > MAX_BODY) return reject(webhook, t0, 413, "body of " + body.length + " bytes is over the 7 MiB limit");
        JsonNode tree;
        try {
            tree = codec.mapper().readTree(body);
        } catch (IOException e) {
            return reject(webhook, t0, 400, "body is not JSON: " + firstLine(e.getMessage()));
        }
        AdmissionRequest request;
        try {
            request = codec.decode(tree);
        } catch (BadReviewException e) {
            return reject(webhook, t0, e.status(), e.getMessage());
        }
        try {
            ObjectNode out = codec.complete(request.uid(), request.apiVersion(), handler.apply(request));
            return Response.ok(out.toString(), MediaType.APPLICATION_JSON_TYPE).build();
        } catch (RuntimeException e) {
            LOG.errorf(e, "%s failed for request uid=%s (%s %s/%s)", webhook, request.uid(), request.operation(),
                    request.namespace(), request.name());
            return error(500, "internal error answering uid " + request.uid() + "; see the webhook log");
        }
    }

    private Response reject(String webhook, long t0, int status, String message) {
        metrics.admission(webhook, "UNKNOWN", "bad_request", false, System.nanoTime() - t0);
        return error(status, message);
    }

    private Response error(int status, String message) {
        ObjectNode o = codec.mapper().createObjectNode();
        o.put("code", status);
        o.put("message", message);
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(o.toString()).build();
    }

    private static String firstLine(String s) {
        if (s == null) return "undecodable";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
