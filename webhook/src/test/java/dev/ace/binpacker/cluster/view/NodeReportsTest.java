package dev.ace.binpacker.cluster.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.report.NodeReportJson;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.truth.NodeReport;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which node report a replica believes: generations only grow, and a report offering no GPU waits out a grace period. */
class NodeReportsTest {
    private static final long GRACE = 60_000;
    private final AtomicLong clock = new AtomicLong(5_000);
    private final NodeReports reports = new NodeReports(GRACE, clock::get);

    private static String report(long generation, long healthy, NodeReport.PodDevices... pods) {
        return NodeReportJson.write(new NodeReport(generation, "2026-03-01T12:00:00Z", TopologyManagerPolicy.NONE, 8, healthy,
                List.of(pods), List.of()));
    }

    private static NodeReport.PodDevices pod(String name, int... gpus) {
        return new NodeReport.PodDevices("ml", name, GpuBoard.mask(gpus), 0, 0);
    }

    private NodeReport believed() { return reports.effective("n").orElseThrow(); }

    @Test
    void a_report_of_a_lower_generation_is_stale_and_ignored() {
        assertTrue(reports.update("n", report(5, 0xff, pod("a", 4, 5, 6, 7))));
        assertFalse(reports.update("n", report(3, 0xff, pod("a", 0, 1, 2, 3))), "an old agent's report");
        assertEquals(5, believed().generation());
        assertEquals(GpuBoard.mask(4, 5, 6, 7), believed().pod("ml", "a").orElseThrow().gpus());
        assertFalse(reports.update("n", report(5, 0xff, pod("a", 4, 5, 6, 7))), "the same text again changes nothing");
    }

    @Test
    void a_new_generation_with_the_same_facts_needs_no_recount_but_is_what_the_leader_sees() {
        reports.update("n", report(1, 0xff, pod("a", 0)));
        assertFalse(reports.update("n", report(2, 0xff, pod("a", 0))));
        assertEquals(2, believed().generation());
    }

    @Test
    void a_report_offering_no_gpu_keeps_the_last_health_for_the_grace_then_stands() {
        reports.update("n", report(1, 0xff & ~GpuBoard.mask(7), pod("a", 0, 1)));
        assertTrue(reports.update("n", report(2, 0, pod("a", 0, 1), pod("b", 2))), "its pods are news");
        assertEquals(0xff & ~GpuBoard.mask(7), believed().healthy(), "the device plugin is restarting: health as last reported");
        assertEquals(2, believed().pods().size());
        clock.addAndGet(GRACE - 1);
        assertEquals(List.of(), reports.graceEnded());
        clock.addAndGet(1);
        assertEquals(List.of("n"), reports.graceEnded());
        assertEquals(0, believed().healthy(), "after the grace the node's word stands: no GPU is offered");
        assertEquals(List.of(), reports.graceEnded(), "told once");
        assertTrue(reports.update("n", report(3, 0xff, pod("a", 0, 1))), "the plugin is back");
        assertEquals(0xff, believed().healthy());
    }

    @Test
    void an_unreadable_annotation_keeps_the_last_report_and_a_removed_one_drops_it() {
        reports.update("n", report(4, 0xff, pod("a", 0)));
        assertFalse(reports.update("n", "{not json"));
        assertEquals(4, believed().generation());
        assertTrue(reports.update("n", null), "the agent was uninstalled: counted by rule again");
        assertTrue(reports.effective("n").isEmpty());
    }
}
