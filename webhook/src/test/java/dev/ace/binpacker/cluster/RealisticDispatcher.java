package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.flipkart.zjsonpatch.JsonPatch;
import com.flipkart.zjsonpatch.JsonPatchApplicationException;
import dev.ace.binpacker.cluster.pod.PodApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * fabric8's CRUD mock made to refuse what a real kube-apiserver refuses (FACTS "How a real cluster
 * behaves"), and to fail when a test says so: a JSON patch whose {@code test} fails answers 422; node
 * affinity or nodeSelector of a pod whose gates are gone cannot change (422), nor can gates be added;
 * armed faults answer a status code for matching requests; watches can be dropped (the next watch of
 * that resource answers 410 Gone, so informers relist); a request can be answered slowly. Pod writes are
 * checked and applied under one lock, so a check never judges a stale pod.
 */
final class RealisticDispatcher extends KubernetesCrudDispatcher {
    /** Answer {@code code} to the next {@code times} requests matching {@code when} (request and its body). */
    record Fault(java.util.function.BiPredicate<RecordedRequest, String> when, int code, AtomicInteger times, long delayMillis) {}

    private final ObjectMapper json;
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private final List<Watching> watches = new CopyOnWriteArrayList<>();
    private final Set<String> goneOnNextWatch = ConcurrentHashMap.newKeySet();
    private final ReentrantLock podWrites = new ReentrantLock();
    final AtomicInteger podPatches = new AtomicInteger();

    private record Watching(String path, WebSocket socket) {}

    RealisticDispatcher(ObjectMapper json) { this.json = json; }

    void fail(String method, String pathPart, int code, int times) {
        fail(method, pathPart, "", code, times);
    }

    /** Fails matching requests whose body contains {@code bodyPart} (a Lease renewal by one holder, say). */
    void fail(String method, String pathPart, String bodyPart, int code, int times) {
        faults.add(new Fault((r, body) -> r.getMethod().equals(method) && r.getPath().contains(pathPart) && body.contains(bodyPart),
                code, new AtomicInteger(times), 0));
    }

    /** The next {@code times} matching requests are answered normally, after {@code delayMillis}. */
    void slow(String method, String pathPart, long delayMillis, int times) {
        faults.add(new Fault((r, body) -> r.getMethod().equals(method) && r.getPath().contains(pathPart), 0, new AtomicInteger(times), delayMillis));
    }

    void clearFaults() { faults.clear(); }

    /** Closes every open watch on paths containing {@code pathPart}; their watches get 410 Gone until they relist. */
    void dropWatches(String pathPart) {
        goneOnNextWatch.add(pathPart);
        for (Watching w : watches) {
            if (w.path().contains(pathPart)) w.socket().close(1000, "watch dropped by the test");
        }
    }

