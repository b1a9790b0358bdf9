package dev.ace.binpacker.realapi;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** Pods created from several client threads at once, and what the API server answered to each. */
public final class ConcurrentCreates {
    /** refused: pod name -> the API server's message; errors: anything that was not an answer (timeouts, resets). */
    public record Outcome(List<String> created, Map<String, String> refused, Map<String, String> errors) {}

    private ConcurrentCreates() {}

    public static Outcome run(List<KubernetesClient> clients, String ns, List<Pod> pods) throws InterruptedException {
        List<String> created = new java.util.concurrent.CopyOnWriteArrayList<>();
        Map<String, String> refused = new ConcurrentHashMap<>();
        Map<String, String> errors = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(clients.size());
        for (int i = 0; i < pods.size(); i++) {
            Pod p = pods.get(i);
            KubernetesClient client = clients.get(i % clients.size());
            pool.execute(() -> {
                String name = p.getMetadata().getName();
                try {
                    client.pods().inNamespace(ns).resource(p).create();
                    created.add(name);
                } catch (KubernetesClientException e) {
                    if (e.getCode() >= 400 && e.getCode() < 500) refused.put(name, e.getCode() + " " + e.getMessage());
                    else errors.put(name, e.getCode() + " " + e.getMessage());
                } catch (RuntimeException e) {
                    errors.put(name, e.toString());
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.MINUTES)) throw new AssertionError("pod creates did not finish in 10 minutes");
        return new Outcome(List.copyOf(created), Map.copyOf(refused), Map.copyOf(errors));
    }
}
