package dev.ace.binpacker.workload;

import dev.ace.binpacker.placement.NodeConstraints;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * Every node a pod may be placed on, in one place for admission and for the release of a gated pod: the pod's own
 * selector, affinity, {@code spec.nodeName} and tolerations ({@link PodConstraints}), narrowed to nodes that offer
 * the MIG and MPS resources it asks for ({@link SliceNeeds}) and to GPUs its images were built for
 * ({@link ImageArchitecture}). Only ever narrower than what the pod says.
 */
public final class NodeNeeds {
    private NodeNeeds() {}

    public static NodeConstraints of(Pod pod) {
        NodeConstraints c = SliceNeeds.narrow(pod, PodConstraints.of(pod));
        return ImageArchitecture.of(pod).map(a -> a.narrow(c)).orElse(c);
    }
}
