package dev.ace.binpacker.realapi;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Plays every node's kubelet for pods: a pod bound to a node becomes Running (status subresource), a bound pod
 * being deleted is removed at once (grace period 0, the kubelet's confirmation). {@link #succeed} ends a pod
 * as a finished Job's container would. Pods of ACE's own namespace are left alone.
 */
public final class Kubelet implements AutoCloseable {
    private final KubernetesClient admin;
    private final SharedIndexInformer<Pod> informer;
    private final ExecutorService work = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "realapi-kubelet");
        t.setDaemon(true);
        return t;
    });
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final Set<String> finished = ConcurrentHashMap.newKeySet();

    Kubelet(KubernetesClient admin) {
        this.admin = admin;
        this.informer = admin.pods().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override public void onAdd(Pod p) { act(p); }
            @Override public void onUpdate(Pod o, Pod p) { act(p); }
            @Override public void onDelete(Pod p, boolean unknown) {}
        }, 30_000);
    }

    private void act(Pod p) {
        if (p.getSpec().getNodeName() == null || AceInstall.NAMESPACE.equals(p.getMetadata().getNamespace())) return;
        String key = p.getMetadata().getNamespace() + "/" + p.getMetadata().getName() + "/" + p.getMetadata().getUid();
        boolean deleting = p.getMetadata().getDeletionTimestamp() != null;
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        if (!deleting && (phase != null && !phase.equals("Pending") || finished.contains(key))) return;
        if (!inFlight.add(key + deleting)) return;
        work.execute(() -> {
            try {
                var pod = admin.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName());
                if (deleting) {
                    pod.withGracePeriod(0).delete();
                } else {
                    String now = Instant.now().toString().replaceAll("\\.\\d+Z$", "Z");
                    pod.subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"Running\",\"startTime\":\"" + now
                            + "\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"" + now + "\"}]}}");
                }
            } catch (KubernetesClientException e) {
                // gone or changed meanwhile; the next event acts again
            } finally {
                inFlight.remove(key + deleting);
            }
        });
    }

    /** Ends pod {@code ns/name} with phase Succeeded (its containers exited 0). */
    public void succeed(String ns, String name) {
        Pod p = admin.pods().inNamespace(ns).withName(name).get();
        finished.add(ns + "/" + name + "/" + p.getMetadata().getUid());
        admin.pods().inNamespace(ns).withName(name).subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"Succeeded\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}");
    }

    @Override
    public void close() {
        informer.close();
        work.shutdownNow();
    }
}
