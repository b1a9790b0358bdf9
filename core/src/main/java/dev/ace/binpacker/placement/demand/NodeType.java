package dev.ace.binpacker.placement.demand;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.Objects;

/**
 * A node the autoscaler can buy for a pool, from configuration: its instance type (or board name), its board, its
 * price per node-hour and, for trays of a multi-node NVLink domain (GB200 NVL72), the node label that names the
 * domain ({@code nvidia.com/gpu.clique}) and how many trays one domain holds.
 *
 * @param domainLabel     null for a node that is a domain of its own (HGX)
 * @param traysPerDomain  trays one domain holds (18 on NVL72); 0 when {@code domainLabel} is null
 */
public record NodeType(String pool, String name, GpuBoard board, double pricePerNodeHour, String domainLabel, int traysPerDomain) {
    public NodeType {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(board, "board");
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a node type needs a name");
        if (!Double.isFinite(pricePerNodeHour) || pricePerNodeHour < 0) {
            throw new IllegalArgumentException("node type " + name + ": price per node-hour must be a finite number >= 0, not " + pricePerNodeHour);
        }
        if (domainLabel != null && traysPerDomain < 1) {
            throw new IllegalArgumentException("node type " + name + ": a domain label needs trays per domain >= 1, not " + traysPerDomain);
        }
        if (domainLabel == null && traysPerDomain != 0) {
            throw new IllegalArgumentException("node type " + name + ": trays per domain without a domain label");
        }
    }

    /** An HGX-like node: one board, no multi-node domain. */
    public static NodeType node(String pool, String name, GpuBoard board, double pricePerNodeHour) {
        return new NodeType(pool, name, board, pricePerNodeHour, null, 0);
    }

    public int gpus() { return board.gpuCount(); }
}
