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
 */
public record NodeInfo(String name, Pool pool, Map<String, String> labels, List<Taint> taints,
                       GpuBoard board, String boardSource, String gpuModel, long cpuMilli,
                       TopologyManagerPolicy topologyPolicy) {
    public NodeInfo {
        Objects.requireNonNull(name, "name");
        pool = pool == null ? Pool.GENERAL : pool;
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        taints = taints == null ? List.of() : List.copyOf(taints);
        topologyPolicy = topologyPolicy == null ? TopologyManagerPolicy.NONE : topologyPolicy;
    }

    /** A node whose kubelet aligns nothing (Topology Manager policy {@code none}, the kubelet default). */
    public NodeInfo(String name, Pool pool, Map<String, String> labels, List<Taint> taints,
                    GpuBoard board, String boardSource, String gpuModel, long cpuMilli) {
        this(name, pool, labels, taints, board, boardSource, gpuModel, cpuMilli, TopologyManagerPolicy.NONE);
    }

    public int gpuCount() { return board == null ? 0 : board.gpuCount(); }
}
