package dev.ace.binpacker.placement.demand;

import static dev.ace.binpacker.placement.demand.Fleet.CLIQUE;
import static dev.ace.binpacker.placement.demand.Fleet.HGX_TYPE;
import static dev.ace.binpacker.placement.demand.Fleet.TYPES;
import static dev.ace.binpacker.placement.demand.Fleet.gpus;
import static dev.ace.binpacker.placement.demand.Fleet.hgx;
import static dev.ace.binpacker.placement.demand.Fleet.tray;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DemandCalculatorTest {
    private static Demand compute(List<Waiter> w, List<Supply> s, List<Signal> sig) { return DemandCalculator.compute(w, s, sig, TYPES); }

    @Test
    @DisplayName("4 + 4 + 4 free GPUs on three HGX nodes and a TP 8 waiter: one node, the HGX type, at its price")
    void scatteredGpusAreNoClique() {
        List<Supply> s = List.of(hgx("a", gpus(0, 1, 2, 3)), hgx("b", gpus(4, 5, 6, 7)), hgx("c", gpus(0, 1, 4, 5)));
        Demand d = compute(List.of(Waiter.single("w", "inference", null, 8)), s, List.of());
        assertEquals(1, d.asks().size());
        Demand.Ask a = d.asks().get(0);
        assertEquals(new Shape("inference", "p5.48xlarge", 8, null), a.shape());
        assertEquals(1, a.nodes());
        assertEquals(98.32, a.costPerHour(), 1e-9);
        assertEquals(List.of("w"), a.waiters());
        assertTrue(d.covered().isEmpty());
    }

    @Test
    @DisplayName("GPUs that pending departures free complete a clique: 4 free + 4 departing hold a TP 8, nothing is bought")
    void departuresCover() {
        Supply half = new Supply("a", "inference", HGX_TYPE.name(), Fleet.HGX, gpus(0, 1, 2, 3), gpus(4, 5, 6, 7), null);
        Demand d = compute(List.of(Waiter.single("w", "inference", null, 8)), List.of(half), List.of());
        assertEquals(0, d.nodes());
        assertEquals(List.of(new Demand.Cover("w", "a")), d.covered());
    }

    @Test
    @DisplayName("A buffer already asked for counts once: two TP 8 waiters and one node on its way ask for one more")
    void signalsAreNotAskedTwice() {
        Signal one = new Signal(new Shape("inference", HGX_TYPE.name(), 8, null), 1, null);
        Demand d = compute(List.of(Waiter.single("w1", "inference", null, 8), Waiter.single("w2", "inference", null, 8)), List.of(), List.of(one));
        assertEquals(1, d.nodes());
        assertEquals(List.of("w2"), d.asks().get(0).waiters());
        assertEquals("w1", d.covered().get(0).waiter());
    }

    @Test
    @DisplayName("Two TP 4 waiters share one bought node; a TP 4 and a TP 8 need two")
    void boughtNodesArePacked() {
        assertEquals(1, compute(List.of(Waiter.single("a", "inference", "p5.48xlarge", 4), Waiter.single("b", "inference", "p5.48xlarge", 4)),
                List.of(), List.of()).nodes());
        Demand d = compute(List.of(Waiter.single("a", "inference", "p5.48xlarge", 4), Waiter.single("b", "inference", "p5.48xlarge", 8)),
                List.of(), List.of());
        assertEquals(2, d.nodes());
        assertEquals(List.of(8, 4), d.asks().stream().map(x -> x.shape().cliqueSize()).toList());
    }

    @Test
    @DisplayName("Without a type selected, a waiter gets the cheapest type that holds its clique: a TP 2 on bridged pairs, a TP 8 on HGX")
    void cheapestTypeThatHoldsTheClique() {
        Demand d = compute(List.of(Waiter.single("a", "inference", null, 2), Waiter.single("b", "inference", null, 8)), List.of(), List.of());
        assertEquals(List.of("a100-pcie-x4", "p5.48xlarge"), d.asks().stream().map(x -> x.shape().type()).sorted().toList());
    }

    @Test
    @DisplayName("A TP 16 group of four 4-GPU ranks: four whole trays of one NVLink domain, in one request for the group")
    void tp16IsWholeTraysOfOneDomain() {
        Demand d = compute(List.of(Waiter.group("g", "inference", null, 4, 4, CLIQUE)), List.of(), List.of());
        assertEquals(1, d.asks().size());
        Demand.Ask a = d.asks().get(0);
        assertEquals(new Shape("inference", "gb200-tray", 4, CLIQUE), a.shape());
        assertEquals("g", a.group());
        assertEquals(4, a.nodes());
        assertEquals(4 * 42.0, a.costPerHour(), 1e-9);
    }

    @Test
    @DisplayName("Three free trays in one domain and one in another do not hold a TP 16: the group buys all four, not one")
    void traysSplitAcrossDomainsDoNotCount() {
        List<Supply> s = new ArrayList<>();
        for (int i = 0; i < 3; i++) s.add(tray("t" + i, "clu.1", Fleet.TRAY.allGpus()));
        s.add(tray("u0", "clu.2", Fleet.TRAY.allGpus()));
        s.add(tray("t3", "clu.1", gpus(0, 1, 2)));
        Demand d = compute(List.of(Waiter.group("g", "inference", null, 4, 4, CLIQUE)), s, List.of());
        assertEquals(4, d.nodes());
        assertTrue(d.covered().isEmpty());
        s.set(4, tray("t3", "clu.1", Fleet.TRAY.allGpus()));
        Demand fits = compute(List.of(Waiter.group("g", "inference", null, 4, 4, CLIQUE)), s, List.of());
        assertEquals(0, fits.nodes());
        assertEquals(List.of("t0", "t1", "t2", "t3"), fits.covered().stream().map(Demand.Cover::where).toList());
    }

    @Test
    @DisplayName("Half a group is never bought: a TP 8 x 2 group with one free HGX node asks for two nodes, and covers nothing")
    void halfAGroupGetsNoNodes() {
        Demand d = compute(List.of(Waiter.group("g", "inference", HGX_TYPE.name(), 2, 8, null)), List.of(hgx("a", Fleet.HGX.allGpus())), List.of());
        assertEquals(2, d.nodes());
        assertEquals("g", d.asks().get(0).group());
        assertTrue(d.covered().isEmpty());
        Demand later = compute(List.of(Waiter.group("g", "inference", HGX_TYPE.name(), 2, 8, null), Waiter.single("w", "inference", null, 8)),
                List.of(hgx("a", Fleet.HGX.allGpus())), List.of());
        assertEquals(List.of(new Demand.Cover("w", "a")), later.covered(), "the free node the group could not use goes to the next waiter");
    }

    @Test
    @DisplayName("A group's own provisioning request covers that group only, and no other waiter")
    void groupSignalIsTheGroups() {
        Signal pr = new Signal(new Shape("inference", HGX_TYPE.name(), 8, null), 2, "g");
        Demand d = compute(List.of(Waiter.single("w", "inference", null, 8), Waiter.group("g", "inference", null, 2, 8, null)), List.of(), List.of(pr));
        assertEquals(1, d.nodes());
        assertEquals(List.of("w"), d.asks().get(0).waiters());
        assertEquals(List.of("g#0", "g#1"), d.covered().stream().map(Demand.Cover::waiter).toList());
    }

    @Test
    @DisplayName("A waiter no configured type can hold is unmet with the reason, not bought")
    void unmetSaysWhy() {
        Demand d = compute(List.of(Waiter.single("w", "inference", "a100-pcie-x4", 4)), List.of(), List.of());
        assertEquals(0, d.nodes());
        assertEquals("no node type configured for pool inference and type a100-pcie-x4 holds 1 x 4 GPUs in one clique", d.unmet().get(0).reason());
        Demand slicing = compute(List.of(Waiter.single("w", "slicing", null, 1)), List.of(), List.of());
        assertEquals(1, slicing.unmet().size());
    }

    @Test
    @DisplayName("Bad inputs are refused with the field named")
    void badInputs() {
        assertThrows(IllegalArgumentException.class, () -> compute(List.of(Waiter.single("w", "inference", null, 8), Waiter.single("w", "inference", null, 4)), List.of(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> NodeType.node("inference", "x", Fleet.HGX, -1));
        assertThrows(IllegalArgumentException.class, () -> NodeType.node("inference", "x", Fleet.HGX, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Waiter.single("w", "inference", null, 0));
        assertThrows(IllegalArgumentException.class, () -> new Supply("a", "inference", "t", Fleet.TRAY, gpus(5), 0, null));
        assertThrows(IllegalArgumentException.class, () -> new Supply("a", "inference", "t", Fleet.TRAY, gpus(1), gpus(1), null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> compute(List.of(), List.of(),
                List.of(new Signal(new Shape("inference", "unknown", 8, null), 1, null))));
        assertTrue(e.getMessage().contains("unknown"), e.getMessage());
    }
}
