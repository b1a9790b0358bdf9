package dev.ace.binpacker.bench;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.Link;
import dev.ace.binpacker.topology.LinkKind;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Seeded synthetic clusters for benchmarks: same seed, same cluster. */
public final class SyntheticClusters {
    private SyntheticClusters() {}

    static final GpuBoard HGX = board("HGX 8-GPU NVSwitch", 8, (i, j) -> Link.nvlink(18));
    static final GpuBoard PAIRS = board("PCIe bridged pairs x8", 8,
            (i, j) -> i / 2 == j / 2 ? Link.nvlink(12) : Link.of((i < 4) == (j < 4) ? LinkKind.NODE : LinkKind.SYS));
    static final GpuBoard PCIE4 = board("PCIe x4", 4,
            (i, j) -> Link.of(i / 2 == j / 2 ? LinkKind.PIX : LinkKind.SYS));
    static final GpuBoard CUBE = board("DGX-1 cube-mesh", 8,
            (i, j) -> (i / 4 == j / 4 || Math.abs(i - j) == 4) ? Link.nvlink(1) : Link.of(LinkKind.SYS));

    interface LinkFn { Link at(int i, int j); }

    static GpuBoard board(String name, int n, LinkFn f) {
        Link[][] l = new Link[n][n];
        int[] numa = new int[n];
        for (int i = 0; i < n; i++) {
            numa[i] = i < n / 2 ? 0 : 1;
            for (int j = 0; j < n; j++) l[i][j] = i == j ? Link.SELF : f.at(i, j);
        }
        return new GpuBoard(name, l, numa, null);
    }

    /** Mixed boards and pools, like an enterprise cluster. */
    public static ClusterState mixed(int nodes, long seed) {
        Random rnd = new Random(seed);
        ClusterState s = new ClusterState();
        GpuBoard[] boards = {HGX, HGX, HGX, PAIRS, PCIE4, CUBE};
        for (int i = 0; i < nodes; i++) {
            GpuBoard b = boards[rnd.nextInt(boards.length)];
            Pool pool = b == HGX ? Pool.INFERENCE : (rnd.nextInt(4) == 0 ? Pool.SLICING : Pool.GENERAL);
            if (b == PAIRS && rnd.nextBoolean()) pool = Pool.INFERENCE;
            s.upsert(node(i, pool, b, rnd));
        }
        return s;
    }

    /** A fleet of 8-GPU NVSwitch nodes: 12,500 nodes is 100,000 GPUs. */
    public static ClusterState hgxFleet(int nodes, long seed) {
        Random rnd = new Random(seed);
        ClusterState s = new ClusterState();
        for (int i = 0; i < nodes; i++) s.upsert(node(i, rnd.nextInt(10) == 0 ? Pool.SLICING : Pool.INFERENCE, HGX, rnd));
        return s;
    }

    private static NodeInfo node(int i, Pool pool, GpuBoard b, Random rnd) {
        String name = String.format("node-%05d", i);
        return new NodeInfo(name, pool, Map.of("kubernetes.io/hostname", name,
                "topology.kubernetes.io/zone", "zone-" + (char) ('a' + rnd.nextInt(3))), List.of(), b, "synthetic", b.name(), 0);
    }

    /**
     * Holds a random subset of each node's GPUs (each GPU used with probability {@code fraction}), as
     * a cluster scheduled by something that ignores topology looks: every free mask occurs.
     */
    public static void fragment(Allocator a, double fraction, long seed) {
        Random rnd = new Random(seed);
        ClusterState s = a.state();
        for (int i = 0; i < s.capacity(); i++) {
            long mask = 0;
            for (int g = 0; g < s.node(i).gpuCount(); g++) if (rnd.nextDouble() < fraction) mask |= 1L << g;
            if (mask != 0) {
                a.adopt(new dev.ace.binpacker.placement.Reservation("frag-" + i, s.node(i).name(), mask, 1000, 0, 1, null, 0, false));
            }
        }
    }

    /** Places a seeded stream of 1/2/4/8-GPU requests until {@code fraction} of the GPUs are used. */
    public static void fill(Allocator a, double fraction, long seed) {
        Random rnd = new Random(seed);
        ClusterState s = a.state();
        long total = 0;
        for (int i = 0; i < s.capacity(); i++) total += s.node(i).gpuCount();
        long used = 0;
        int[] sizes = {1, 1, 1, 2, 2, 4, 8};
        int failures = 0;
        for (int id = 0; used < fraction * total && failures < 1000; id++) {
            int k = sizes[rnd.nextInt(sizes.length)];
            Pool pool = Pool.values()[rnd.nextInt(3)];
            var o = a.place(PlacementRequest.whole("fill-" + id, WorkloadClass.INFERENCE, k, k, List.of(pool), NodeConstraints.NONE), false, 0);
            if (o.placed()) {
                used += k;
                failures = 0;
            } else {
                failures++;
            }
        }
    }

    /** A TP {@code tp} inference request on pool inference, no node constraints: what every placement benchmark decides. */
    public static PlacementRequest tpRequest(String id, int tp) {
        return PlacementRequest.whole(id, WorkloadClass.INFERENCE, tp, tp, List.of(Pool.INFERENCE), NodeConstraints.NONE);
    }

    /** What admission does to the fleet, state kept steady: decide and reserve under the lock, then release again. */
    public static boolean placeAndRelease(Allocator a, PlacementRequest r) {
        Allocator.Outcome o = a.place(r, false, 0);
        if (o.placed()) a.release(r.id());
        return o.placed();
    }
}
