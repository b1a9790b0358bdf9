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

/** nvidia-smi mig -lgip fixtures; expected profiles read off the tables and checked against FACTS.md. */
class MigProfileParserTest {

    private static Map<Integer, List<MigProfile>> lgip(String file) throws IOException {
        return MigProfileParser.parseLgip(Files.readString(Path.of("tests/fixtures/mig", file)));
    }

    @Test
    void fourH100SxmGpusEachListTheMigPartedH100Table() throws IOException {
        Map<Integer, List<MigProfile>> p = lgip("h100-sxm5-80gb-4gpu-lgip.txt");
        assertEquals(List.of(0, 1, 2, 3), List.copyOf(p.keySet()));
        for (List<MigProfile> gpu : p.values()) assertEquals(MigTables.H100_80GB, gpu);
    }

    @Test
    void earlyDriverA100ListsFiveProfilesWithoutTheNewer1g10gb() throws IOException {
        List<MigProfile> p = lgip("a100-40gb-lgip-early-driver.txt").get(0);
        assertEquals(List.of("1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"), p.stream().map(MigProfile::name).toList());
        assertEquals(new MigProfile("3g.20gb", 3, 20, 2), p.get(2));
    }

    @Test
    void fullyUsedA100PcieStillReportsTotalsAndSkipsMediaEngineVariants() throws IOException {
        List<MigProfile> p = lgip("a100-pcie-40gb-lgip-r510-zero-free.txt").get(0);
        assertEquals(5, p.size());
        assertEquals(new MigProfile("1g.5gb", 1, 5, 7), p.get(0));
        assertTrue(MigTables.A100_40GB.containsAll(p));
    }

    @Test
    void noMigEnabledDevicesGivesNoProfiles() throws IOException {
        assertTrue(lgip("lgip-no-mig-enabled-devices.txt").isEmpty());
    }

    @Test
    void gpuListOutputIsNotAProfileTable() {
        TopologyParseException e = assertThrows(TopologyParseException.class,
                () -> lgip("h100-80gb-mig-mixed-nvidia-smi-L.txt"));
        assertTrue(e.getMessage().contains("mig -lgip"), e.getMessage());
    }
}
