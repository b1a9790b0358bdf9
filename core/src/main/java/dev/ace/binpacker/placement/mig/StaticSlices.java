package dev.ace.binpacker.placement.mig;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Which existing slice a small pod takes where layouts are static (the device plugin's
 * {@code nvidia.com/mig-<profile>}). The slice that strands least is on the GPU that already has
 * the most of its instances in use: an idle GPU stays idle, and an idle node is the only one the
 * {@link LayoutPlanner} may give another layout. Ties go to the node, then the GPU, that comes first.
 */
public final class StaticSlices {
    private StaticSlices() {}

    /**
     * One GPU as a static layout sees it.
     *
     * @param node      node name
     * @param gpu       GPU index on the node
     * @param freeOfProfile free instances of the asked profile
     * @param busySlots compute slices of instances in use (any profile)
     * @param nodeBusy  whether any GPU of the node runs a pod
     */
    public record Gpu(String node, int gpu, int freeOfProfile, int busySlots, boolean nodeBusy) {}

    public static Optional<Gpu> choose(List<Gpu> gpus) {
        return gpus.stream().filter(g -> g.freeOfProfile() > 0)
                .max(Comparator.comparing(Gpu::nodeBusy)
                        .thenComparingInt(Gpu::busySlots)
                        .thenComparing(Gpu::node, Comparator.reverseOrder())
                        .thenComparingInt(g -> -g.gpu()));
    }
}
