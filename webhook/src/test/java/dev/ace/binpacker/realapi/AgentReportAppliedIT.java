package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.agent.FakeKubelet;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node agent as the DaemonSet runs it (the jar's {@code agent} command, the agent's own ServiceAccount
 * token bound to a pod on the node), against a kubelet PodResources endpoint on a Unix socket and an
 * nvidia-smi stand-in; then ACE's leader applying the report to the ledger on the real API server.
 */
@RealApiTest
class AgentReportAppliedIT {
    @TempDir Path dir;

    @Test
    @DisplayName("The agent publishes which GPUs the kubelet gave a TP pod under its own ServiceAccount; the leader re-keys ACE's entry to them and marks it exact")
    void agentReportReKeysTheLedgerEntry(RealCluster c, TestNamespace ns) throws Exception {
        String node = "agent-h100-" + UUID.randomUUID().toString().substring(0, 4);
        c.nodes().create(node, "hgx-h100-0");
        try {
            Pod pod = TpPods.vllm(ns.name(), "llama-8b", 2);
            pod = new PodBuilder(pod).editSpec().withNodeSelector(Map.of(AceKeys.HOSTNAME, node)).endSpec().build();
            Tenants.editor(c, ns.name(), "carol").pods().inNamespace(ns.name()).resource(pod).create();
            Pod bound = TpPods.awaitPinnedBound(c.admin(), ns.name(), 1, Duration.ofMinutes(2)).get(0);
            assertEquals(node, bound.getSpec().getNodeName());
            Conditions.await("ACE's entry tied to the pod", Duration.ofMinutes(1),
                    () -> c.ledgers().entries(ns.name()).stream().anyMatch(e -> e.bound() && bound.getMetadata().getUid().equals(e.podUid())));
            Ledgers.Entry planned = c.ledgers().entries(ns.name()).get(0);
            assertFalse(planned.exact(), "before any report the entry is ACE's plan");
            // The kubelet gave the pod the other two GPUs of the NUMA node ACE planned on (GPUs 0-3 and 4-7 share one).
            int base = planned.gpus().get(0) < 4 ? 0 : 4;
            List<Integer> given = new ArrayList<>();
            for (int g = base; g < base + 4; g++) if (!planned.gpus().contains(g)) given.add(g);
            given = given.subList(0, 2);
            List<String> uuids = new ArrayList<>();
            StringBuilder query = new StringBuilder();
            StringBuilder listing = new StringBuilder();
            for (int g = 0; g < 8; g++) {
                String u = "GPU-" + UUID.nameUUIDFromBytes((node + g).getBytes(StandardCharsets.UTF_8));
                uuids.add(u);
                query.append(g).append(", ").append(u).append(String.format(", 00000000:%02X:00.0%n", 0x18 + g * 0x10));
                listing.append("GPU ").append(g).append(": NVIDIA H100 80GB HBM3 (UUID: ").append(u).append(")\n");
            }
            Path smi = nvidiaSmi(query.toString(), listing.toString());
            Path socket = dir.resolve("kubelet.sock");
            String podKey = ns.name() + "/llama-8b";
            try (FakeKubelet kubelet = new FakeKubelet(socket, FakeKubelet.list(Map.of(podKey, List.of(uuids.get(given.get(0)), uuids.get(given.get(1))))), uuids)) {
                Path kubeconfig = c.controlPlane().writeTokenKubeconfig("agent-" + node,
                        RealCluster.token(c.admin(), AceInstall.AGENT_SERVICE_ACCOUNT, NodeAgents.podOn(c, node)));
                ProcessBuilder pb = new ProcessBuilder("java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", AceReplica.AGENT_JAR.toString(), "agent",
                        "--node", node, "--once", "--nvidia-smi", smi.toString(), "--pod-resources-socket", socket.toString(),
                        "--topology-manager-policy", "single-numa-node").redirectErrorStream(true);
                pb.environment().put("KUBECONFIG", kubeconfig.toString());
                pb.environment().remove("KUBERNETES_SERVICE_HOST");
                Process agent = pb.start();
                String out = new String(agent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(agent.waitFor(3, TimeUnit.MINUTES), out);
                assertEquals(0, agent.exitValue(), out);
                assertTrue(out.contains("agent: GpuNodeReport of " + node + " published"), out);
                assertTrue(out.contains("agent: written " + AceKeys.TOPOLOGY + " on " + node), out);
            }
            var annotations = c.admin().nodes().withName(node).get().getMetadata().getAnnotations();
            assertFalse(annotations.containsKey(AceKeys.GPU_ALLOCATION), "the report is not on the Node");
            assertNotNull(annotations.get(AceKeys.TOPOLOGY), "the measured matrix is on the Node");
            var report = new dev.ace.binpacker.cluster.report.NodeReportStore(c.admin()).get(node).flatMap(dev.ace.binpacker.cluster.report.NodeReportStore::read)
                    .orElseThrow(() -> new AssertionError("no GpuNodeReport for " + node));
            assertEquals(1, report.generation());
            final List<Integer> expected = given;
            Conditions.await(() -> "the leader re-keys the entry to " + expected + " and marks it exact; ledger: " + c.ledgers().entries(ns.name()),
                    Duration.ofMinutes(2), () -> c.ledgers().entries(ns.name()).stream()
                            .anyMatch(e -> e.exact() && e.node().equals(node) && e.gpus().equals(expected) && bound.getMetadata().getUid().equals(e.podUid())));
            assertEquals(1, c.ledgers().entries(ns.name()).size());
            assertEquals(List.of(), c.ledgers().doubleBooked());
        } finally {
            c.admin().pods().inNamespace(AceInstall.NAMESPACE).withName("ace-agent-" + node).withGracePeriod(0).delete();
            c.admin().pods().inNamespace(ns.name()).withGracePeriod(0).delete();
            c.admin().nodes().withName(node).delete();
            new dev.ace.binpacker.cluster.report.NodeReportStore(c.admin()).objects().withName(node).delete();
        }
    }

    private Path nvidiaSmi(String queryRows, String listText) throws Exception {
        return dev.ace.binpacker.cluster.agent.FakeNvidiaSmi.write(dir, queryRows, listText, Path.of("tests/fixtures/topology/h100-sxm-8gpu-stas00.txt"), false);
    }
}
