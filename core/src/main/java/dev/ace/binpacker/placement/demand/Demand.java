package dev.ace.binpacker.placement.demand;

import java.util.List;
import java.util.Objects;

/**
 * What the gated queue needs bought, per shape, with its price; what capacity already covers; what no configured
 * node type can ever hold.
 *
 * @param asks    nodes to add: one row per shape for single pods, one row per group (bought whole, atomically)
 * @param covered waiter id to the node (or signal) that will hold it without a purchase
 * @param unmet   waiters no configured node type can hold, with the reason
 */
public record Demand(List<Ask> asks, List<Cover> covered, List<Unmet> unmet) {
    public Demand {
        asks = List.copyOf(asks);
        covered = List.copyOf(covered);
        unmet = List.copyOf(unmet);
    }

    /**
     * Nodes of one shape to add.
     *
     * @param group   the group they are for (a ProvisioningRequest), null for single pods (a CapacityBuffer)
     * @param waiters every waiter that some of these nodes hold, oldest first: each node holds at least one
     * @param perNode waiter ids per bought node, so a reader (and a test) sees that every node is used
     */
    public record Ask(Shape shape, int nodes, double pricePerNodeHour, String group, List<String> waiters, List<List<String>> perNode) {
        public Ask {
            Objects.requireNonNull(shape, "shape");
            waiters = List.copyOf(waiters);
            perNode = perNode.stream().map(List::copyOf).toList();
            if (nodes != perNode.size()) throw new IllegalArgumentException("nodes " + nodes + " but " + perNode.size() + " node lists");
        }

        public double costPerHour() { return nodes * pricePerNodeHour; }
    }

    /** A waiter capacity already covers: {@code where} is a node name or {@code signal:<shape>}. */
    public record Cover(String waiter, String where) {}

    public record Unmet(String waiter, String reason) {}

    public int nodes() { return asks.stream().mapToInt(Ask::nodes).sum(); }

    public double costPerHour() { return asks.stream().mapToDouble(Ask::costPerHour).sum(); }
}
