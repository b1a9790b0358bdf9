package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArrivalsTest {
    private final List<SimPod> trace = new ArrayList<>();

    ArrivalsTest() {
        for (int i = 0; i < 50; i++) trace.add(new SimPod("p" + i, 1000, 1, i % 5 == 0 ? 0 : 1, i % 5 == 0 ? 0 : 100 * (i % 10 + 1), "", -1));
    }

    @Test
    void theSameSeedGivesTheSameArrivalsAndAnotherSeedAnotherOrder() {
        assertEquals(Arrivals.sequence(trace, 42, 1.3, 20_000), Arrivals.sequence(trace, 42, 1.3, 20_000));
        assertNotEquals(Arrivals.sequence(trace, 42, 1.3, 20_000), Arrivals.sequence(trace, 43, 1.3, 20_000));
    }

    @Test
    void aShortTraceIsToppedUpToTheTargetShareOfCapacity() {
        long total = Arrivals.sequence(trace, 42, 1.3, 20_000).stream().mapToLong(SimPod::gpuMilli).sum();
        assertTrue(total <= 26_000 && total > 26_000 - 1000, "requested " + total);
    }

    @Test
    void aLongTraceIsCutDownToTheTarget() {
        long total = Arrivals.sequence(trace, 42, 1.3, 10_000).stream().mapToLong(SimPod::gpuMilli).sum();
        assertTrue(total <= 13_000 && total > 13_000 - 1000, "requested " + total);
    }
}
