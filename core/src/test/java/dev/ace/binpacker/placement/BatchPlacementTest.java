package dev.ace.binpacker.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The batch-pool rule (issue 20) on real boards: two HGX H100 (pool inference), one A100 PCIe with bridged pairs (pool
 * general), one L40S PCIe-only node (pool slicing, whole GPUs). Pools in the rule's order; pool inference only as an
 * aligned clique, past the reserve of free 8-cliques and never while a TP replica waits.
 */
class BatchPlacementTest {
    private static Allocator fleet() {
        ClusterState state = new ClusterState();
        state.upsert(Boards.node("hgx-0", Pool.INFERENCE, Boards.HGX_H100));
        state.upsert(Boards.node("hgx-1", Pool.INFERENCE, Boards.HGX_H100));
        state.upsert(Boards.node("a100-0", Pool.GENERAL, Boards.A100_PCIE_PAIRS));
        state.upsert(Boards.node("l40s-0", Pool.SLICING, Boards.L40S));
        return new Allocator(state, PackerConfig.defaults());
    }

    private static void hold(Allocator a, String id, String node, int... gpus) {
        assertEquals(Ledger.Outcome.RESERVED, a.adopt(new Reservation(id, node, GpuBoard.mask(gpus), 1000, 0, 1, null, 0, false)));
    }

    private static BatchPlacement.Ask job(int gpus, int tpWaiting) {
        return new BatchPlacement.Ask(Reservation.newId(), WorkloadClass.BATCH, gpus, Reservation.Owner.NONE, Resources.NONE,
                p -> NodeConstraints.NONE, tpWaiting);
    }

    private static BatchPlacement.Choice trial(Allocator a, BatchRule rule, BatchPlacement.Ask ask) {
        return a.read(al -> BatchPlacement.trial(al, rule, ask, 0));
    }

    private static BatchPlacement.Placed placed(BatchPlacement.Choice c) { return assertInstanceOf(BatchPlacement.Placed.class, c, c.toString()); }

    private static BatchPlacement.Refusal refused(BatchPlacement.Choice c) {
        return assertInstanceOf(BatchPlacement.Refused.class, c, c.toString()).why();
    }

    /** Pools slicing and general full: what is left is pool inference. */
    private static void fillSlicingAndGeneral(Allocator a) {
        hold(a, "l40s", "l40s-0", 0, 1, 2, 3);
        hold(a, "a100", "a100-0", 0, 1, 2, 3);
    }

    @Test
    void the_default_order_is_slicing_then_general_then_inference() {
        Allocator a = fleet();
        assertEquals(List.of(Pool.SLICING, Pool.GENERAL, Pool.INFERENCE), BatchRule.defaults().order());
        BatchPlacement.Placed first = placed(trial(a, BatchRule.defaults(), job(2, 0)));
        assertEquals(Pool.SLICING, first.pool());
        assertEquals("l40s-0", first.outcome().reservation().node());
        hold(a, "l40s", "l40s-0", 0, 1, 2, 3);
        BatchPlacement.Placed second = placed(trial(a, BatchRule.defaults(), job(2, 0)));
        assertEquals(Pool.GENERAL, second.pool());
        assertTrue(Boards.A100_PCIE_PAIRS.isClique(second.outcome().reservation().gpuMask()), "a bridged pair: " + second);
        hold(a, "a100", "a100-0", 0, 1, 2, 3);
        BatchPlacement.Placed third = placed(trial(a, BatchRule.defaults(), job(4, 0)));
        assertEquals(Pool.INFERENCE, third.pool());
        assertEquals(1, third.free8After(), "one HGX board stays whole: the reserve");
    }

    @Test
    void pool_inference_takes_no_batch_pod_while_a_tp_replica_waits_unless_the_rule_says_otherwise() {
        Allocator a = fleet();
        fillSlicingAndGeneral(a);
        assertEquals(BatchPlacement.Refusal.TP_WAITING, refused(trial(a, BatchRule.defaults(), job(2, 1))));
        assertEquals(Pool.INFERENCE, placed(trial(a, BatchRule.defaults().yielding(false), job(2, 1))).pool());
    }

    @Test
    void pool_inference_keeps_the_reserve_of_free_8_cliques() {
        Allocator a = fleet();
        fillSlicingAndGeneral(a);
        hold(a, "tp8", "hgx-0", 0, 1, 2, 3, 4, 5, 6, 7);
        BatchPlacement.Refused r = assertInstanceOf(BatchPlacement.Refused.class, trial(a, BatchRule.defaults(), job(2, 0)));
        assertEquals(BatchPlacement.Refusal.RESERVE, r.why());
        assertEquals(0, r.free8After());
        assertEquals(Pool.INFERENCE, placed(trial(a, BatchRule.defaults().withReserve(0), job(2, 0))).pool());
    }

