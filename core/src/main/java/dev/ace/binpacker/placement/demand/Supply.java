package dev.ace.binpacker.placement.demand;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.Objects;

/**
 * One node as demand sees it: GPUs free now, GPUs that pending departures will free (pods terminating, entries
 * being released), and the multi-node NVLink domain it is in. Both masks count as covered: a waiter placed on
 * them needs no new node.
 *
 * @param type    the node's instance type or board name, matched against a waiter's and a {@link NodeType}'s
 * @param domain  the node's value of its type's domain label ({@code nvidia.com/gpu.clique}), null when none
 */
public record Supply(String name, String pool, String type, GpuBoard board, long free, long departing, String domain) {
    public Supply {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(board, "board");
        long all = board.allGpus();
        if ((free & ~all) != 0 || (departing & ~all) != 0) {
            throw new IllegalArgumentException("node " + name + ": a GPU mask names GPUs the board does not have");
        }
        if ((free & departing) != 0) {
            throw new IllegalArgumentException("node " + name + ": a GPU cannot be both free and departing");
        }
    }

    /** Free now or soon. */
    public long covered() { return free | departing; }
}
