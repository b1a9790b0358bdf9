package dev.ace.binpacker.truth.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClaimSelectorTest {
    private static final String U0 = DraFixtures.uuid(1, 0);
    private static final String U1 = DraFixtures.uuid(1, 1);

    @Test
    void namesTheGpusByUuid() {
        ClaimSelector s = ClaimSelector.of("gpu.nvidia.com", List.of(DraFixtures.gpu(1, 0), DraFixtures.gpu(1, 1)));
        assertEquals(2, s.count());
        assertEquals("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].uuid in ['" + U0 + "', '" + U1 + "']", s.expression());
    }

    @Test
    void refusesWhatCouldInjectCelOrNameNothing() {
        assertThrows(IllegalArgumentException.class, () -> new ClaimSelector("gpu.nvidia.com", List.of("GPU-1'] || true || ['")));
        assertThrows(IllegalArgumentException.class, () -> new ClaimSelector("gpu.nvidia.com'] || true || x['", List.of(U0)));
        assertThrows(IllegalArgumentException.class, () -> new ClaimSelector("gpu.nvidia.com", List.of()));
        assertThrows(IllegalArgumentException.class, () -> new ClaimSelector("gpu.nvidia.com", List.of(U0, U0)));
        assertThrows(IllegalArgumentException.class, () -> ClaimSelector.of("gpu.nvidia.com", List.of(DraFixtures.mig(1, 0, 0))));
    }
}
