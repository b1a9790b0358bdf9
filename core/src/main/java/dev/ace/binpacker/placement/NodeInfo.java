package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What does not change while a node lives: its name, pool, labels, taints and GPU board.
 *
 * @param board       the node's GPUs and links; null for a node without GPUs
 * @param boardSource where the board came from ({@code annotation}, {@code catalog:<product>}, ...), for explanations
 * @param gpuModel    the GPU product (GFD {@code nvidia.com/gpu.product}, or a trace's model name), may be null
 * @param cpuMilli    allocatable CPU in millicores, 0 when CPU is not tracked (the webhook leaves CPU to kube-scheduler)
 * @param topologyPolicy the kubelet's Topology Manager policy: under {@code restricted} and
 *                    {@code single-numa-node} the packer offers only GPU sets the kubelet would admit
 * @param allocatable what the node offers besides whole GPUs ({@code status.allocatable}: cpu, memory,
 *                    ephemeral-storage, hugepages, pods, extended resources such as {@code rdma/roce_gdr});
 *                    {@link Resources#NONE} when the node reported none, and then nothing but GPUs is checked
 */
public record NodeInfo(String name, Pool pool, Map<String, String> labels, List<Taint> taints,
                       GpuBoard board, String boardSource, String gpuModel, long cpuMilli,
                       TopologyManagerPolicy topologyPolicy, Resources allocatable) {
    public NodeInfo {
        allocatable = allocatable == null ? Resources.NONE : allocatable;
        Objects.requireNonNull(name, "name");
        pool = pool == null ? Pool.GENERAL : pool;
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        taints = taints == null ? List.of() : List.copyOf(taints);
        topologyPolicy = topologyPolicy == null ? TopologyManagerPolicy.NONE : topologyPolicy;
    }

    /** A node whose allocatable besides GPUs is not known: only its GPUs are checked. */
    public NodeInfo(String name, Pool pool, Map<String, String> labels, List<Taint> taints,
                    GpuBoard board, String boardSource, String gpuModel, long cpuMilli,
                    TopologyManagerPolicy topologyPolicy) {
        this(name, pool, labels, taints, board, boardSource, gpuModel, cpuMilli, topologyPolicy, Resources.NONE);
    }

    /** The same node offering {@code a} besides its GPUs. */
    public NodeInfo withAllocatable(Resources a) {
        return new NodeInfo(name, pool, labels, taints, board, boardSource, gpuModel, cpuMilli, topologyPolicy, a);
    }

    /** True when the node said what it offers besides GPUs, so a pod's other requests are checked against it. */
    public boolean tracksResources() { return !allocatable.isEmpty(); }

    /** A node whose kubelet aligns nothing (Topology Manager policy {@code none}, the kubelet default). */
    public NodeInfo(String name, Pool pool, Map<String, String> labels, List<Taint> taints,
                    GpuBoard board, String boardSource, String gpuModel, long cpuMilli) {
        this(name, pool, labels, taints, board, boardSource, gpuModel, cpuMilli, TopologyManagerPolicy.NONE);
    }

    public int gpuCount() { return board == null ? 0 : board.gpuCount(); }
}
