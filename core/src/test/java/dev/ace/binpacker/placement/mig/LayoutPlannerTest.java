package dev.ace.binpacker.placement.mig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.MigConfig;
import dev.ace.binpacker.topology.MigGeometry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The layout planner on the real profile tables: what it may change, what it must serve, and that it settles. */
class LayoutPlannerTest {
    private static final MigGeometry H100 = MigGeometry.H100_80GB;
    private static final List<MigGeometry> MODELS = List.of(MigGeometry.A100_40GB, MigGeometry.A100_80GB, H100, MigGeometry.H200_141GB);

    private static DemandWindow steady(long window, Map<String, Integer> wanted) {
        DemandWindow w = new DemandWindow(window);
        for (long t = 0; t <= window; t += 600) w.record(t, wanted);
        return w;
    }

    private static PoolNode idle(String name, String config) { return new PoolNode(name, H100, 4, config, 0, false); }

    @Test
    void anIdleNodeCutFor1gIsRecutFor3gWhenOnly3gDemandPersists() {
        LayoutPlanner p = new LayoutPlanner(new PlannerConfig(0.25, 3600, 1), MigConfig.defaults(H100));
        var plan = p.plan(List.of(idle("n1", "all-1g.10gb")), steady(3600, Map.of("3g.40gb", 6)));
        assertEquals(1, plan.changes().size());
        assertEquals("all-3g.40gb", plan.changes().get(0).to());
        assertTrue(plan.changes().get(0).reason().contains("18 compute slices"), plan.changes().get(0).reason());
        assertEquals(Map.of(), plan.unserved());
    }

    @Test
    void aNodeWithRunningPodsIsOnlyDrainedFirstAndTheBudgetHolds() {
        LayoutPlanner p = new LayoutPlanner(new PlannerConfig(0.25, 3600, 2), MigConfig.defaults(H100));
        List<PoolNode> nodes = List.of(new PoolNode("busy", H100, 4, "all-1g.10gb", 1, false),
                new PoolNode("moving", H100, 4, "all-1g.10gb", 0, true), idle("a", "all-1g.10gb"), idle("b", "all-1g.10gb"));
        var plan = p.plan(nodes, steady(3600, Map.of("3g.40gb", 16)));
        assertEquals(List.of("a"), plan.changes().stream().map(Recommendation::node).toList(), "budget 2, one already in change");
        assertFalse(plan.changes().get(0).drainFirst());
        assertEquals(Map.of("3g.40gb", 8), plan.unserved());
        var wider = new LayoutPlanner(new PlannerConfig(0.25, 3600, 4), MigConfig.defaults(H100)).plan(nodes, steady(3600, Map.of("3g.40gb", 16)));
        assertEquals(List.of("a", "b"), wider.changes().stream().map(Recommendation::node).toList(), "two idle nodes serve all 16: nothing to drain");
        assertEquals(2, new LayoutPlanner(new PlannerConfig(0.25, 3600, 4), MigConfig.defaults(H100)).plan(nodes, steady(3600, Map.of("3g.40gb", 24))).changes().size(),
                "without drain, the busy node is left alone");
        var more = new LayoutPlanner(new PlannerConfig(0.25, 3600, 4, true), MigConfig.defaults(H100)).plan(nodes, steady(3600, Map.of("3g.40gb", 24)));
        Recommendation drain = more.changes().get(2);
        assertEquals("busy", drain.node());
        assertTrue(drain.drainFirst() && drain.reason().startsWith("drain first (1 pods running"), drain.reason());
    }

    @Test
    void aBurstShorterThanTheWindowChangesNothing() {
        LayoutPlanner p = new LayoutPlanner(new PlannerConfig(0.25, 7200, 1), MigConfig.defaults(H100));
        DemandWindow w = new DemandWindow(7200);
        w.record(0, Map.of("1g.10gb", 20));
        w.record(3600, Map.of("1g.10gb", 20, "3g.40gb", 8));
        w.record(7200, Map.of("1g.10gb", 20, "3g.40gb", 8));
        assertTrue(p.plan(List.of(idle("n", "all-1g.10gb")), w).changes().isEmpty());
        w.record(7300, Map.of("1g.10gb", 20, "3g.40gb", 8));
        w.record(10800, Map.of("3g.40gb", 8));
        assertEquals("all-3g.40gb", p.plan(List.of(idle("n", "all-1g.10gb")), w).changes().get(0).to());
    }

    @Test
    void aLayoutOnlySlightlyBetterIsNotWorthAChange() {
        // current all-balanced serves 3g x4 + 2g x4 = 20 slices of this need; all-3g.40gb serves 24: 1.2x, under the 1.25 margin
        LayoutPlanner p = new LayoutPlanner(new PlannerConfig(0.25, 3600, 1), MigConfig.defaults(H100));
        var plan = p.plan(List.of(idle("n", "all-balanced")), steady(3600, Map.of("3g.40gb", 8, "2g.20gb", 4)));
        assertTrue(plan.changes().isEmpty(), plan.toString());
        var eager = new LayoutPlanner(new PlannerConfig(0.1, 3600, 1), MigConfig.defaults(H100));
        assertEquals("all-3g.40gb", eager.plan(List.of(idle("n", "all-balanced")), steady(3600, Map.of("3g.40gb", 8, "2g.20gb", 4))).changes().get(0).to());
    }

