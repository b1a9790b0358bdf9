package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.observability.Readiness;
import org.junit.jupiter.api.Test;

/** ace.queue.starvation-bound as Fleet takes it: a negative bound is refused with its setting's name. */
class FleetBoundTest {
    @Test
    void a_negative_starvation_bound_is_refused_by_name() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Fleet(new Readiness(), -1));
        assertTrue(e.getMessage().contains("ace.queue.starvation-bound"), e.getMessage());
    }
}
