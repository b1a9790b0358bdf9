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

    static SimPod share(int milli) { return new SimPod("share", 1000, 1024, 1, milli, "", -1); }

    static SimPod whole(int gpus) { return new SimPod("whole", 1000, 1024, gpus, 1000, "", -1); }
}
