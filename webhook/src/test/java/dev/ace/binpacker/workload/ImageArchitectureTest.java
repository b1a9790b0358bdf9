package dev.ace.binpacker.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.LabelRequirement;
import dev.ace.binpacker.placement.NodeConstraints;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Issue 18: images built for one GPU architecture keep their pod to GPUs they run on (text-embeddings-inference's tag table). */
class ImageArchitectureTest {
    private static Map<String, String> node(String major, String minor) {
        return Map.of(AceKeys.GPU_COMPUTE_MAJOR, major, AceKeys.GPU_COMPUTE_MINOR, minor);
    }

    private static final Map<String, String> T4 = node("7", "5");
    private static final Map<String, String> A100 = node("8", "0");
    private static final Map<String, String> A10 = node("8", "6");
    private static final Map<String, String> L40S = node("8", "9");
    private static final Map<String, String> H100 = node("9", "0");

    @ParameterizedTest(name = "{0} runs on {1}-{2}")
    @CsvSource({
            "ghcr.io/huggingface/text-embeddings-inference:turing-1.5, 75, 75",
            "ghcr.io/huggingface/text-embeddings-inference:1.5, 80, 89",
            "ghcr.io/huggingface/text-embeddings-inference:1.8.2, 80, 89",
            "ghcr.io/huggingface/text-embeddings-inference:86-1.5, 86, 89",
            "ghcr.io/huggingface/text-embeddings-inference:89-1.5, 89, 89",
            "ghcr.io/huggingface/text-embeddings-inference:hopper-1.5, 90, 90",
            "ghcr.io/huggingface/text-embeddings-inference:100-1.8, 100, 100",
            "ghcr.io/huggingface/text-embeddings-inference:turing-1.5-grpc, 75, 75",
            // a mirror, a digest, no tag (latest is the Ampere 80 build)
            "registry.example.com:5000/mirror/hf/text-embeddings-inference:turing-1.5, 75, 75",
            "ghcr.io/huggingface/text-embeddings-inference:hopper-1.5@sha256:0123456789abcdef, 90, 90",
            "ghcr.io/huggingface/text-embeddings-inference, 80, 89"})
    void tei_tags_name_the_compute_capabilities_they_run_on(String image, int from, int to) {
        ImageArchitecture a = ImageArchitecture.ofImage(image).orElseThrow();
        assertEquals(from, a.computeCapabilities().first());
        assertEquals(to, a.computeCapabilities().last());
        assertEquals(image, a.image());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ghcr.io/huggingface/text-embeddings-inference:cpu-1.5", "vllm/vllm-openai:v0.8.5",
            "nvcr.io/nvidia/tritonserver:24.08-py3", "ghcr.io/huggingface/text-embeddings-inference:cuda-sha-630ddc7",
            "example.com/text-embeddings-inference-fork:turing-1.5", ""})
    void other_images_keep_no_architecture(String image) {
        assertEquals(Optional.empty(), ImageArchitecture.ofImage(image));
    }

    @Test
    void an_image_reference_longer_than_any_registry_allows_is_not_read() {
        assertEquals(Optional.empty(), ImageArchitecture.ofImage("ghcr.io/" + "a/".repeat(600) + "text-embeddings-inference:turing-1.5"));
    }

    @Test
    void the_nodes_a_build_runs_on_follow_teis_own_matching_rule() {
        NodeConstraints ampere80 = arch("1.5").narrow(NodeConstraints.NONE);
        assertTrue(ampere80.selects(A100) && ampere80.selects(A10) && ampere80.selects(L40S));
        assertFalse(ampere80.selects(H100) || ampere80.selects(T4), "the 8.0 build refuses Hopper and Turing");
        NodeConstraints ampere86 = arch("86-1.5").narrow(NodeConstraints.NONE);
        assertTrue(ampere86.selects(A10) && ampere86.selects(L40S));
        assertFalse(ampere86.selects(A100));
        NodeConstraints turing = arch("turing-1.5").narrow(NodeConstraints.NONE);
        assertTrue(turing.selects(T4));
        assertFalse(turing.selects(H100));
        assertFalse(turing.selects(Map.of()), "a node without GPU feature discovery's compute labels is not chosen");
    }

    @Test
    void the_pods_own_terms_are_kept_and_each_is_narrowed() {
        NodeConstraints own = new NodeConstraints(Map.of("zone", "a"), List.of(
                List.of(new LabelRequirement("rack", "In", List.of("r1"))), List.of(new LabelRequirement("rack", "In", List.of("r2")))), List.of());
        NodeConstraints n = arch("hopper-1.5").narrow(own);
        assertEquals(2, n.affinityTerms().size());
        assertEquals(Map.of("zone", "a"), n.nodeSelector());
        Map<String, String> h100InR2 = new java.util.HashMap<>(H100);
        h100InR2.putAll(Map.of("zone", "a", "rack", "r2"));
        assertTrue(n.selects(h100InR2));
        Map<String, String> h100InR3 = new java.util.HashMap<>(h100InR2);
        h100InR3.put("rack", "r3");
        assertFalse(n.selects(h100InR3), "narrowed, never widened");
    }

    @Test
    void two_containers_keep_the_pod_to_what_both_run_on() {
        ImageArchitecture both = ImageArchitecture.of(pod("1.5", "86-1.5")).orElseThrow();
        assertEquals(new TreeSet<>(Set.of(86, 87, 88, 89)), both.computeCapabilities());
        ImageArchitecture none = ImageArchitecture.of(pod("turing-1.5", "hopper-1.5")).orElseThrow();
        assertTrue(none.computeCapabilities().isEmpty());
        NodeConstraints nowhere = none.narrow(NodeConstraints.NONE);
        for (Map<String, String> n : List.of(T4, A100, A10, L40S, H100)) assertFalse(nowhere.selects(n));
        assertTrue(none.note().startsWith("no GPU runs all of"), none.note());
    }

    @Test
    void the_warning_names_the_capability_and_the_image_within_120_characters() {
        String note = arch("turing-1.5").note();
        assertEquals("only GPUs of compute capability 7.5 run huggingface/text-embeddings-inference:turing-1.5", note);
        assertTrue(note.length() <= 120);
    }

    @Test
    void node_needs_combine_the_pods_constraints_slices_and_images() {
        Pod p = pod("hopper-1.5");
        p.getSpec().setNodeSelector(Map.of("ace.dev/pool", "slicing"));
        NodeConstraints c = NodeNeeds.of(p).constraints();
        Map<String, String> h100 = new java.util.HashMap<>(H100);
        h100.put("ace.dev/pool", "slicing");
        assertTrue(c.selects(h100));
        Map<String, String> a100 = new java.util.HashMap<>(A100);
        a100.put("ace.dev/pool", "slicing");
        assertFalse(c.selects(a100));
        assertEquals(PodConstraints.of(pod("vllm")), NodeNeeds.of(pod("vllm")).constraints(), "no known image: the pod's own constraints");
    }

    private static ImageArchitecture arch(String tag) {
        return ImageArchitecture.ofImage("ghcr.io/huggingface/text-embeddings-inference:" + tag).orElseThrow();
    }

    private static Pod pod(String... teiTags) {
        PodBuilder b = new PodBuilder().withNewMetadata().withName("tei").withNamespace("ns").endMetadata().withNewSpec().endSpec();
        Pod p = b.build();
        List<io.fabric8.kubernetes.api.model.Container> cs = new java.util.ArrayList<>();
        for (String t : teiTags) {
            String image = t.equals("vllm") ? "vllm/vllm-openai:v0.8.5" : "ghcr.io/huggingface/text-embeddings-inference:" + t;
            cs.add(new ContainerBuilder().withName("c" + cs.size()).withImage(image).build());
        }
        p.getSpec().setContainers(cs);
        return p;
    }
}
