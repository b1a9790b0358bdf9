package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.workload.AceKeys;
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
 * node affinity and reservation added (Kubernetes allows narrowing a gated pod), gate removed.
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
        NodeConstraints constraints = PodConstraints.of(pod);
        int gpus = Math.max(1, c.gpus());
        return PlacementRequest.whole(id, c.workloadClass(), gpus, Math.max(c.tp(), c.gpus()),
                FleetView.inferencePools(al, gpus, constraints), constraints);
    }

    /** As {@link #waitingFor(Pod, String, dev.ace.binpacker.placement.Allocator)}, reading every node (kept for callers without the allocator). */
    public static PlacementRequest waitingFor(Pod pod, String id, ClusterState state) throws InvalidPodException {
        Classification c = Classifier.classify(pod);
        NodeConstraints constraints = PodConstraints.of(pod);
        boolean inference = !FleetView.allowed(state, Pool.INFERENCE, constraints, true).isEmpty();
        return PlacementRequest.whole(id, c.workloadClass(), Math.max(1, c.gpus()), Math.max(c.tp(), c.gpus()),
                List.of(inference ? Pool.INFERENCE : Pool.GENERAL), constraints);
    }

    /** Edits {@code pod} in place: pinned to the reservation's node, annotated, gate removed. */
    public static void release(Pod pod, Reservation r, ObjectMapper mapper) {
        PodEdits.pinToNode(pod, r.node());
        PodEdits.annotate(pod, AceKeys.RESERVATION, ReservationJson.write(mapper, r));
        PodEdits.annotate(pod, AceKeys.DECISION, "released from " + AceKeys.GATE + ": reserved GPUs "
                + PodPolicy.joined(r.gpus()) + " on " + r.node() + (r.domain() == null ? "" : " (NVLink clique " + r.domain() + ")"));
        if (pod.getSpec().getSchedulingGates() != null) {
            List<io.fabric8.kubernetes.api.model.PodSchedulingGate> gates = new ArrayList<>(pod.getSpec().getSchedulingGates());
            gates.removeIf(g -> AceKeys.GATE.equals(g.getName()));
            pod.getSpec().setSchedulingGates(gates);
        }
    }

    public static boolean isGated(Pod pod) { return PodEdits.hasSchedulingGate(pod, AceKeys.GATE); }
}
