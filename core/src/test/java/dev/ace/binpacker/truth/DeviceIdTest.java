package dev.ace.binpacker.truth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DeviceIdTest {
    private static List<String> fixtureIds() throws Exception {
        return Files.readAllLines(Path.of("tests/fixtures/podresources/dcgm-exporter-device-ids.txt"));
    }

    @Test
    @DisplayName("Every NVIDIA device ID shape in dcgm-exporter's tests parses: replicas, MIG, the empty replica, the legacy MIG name")
    void parsesFixtureIds() throws Exception {
        List<String> ids = fixtureIds();
        DeviceId.Gpu replica = assertInstanceOf(DeviceId.Gpu.class, DeviceId.parse(ids.get(0)));
        assertEquals("GPU-5a5a7118-e550-79a1-597e-7631e126c57a", replica.uuid());
        assertEquals(3, replica.replica());
        assertEquals(-1, assertInstanceOf(DeviceId.Gpu.class, DeviceId.parse(ids.get(1))).replica());
        DeviceId.Mig migShared = assertInstanceOf(DeviceId.Mig.class, DeviceId.parse(ids.get(2)));
        assertEquals("MIG-42f0f413-f7b0-58cc-aced-c1d1fb54db26", migShared.uuid());
        assertEquals(0, migShared.replica());
        assertNull(migShared.parentUuid());
        DeviceId.Mig emptyReplica = assertInstanceOf(DeviceId.Mig.class, DeviceId.parse(ids.get(7)));
        assertEquals("MIG-2ce7a541-c516-5dbc-a76e-26cc100d9b55", emptyReplica.uuid());
        assertEquals(-1, emptyReplica.replica());
        DeviceId.Mig legacy = assertInstanceOf(DeviceId.Mig.class, DeviceId.parse(ids.get(8)));
        assertEquals("GPU-b8ea3855-276c-c9cb-b366-c6fa655957c5", legacy.parentUuid());
    }

    @Test
    @DisplayName("The index strategy's IDs name GPU and MIG indices; other vendors' IDs are left alone")
    void indexStrategyAndOthers() {
        DeviceId.Index whole = assertInstanceOf(DeviceId.Index.class, DeviceId.parse("3"));
        assertEquals(3, whole.index());
        assertEquals(-1, whole.migIndex());
        DeviceId.Index mig = assertInstanceOf(DeviceId.Index.class, DeviceId.parse("1:2"));
        assertEquals(1, mig.index());
        assertEquals(2, mig.migIndex());
        assertInstanceOf(DeviceId.Other.class, DeviceId.parse("0000:03:00.0-slice-0"));
        assertInstanceOf(DeviceId.Other.class, DeviceId.parse("nvidia0/gi0"));
    }
}
