package dev.ace.binpacker.placement.mig;

import dev.ace.binpacker.topology.MigGeometry;

/**
 * A slicing node as the planner sees it.
 *
 * @param name        node name
 * @param geometry    its GPUs' model
 * @param gpus        MIG GPUs on the node (a mig-parted config applies to all of them)
 * @param config      the config it has, or is changing to when {@code changing}
 * @param runningPods pods running on its slices: a node with any is never changed
 * @param changing    cordoned, draining or being reconfigured; counts against the budget
 */
public record PoolNode(String name, MigGeometry geometry, int gpus, String config, int runningPods, boolean changing) {
    public PoolNode {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a pool node needs a name");
        if (geometry == null) throw new IllegalArgumentException("node " + name + " needs a MIG geometry");
        if (gpus < 1) throw new IllegalArgumentException("node " + name + " needs at least one GPU, got " + gpus);
        if (runningPods < 0) throw new IllegalArgumentException("node " + name + " cannot run " + runningPods + " pods");
    }
}
