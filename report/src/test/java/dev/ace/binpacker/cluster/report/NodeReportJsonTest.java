package dev.ace.binpacker.cluster.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.truth.NodeReport;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NodeReportJsonTest {
    private static final NodeReport REPORT = new NodeReport(12, "2026-03-01T12:00:00Z", TopologyManagerPolicy.SINGLE_NUMA_NODE, 8,
            GpuBoard.mask(0, 1, 2, 4, 5, 6, 7), List.of(
                    new NodeReport.PodDevices("ml", "vllm-0", GpuBoard.mask(4, 5, 6, 7), 0, 0),
                    new NodeReport.PodDevices("ml", "embed", 0, GpuBoard.mask(1), 0)),
            List.of("MIG-42f0f413-f7b0-58cc-aced-c1d1fb54db26::0"));

    @Test
    @DisplayName("The annotation is the documented JSON (index lists, empty holdings left out) and reads back to the same report")
    void roundTrip() throws Exception {
        String json = NodeReportJson.write(REPORT);
        assertEquals(new ObjectMapper().readTree("""
                {"generation":12,"observedAt":"2026-03-01T12:00:00Z","topologyManagerPolicy":"single-numa-node","gpus":8,
                 "healthy":[0,1,2,4,5,6,7],
                 "pods":[{"namespace":"ml","name":"embed","shared":[1]},{"namespace":"ml","name":"vllm-0","gpus":[4,5,6,7]}],
                 "unmapped":["MIG-42f0f413-f7b0-58cc-aced-c1d1fb54db26::0"]}"""), new ObjectMapper().readTree(json));
        NodeReport back = NodeReportJson.read(json).orElseThrow();
        assertEquals(REPORT, back);
        assertTrue(back.sameContent(REPORT.withGeneration(13, "later")));
    }

    @Test
    @DisplayName("GPU UUIDs in index order round-trip; a UUID list that does not fit the GPUs reads as no report")
    void uuids() {
        List<String> u = java.util.stream.IntStream.range(0, 8).mapToObj(i -> "GPU-0000000" + i + "-0000-4000-8000-000000000000").toList();
        NodeReport r = new NodeReport(3, null, TopologyManagerPolicy.NONE, 8, 0, List.of(), List.of(), u);
        String json = NodeReportJson.write(r);
        assertTrue(json.contains("\"uuids\":[\"GPU-00000000-"), json);
        assertEquals(u, NodeReportJson.read(json).orElseThrow().uuids());
        assertTrue(!r.sameContent(new NodeReport(3, null, TopologyManagerPolicy.NONE, 8, 0, List.of(), List.of())), "a UUID change is a change");
        assertTrue(NodeReportJson.read("{\"generation\":1,\"gpus\":2,\"uuids\":[\"GPU-1\"]}").isEmpty(), "1 UUID for 2 GPUs");
        assertTrue(NodeReportJson.read("{\"generation\":1,\"gpus\":1,\"uuids\":[\"x'] || true\"]}").isEmpty(), "not a GPU UUID");
        assertTrue(NodeReportJson.read("{\"generation\":1,\"gpus\":2,\"uuids\":[\"GPU-1\",\"GPU-1\"]}").isEmpty(), "listed twice");
    }

    @Test
    @DisplayName("Anything that is not a report (someone's hand edit, an index out of range) reads as no report")
    void refusesOtherText() {
        assertTrue(NodeReportJson.read("not json").isEmpty());
        assertTrue(NodeReportJson.read("{\"pods\":[]}").isEmpty());
        assertTrue(NodeReportJson.read("{\"generation\":1,\"healthy\":[64]}").isEmpty());
        assertTrue(NodeReportJson.read("{\"generation\":1,\"pods\":[{\"namespace\":\"ml\"}]}").isEmpty());
    }
}