    @Override
    public MockResponse dispatch(RecordedRequest original) {
        String body = original.getBody() == null ? "" : original.getUtf8Body(); // reading consumes it: handlers get a copy
        RecordedRequest request = new RecordedRequest(original.getHttpVersion(), original.method(), original.getPath(),
                original.getHeaders(), new io.fabric8.mockwebserver.http.Buffer(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        long delay = 0;
        for (Fault f : faults) {
            if (!f.when().test(request, body) || f.times().getAndUpdate(n -> Math.max(0, n - 1)) <= 0) continue;
            if (f.code() != 0) return status(f.code(), "injected by the test");
            delay = Math.max(delay, f.delayMillis());
        }
        String path = request.getPath();
        if ("GET".equals(request.getMethod())) {
            // As a real API server: every watch from the compacted resourceVersion gets 410 Gone until the client
            // lists again (a 410 lost to a closing socket must not let the next watch resume without a relist).
            boolean watch = path.contains("watch=true");
            for (String gone : goneOnNextWatch) {
                if (!path.contains(gone)) continue;
                if (watch) return expired();
                goneOnNextWatch.remove(gone);
            }
        }
        MockResponse r = isPodWrite(request) ? podWrite(request, body) : super.dispatch(request);
        if (r != null && r.getWebSocketListener() != null) r.withWebSocketUpgrade(capture(path, r.getWebSocketListener()));
        if (r != null && delay > 0) r.setBodyDelay(delay, TimeUnit.MILLISECONDS);
        return r;
    }

    private static boolean isPodWrite(RecordedRequest r) {
        return ("PATCH".equals(r.getMethod()) || "PUT".equals(r.getMethod())) && r.getPath().matches("/api/v1/namespaces/[^/]+/pods/[^/?]+(\\?.*)?");
    }

    private MockResponse podWrite(RecordedRequest request, String body) {
        podWrites.lock();
        try {
            MockResponse current = handleGet(request.getPath().replaceAll("\\?.*", ""));
            if (current.code() != 200) return super.dispatch(request);
            JsonNode before = json.readTree(current.getBody().readUtf8());
            String type = request.getHeader("Content-Type");
            JsonNode after;
            if ("PUT".equals(request.getMethod())) {
                after = json.readTree(body);
            } else if (type != null && type.contains("json-patch")) {
                try {
                    after = JsonPatch.apply(json.readTree(body), before);
                } catch (JsonPatchApplicationException e) {
                    return status(422, "the server rejected our request: " + e.getMessage());
                }
            } else {
                return super.dispatch(request); // merge patches here come from the test's scheduler and kubelet
            }
            try {
                FakeCluster.refuseImmutableChange(json.treeToValue(before, Pod.class), json.treeToValue(after, Pod.class));
            } catch (PodApi.Refused e) {
                return status(e.code(), e.getMessage());
            }
            MockResponse r = super.dispatch(request);
            if ("PATCH".equals(request.getMethod()) && r.code() < 300) podPatches.incrementAndGet();
            return r;
        } catch (java.io.IOException e) {
            return status(400, e.getMessage());
        } finally {
            podWrites.unlock();
        }
    }

    /** What kube-apiserver sends a watch from a compacted resourceVersion: an ERROR event with a 410 Status, then the end. */
    private MockResponse expired() {
        String event = "{\"type\":\"ERROR\",\"object\":" + status(410, "too old resource version").getBody().readUtf8() + "}";
        return new MockResponse().withWebSocketUpgrade(new WebSocketListener() {
            @Override public void onOpen(WebSocket ws, Response r) {
                ws.send(event);
                ws.close(1000, "expired");
            }
        });
    }

    private WebSocketListener capture(String path, WebSocketListener inner) {
        return new WebSocketListener() {
            @Override public void onOpen(WebSocket ws, Response r) {
                watches.add(new Watching(path, ws));
                inner.onOpen(ws, r);
            }
            @Override public void onMessage(WebSocket ws, String text) { inner.onMessage(ws, text); }
            @Override public void onClosing(WebSocket ws, int code, String reason) { inner.onClosing(ws, code, reason); }
            @Override public void onClosed(WebSocket ws, int code, String reason) {
                watches.removeIf(w -> w.socket() == ws);
                inner.onClosed(ws, code, reason);
            }
            @Override public void onFailure(WebSocket ws, Throwable t, Response r) {
                watches.removeIf(w -> w.socket() == ws);
                inner.onFailure(ws, t, r);
            }
        };
    }

    private MockResponse status(int code, String message) {
        String reason = switch (code) {
            case 409 -> "Conflict";
            case 410 -> "Expired";
            case 422 -> "Invalid";
            default -> "InternalError";
        };
        var o = json.createObjectNode().put("kind", "Status").put("apiVersion", "v1").put("status", "Failure")
                .put("message", message).put("reason", reason).put("code", code);
        return new MockResponse().setResponseCode(code).setBody(o.toString());
    }

    List<String> openWatches() {
        List<String> l = new ArrayList<>();
        watches.forEach(w -> l.add(w.path()));
        return l;
    }
}
