package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DemandMixTest {
    @Test
    @DisplayName("A steady mix settles: weights stop changing, so board tables are not rebuilt")
    void steadyMixSettles() {
        DemandMix mix = DemandMix.inferenceDefault();
        int[] stream = {2, 4, 8, 1, 1, 2, 4, 1, 2, 1};
        for (int i = 0; i < 5000; i++) mix.observe(stream[i % stream.length]);
        long settled = mix.version();
        for (int i = 0; i < 5000; i++) mix.observe(stream[i % stream.length]);
        assertEquals(settled, mix.version(), "weights kept flapping under an unchanged mix");
    }

    @Test
    @DisplayName("The mix follows a real shift in demand")
    void followsShift() {
        DemandMix mix = DemandMix.inferenceDefault();
        double before = mix.weight(DemandMix.slotOf(8));
        for (int i = 0; i < 2000; i++) mix.observe(8);
        assertTrue(mix.weight(DemandMix.slotOf(8)) > before + 0.3, "TP=8 share did not grow: " + mix);
    }

    @Test
    @DisplayName("A frozen mix never moves")
    void frozen() {
        DemandMix mix = DemandMix.frozen(new double[]{1, 1, 1, 1, 0, 0, 0});
        for (int i = 0; i < 100; i++) mix.observe(8);
        assertEquals(0, mix.version());
        assertEquals(0.26, mix.weight(0), 1e-9, "a quarter, on the 2 % grid (12.5 steps rounds up)");
    }

    @Test
    @DisplayName("The mix is the share of GPU demand: as many 8-GPU as 1-GPU requests weigh 8 to 1")
    void weighsGpusNotRequests() {
        DemandMix byGpu = DemandMix.inferenceDefault();
        DemandMix byRequest = DemandMix.inferenceDefaultByRequest();
        for (int i = 0; i < 4000; i++) {
            int gpus = i % 2 == 0 ? 1 : 8;
            byGpu.observe(gpus);
            byRequest.observe(gpus);
        }
        assertEquals(8.0 / 9, byGpu.weight(DemandMix.slotOf(8)), 0.03, byGpu.toString());
        assertEquals(0.5, byRequest.weight(DemandMix.slotOf(8)), 0.03, byRequest.toString());
    }

    @Test
    @DisplayName("Net of its footprint, a choice costs only the capacity it destroys beyond a free all-to-all board of its own size")
    void netOfFootprint() {
        DemandMix mix = DemandMix.frozen(new double[]{0.25, 0.25, 0.25, 0.25, 0, 0, 0}).netOfFootprint();
        double quad = 1.25 * (0.26 * 4 + 0.26 * 2 * 2 + 0.26 * 4);  // 4 singles, 2 pairs, 1 quad (weights on the 2 % grid)
        assertEquals(0, mix.beyondFootprint(quad, 4), 1e-9);
        assertEquals(0, mix.beyondFootprint(1.25 * 0.26 * 4, 4), 1e-9, "less than the footprint (a PCIe half) is never negative");
        assertEquals(1.0, mix.beyondFootprint(1.25 * 0.26 + 1.0, 1), 1e-9, "a lone GPU pays for what it breaks beyond itself");
        assertEquals(7.0, DemandMix.frozen(new double[]{1, 0, 0, 0, 0, 0, 0}).beyondFootprint(7.0, 1), 1e-9, "gross unless asked");
    }
}
