package dev.ace.binpacker.web;

import dev.ace.binpacker.admission.WorkloadAdmission;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** The HTTPS edge: {@code POST /mutate}, {@code POST /validate} and {@code POST /validate-workloads}, answered by {@link AdmissionEndpoint}. */
@Path("/")
public class AdmissionResource {
    /** controller-runtime's limit: an AdmissionReview of a Pod is far smaller. */
    public static final int MAX_BODY = 7 * 1024 * 1024;

    @Inject
    AdmissionEndpoint endpoint;

    @POST
    @Path("mutate")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response mutate(@HeaderParam("Content-Type") String contentType, @HeaderParam(WarmUpMark.HEADER) String warmUp, byte[] body) {
        return respond(endpoint.answer("mutate", contentType, body, warmUp));
    }

    @POST
    @Path("validate")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response validate(@HeaderParam("Content-Type") String contentType, @HeaderParam(WarmUpMark.HEADER) String warmUp, byte[] body) {
        return respond(endpoint.answer("validate", contentType, body, warmUp));
    }

    /** Workload objects (Deployment, Job, LeaderWorkerSet...): their pod templates judged at apply time. */
    @POST
    @Path("validate-workloads")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response validateWorkloads(@HeaderParam("Content-Type") String contentType, @HeaderParam(WarmUpMark.HEADER) String warmUp, byte[] body) {
        return respond(endpoint.answer(WorkloadAdmission.WEBHOOK, contentType, body, warmUp));
    }

    private static Response respond(AdmissionEndpoint.Reply r) {
        return Response.status(r.status()).type(MediaType.APPLICATION_JSON_TYPE).entity(r.json()).build();
    }
}