    @Test
    void aSteadyNoisyMixSettlesAndNeverFlaps() {
        Random r = new Random(7);
        LayoutPlanner p = new LayoutPlanner(new PlannerConfig(0.25, 7200, 1), MigConfig.defaults(H100));
        Map<String, String> config = new TreeMap<>();
        for (int i = 0; i < 6; i++) config.put("n" + i, "all-7g.80gb");
        Map<String, Integer> changes = new HashMap<>();
        DemandWindow w = new DemandWindow(7200);
        for (long t = 0; t < 48 * 3600; t += 600) {
            w.record(t, Map.of("1g.10gb", 20 + r.nextInt(9), "3g.40gb", 8 + r.nextInt(4), "2g.20gb", r.nextInt(3)));
            List<PoolNode> nodes = new ArrayList<>();
            config.forEach((n, c) -> nodes.add(idle(n, c)));
            for (Recommendation rec : p.plan(nodes, w).changes()) {
                config.put(rec.node(), rec.to());
                changes.merge(rec.node(), 1, Integer::sum);
            }
        }
        assertFalse(changes.isEmpty());
        changes.forEach((n, c) -> assertEquals(1, c, n + " changed " + c + " times under a steady mix"));
    }

    @Test
    void randomDemandNeverGetsALayoutAGpuCannotHoldNorLeavesAnIdleNodeUselessWhileItCouldServe() {
        Random r = new Random(36);
        for (int round = 0; round < 300; round++) {
            MigGeometry g = MODELS.get(r.nextInt(MODELS.size()));
            List<MigConfig> allowed = new ArrayList<>(MigConfig.defaults(g));
            // a few custom configs, some of which no GPU can hold: the planner must never pick those
            for (int k = 0; k < 3; k++) {
                Map<String, Integer> d = new TreeMap<>();
                for (int j = 0; j < 1 + r.nextInt(3); j++) {
                    var s = g.shapes().get(r.nextInt(g.shapes().size()));
                    d.merge(s.profile().name(), 1 + r.nextInt(3), Integer::sum);
                }
                allowed.add(new MigConfig("custom-" + k, d));
            }
            LayoutPlanner p = new LayoutPlanner(new PlannerConfig(r.nextDouble(), 600, 100, r.nextBoolean()), allowed);
            Map<String, Integer> need = new TreeMap<>();
            for (var s : g.shapes()) if (r.nextInt(3) == 0) need.put(s.profile().name(), 1 + r.nextInt(30));
            List<PoolNode> nodes = new ArrayList<>();
            for (int i = 0; i < 1 + r.nextInt(8); i++) {
                String cur = allowed.get(r.nextInt(allowed.size())).name();
                nodes.add(new PoolNode("n" + i, g, 1 + r.nextInt(8), cur, r.nextInt(4) == 0 ? 1 + r.nextInt(3) : 0, false));
            }
            DemandWindow w = new DemandWindow(600);
            w.record(0, need);
            w.record(600, need);
            var plan = p.plan(nodes, w);
            Map<String, String> finalConfig = new HashMap<>();
            for (PoolNode n : nodes) finalConfig.put(n.name(), n.config());
            for (Recommendation rec : plan.changes()) {
                PoolNode n = nodes.stream().filter(x -> x.name().equals(rec.node())).findFirst().orElseThrow();
                assertEquals(n.runningPods() > 0, rec.drainFirst(), "a node with running pods is only ever drained first");
                MigConfig c = allowed.stream().filter(x -> x.name().equals(rec.to())).findFirst().orElseThrow();
                assertTrue(c.tryLayout(g).isPresent(), g.model() + " cannot hold " + c);
                finalConfig.put(rec.node(), rec.to());
            }
            for (PoolNode n : nodes) {
                if (n.runningPods() > 0) continue;
                MigConfig kept = allowed.stream().filter(x -> x.name().equals(finalConfig.get(n.name()))).findFirst().orElseThrow();
                if (LayoutPlanner.value(kept, need, n.gpus(), g) > 0 && kept.tryLayout(g).isPresent()) continue;
                // an idle node serving nothing of the demand: no allowed config it can hold may serve what stays unserved
                for (MigConfig c : p.allowedFor(g)) {
                    assertEquals(0, LayoutPlanner.value(c, plan.unserved(), n.gpus(), g),
                            "round " + round + ": idle " + n.name() + " kept " + kept.name() + " while " + c.name() + " would serve " + plan.unserved());
                }
            }
        }
    }

    @Test
    void badInputsAreRefusedClearly() {
        assertThrows(IllegalArgumentException.class, () -> new PlannerConfig(-1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new PlannerConfig(0.2, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new LayoutPlanner(PlannerConfig.defaults(), List.of()));
        MigConfig c = MigConfig.defaults(H100).get(0);
        assertThrows(IllegalArgumentException.class, () -> new LayoutPlanner(PlannerConfig.defaults(), List.of(c, c)));
        DemandWindow w = new DemandWindow(60);
        w.record(100, Map.of());
        assertThrows(IllegalArgumentException.class, () -> w.record(50, Map.of()));
        assertThrows(IllegalArgumentException.class, () -> w.record(200, Map.of("1g.10gb", -1)));
        assertThrows(IllegalArgumentException.class, () -> new PoolNode("n", H100, 0, null, 0, false));
    }
}
