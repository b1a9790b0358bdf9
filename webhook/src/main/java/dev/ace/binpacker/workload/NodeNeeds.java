package dev.ace.binpacker.workload;

import dev.ace.binpacker.placement.NodeConstraints;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Optional;

/**
 * Every node a pod may be placed on, in one place for admission and for the release of a gated pod: the pod's own
 * selector, affinity, {@code spec.nodeName} and tolerations ({@link PodConstraints}), narrowed to nodes that offer
 * the MIG and MPS resources it asks for ({@link SliceNeeds}) and to GPUs its images were built for
 * ({@link ImageArchitecture}). Only ever narrower than what the pod says.
 *
 * @param constraints where the pod may go
 * @param image       the GPU architecture its images keep it to, read once per decision (the warning and a slice's
 *                    node affinity come from it)
 */
public record NodeNeeds(NodeConstraints constraints, Optional<ImageArchitecture> image) {
    public static NodeNeeds of(Pod pod) {
        NodeConstraints c = SliceNeeds.narrow(pod, PodConstraints.of(pod));
        Optional<ImageArchitecture> image = ImageArchitecture.of(pod);
        return new NodeNeeds(image.map(a -> a.narrow(c)).orElse(c), image);
    }
}
