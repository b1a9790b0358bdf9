package dev.ace.binpacker.truth;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What a node's kubelet says about its GPUs, as the node agent publishes it: which GPUs each pod
 * really holds (PodResources {@code List}), which GPUs the kubelet can still hand out
 * ({@code GetAllocatableResources}: the device plugin's healthy devices) and the Topology Manager
 * policy. GPU sets are masks of nvidia-smi indices, the numbering of {@code ace.dev/topology}.
 *
 * @param generation  bumped by the agent on every change it publishes; a reader keeps the highest seen
 * @param observedAt  when the agent saw this content first (RFC 3339), for people and staleness checks
 * @param gpuCount    GPUs nvidia-smi lists on the node
 * @param healthy     GPUs with at least one allocatable device (whole, replica or MIG slice)
 * @param pods        every pod holding an NVIDIA device, sorted by namespace and name
 * @param unmapped    device IDs the agent could not place on a GPU (another plugin's naming, a GPU gone)
 * @param uuids       each GPU's UUID in index order ({@code uuids.get(i)} is GPU i), what joins a DRA driver's
 *                    devices to the matrix; empty when the agent did not say (older agents)
 */
public record NodeReport(long generation, String observedAt, TopologyManagerPolicy policy, int gpuCount,
                         long healthy, List<PodDevices> pods, List<String> unmapped, List<String> uuids) {
    public NodeReport {
        policy = policy == null ? TopologyManagerPolicy.NONE : policy;
        pods = pods == null ? List.of() : pods.stream().sorted(Comparator.comparing(PodDevices::key)).toList();
        unmapped = unmapped == null ? List.of() : List.copyOf(new TreeSet<>(unmapped));
        uuids = uuids == null ? List.of() : List.copyOf(uuids);
        if (!uuids.isEmpty() && uuids.size() != gpuCount) {
            throw new IllegalArgumentException(uuids.size() + " GPU UUIDs for " + gpuCount + " GPUs");
        }
        if (new java.util.HashSet<>(uuids).size() != uuids.size()) throw new IllegalArgumentException("a GPU UUID is listed twice: " + uuids);
    }

    /** A report without GPU UUIDs (what agents before issue 32 published). */
    public NodeReport(long generation, String observedAt, TopologyManagerPolicy policy, int gpuCount,
                      long healthy, List<PodDevices> pods, List<String> unmapped) {
        this(generation, observedAt, policy, gpuCount, healthy, pods, unmapped, List.of());
    }

    /**
     * One pod's GPUs by how it holds them.
     *
     * @param gpus   GPUs held whole and exclusively
     * @param shared GPUs the pod holds a replica of (time-slicing, MPS), shared with other pods
     * @param mig    GPUs the pod holds a MIG slice of
     */
    public record PodDevices(String namespace, String name, long gpus, long shared, long mig) {
        public PodDevices {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(name, "name");
        }

        /** Every GPU the pod uses, whole or in part. */
        public long held() { return gpus | shared | mig; }

        /** True when the pod holds only whole GPUs. */
        public boolean exclusive() { return shared == 0 && mig == 0; }

        public String key() { return namespace + "/" + name; }
    }

    /** One container's NVIDIA device IDs as the kubelet listed them. */
    public record Holding(String namespace, String pod, List<String> deviceIds) {}

    /** GPUs no pod holds in any way and the kubelet still offers whole. */
    public long freeHealthy() {
        long held = 0;
        for (PodDevices p : pods) held |= p.held();
        return healthy & ~held;
    }

    public Optional<PodDevices> pod(String namespace, String name) {
        return pods.stream().filter(p -> p.namespace().equals(namespace) && p.name().equals(name)).findFirst();
    }

    /** Same facts, whatever generation and time: the agent publishes only when this is false. */
    public boolean sameContent(NodeReport o) {
        return o != null && policy == o.policy && gpuCount == o.gpuCount && healthy == o.healthy
                && pods.equals(o.pods) && unmapped.equals(o.unmapped) && uuids.equals(o.uuids);
    }

    public NodeReport withGeneration(long g, String at) {
        return new NodeReport(g, at, policy, gpuCount, healthy, pods, unmapped, uuids);
    }

    /**
     * The report for the kubelet's answers: {@code holdings} from {@code List}, {@code allocatable}
     * device IDs from {@code GetAllocatableResources}, mapped to GPU indices by {@code inventory}.
     * Generation and time are left for the publisher to set.
     */
    public static NodeReport of(GpuInventory inventory, TopologyManagerPolicy policy,
                                List<Holding> holdings, List<String> allocatable) {
        List<String> unmapped = new ArrayList<>();
        long healthy = 0;
        for (String raw : allocatable) {
            int g = inventory.gpuIndex(DeviceId.parse(raw));
            if (g < 0 || g >= GpuBoard.MAX_GPUS) unmapped.add(raw);
            else healthy |= 1L << g;
        }
        java.util.Map<String, long[]> byPod = new java.util.TreeMap<>();
        for (Holding h : holdings) {
            long[] m = byPod.computeIfAbsent(h.namespace() + "/" + h.pod(), k -> new long[3]);
            for (String raw : h.deviceIds()) {
                DeviceId id = DeviceId.parse(raw);
                int g = inventory.gpuIndex(id);
                if (g < 0 || g >= GpuBoard.MAX_GPUS) {
                    unmapped.add(raw);
                    continue;
                }
                m[kind(id)] |= 1L << g;
            }
        }
        List<PodDevices> pods = new ArrayList<>();
        byPod.forEach((key, m) -> {
            if ((m[0] | m[1] | m[2]) == 0) return;
            int slash = key.indexOf('/');
            pods.add(new PodDevices(key.substring(0, slash), key.substring(slash + 1), m[0], m[1], m[2]));
        });
        return new NodeReport(0, null, policy, inventory.gpuCount(), healthy, pods, unmapped, uuidsInIndexOrder(inventory));
    }

    /** GPU i's UUID at position i; empty when nvidia-smi's indices are not 0..n-1 (then nothing is joined by UUID). */
    static List<String> uuidsInIndexOrder(GpuInventory inventory) {
        String[] byIndex = new String[inventory.gpuCount()];
        for (GpuInventory.Gpu g : inventory.gpus()) {
            if (g.index() < 0 || g.index() >= byIndex.length || byIndex[g.index()] != null) return List.of();
            byIndex[g.index()] = g.uuid();
        }
        return List.of(byIndex);
    }

    /** 0 whole, 1 shared replica, 2 MIG slice. */
    private static int kind(DeviceId id) {
        if (id instanceof DeviceId.Mig) return 2;
        if (id instanceof DeviceId.Gpu g) return g.shared() ? 1 : 0;
        if (id instanceof DeviceId.Index x) return x.migIndex() >= 0 ? 2 : x.replica() >= 0 ? 1 : 0;
        return 0;
    }
}
