package dev.ace.binpacker.placement.mig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.MigGeometry;
import dev.ace.binpacker.topology.MigLayout;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Placement inside one GPU, and the static slice choice. */
class SlicePlacerTest {
    private static final MigGeometry H100 = MigGeometry.H100_80GB;

    @Test
    void keepingRoomLeavesSpaceForA3gWhereFirstFitDoesNot() {
        // dra-driver #933: a 1g.10gb is left at slot 4 after others finished; another 1g.10gb comes
        MigLayout gpu = MigLayout.empty(H100).with("1g.10gb", 4);
        int ff = SlicePlacer.firstFit(gpu, "1g.10gb").getAsInt();
        int ace = SlicePlacer.keepRoom(gpu, "1g.10gb").getAsInt();
        assertEquals(0, ff);
        assertEquals(5, ace);
        assertTrue(gpu.with("1g.10gb", ff).freeStarts("3g.40gb").isEmpty(), "first fit strands the 3g");
        assertEquals(List.of(0), gpu.with("1g.10gb", ace).freeStarts("3g.40gb"));
    }

    @Test
    void keepingRoomPuts2gBesideA3gRatherThanAtSlot0OfAnEmptyHalf() {
        MigLayout gpu = MigLayout.empty(H100).with("3g.40gb", 4);
        // 2g at 0 or 2: both keep a 2g slot; at 0 the free run is 2 (slots 2-3) either way, lowest start wins
        assertEquals(0, SlicePlacer.keepRoom(gpu, "2g.20gb").getAsInt());
        MigLayout full = gpu.with("3g.40gb", 0);
        assertTrue(SlicePlacer.keepRoom(full, "1g.10gb").isEmpty());
        assertTrue(SlicePlacer.firstFit(full, "1g.10gb").isEmpty());
    }

    @Test
    void aStaticSliceOnABusyGpuIsTakenBeforeOneOnAnIdleNode() {
        List<StaticSlices.Gpu> gpus = List.of(
                new StaticSlices.Gpu("a", 0, 7, 0, false),
                new StaticSlices.Gpu("b", 1, 2, 5, true),
                new StaticSlices.Gpu("b", 0, 3, 4, true),
                new StaticSlices.Gpu("c", 0, 0, 7, true));
        Optional<StaticSlices.Gpu> g = StaticSlices.choose(gpus);
        assertEquals("b", g.get().node());
        assertEquals(1, g.get().gpu());
        assertFalse(StaticSlices.choose(List.of(new StaticSlices.Gpu("c", 0, 0, 7, true))).isPresent());
    }
}
