package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FleetTest {
    @Test
    void theFleetGeneratorIsDeterministicPerSeedAndSurvivesTheCsvRoundTrip(@TempDir Path dir) throws Exception {
        List<FleetPod> a = FleetTrace.generate(7, 200, 50, FleetTrace.DEFAULT_MIX);
        assertEquals(a, FleetTrace.generate(7, 200, 50, FleetTrace.DEFAULT_MIX));
        assertNotEquals(a, FleetTrace.generate(8, 200, 50, FleetTrace.DEFAULT_MIX));
        Path f = dir.resolve("fleet.csv");
        FleetTrace.write(f, a);
        List<FleetPod> back = FleetTrace.read(f);
        assertEquals(a.size(), back.size());
        assertEquals(a.get(10).kind(), back.get(10).kind());
        assertEquals(a.get(10).arrival(), back.get(10).arrival(), 1e-3);
        assertTrue(Files.readString(f).startsWith("id,arrival_s,duration_s,kind,gpus,milli,tp"));
    }

    @Test
    void aceKeepsEveryTpReplicaOnAnNvlinkCliqueAndSmallPodsOffTheInferencePool() {
        ProtocolB b = new ProtocolB(new SimCluster(FleetTrace.cluster(), new OpenbBoards()));
        FleetResult r = b.run("ace", FleetTrace.generate(3, 400, 50, FleetTrace.DEFAULT_MIX), 3);
        assertEquals(100.0, r.tpFullBandwidthPct(), 1e-9);
        assertEquals(0, r.tpDegraded());
        assertEquals(0, r.smallOnInference());
        assertEquals(0, r.strandedGpus(), 1e-9);
    }

    @Test
    void kubernetesDefaultPutsSomeTpReplicasOnGpusWithoutNvlink() {
        ProtocolB b = new ProtocolB(new SimCluster(FleetTrace.cluster(), new OpenbBoards()));
        FleetResult r = b.run("k8s-default", FleetTrace.generate(3, 400, 50, FleetTrace.DEFAULT_MIX), 3);
        assertTrue(r.tpDegraded() > 0, "k8s-default placed every TP replica on a clique by luck");
    }
}
