package dev.ace.binpacker.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.flipkart.zjsonpatch.JsonPatch;
import dev.ace.binpacker.admission.Json;
import io.fabric8.kubernetes.api.model.Pod;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.eclipse.microprofile.config.ConfigProvider;

/** Test helpers: post AdmissionReviews over the test HTTPS port, decode and apply patches with zjsonpatch. */
public final class Https {
    public static final ObjectMapper MAPPER = Json.newMapper();
    public static final Path ADMISSION = Path.of("tests", "admission");

    private Https() {}

    public static String baseUrl() {
        int port = ConfigProvider.getConfig().getOptionalValue("quarkus.http.test-ssl-port", Integer.class).orElse(8444);
        return "https://localhost:" + port;
    }

    public static Response post(String path, String contentType, byte[] body) {
        RestAssured.useRelaxedHTTPSValidation();
        var spec = RestAssured.given().baseUri(baseUrl()).port(-1);
        if (contentType != null) spec = spec.contentType(contentType);
        return spec.body(body).when().post(path);
    }

    /** A JDK HTTP client that trusts the self-signed test certificate (relaxed validation, as RestAssured's). */
    public static java.net.http.HttpClient jdkClient() {
        return jdkClient(java.net.http.HttpClient.Version.HTTP_1_1);
    }

    /** The same, speaking {@code version} (HTTP/2 is negotiated over TLS with ALPN, as the API server does). */
    public static java.net.http.HttpClient jdkClient(java.net.http.HttpClient.Version version) {
        try {
            javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
            ctx.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
                @Override public void checkClientTrusted(java.security.cert.X509Certificate[] c, String a) {}
                @Override public void checkServerTrusted(java.security.cert.X509Certificate[] c, String a) {}
                @Override public java.security.cert.X509Certificate[] getAcceptedIssuers() { return new java.security.cert.X509Certificate[0]; }
            }}, new java.security.SecureRandom());
            javax.net.ssl.SSLParameters params = new javax.net.ssl.SSLParameters();
            params.setEndpointIdentificationAlgorithm(null);
            // The JDK client offers h2 over ALPN only when these parameters name TLS 1.2 or 1.3; else HTTP/2 silently becomes HTTP/1.1.
            params.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            return java.net.http.HttpClient.newBuilder().sslContext(ctx).sslParameters(params)
                    .version(version).build();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    public static JsonNode postReview(String path, JsonNode review) {
        Response r = post(path, "application/json", review.toString().getBytes());
        if (r.statusCode() != 200) throw new AssertionError("HTTP " + r.statusCode() + ": " + r.asString());
        return read(r.asByteArray());
    }

    public static JsonNode read(byte[] b) {
        try {
            return MAPPER.readTree(b);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    public static JsonNode file(Path p) {
        try {
            return MAPPER.readTree(Files.readAllBytes(p));
        } catch (Exception e) {
            throw new AssertionError(p + ": " + e.getMessage(), e);
        }
    }

    /** The response with its base64 patch decoded into a JSON array, so goldens show (and diff) the operations. */
    public static JsonNode readable(JsonNode response) {
        ObjectNode copy = response.deepCopy();
        JsonNode patch = copy.path("response").path("patch");
        if (patch.isTextual()) ((ObjectNode) copy.get("response")).set("patch", read(Base64.getDecoder().decode(patch.asText())));
        return copy;
    }

    /** The request's object after the response's patch, applied by zjsonpatch (an independent implementation). */
    public static Pod patchedPod(JsonNode review, JsonNode response) {
        JsonNode object = review.path("request").path("object");
        JsonNode patch = response.path("response").path("patch");
        JsonNode result = patch.isMissingNode() || patch.isNull() ? object
                : JsonPatch.apply(read(Base64.getDecoder().decode(patch.asText())), object);
        try {
            return MAPPER.treeToValue(result, Pod.class);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
