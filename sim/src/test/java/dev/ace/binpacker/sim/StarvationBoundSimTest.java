package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Pool;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The starvation bound (issue 34) in protocol B: the {@code ace} row runs the webhook's default bound (5 min) on the
 * simulated clock, {@code ace-no-bound} is the engine without it.
 */
class StarvationBoundSimTest {
    private static final List<OpenbNode> TWO_BOARDS = List.of(
            new OpenbNode("hgx-00", 224000, 2097152, 8, "HGX-H100"),
            new OpenbNode("hgx-01", 224000, 2097152, 8, "HGX-H100"));

    /**
     * Two HGX boards full of TP 2 replicas at t=0: four leave one at a time (t=100, 200, 300, 400 s), the other four
     * stay. A TP 8 arrives at t=10 and waits; from t=150 s a TP 2 arrives every 100 s (each for 500 s), just after
     * each departure, and finds nothing free but the pair that just left.
     */
    private static List<FleetPod> stream() {
        List<FleetPod> t = new ArrayList<>();
        for (int i = 0; i < 4; i++) t.add(new FleetPod("leaving-" + i, 0, 100.0 * (i + 1), "tp", 2, 1000, 2));
        for (int i = 0; i < 4; i++) t.add(new FleetPod("staying-" + i, 0, 1e6, "tp", 2, 1000, 2));
        t.add(new FleetPod("tp8", 10, 1e6, "tp", 8, 1000, 8));
        for (int i = 0; i < 20; i++) t.add(new FleetPod("small-" + i, 150 + 100.0 * i, 500, "tp", 2, 1000, 2));
        return t;
    }

    private static FleetResult run(String policy) {
        return new ProtocolB(new SimCluster(TWO_BOARDS, new OpenbBoards())).run(policy, stream(), 1);
    }

    /** The TP 8's wait in minutes: it arrived at 10 s; still waiting when the last arrival (2,050 s) ends the trace. */
    private static boolean waited(FleetResult r, double seconds) {
        return java.util.Arrays.stream(r.waits().minutes()).anyMatch(m -> Math.abs(m - seconds / 60) < 1e-6);
    }

    @Test
    void withoutTheBoundTheTp8WaitsForEverBehindLaterTp2s() {
        FleetResult r = run("ace-no-bound");
        assertTrue(waited(r, 2050 - 10), "the TP 8 is still waiting at the trace's end: " + java.util.Arrays.toString(r.waits().minutes()));
        assertTrue(!waited(r, 750 - 10));
    }

    @Test
    void theAceRowRunsTheWebhooksBoundAndPlacesTheTp8() {
        FleetResult r = run("ace");
        // past 5 min (t=310 s) the board earmarked for the TP 8 takes no later TP 2: it drains, and the TP 8 starts
        // when the last TP 2 there (small-1, placed at 250 s) leaves at 750 s
        assertTrue(waited(r, 750 - 10), "the TP 8 did not start at 750 s: " + java.util.Arrays.toString(r.waits().minutes()));
        assertTrue(!waited(r, 2050 - 10));
        assertEquals(100.0, r.tpFullBandwidthPct(), 1e-9);
        // what it costs: the TP 2s that arrive after 310 s wait (those from 350 s on queue behind the TP 8)
        assertTrue(r.tpEverWaited() > run("ace-no-bound").tpEverWaited(), "the bound cost the small replicas nothing here");
    }

    @Test
    void withTheBoundOffTheClockChangesNoDecisionWithItOnItDoes() {
        // the simulator before the bound passed time 0 to every decision: the bound off, following the clock is the same
        assertEquals(decisions("ace-no-bound", false), decisions("ace-no-bound", true));
        assertTrue(!decisions("ace", false).equals(decisions("ace", true)), "the ace row's bound never triggered");
        assertEquals(decisions("ace-no-bound", true), decisions("ace", false), "the bound at time 0 is the engine without it");
    }

    /**
     * Where each pod of {@link #stream()} goes, each waiting TP retried at every departure, oldest first (protocol B's
     * loop, kept small here); {@code clock}: the policy is told the time, else every decision is at time 0.
     */
    private static String decisions(String policy, boolean clock) {
        Policy p = Policies.create(policy, SimFixtures.context(TWO_BOARDS, TargetWorkload.of(List.of(), 95)));
        java.util.TreeMap<Double, String> leaving = new java.util.TreeMap<>();
        java.util.ArrayDeque<FleetPod> waiting = new java.util.ArrayDeque<>();
        StringBuilder where = new StringBuilder();
        for (FleetPod pod : stream()) {
            while (!leaving.isEmpty() && leaving.firstKey() <= pod.arrival()) {
                var d = leaving.pollFirstEntry();
                p.clock(clock ? d.getKey() : 0);
                p.release(d.getValue());
                for (var it = waiting.iterator(); it.hasNext(); ) {
                    FleetPod w = it.next();
                    if (!p.place(w.asSimPod(), w.id(), w.tp(), List.of(Pool.INFERENCE))) continue;
                    it.remove();
                    leaving.put(d.getKey() + w.duration() + 1e-6 * leaving.size(), w.id());
                    where.append(w.id()).append('@').append(d.getKey()).append(' ');
                }
            }
            p.clock(clock ? pod.arrival() : 0);
            if (p.place(pod.asSimPod(), pod.id(), pod.tp(), List.of(Pool.INFERENCE))) {
                leaving.put(pod.arrival() + pod.duration() + 1e-6 * leaving.size(), pod.id());
                where.append(pod.id()).append('@').append(pod.arrival()).append(' ');
            } else {
                waiting.add(pod);
            }
        }
        return where.toString();
    }

    @Test
    void aClockThatIsNotATimeIsRefused() {
        Policy p = Policies.create("ace", SimFixtures.context(TWO_BOARDS, TargetWorkload.of(List.of(), 95)));
        assertThrows(IllegalArgumentException.class, () -> p.clock(-1));
        assertThrows(IllegalArgumentException.class, () -> p.clock(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> p.clock(Double.POSITIVE_INFINITY));
    }
}
