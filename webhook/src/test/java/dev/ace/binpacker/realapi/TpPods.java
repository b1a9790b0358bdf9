package dev.ace.binpacker.realapi;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Pods as a tenant writes them (vLLM with {@code --tensor-parallel-size}), and what ACE made of them. */
public final class TpPods {
    private TpPods() {}

    /** A vLLM pod asking for {@code tp} whole GPUs with tensor parallelism {@code tp}. */
    public static Pod vllm(String ns, String name, int tp) {
        return new PodBuilder().withNewMetadata().withNamespace(ns).withName(name).withLabels(Map.of("app", "vllm")).endMetadata()
                .withNewSpec().withTerminationGracePeriodSeconds(30L)
                .addNewContainer().withName("vllm").withImage("vllm/vllm-openai:v0.8.5")
                .withArgs(List.of("--model", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", Integer.toString(tp)))
                .withNewResources().withLimits(Map.of(AceKeys.GPU, new Quantity(Integer.toString(tp)))).endResources()
                .endContainer().endSpec().build();
    }

    public static String annotation(Pod p, String key) {
        Map<String, String> a = p.getMetadata().getAnnotations();
        return a == null ? null : a.get(key);
    }

    public static boolean gated(Pod p) {
        return p.getSpec().getSchedulingGates() != null && p.getSpec().getSchedulingGates().stream().anyMatch(g -> g.getName().equals(AceKeys.GATE));
    }

    /** True when ACE pinned the pod (a reservation annotation) or holds it at its gate: ACE decided it. */
    public static boolean decidedByAce(Pod p) {
        return annotation(p, AceKeys.RESERVATION) != null || gated(p);
    }

    /** Waits until every pod of {@code ns} carrying ACE's reservation is bound to a node by kube-scheduler. */
    public static List<Pod> awaitPinnedBound(KubernetesClient admin, String ns, int expected, Duration within) {
        Conditions.await(() -> "" + expected + " pods of " + ns + " reserved by ACE and bound; now: " + summary(admin, ns), within, () -> {
            List<Pod> pods = admin.pods().inNamespace(ns).list().getItems();
            long bound = pods.stream().filter(p -> annotation(p, AceKeys.RESERVATION) != null && p.getSpec().getNodeName() != null).count();
            return bound == expected;
        });
        return admin.pods().inNamespace(ns).list().getItems();
    }

    /** One line per pod: name, node, gated, reservation. */
    public static String summary(KubernetesClient admin, String ns) {
        StringBuilder b = new StringBuilder();
        for (Pod p : admin.pods().inNamespace(ns).list().getItems()) {
            b.append("\n  ").append(p.getMetadata().getName()).append(" node=").append(p.getSpec().getNodeName())
                    .append(gated(p) ? " gated" : "").append(" reservation=").append(annotation(p, AceKeys.RESERVATION))
                    .append(" phase=").append(p.getStatus() == null ? null : p.getStatus().getPhase());
        }
        return b.toString();
    }
}
