package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.flipkart.zjsonpatch.JsonPatch;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The copy ACE edits shares what ACE never edits, and the patch that compares only what ACE may edit is the patch a diff
 * of the whole pods gives (issue 17: linear cost for pods of thousands of environment variables), applied by zjsonpatch.
 */
class PodCopyTest {
    private static final ObjectMapper JSON = Json.newMapper();

    /** A pod with something in every part ACE edits, and plenty it does not. */
    private static Pod pod(String affinity) {
        Pod p = Pods.gpuPod("vllm/vllm-openai", "[--tp, '3']", "3", """
                nodeSelector: {team: ml}
                tolerations: [{key: gpu, operator: Exists}]
                schedulingGates: [{name: other.io/quota}]
                initContainers:
                - name: init
                  image: busybox
                  resources: {limits: {nvidia.com/gpu: 3, cpu: '1'}}
                volumes: [{name: cache, emptyDir: {}}]
                """ + affinity);
        p.getMetadata().setAnnotations(new java.util.LinkedHashMap<>(java.util.Map.of("team", "research")));
        p.getSpec().getContainers().get(0).setEnv(List.of(new EnvVar("TP_SIZE", "3", null), new EnvVar("HOME", "/root", null)));
        return p;
    }

    static Stream<Arguments> edits() {
        String terms = "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                + "[{matchExpressions: [{key: zone, operator: In, values: [a]}]}, {matchFields: [{key: x, operator: In, values: [y]}]}]}}}";
        return Stream.of(
                Arguments.of("pin and annotate (placed)", "", (Consumer<Pod>) m -> {
                    PodEdits.pinToNode(m, "hgx-h100-0");
                    PodEdits.annotate(m, AceKeys.RESERVATION, "{\"id\":\"r\"}");
                    PodEdits.annotate(m, AceKeys.DECISION, "reserved");
                }),
                Arguments.of("pin into the pod's own affinity terms", terms, (Consumer<Pod>) m -> PodEdits.pinToNode(m, "hgx-h100-0")),
                Arguments.of("gate (waiting)", "", (Consumer<Pod>) m -> {
                    PodEdits.addSchedulingGate(m, AceKeys.GATE);
                    PodEdits.annotate(m, AceKeys.DECISION, "waiting");
                }),
                Arguments.of("slice (pool, toleration, resource)", "", (Consumer<Pod>) m -> {
                    PodEdits.selectPool(m, "slicing");
                    PodEdits.tolerate(m, "ace.dev/pool");
                    PodEdits.replaceGpuResource(m, "nvidia.com/mig-1g.10gb");
                }),
                Arguments.of("ACE's keys dropped", "", (Consumer<Pod>) m -> {
                    m.getMetadata().setAnnotations(null);
                    m.getSpec().setSchedulingGates(null);
                }),
                Arguments.of("nothing", terms, (Consumer<Pod>) m -> { }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("edits")
    void the_patch_of_the_edited_parts_is_the_patch_of_the_whole_pods_and_the_original_is_untouched(String what, String affinity,
                                                                                                   Consumer<Pod> edit) throws Exception {
        Pod original = pod(affinity);
        JsonNode before = JSON.valueToTree(original);
        Pod m = PodCopy.forEdits(original, JSON);
        edit.accept(m);
        assertEquals(before, JSON.valueToTree(original), "the original pod is not changed by edits of the copy");
        assertSame(original.getSpec().getContainers().get(0).getEnv(), m.getSpec().getContainers().get(0).getEnv(),
                "what ACE never edits is shared, not copied");
        JsonNode after = JSON.valueToTree(m);
        var patch = PodCopy.diff(JSON, original, m);
        assertEquals(dev.ace.binpacker.admission.JsonPatch.diff(before, after), patch, "same operations, same order");
        assertEquals(after, JsonPatch.apply(patch, before), "zjsonpatch applies it to the pod as it came");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("edits")
    void a_change_beyond_the_parts_ace_edits_falls_back_to_the_whole_pods(String what, String affinity, Consumer<Pod> edit) throws Exception {
        Pod original = pod(affinity);
        JsonNode before = JSON.valueToTree(original);
        Pod m = PodCopy.forEdits(original, JSON);
        edit.accept(m);
        m.getSpec().setVolumes(List.of());
        m.getSpec().getContainers().get(0).setImage("other");
        JsonNode after = JSON.valueToTree(m);
        assertEquals(after, JsonPatch.apply(PodCopy.diff(JSON, original, m), before));
    }
}
