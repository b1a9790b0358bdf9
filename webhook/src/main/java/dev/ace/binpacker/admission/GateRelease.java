package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.truth.BindingPromise;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Classification;
import dev.ace.binpacker.workload.Classifier;
import dev.ace.binpacker.workload.InvalidPodException;
import dev.ace.binpacker.workload.PodConstraints;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;

/**
 * The two halves of a gated pod's life seen from the API: what it waits for (rebuilt from the pod,
 * so a restarted replica knows its queue), and the edit that releases it once GPUs are reserved:
 * node affinity and reservation added (Kubernetes allows narrowing a gated pod), gate removed. The
 * edit is a JSON patch that first tests the pod's UID and its gates, so of two leaders releasing
 * the same pod only one can succeed; the other gets 422 and re-reads the pod.
 */
public final class GateRelease {
    private GateRelease() {}

    /**
     * The placement a gated pod waits for, under reservation id {@code id}, offered the pools the
     * admission offered it ({@link dev.ace.binpacker.placement.Packer#inferencePools}, from the
     * packer's index: no walk over the nodes); call under the allocator lock.
     */
    public static PlacementRequest waitingFor(Pod pod, String id, dev.ace.binpacker.placement.Allocator al) throws InvalidPodException {
        Classification c = Classifier.classify(pod);
        // ACE gates only pods that ask for whole GPUs. A gate on any other pod is not ACE's (brought by a pod of an exempt
        // namespace, which ACE skips, or created while ACE was down): it waits for nothing ACE reserves, and is never
        // released onto a GPU it did not ask for (issue 34; it was once queued as a 1-GPU waiter).
        if (c.gpus() < 1) {
            throw new InvalidPodException("spec.schedulingGates", "the pod carries " + AceKeys.GATE
                    + " but asks for no whole GPUs: ACE did not gate it and reserves nothing for it");
        }
        NodeConstraints constraints = dev.ace.binpacker.workload.NodeNeeds.of(pod).constraints();
        int gpus = c.gpus();
        return PlacementRequest.whole(id, c.workloadClass(), gpus, Math.max(c.tp(), c.gpus()),
                FleetView.inferencePools(al, gpus, constraints), constraints).needing(dev.ace.binpacker.workload.PodRequests.besidesGpus(pod));
    }

    /** Edits {@code pod} in place: pinned to the reservation's node, annotated, gate removed. */
    public static void release(Pod pod, Reservation r, ObjectMapper mapper) {
        PodEdits.pinToNode(pod, r.node());
        PodEdits.annotate(pod, AceKeys.RESERVATION, ReservationJson.write(mapper, r));
        PodEdits.annotate(pod, AceKeys.DECISION, "released from " + AceKeys.GATE + ": reserved "
                + new BindingPromise.NodeOnly(r.node(), r.gpuMask()).text() + (r.domain() == null ? "" : " (NVLink clique " + r.domain() + ")"));
        if (pod.getSpec().getSchedulingGates() != null) {
            List<io.fabric8.kubernetes.api.model.PodSchedulingGate> gates = new ArrayList<>(pod.getSpec().getSchedulingGates());
            gates.removeIf(g -> AceKeys.GATE.equals(g.getName()));
            pod.getSpec().setSchedulingGates(gates);
        }
    }

    /**
     * The release as a JSON patch against {@code current}: {@code test} of the UID and the exact gate
     * list first (the precondition), then the edit of {@link #release}.
     */
    public static ArrayNode releasePatch(Pod current, Reservation r, ObjectMapper mapper) {
        Pod edited = mapper.convertValue(current, Pod.class);
        release(edited, r, mapper);
        ArrayNode ops = mapper.createArrayNode();
        ops.addObject().put("op", "test").put("path", "/metadata/uid").put("value", current.getMetadata().getUid());
        ops.addObject().put("op", "test").put("path", "/spec/schedulingGates")
                .set("value", mapper.valueToTree(current.getSpec().getSchedulingGates()));
        ops.addAll(JsonPatch.diff(mapper.valueToTree(current), mapper.valueToTree(edited)));
        return ops;
    }

    /** The node ACE pinned a pod to, if it did. */
    public static java.util.Optional<String> pinnedNode(Pod pod) { return PodEdits.pinnedNode(pod); }

    public static boolean isGated(Pod pod) { return PodEdits.hasSchedulingGate(pod, AceKeys.GATE); }
}
