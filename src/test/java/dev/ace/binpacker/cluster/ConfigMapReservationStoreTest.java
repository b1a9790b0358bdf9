package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.GpuBoard;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Two webhook replicas sharing reservations through fabric8's CRUD mock API server (409 on stale resourceVersion). */
@EnableKubernetesMockClient(crud = true)
class ConfigMapReservationStoreTest {
    static KubernetesClient client;
    private static final GpuBoard HGX = BoardCatalog.infer(Map.of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3",
            "nvidia.com/gpu.count", "8")).board().orElseThrow();
    private static final List<Pool> INFERENCE = List.of(Pool.INFERENCE);

    @BeforeEach
    void clean() {
        client.configMaps().inNamespace("ace-system").delete();
    }

    private Allocator replica(int nodes) {
        ClusterState s = new ClusterState();
        for (int i = 0; i < nodes; i++) s.upsert(new NodeInfo("hgx-" + i, Pool.INFERENCE, Map.of(), List.of(), HGX, "catalog", "H100", 0));
        return new Allocator(s, PackerConfig.defaults(), new ConfigMapReservationStore(client, "ace-system"));
    }

    private static PlacementRequest tp(String id, int k) {
        return PlacementRequest.whole(id, WorkloadClass.INFERENCE, k, k, INFERENCE, NodeConstraints.NONE);
    }

    @Test
    @DisplayName("Two replicas race for the last 8-clique: one wins, the other adopts the winner and reports no capacity")
    void loserAdoptsWinner() {
        Allocator a = replica(1);
        Allocator b = replica(1);
        assertTrue(a.place(tp("pod-a", 8), false, 0).placed());
        Allocator.Outcome lost = b.place(tp("pod-b", 8), false, 0);
        assertFalse(lost.placed());
        assertEquals(1, b.conflicts());
        assertEquals(0, b.state().freeMask(0), "the loser now knows the GPUs are taken");
        assertEquals(1, new ConfigMapReservationStore(client, "ace-system").loadAll().size());
    }

    @Test
    @DisplayName("The loser of a race on one half of a node gets the other half")
    void loserRetriesElsewhere() {
        Allocator a = replica(1);
        Allocator b = replica(1);
        Allocator.Outcome wa = a.place(tp("pod-a", 4), false, 0);
        Allocator.Outcome wb = b.place(tp("pod-b", 4), false, 0);
        assertTrue(wa.placed() && wb.placed());
        assertEquals(0, wa.reservation().gpuMask() & wb.reservation().gpuMask());
        assertEquals(1, b.conflicts());
    }

    @Test
    @DisplayName("Concurrent admissions on two replicas never commit the same GPU twice")
    void concurrentReplicasNeverDoubleBook() throws Exception {
        Allocator[] replicas = {replica(2), replica(2)};
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicInteger placed = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            Allocator r = replicas[i % 2];
            String id = "pod-" + i;
            futures.add(pool.submit(() -> {
                try {
                    if (r.place(tp(id, 2), false, 0).placed()) placed.incrementAndGet();
                } catch (IllegalStateException lostTooOften) {
                    // answered with an error, like an HTTP 500 under failurePolicy: nothing was committed
                }
            }));
        }
        for (Future<?> f : futures) f.get();
        pool.shutdown();
        List<Reservation> committed = new ConfigMapReservationStore(client, "ace-system").loadAll();
        Map<String, Long> held = new HashMap<>();
        for (Reservation res : committed) {
            long prior = held.getOrDefault(res.node(), 0L);
            assertEquals(0, prior & res.gpuMask(), "GPU committed twice on " + res.node());
            held.put(res.node(), prior | res.gpuMask());
        }
        assertEquals(placed.get(), committed.size(), "every admitted pod has exactly one committed reservation");
        assertTrue(committed.size() <= 8, "16 GPUs hold at most 8 TP=2 groups");
    }

    @Test
    @DisplayName("Release removes the reservation from the shared ledger; a second release is a no-op")
    void releaseRemoves() {
        Allocator a = replica(1);
        a.place(tp("pod-a", 2), false, 0);
        assertTrue(a.release("pod-a").isPresent());
        assertTrue(new ConfigMapReservationStore(client, "ace-system").loadAll().isEmpty());
        assertFalse(a.release("pod-a").isPresent());
    }

    @Test
    @DisplayName("Ledger object names stay valid for very long node names")
    void longNodeNames() {
        String longName = "n".repeat(250);
        assertTrue(ConfigMapReservationStore.objectName(longName).length() <= 253);
        assertEquals("ace-ledger-gpu-1", ConfigMapReservationStore.objectName("gpu-1"));
    }
}
