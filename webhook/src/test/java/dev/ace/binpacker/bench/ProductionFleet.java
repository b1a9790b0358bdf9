package dev.ace.binpacker.bench;

import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import io.fabric8.kubernetes.api.model.Node;
import java.io.IOException;
import java.util.List;
import java.util.Random;

/**
 * A cluster built the way {@code serve --nodes FILE} builds it: an inventory written as YAML, read
 * back with {@link NodeListLoader}, every Node mapped by the standard {@link NodeMapper} (topology
 * annotations parsed, boards interned), then an {@link Allocator} with the webhook's
 * {@link PackerConfig#defaults()}.
 */
final class ProductionFleet {
    private ProductionFleet() {}

    static Allocator load(int nodes) throws IOException {
        List<Node> read = NodeListLoader.load(Inventories.cached(nodes));
        NodeMapper mapper = NodeMapper.standard();
        ClusterState state = new ClusterState();
        for (Node n : read) state.upsert(mapper.map(n));
        Allocator a = new Allocator(state, PackerConfig.defaults());
        learn(a, 4096, 42);
        return a;
    }

    /**
     * Tells the packer about a seeded stream of webhook-shaped requests (TP 1/2/4/8, whole GPUs, no
     * selector) without placing them, so its demand mix and fragmentation target are what a webhook
     * that has been running a while has learned.
     */
    static void learn(Allocator a, int requests, long seed) {
        Random rnd = new Random(seed);
        int[] sizes = {1, 1, 1, 2, 2, 4, 8};
        for (int i = 0; i < requests; i++) {
            int k = sizes[rnd.nextInt(sizes.length)];
            a.packer().observe(PlacementRequest.whole("learn-" + i, WorkloadClass.INFERENCE, k, k, List.of(Pool.INFERENCE), NodeConstraints.NONE));
        }
    }

    /** Holds one GPU (the lowest) on every GPU node, plus each other GPU with probability {@code fraction}: no 8-GPU clique is free anywhere. */
    static void noFullNodes(Allocator a, double fraction, long seed) {
        Random rnd = new Random(seed);
        ClusterState s = a.state();
        for (int i = 0; i < s.capacity(); i++) {
            int gpus = s.node(i).gpuCount();
            if (gpus == 0) continue;
            long mask = 1;
            for (int g = 1; g < gpus; g++) if (rnd.nextDouble() < fraction) mask |= 1L << g;
            a.adopt(new Reservation("held-" + i, s.node(i).name(), mask, 1000, 0, 1, null, 0, false));
        }
    }
}
