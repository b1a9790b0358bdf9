package dev.ace.binpacker.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** MIG placements from the real -lgip/-lgipp fixtures, and the layouts a GPU can and cannot hold. */
class MigGeometryTest {

    private static String fixture(String file) throws IOException {
        return Files.readString(Path.of("tests/fixtures/mig", file));
    }

    @Test
    void h100LgipWithTheH100FamilyLgippGivesTheBuiltInH100Geometry() throws IOException {
        MigGeometry g = MigGeometry.parse("H100-80GB", fixture("h100-sxm5-80gb-4gpu-lgip.txt"), fixture("h100-nvl-lgipp.txt"));
        assertEquals(MigGeometry.H100_80GB, g);
        assertEquals(List.of(0, 4), g.require("3g.40gb").starts());
        assertEquals(4, g.require("3g.40gb").size());
        assertEquals(List.of(0, 2, 4, 6), g.require("1g.20gb").starts());
    }

    @Test
    void earlyDriverA100LgipWithA100LgippMatchesTheBuiltInA100ForItsFiveProfiles() throws IOException {
        MigGeometry g = MigGeometry.parse("A100-40GB", fixture("a100-40gb-lgip-early-driver.txt"), fixture("a100-40gb-lgipp.txt"));
        assertEquals(5, g.shapes().size());
        assertTrue(MigGeometry.A100_40GB.shapes().containsAll(g.shapes()));
    }

    @Test
    void aProfileWithoutPlacementsIsAnErrorNamingIt() throws IOException {
        // the A100 lgipp has no ID 15 (1g.20gb), which the H100 lgip lists
        var e = assertThrows(TopologyParseException.class,
                () -> MigGeometry.parse("H100-80GB", fixture("h100-sxm5-80gb-4gpu-lgip.txt"), fixture("a100-40gb-lgipp.txt")));
        assertTrue(e.getMessage().contains("1g.20gb"), e.getMessage());
        assertThrows(TopologyParseException.class, () -> MigGeometry.parse("X", fixture("h100-sxm5-80gb-4gpu-lgip.txt"), "hello"));
    }

    @Test
    void everyMigPartedDefaultConfigFitsEveryModel() {
        for (MigGeometry g : List.of(MigGeometry.A100_40GB, MigGeometry.A100_80GB, MigGeometry.H100_80GB, MigGeometry.H200_141GB)) {
            for (MigConfig c : MigConfig.defaults(g)) {
                MigLayout l = c.layout(g);
                assertEquals(c.devices(), l.counts(), g.model() + " " + c.name());
            }
        }
        assertEquals(Map.of("1g.18gb", 2, "2g.35gb", 1, "3g.71gb", 1),
                MigConfig.defaults(MigGeometry.H200_141GB).get(6).devices());
    }

    @Test
    void balancedOnH100SitsAsTheFixtureShowsAndTwo3gFillTheGpu() {
        MigLayout b = new MigConfig("all-balanced", Map.of("3g.40gb", 1, "2g.20gb", 1, "1g.10gb", 2)).layout(MigGeometry.H100_80GB);
        assertEquals(new MigLayout.Instance("3g.40gb", 4), b.instances().get(b.instances().size() - 1));
        assertEquals(7, b.computeUsed());
        assertEquals(0, new MigConfig("two-3g", Map.of("3g.40gb", 2)).layout(MigGeometry.H100_80GB).largestPlaceable());
    }

    @Test
    void aConfigTheGpuCannotHoldIsRefused() {
        // 4g + 3g + 1g is 8 compute slices; 2 x 3g + 2g overlaps: neither has a placement
        var g = MigGeometry.H100_80GB;
        assertTrue(new MigConfig("too-much", Map.of("4g.40gb", 1, "3g.40gb", 1, "1g.10gb", 1)).tryLayout(g).isEmpty());
        assertTrue(new MigConfig("overlap", Map.of("3g.40gb", 2, "2g.20gb", 1)).tryLayout(g).isEmpty());
        var e = assertThrows(IllegalArgumentException.class, () -> new MigConfig("x", Map.of("3g.20gb", 1)).layout(g));
        assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new MigConfig("bad name!", Map.of("1g.10gb", 1)));
        assertThrows(IllegalArgumentException.class, () -> new MigConfig("zero", Map.of("1g.10gb", 0)));
    }

    @Test
    void aLayoutWithABadStartAnOverlapOrTooManyIsRefused() {
        var g = MigGeometry.H100_80GB;
        assertThrows(IllegalArgumentException.class, () -> new MigLayout(g, List.of(new MigLayout.Instance("3g.40gb", 2))));
        assertThrows(IllegalArgumentException.class, () -> new MigLayout(g,
                List.of(new MigLayout.Instance("3g.40gb", 0), new MigLayout.Instance("2g.20gb", 2))));
        assertThrows(IllegalArgumentException.class, () -> new MigLayout(g, List.of(new MigLayout.Instance("1g.10gb", 7))));
        assertThrows(IllegalArgumentException.class, () -> new MigLayout(g, List.of(new MigLayout.Instance("1g.5gb", 0))));
        // 4g at 0 and 3g at 4: the whole GPU, allowed
        assertEquals(7, new MigLayout(g, List.of(new MigLayout.Instance("4g.40gb", 0), new MigLayout.Instance("3g.40gb", 4))).computeUsed());
    }
}
