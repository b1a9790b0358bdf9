package dev.ace.binpacker.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.WorkloadClass;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ClassifierTest {

    static Stream<Arguments> tpSpellings() {
        return Stream.of(
                Arguments.of("vllm/vllm-openai:v0.8.5", "[--model, m, --tensor-parallel-size, '4']", "4", 4),
                Arguments.of("vllm/vllm-openai:v0.8.5", "[--model, m, --tensor-parallel-size=4]", "4", 4),
                Arguments.of("lmsysorg/sglang:v0.4.6", "[python3, -m, sglang.launch_server, --tp, '2']", "2", 2),
                Arguments.of("lmsysorg/sglang:v0.4.6", "[--tp-size, '8']", "8", 8),
                Arguments.of("lmsysorg/sglang:v0.4.6", "[--tp=2]", "2", 2),
                Arguments.of("vllm/vllm-openai:latest", "[-tp, '4']", "4", 4),
                Arguments.of("ghcr.io/huggingface/text-generation-inference:3.0", "[--num-shard, '2']", "2", 2),
                Arguments.of("nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3", "[--tp_size, '4']", "4", 4),
                Arguments.of("python:3.11", "[sh, -c, 'pip install vllm && vllm serve m --tensor-parallel-size 8 --port 8000']", "8", 8));
    }

    @ParameterizedTest(name = "{0} {1} -> inference TP {3}")
    @MethodSource("tpSpellings")
    void every_tp_spelling_is_read(String image, String args, String gpus, int tp) throws Exception {
        Classification c = Classifier.classify(Pods.gpuPod(image, args, gpus, null));
        assertEquals(WorkloadClass.INFERENCE, c.workloadClass());
        assertEquals(tp, c.tp());
        assertEquals(Integer.parseInt(gpus), c.gpus());
    }

    @Test
    void tgi_num_shard_env_gives_the_tp() throws Exception {
        var pod = Pods.gpuPod("ghcr.io/huggingface/text-generation-inference:3.0", "[]", "4", """
                """);
        pod.getSpec().getContainers().get(0).setEnv(java.util.List.of(new io.fabric8.kubernetes.api.model.EnvVar("NUM_SHARD", "4", null)));
        assertEquals(4, Classifier.classify(pod).tp());
    }

    @Test
    void annotation_overrides_the_flags() throws Exception {
        var pod = Pods.gpuPod("vllm/vllm-openai", "[--tp, '2']", "4", null);
        pod.getMetadata().setAnnotations(java.util.Map.of(AceKeys.TENSOR_PARALLEL, "4"));
        assertEquals(4, Classifier.classify(pod).tp());
    }

    static Stream<Arguments> classes() {
        return Stream.of(
                Arguments.of("ghcr.io/huggingface/text-embeddings-inference:1.5", "[--model-id, BAAI/bge-m3]", WorkloadClass.EMBEDDING),
                Arguments.of("vllm/vllm-openai", "[--model, intfloat/e5-mistral-7b-instruct, --task, embed]", WorkloadClass.EMBEDDING),
                Arguments.of("vllm/vllm-openai", "[--model, BAAI/bge-reranker-v2-m3, --runner, pooling]", WorkloadClass.EMBEDDING),
                Arguments.of("michaelf34/infinity:0.0.70", "[v2, --model-id, BAAI/bge-small-en-v1.5]", WorkloadClass.EMBEDDING),
                Arguments.of("quay.io/jupyter/pytorch-notebook:cuda12", "[]", WorkloadClass.INTERACTIVE),
                Arguments.of("nvcr.io/nvidia/pytorch:24.05-py3", "[python, train.py]", WorkloadClass.UNKNOWN));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("classes")
    void servers_and_notebooks_are_recognised(String image, String args, WorkloadClass expected) throws Exception {
        assertEquals(expected, Classifier.classify(Pods.gpuPod(image, args, "1", null)).workloadClass());
    }

    @Test
    void a_job_owner_makes_it_batch_and_an_eval_harness_an_evaluation() throws Exception {
        var pod = Pods.gpuPod("vllm/vllm-openai", "[lm_eval, --model, vllm]", "1", null);
        pod.getMetadata().setOwnerReferences(java.util.List.of(new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                .withKind("Job").withName("eval").withApiVersion("batch/v1").withUid("u").build()));
        Classification c = Classifier.classify(pod);
        assertEquals(WorkloadClass.BATCH, c.workloadClass());
        assertEquals("evaluation", c.kind());
    }

    @Test
    void explicit_label_wins_over_everything() throws Exception {
        var pod = Pods.gpuPod("quay.io/jupyter/pytorch-notebook", "[]", "2", null);
        pod.getMetadata().setLabels(java.util.Map.of(AceKeys.WORKLOAD_CLASS, "batch", "notebook-name", "nb"));
        assertEquals(WorkloadClass.BATCH, Classifier.classify(pod).workloadClass());
    }

    @Test
    void a_rank_of_a_two_node_tp_group_is_inference_with_its_own_gpu() throws Exception {
        Classification c = Classifier.classify(Pods.gpuPod("lmsysorg/sglang", "[--tp, '2', --nnodes, '2', --node-rank, '0']", "1", null));
        assertEquals(WorkloadClass.INFERENCE, c.workloadClass());
        assertTrue(c.multiNodeRank());
        assertEquals(1, c.tp());
        assertEquals(2, c.nnodes());
    }

    @Test
    void gpus_sum_over_containers_and_init_containers_count_by_max() throws Exception {
        var pod = Pods.yaml("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p}
                spec:
                  initContainers:
                  - {name: i1, image: x, resources: {limits: {nvidia.com/gpu: 3}}}
                  - {name: i2, image: x, resources: {limits: {nvidia.com/gpu: "1"}}}
                  containers:
                  - {name: a, image: x, resources: {limits: {nvidia.com/gpu: "1"}, requests: {nvidia.com/gpu: 1}}}
                  - {name: b, image: x, resources: {limits: {nvidia.com/gpu: 1}}}
                """);
        assertEquals(3, GpuCount.of(pod).effective());
    }

    /** Kubernetes' effective request with sidecars (KEP-753), as kube-scheduler and the kubelet count it. */
    static Stream<Arguments> sidecars() {
        return Stream.of(
                // app 4 + a 4-GPU sidecar run together: 8
                Arguments.of("[{name: s, image: x, restartPolicy: Always, resources: {limits: {nvidia.com/gpu: 4}}}]", 4, 8),
                // an ordinary init container of 8 runs alone: max(8, 4)
                Arguments.of("[{name: i, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]", 4, 8),
                // sidecar 2 then init 4: the init step holds 6; then app 1 + sidecar 2 = 3
                Arguments.of("[{name: s, image: x, restartPolicy: Always, resources: {limits: {nvidia.com/gpu: 2}}},"
                        + " {name: i, image: x, resources: {limits: {nvidia.com/gpu: 4}}}]", 1, 6),
                // init 4 before sidecar 2: the init runs alone (4); then app 1 + sidecar 2 = 3
                Arguments.of("[{name: i, image: x, resources: {limits: {nvidia.com/gpu: 4}}},"
                        + " {name: s, image: x, restartPolicy: Always, resources: {limits: {nvidia.com/gpu: 2}}}]", 1, 4),
                // two sidecars add up with the app: 1 + 1 + 2
                Arguments.of("[{name: s1, image: x, restartPolicy: Always, resources: {limits: {nvidia.com/gpu: 1}}},"
                        + " {name: s2, image: x, restartPolicy: Always, resources: {limits: {nvidia.com/gpu: 1}}}]", 2, 4));
    }

    @ParameterizedTest(name = "{0} + app {1} -> {2}")
    @MethodSource("sidecars")
    void restartable_init_containers_add_to_the_app_and_ordinary_ones_count_by_their_peak(String inits, int app, int effective)
            throws Exception {
        var pod = Pods.yaml("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p}
                spec:
                  initContainers: %s
                  containers:
                  - {name: a, image: x, resources: {limits: {nvidia.com/gpu: %d}}}
                """.formatted(inits, app));
        assertEquals(effective, GpuCount.of(pod).effective());
    }

    @Test
    void a_slice_beside_whole_gpus_excuses_nothing() throws Exception {
        var pod = Pods.yaml("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p, labels: {job-name: ft}}
                spec:
                  containers:
                  - {name: a, image: x, resources: {limits: {nvidia.com/gpu: 3}}}
                  - {name: b, image: x, resources: {limits: {nvidia.com/mig-1g.10gb: 1}}}
                """);
        Classification c = Classifier.classify(pod);
        assertEquals(3, c.gpus());
        assertTrue(c.alreadySliced() && c.batchOwned());
        assertTrue(c.notes().get(0).contains("the whole GPUs follow the usual rules"), c.notes().toString());
    }

    @Test
    void a_class_label_does_not_hide_the_job_that_owns_the_pod() throws Exception {
        var pod = Pods.yaml("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: p
                  labels: {ace.dev/workload-class: inference}
                  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u}]
                spec:
                  containers:
                  - {name: a, image: x, resources: {limits: {nvidia.com/gpu: 1}}}
                """);
        Classification c = Classifier.classify(pod);
        assertEquals(WorkloadClass.INFERENCE, c.workloadClass());
        assertTrue(c.batchOwned());
    }

    private static io.fabric8.kubernetes.api.model.Pod rayPod(String extraLabel) throws Exception {
        return Pods.yaml("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: p
                  labels: {ray.io/cluster: llm, ray.io/node-type: worker%s}
                  ownerReferences: [{apiVersion: ray.io/v1, kind: RayCluster, name: llm, uid: u}]
                spec:
                  containers:
                  - {name: a, image: vllm/vllm-openai, args: [vllm, serve, m, --tensor-parallel-size, '4'], resources: {limits: {nvidia.com/gpu: 4}}}
                """.formatted(extraLabel));
    }

    @Test
    void a_ray_clusters_pod_is_batch_unless_kuberay_marks_it_as_serving_for_a_rayservice() throws Exception {
        Classification job = Classifier.classify(rayPod(""));
        assertEquals(WorkloadClass.BATCH, job.workloadClass(), "a RayJob's or a plain RayCluster's pod");
        assertTrue(job.batchOwned());
        Classification serve = Classifier.classify(rayPod(", ray.io/serve: 'true'"));
        assertEquals(WorkloadClass.INFERENCE, serve.workloadClass(), "a RayService's pod: its command line decides");
        assertFalse(serve.batchOwned());
    }

    static Stream<Arguments> nonsense() {
        return Stream.of(Arguments.of("'-1'"), Arguments.of("'0.5'"), Arguments.of("1e3"), Arguments.of("abc"), Arguments.of("500m"));
    }

    @ParameterizedTest(name = "nvidia.com/gpu: {0} is refused naming the field")
    @MethodSource("nonsense")
    void nonsense_quantities_name_the_field(String q) {
        var pod = Pods.gpuPod("vllm/vllm-openai", "[]", q, null);
        InvalidPodException e = assertThrows(InvalidPodException.class, () -> Classifier.classify(pod));
        assertEquals("spec.containers[0].resources.limits[\"nvidia.com/gpu\"]", e.field());
    }

    @Test
    void requests_differing_from_limits_are_refused() {
        var pod = Pods.yaml("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p}
                spec:
                  containers:
                  - {name: a, image: x, resources: {limits: {nvidia.com/gpu: 2}, requests: {nvidia.com/gpu: 1}}}
                """);
        InvalidPodException e = assertThrows(InvalidPodException.class, () -> Classifier.classify(pod));
        assertEquals("spec.containers[0].resources.requests[\"nvidia.com/gpu\"]", e.field());
    }
}
