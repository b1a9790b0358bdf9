package dev.ace.binpacker.cluster.pod;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.admission.ReservationJson;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * What ACE needs to know of a pod, read once per event: the pod informer keeps these, not whole Pods.
 *
 * @param nodeName        the node it is bound to ({@code spec.nodeName}), null while unscheduled
 * @param terminal        phase Succeeded or Failed: its GPUs are free again (a deleting pod still holds them)
 * @param gpus            effective whole-GPU request
 * @param gated           carries ACE's scheduling gate
 * @param reservationId   id in its {@code ace.dev/reservation} annotation (what ACE told it), null when none
 * @param reservationNode node in that annotation, null when none
 * @param reservationMask GPUs in that annotation, 0 when none
 * @param controllerOwned a controller (ReplicaSet, StatefulSet, Job...) re-creates it when it is deleted
 * @param unschedulable   kube-scheduler's message when the pod's {@code PodScheduled} condition is False with reason
 *                        {@code Unschedulable} (it tried and no node fits, whatever the reason), else null
 */
public record PodFacts(String uid, String namespace, String name, String generateName, String nodeName,
                       boolean terminal, int gpus, boolean gated, String reservationId, String reservationNode,
                       long reservationMask, boolean controllerOwned, int priority, long createdMillis, String resourceVersion,
                       String unschedulable) {

    public PodFacts(String uid, String namespace, String name, String generateName, String nodeName,
                    boolean terminal, int gpus, boolean gated, String reservationId, String reservationNode,
                    long reservationMask, boolean controllerOwned, int priority, long createdMillis, String resourceVersion) {
        this(uid, namespace, name, generateName, nodeName, terminal, gpus, gated, reservationId, reservationNode, reservationMask,
                controllerOwned, priority, createdMillis, resourceVersion, null);
    }

    public static PodFacts of(Pod pod, ObjectMapper json) {
        var meta = pod.getMetadata();
        var spec = pod.getSpec();
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        Map<String, String> annotations = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
        Optional<Reservation> r = ReservationJson.read(json, annotations.get(AceKeys.RESERVATION), 0);
        boolean controlled = meta.getOwnerReferences() != null
                && meta.getOwnerReferences().stream().anyMatch(o -> Boolean.TRUE.equals(o.getController()));
        Integer prio = spec == null ? null : spec.getPriority();
        String node = spec == null || spec.getNodeName() == null || spec.getNodeName().isEmpty() ? null : spec.getNodeName();
        return new PodFacts(meta.getUid(), meta.getNamespace(), meta.getName(), meta.getGenerateName(), node,
                "Succeeded".equals(phase) || "Failed".equals(phase), dev.ace.binpacker.workload.GpuCount.held(spec), GateRelease.isGated(pod),
                r.map(Reservation::id).orElse(null), r.map(Reservation::node).orElse(null), r.map(Reservation::gpuMask).orElse(0L),
                controlled, prio == null ? 0 : prio, created(meta.getCreationTimestamp()), meta.getResourceVersion(),
                node == null ? unschedulable(pod) : null);
    }

    /**
     * The same facts at another resource version: every other update of a pod (its status conditions, container
     * states, a label ACE does not read) changes nothing ACE decides on, so it is not an event for its controllers.
     */
    public boolean sameFactsAs(PodFacts other) {
        return other != null && equals(other.withResourceVersion(resourceVersion));
    }

    private PodFacts withResourceVersion(String rv) {
        return new PodFacts(uid, namespace, name, generateName, nodeName, terminal, gpus, gated, reservationId, reservationNode,
                reservationMask, controllerOwned, priority, createdMillis, rv, unschedulable);
    }

    /** kube-scheduler's message of a {@code PodScheduled=False, reason Unschedulable} condition, or null. */
    static String unschedulable(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) return null;
        for (var c : pod.getStatus().getConditions()) {
            if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason())) {
                String m = c.getMessage();
                return m == null || m.isBlank() ? "Unschedulable" : m.length() > 300 ? m.substring(0, 300) + "..." : m;
            }
        }
        return null;
    }

    private static long created(String ts) {
        try {
            return ts == null ? 0 : Instant.parse(ts).toEpochMilli();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /** A pod known only by namespace and name (the node reported it; no informer event showed it): enough to address an Event. */
    public static PodFacts named(String namespace, String name, String nodeName) {
        return new PodFacts(null, namespace, name, null, nodeName, false, 0, false, null, null, 0L, false, 0, 0L, null);
    }

    public String key() { return namespace + "/" + name; }

    public boolean bound() { return nodeName != null; }

    /** Holds GPUs on its node: bound and not finished (a pod being deleted holds them until it is gone). */
    public boolean holdsGpus() { return bound() && !terminal && gpus > 0; }

    /**
     * Is this the pod an untied reservation was made for? Same namespace, and its name is the owner's
     * name or was generated from the owner's {@code generateName} prefix. Ids are random, so a match
     * of the annotation id as well means ACE itself told this pod about the entry.
     */
    public boolean ownedBy(Reservation.Owner o) {
        if (o.namespace() == null || !o.namespace().equals(namespace) || o.podName() == null) return false;
        return o.podName().equals(name) || o.podName().equals(generateName);
    }
}
