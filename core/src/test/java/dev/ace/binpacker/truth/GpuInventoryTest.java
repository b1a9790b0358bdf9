package dev.ace.binpacker.truth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class GpuInventoryTest {
    static String migList(String file) throws Exception {
        return Files.readString(Path.of("tests/fixtures/mig", file));
    }

    @Test
    @DisplayName("nvidia-smi -L with MIG (H100 mixed, fixture): every MIG UUID maps to its parent GPU")
    void migParentsFromListing() throws Exception {
        Map<String, String> parents = GpuInventory.parseMigParents(migList("h100-80gb-mig-mixed-nvidia-smi-L.txt"));
        assertEquals(4, parents.size());
        assertEquals("GPU-b4895dbf-9350-2524-a89b-98161ddd9fe4", parents.get("MIG-9d14fb21-4ae1-546f-a636-011582899c39"));
    }

    @Test
    @DisplayName("Query rows map UUIDs to indices; MIG devices resolve through -L, legacy MIG names through their parent")
    void resolvesDevicesToIndices() throws Exception {
        GpuInventory inv = GpuInventory.of("""
                0, GPU-be839661-c0f5-7452-284b-b875666df60c, 00000000:1B:00.0
                1, GPU-b4895dbf-9350-2524-a89b-98161ddd9fe4, 00000000:43:00.0
                """, migList("h100-80gb-mig-mixed-nvidia-smi-L.txt"));
        assertEquals(2, inv.gpuCount());
        assertEquals("00000000:43:00.0", inv.gpus().get(1).pciBusId());
        assertEquals(1, inv.gpuIndex(DeviceId.parse("MIG-7089d0f3-293f-58c9-8f8c-5ea666eedbde")));
        assertEquals(0, inv.gpuIndex(DeviceId.parse("MIG-GPU-be839661-c0f5-7452-284b-b875666df60c")));
        assertEquals(0, inv.gpuIndex(DeviceId.parse("GPU-BE839661-C0F5-7452-284B-B875666DF60C::2")));
        assertEquals(-1, inv.gpuIndex(DeviceId.parse("GPU-00000000-0000-0000-0000-000000000000")));
        assertEquals(-1, inv.gpuIndex(DeviceId.parse("5")));
    }

    @Test
    @DisplayName("A failing nvidia-smi that prints its error on stdout is refused with the line")
    void refusesErrorText() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GpuInventory.parseQuery(
                "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."));
        assertTrue(e.getMessage().contains("line 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> GpuInventory.parseQuery("\n"));
    }
}
