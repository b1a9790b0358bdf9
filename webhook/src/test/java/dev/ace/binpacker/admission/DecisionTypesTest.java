package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.ReasonCode;
import dev.ace.binpacker.placement.WorkloadClass;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Outcomes and reasons are types; their labels are the decision metric's, which dashboards and alerts select on. */
class DecisionTypesTest {

    @Test
    void outcome_labels_are_the_metric_values_operators_already_select_on() {
        assertEquals(Set.of("placed", "gated", "sliced", "denied", "untouched", "unschedulable"),
                Arrays.stream(Decision.Outcome.values()).map(Decision.Outcome::label).collect(Collectors.toSet()));
        assertEquals(Set.of("none", "invalid", "contended", "fracturing", "pending-cap", "group", "reserve", "tp-waiting", "no_free_gpus"),
                Arrays.stream(Why.Rule.values()).map(Why::label).collect(Collectors.toSet()));
        assertEquals("no_free_clique", new Why.Placement(ReasonCode.NO_FREE_CLIQUE).label());
        assertEquals("too_few_free_gpus", new Why.Placement(ReasonCode.TOO_FEW_FREE_GPUS).label());
    }

    @Test
    void only_a_wait_for_free_gpus_counts_as_capacity_not_a_rule() {
        assertTrue(Why.Rule.RESERVE.wantOfGpus());
        assertTrue(Why.Rule.NO_FREE_GPUS.wantOfGpus());
        assertTrue(new Why.Placement(ReasonCode.NO_FREE_CLIQUE).wantOfGpus());
        assertFalse(Why.Rule.FRACTURING.wantOfGpus());
        assertFalse(Why.Rule.INVALID.wantOfGpus());
        assertFalse(new Why.Placement(ReasonCode.WRONG_POOL).wantOfGpus());
    }

    @Test
    void the_outcome_decides_the_verdict_and_a_mutating_outcome_needs_its_pod() {
        Pod pod = new Pod();
        assertEquals(Decision.Verdict.MUTATE, Decision.gated(WorkloadClass.INFERENCE, pod, "t", List.of(), Why.Rule.GROUP).verdict());
        assertEquals(Decision.Verdict.DENY, Decision.deny(WorkloadClass.BATCH, "t", List.of(), Why.Rule.FRACTURING).verdict());
        assertEquals(Decision.Verdict.UNTOUCHED, Decision.unschedulable(WorkloadClass.BATCH, "t", List.of()).verdict());
        assertThrows(IllegalArgumentException.class, () -> Decision.placed(WorkloadClass.INFERENCE, null, "t", List.of(), null));
        assertThrows(IllegalArgumentException.class,
                () -> new Decision(Decision.Outcome.DENIED, WorkloadClass.BATCH, pod, "t", List.of(), null, Why.Rule.FRACTURING));
    }
}