    @Test
    void a_misaligned_job_never_gets_pool_inference_even_with_every_other_pool_full() {
        Allocator a = fleet();
        fillSlicingAndGeneral(a);
        BatchPlacement.Refused r = assertInstanceOf(BatchPlacement.Refused.class, trial(a, BatchRule.defaults(), job(3, 0)));
        assertEquals(BatchPlacement.Refusal.MISALIGNED, r.why());
        assertEquals(8, r.domain());
    }

    @Test
    void a_pool_left_out_of_the_order_is_never_used() {
        Allocator a = fleet();
        BatchRule noInference = BatchRule.defaults().inOrder(List.of(Pool.SLICING, Pool.GENERAL));
        fillSlicingAndGeneral(a);
        assertEquals(BatchPlacement.Refusal.NOT_OFFERED, refused(trial(a, noInference, job(2, 0))));
        Allocator b = fleet();
        BatchRule inferenceFirst = BatchRule.defaults().inOrder(List.of(Pool.INFERENCE, Pool.GENERAL));
        assertEquals(Pool.INFERENCE, placed(trial(b, inferenceFirst, job(2, 0))).pool(), "pool slicing not listed, inference before general");
    }

    @Test
    void a_pool_the_caller_may_not_send_the_pod_to_is_skipped() {
        Allocator a = fleet();
        BatchPlacement.Ask notToSlicing = new BatchPlacement.Ask(Reservation.newId(), WorkloadClass.UNKNOWN, 2, Reservation.Owner.NONE,
                Resources.NONE, p -> p == Pool.SLICING ? null : NodeConstraints.NONE, 0);
        assertEquals(Pool.GENERAL, placed(trial(a, BatchRule.defaults(), notToSlicing)).pool());
    }

    @Test
    void a_node_selector_that_narrows_the_job_to_pool_inference_does_not_skip_its_checks() {
        Allocator a = fleet();
        // a tenant pins its job to pool inference by label: pools slicing and general have no node it allows
        NodeConstraints onlyHgx = new NodeConstraints(java.util.Map.of("kubernetes.io/hostname", "hgx-0"), List.of(), List.of());
        BatchPlacement.Ask forged = new BatchPlacement.Ask(Reservation.newId(), WorkloadClass.BATCH, 2, Reservation.Owner.NONE,
                Resources.NONE, p -> onlyHgx, 1);
        assertEquals(BatchPlacement.Refusal.TP_WAITING, refused(trial(a, BatchRule.defaults(), forged)));
    }

    @Test
    void commit_reserves_the_trial_and_reserves_nothing_when_the_reserve_was_lost_meanwhile() {
        Allocator a = fleet();
        fillSlicingAndGeneral(a);
        BatchPlacement.Placed t = placed(trial(a, BatchRule.defaults(), job(2, 0)));
        Optional<Allocator.Outcome> done = BatchPlacement.commit(a, BatchRule.defaults(), t, 0);
        assertTrue(done.isPresent() && done.get().placed());
        assertTrue(a.reservation(t.request().id()).isPresent());

        Allocator b = fleet();
        fillSlicingAndGeneral(b);
        hold(b, "tp4-tp2", "hgx-0", 0, 1, 2, 3, 4, 5);
        BatchPlacement.Placed late = placed(trial(b, BatchRule.defaults(), job(2, 0)));
        assertEquals("hgx-0", late.outcome().reservation().node(), "the 2 GPUs left beside the TP replicas");
        hold(b, "raced", "hgx-0", 6, 7); // another admission took them meanwhile: only the whole board is left
        assertTrue(BatchPlacement.commit(b, BatchRule.defaults(), late, 0).isEmpty());
        assertTrue(b.reservation(late.request().id()).isEmpty(), "nothing kept below the reserve");
    }

    @Test
    void the_order_is_read_from_pool_names_and_a_typo_is_an_error() {
        assertEquals(List.of(Pool.GENERAL, Pool.SLICING), BatchRule.parseOrder(" general, Slicing "));
        assertThrows(IllegalArgumentException.class, () -> BatchRule.parseOrder("slicing,genral"));
        assertThrows(IllegalArgumentException.class, () -> new BatchRule(BatchRule.parseOrder("general,general"), 1, true));
        assertThrows(IllegalArgumentException.class, () -> new BatchRule(BatchRule.parseOrder(""), 1, true));
    }
}
