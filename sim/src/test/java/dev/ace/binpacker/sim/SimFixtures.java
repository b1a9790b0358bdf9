package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.Ledger;
import dev.ace.binpacker.placement.Reservation;
import java.nio.file.Path;
import java.util.List;

/** Small hand-made clusters for the policy tests, and the project's copy of the openb data. */
final class SimFixtures {
    static final Path OPENB = Path.of("tests/traces/openb");

    private SimFixtures() {}

    static SimContext context(List<OpenbNode> nodes, TargetWorkload target) {
        return SimContext.fresh(new SimCluster(nodes, new OpenbBoards()), target, 1);
    }

    static void hold(SimContext c, String id, int node, long mask, int milli) {
        Ledger.Outcome o = c.ledger().reserve(new Reservation(id, c.cluster().nodes().get(node).name(), mask, milli, 0, 1, null, 0, false));
        if (o != Ledger.Outcome.RESERVED) throw new IllegalStateException(o.toString());
    }

    /** A target workload of one whole GPU: for the policies whose choices do not read FGD's target. */
    static final TargetWorkload ONE_GPU = new TargetWorkload(new long[]{0}, new int[]{1000}, new int[]{1}, new int[]{-1}, new double[]{1});

    /** The project's copy of the openb node list, memory checked as {@code simulate} checks it on openb. */
    static SimCluster openbNodes() throws java.io.IOException {
        return new SimCluster(OpenbLoader.nodes(OPENB.resolve("openb_node_list_gpu_node.csv")), new OpenbBoards(), true);
    }

    static SimPod share(int milli) { return new SimPod("share", 1000, 1024, 1, milli, "", -1); }

    static SimPod whole(int gpus) { return new SimPod("whole", 1000, 1024, gpus, 1000, "", -1); }
}
