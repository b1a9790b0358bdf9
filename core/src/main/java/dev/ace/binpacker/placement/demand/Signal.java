package dev.ace.binpacker.placement.demand;

import java.util.Objects;

/**
 * Nodes already asked of the autoscaler and not yet arrived (a CapacityBuffer's replicas, a ProvisioningRequest's
 * count). They count as covered capacity, whole free boards of their shape, so nothing is asked twice.
 *
 * @param group the group a ProvisioningRequest was made for; null for a shared buffer
 */
public record Signal(Shape shape, int nodes, String group) {
    public Signal {
        Objects.requireNonNull(shape, "shape");
        if (nodes < 0) throw new IllegalArgumentException("a signal's node count must be >= 0, not " + nodes);
    }
}
