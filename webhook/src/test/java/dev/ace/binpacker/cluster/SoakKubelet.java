package dev.ace.binpacker.cluster;

import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.cluster.node.NodeShape;
import dev.ace.binpacker.cluster.report.NodeReportStore;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.truth.NodeReport;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The kubelets of {@link FakeCluster}'s nodes as far as GPUs go, with the node agent beside each. A pod
 * bound to a node gets its devices when the kubelet admits it, picked the kubelet's way, not ACE's: the
 * device plugin sees no pod identity and on an NVSwitch board scores only NUMA locality, so among the
 * NUMA nodes that can hold the request one is taken at random, and random GPUs in it (ties fall to map
 * order). A pod keeps its devices until it finished or is gone (a Terminating pod still holds them); a
 * pod the kubelet cannot give devices to fails (UnexpectedAdmissionError). The healthy GPUs are the
 * lowest {@code allocatable} of the board. The agent publishes {@code ace.dev/gpu-allocation} on its Node
 * when what it reports changed, with the next generation.
 */
final class SoakKubelet {
    private final FakeCluster c;
    private final Random rnd;
    private final NodeMapper mapper = NodeMapper.standard();
    private final Map<String, Map<String, Long>> devices = new TreeMap<>();
    private final Map<String, NodeReport> published = new HashMap<>();
    int rejected;
    int reports;

    SoakKubelet(FakeCluster c, long seed) {
        this.c = c;
        this.rnd = new Random(seed * 31 + 7);
    }

    /** Devices a pod holds per the kubelet, by pod UID, on one node. */
    Map<String, Long> devices(String node) { return devices.getOrDefault(node, Map.of()); }

    /** Kubelets admit and release pods; agents publish what changed. */
    void sync() {
        for (Node n : new ArrayList<>(c.nodes.values())) {
            String name = n.getMetadata().getName();
            GpuBoard board = mapper.map(n).board();
            if (board == null) continue;
            long healthy = lowest(board.allGpus(), Math.min(NodeShape.allocatableGpus(n), board.gpuCount()));
            Map<String, Long> held = devices.computeIfAbsent(name, k -> new LinkedHashMap<>());
            held.keySet().removeIf(uid -> !holds(c.pods.get(uid), name));
            long used = 0;
            for (long m : held.values()) used |= m;
            for (Pod p : new ArrayList<>(c.pods.values())) {
                String uid = p.getMetadata().getUid();
                int need = dev.ace.binpacker.workload.GpuCount.held(p.getSpec());
                if (need == 0 || held.containsKey(uid) || !holds(p, name) || p.getMetadata().getDeletionTimestamp() != null) continue;
                long got = pick(board, healthy & ~used, need);
                if (Long.bitCount(got) < need) {
                    rejected++;
                    p.getStatus().setPhase("Failed");
                    c.store(p);
                    continue;
                }
                held.put(uid, got);
                used |= got;
            }
            publish(n, board, healthy, held);
        }
    }

    private static boolean holds(Pod p, String node) {
        if (p == null || !node.equals(p.getSpec().getNodeName())) return false;
        String phase = p.getStatus().getPhase();
        return !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    private long pick(GpuBoard board, long free, int k) {
        Map<Integer, Long> byNuma = new TreeMap<>();
        for (int g : GpuBoard.indices(free)) byNuma.merge(board.numaNode(g), 1L << g, (a, b) -> a | b);
        List<Long> fits = byNuma.values().stream().filter(m -> Long.bitCount(m) >= k).toList();
        long from = fits.isEmpty() ? free : fits.get(rnd.nextInt(fits.size()));
        List<Integer> gpus = new ArrayList<>();
        for (int g : GpuBoard.indices(from)) gpus.add(g);
        java.util.Collections.shuffle(gpus, rnd);
        long out = 0;
        for (int i = 0; i < Math.min(k, gpus.size()); i++) out |= 1L << gpus.get(i);
        return out;
    }

    private void publish(Node n, GpuBoard board, long healthy, Map<String, Long> held) {
        String name = n.getMetadata().getName();
        List<NodeReport.PodDevices> pods = new ArrayList<>();
        held.forEach((uid, mask) -> {
            Pod p = c.pods.get(uid);
            pods.add(new NodeReport.PodDevices(p.getMetadata().getNamespace(), p.getMetadata().getName(), mask, 0, 0));
        });
        NodeReport now = new NodeReport(0, null, TopologyManagerPolicy.NONE, board.gpuCount(), healthy, pods, List.of());
        NodeReport last = published.get(name);
        if (now.sameContent(last)) return;
        NodeReport next = now.withGeneration(last == null ? 1 : last.generation() + 1, Instant.ofEpochMilli(c.clock.get()).toString());
        published.put(name, next);
        c.putReport(name, NodeReportStore.spec(name, next).toString());
        reports++;
    }

    private static long lowest(long mask, int k) {
        long out = 0;
        for (long rest = mask; rest != 0 && Long.bitCount(out) < k; rest &= rest - 1) out |= Long.lowestOneBit(rest);
        return out;
    }
}
