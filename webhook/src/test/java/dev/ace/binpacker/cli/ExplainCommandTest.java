package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExplainCommandTest {
    /** A torchrun training Job of {@code gpus} GPUs in namespace research, with the given pod nodeSelector line (or none). */
    static String trainingJob(String name, int gpus, String nodeSelector) {
        return """
                apiVersion: batch/v1
                kind: Job
                metadata: {name: %s, namespace: research}
                spec:
                  template:
                    spec:
                      restartPolicy: Never
                %s      containers:
                      - name: t
                        image: nvcr.io/nvidia/pytorch:24.05-py3
                        command: [torchrun, --nproc-per-node, "%d", train.py]
                        resources: {limits: {nvidia.com/gpu: %d}}
                """.formatted(name, nodeSelector == null ? "" : "      nodeSelector: " + nodeSelector + "\n", gpus, gpus);
    }

    /** A fine-tuning Job that wants H100s: only the 8-GPU NVSwitch boards of pool inference can run it. */
    static final String FRACTURING_JOB = trainingJob("ft", 3, "{nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}");

    record Run(int code, String out, String err) {}

    static Run main(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        int code;
        if (args.length > 0 && args[0].equals("explain") && stdin != null) {
            try {
                code = new ExplainCommand(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)))
                        .run(java.util.Arrays.copyOfRange(args, 1, args.length), o, e);
            } catch (Exception ex) {
                throw new AssertionError(ex);
            }
        } else {
            code = Main.run(args, o, e);
        }
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static String run(int expectedExit, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "explain";
        System.arraycopy(args, 0, all, 1, args.length);
        Run r = main(null, all);
        assertEquals(expectedExit, r.code(), r.out() + r.err());
        return r.out();
    }

    @Test
    void a_tp4_deployment_is_explained_as_a_clique_on_the_demo_inventory() {
        String out = run(0, "-f", "k8s/demo/llama-70b-tp4.yaml");
        assertTrue(out.contains("--- Deployment ml/llama-70b (pod template, 1 pod)"), out);
        assertTrue(out.contains("class:     inference (server; LLM server vllm)"), out);
        assertTrue(out.contains("gpus:      4    tp: 4"), out);
        assertTrue(out.contains("decision:  reserved 4 GPUs of one NUMA node on hgx-h100-0 (expected 0,1,2,3) (NVLink clique nvl0)"), out);
        assertTrue(out.contains("\"path\" : \"/spec/affinity\""), out);
    }

    @Test
    void a_fracturing_job_is_denied_with_exit_code_3_and_warned_once_under_warn(@TempDir Path dir) throws Exception {
        Path job = dir.resolve("job.yaml");
        Files.writeString(job, FRACTURING_JOB);
        String denied = run(3, "-f", job.toString());
        assertTrue(denied.contains("verdict:   denied (enforce)"), denied);
        assertTrue(denied.contains("class:     batch (job; owner Job)"), denied);
        assertTrue(denied.contains("3 GPUs batch job would fracture the 8-GPU NVLink domains"), denied);
        String warned = run(0, "-f", job.toString(), "--policy", "warn");
        assertTrue(warned.contains("decision:  warn: would deny: 3 GPUs batch job would fracture"), warned);
        assertFalse(warned.contains("warning:   request 2, 4 or 8 GPUs"), "the decision line already says it:\n" + warned);
    }

    /** An 8-GPU training Job: pool inference takes it as an aligned block while the reserve of free 8-GPU domains lasts. */
    static final String EIGHT_GPU_JOB = trainingJob("ft8", 8, null);

    @Test
    void explain_decides_with_the_configured_settings_not_the_defaults(@TempDir Path dir) throws Exception {
        Path job = dir.resolve("job.yaml");
        Files.writeString(job, EIGHT_GPU_JOB);
        Run byDefault = explain(job, Map.of());
        assertEquals(0, byDefault.code(), byDefault.out() + byDefault.err());
        assertTrue(byDefault.out().contains("decision:  reserved"), byDefault.out());
        // The demo inventory has three free 8-GPU domains: a reserve of 3 leaves no room for an 8-GPU batch job there.
        Run reserved = explain(job, Map.of("ace.policy.reserve-free8-cliques", "3"));
        assertEquals(3, reserved.code(), reserved.out() + reserved.err());
        assertTrue(reserved.out().contains("below the reserve of 3 kept for TP 8"), reserved.out());
    }

    private static Run explain(Path file, Map<String, String> settings) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new ExplainCommand(new ByteArrayInputStream(new byte[0]), settings).run(new String[] {"-f", file.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void batch_labelled_pods_are_not_called_batch_batch(@TempDir Path dir) throws Exception {
        Path job = dir.resolve("job.yaml");
        Files.writeString(job, """
                apiVersion: v1
                kind: Pod
                metadata: {name: ft, namespace: research, labels: {ace.dev/workload-class: batch}}
                spec:
                  nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
                  containers:
                  - {name: t, image: nvcr.io/nvidia/pytorch:24.05-py3, command: [python, train.py], resources: {limits: {nvidia.com/gpu: 3}}}
                """);
        String out = run(3, "-f", job.toString());
        assertTrue(out.contains("decision:  3 GPUs batch would fracture"), out);
        assertFalse(out.contains("batch batch"), out);
    }

    @Test
    void a_custom_inventory_is_used_when_given(@TempDir Path dir) throws Exception {
        Path nodes = dir.resolve("nodes.yaml");
        Files.writeString(nodes, """
                apiVersion: v1
                kind: List
                items:
                - apiVersion: v1
                  kind: Node
                  metadata:
                    name: l4-0
                    labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "2"}
                """);
        String out = run(0, "-f", "k8s/demo/llama-70b-tp4.yaml", "--nodes", nodes.toString());
        assertTrue(out.contains("inventory: 1 nodes"), out);
        assertTrue(out.contains("left untouched") || out.contains("not placed"), out);
    }

    @Test
    void every_document_of_a_file_is_decided_in_order_on_one_inventory_and_other_kinds_are_skipped(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("app.yaml");
        Files.writeString(f, """
                apiVersion: v1
                kind: Service
                metadata: {name: llama, namespace: ml}
                spec: {ports: [{port: 80}]}
                ---
                """ + Files.readString(Path.of("k8s/demo/llama-70b-tp4.yaml")) + "---\n"
                + Files.readString(Path.of("k8s/demo/llama-70b-tp4.yaml")).replace("name: llama-70b,", "name: llama-70b-b,"));
        String out = run(0, "-f", f.toString());
        assertTrue(out.contains("--- Service ml/llama: skipped, no pod template"), out);
        assertTrue(out.contains("on hgx-h100-0 (expected 0,1,2,3)"), out);
        assertTrue(out.contains("on hgx-h100-0 (expected 4,5,6,7)"), "the second replica sees the first one's GPUs taken:\n" + out);
    }

    @Test
    void workloads_are_explained_through_the_pod_their_controller_creates() {
        Run r = main("""
                apiVersion: batch/v1
                kind: CronJob
                metadata: {name: nightly-eval, namespace: ml}
                spec:
                  schedule: "0 2 * * *"
                  jobTemplate:
                    spec:
                      template:
                        spec:
                          restartPolicy: Never
                          containers:
                          - {name: e, image: ghcr.io/eval/lm-eval:0.4, command: [lm_eval, --model, vllm], resources: {limits: {nvidia.com/gpu: 1}}}
                ---
                apiVersion: apps/v1
                kind: StatefulSet
                metadata: {name: qwen, namespace: ml}
                spec:
                  replicas: 2
                  template:
                    spec:
                      containers:
                      - {name: s, image: lmsysorg/sglang:v0.4.6, args: [python3, -m, sglang.launch_server, --tp, "2"], resources: {limits: {nvidia.com/gpu: 2}}}
                ---
                apiVersion: leaderworkerset.x-k8s.io/v1
                kind: LeaderWorkerSet
                metadata: {name: ds, namespace: ml}
                spec:
                  replicas: 1
                  leaderWorkerTemplate:
                    size: 3
                    leaderTemplate:
                      spec:
                        containers:
                        - {name: l, image: vllm/vllm-openai:v0.8.5, args: [--tensor-parallel-size, "8"], resources: {limits: {nvidia.com/gpu: 8}}}
                    workerTemplate:
                      spec:
                        containers:
                        - {name: w, image: vllm/vllm-openai:v0.8.5, args: [--tensor-parallel-size, "8"], resources: {limits: {nvidia.com/gpu: 8}}}
                """, "explain", "-f", "-");
        assertEquals(0, r.code(), r.err());
        String out = r.out();
        assertTrue(out.contains("--- CronJob ml/nightly-eval (pod template, 1 pod)\npod:       ml/nightly-eval-scheduled-*\n"
                + "class:     batch (evaluation; owner Job)"), out);
        assertTrue(out.contains("moved to pool slicing as nvidia.com/mig-7g.80gb"), out);
        assertTrue(out.contains("--- StatefulSet ml/qwen (pod template, 2 pods, each decided alike; shown: the first)\npod:       ml/qwen-0"), out);
        assertTrue(out.contains("--- LeaderWorkerSet ml/ds (leader template, 1 pod)\npod:       ml/ds-0\n"), out);
        assertTrue(out.contains("--- LeaderWorkerSet ml/ds (worker template, 2 pods, each decided alike; shown: the first)\npod:       ml/ds-0-1\n"), out);
    }

    /** An LWS of {@code replicas} TP 8 x 2 groups, optionally one rack per group. */
    static String lws(int replicas, String exclusiveTopology) {
        String ann = exclusiveTopology == null ? "" : "\n  annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: " + exclusiveTopology + "}";
        return """
                apiVersion: leaderworkerset.x-k8s.io/v1
                kind: LeaderWorkerSet
                metadata:
                  name: llama-405b
                  namespace: ml%s
                spec:
                  replicas: %d
                  leaderWorkerTemplate:
                    size: 2
                    leaderTemplate:
                      spec:
                        containers:
                        - {name: l, image: vllm/vllm-openai:v0.8.5, args: [--tensor-parallel-size, "8", --pipeline-parallel-size, "2"], resources: {limits: {nvidia.com/gpu: 8}}}
                    workerTemplate:
                      spec:
                        containers:
                        - {name: w, image: vllm/vllm-openai:v0.8.5, args: [--tensor-parallel-size, "8", --pipeline-parallel-size, "2"], resources: {limits: {nvidia.com/gpu: 8}}}
                """.formatted(ann, replicas);
    }

    @Test
    void each_group_of_an_lws_says_whether_the_inventory_places_it_whole_and_if_not_why() {
        Run r = main(lws(2, null), "explain", "-f", "-");
        assertEquals(0, r.code(), r.err());
        String out = r.out();
        assertTrue(out.contains("--- LeaderWorkerSet ml/llama-405b: 2 groups of 2 pods (spec.leaderWorkerTemplate.size), each placed whole or not at all\n"
                + "group 1:   placed whole now: leader on hgx-h100-0 (GPUs 0-7), worker on hgx-h100-1 (GPUs 0-7)\n"
                + "group 2:   would wait at the gate, holding nothing: no room for all 2 ranks (8 GPUs each) at once\n"), out);
    }

    /** An 8-GPU H100 board of pool inference in rack {@code rack}, as {@code kubectl get node -o yaml} prints it (labels trimmed to what ACE reads). */
    static String rackNode(String name, String rack) {
        return """
                - apiVersion: v1
                  kind: Node
                  metadata:
                    name: %s
                    labels: {ace.dev/pool: inference, kubernetes.io/hostname: %s, nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: '8', rack: %s}
                  status:
                    capacity: {nvidia.com/gpu: '8', cpu: '192', memory: 2Ti, pods: '110'}
                    allocatable: {nvidia.com/gpu: '8', cpu: '190', memory: 2000Gi, pods: '110'}
                """.formatted(name, name, rack);
    }

    @Test
    void a_group_asking_for_one_rack_is_placed_in_the_rack_that_holds_it_and_waits_when_none_does(@TempDir Path dir) throws Exception {
        Path nodes = dir.resolve("racks.yaml");
        Files.writeString(nodes, "apiVersion: v1\nkind: List\nitems:\n" + rackNode("a-0", "r1") + rackNode("b-0", "r2") + rackNode("b-1", "r2"));
        Path file = dir.resolve("lws.yaml");
        Files.writeString(file, lws(2, "rack"));
        String out = run(0, "-f", file.toString(), "--nodes", nodes.toString());
        assertTrue(out.contains("group 1:   placed whole now in rack=r2: leader on b-0 (GPUs 0-7), worker on b-1 (GPUs 0-7)\n"), out);
        assertTrue(out.contains("group 2:   would wait at the gate, holding nothing: no single rack domain has room for all 2 ranks (8 GPUs each); "), out);
    }

    @Test
    void a_binary_file_is_named_and_called_not_text_instead_of_an_encoding_exception(@TempDir Path dir) throws Exception {
        Path jar = dir.resolve("pod.yaml");
        Files.write(jar, new byte[] {'P', 'K', 3, 4, 0x14, 0, 0, 0, (byte) 0xc3, 0x28});
        Run r = main(null, "explain", "-f", jar.toString());
        assertEquals(1, r.code());
        assertEquals("explain: " + jar + ": not a text file (a NUL byte at offset 5; a binary file?)\n", r.err());
        Path latin1 = dir.resolve("latin1.yaml");
        Files.write(latin1, "kind: Pod\nmetadata: {name: caf\u00e9}\n".getBytes(StandardCharsets.ISO_8859_1));
        Run l = main(null, "explain", "-f", latin1.toString());
        assertEquals(1, l.code());
        assertEquals("explain: " + latin1 + ": not a text file (byte 0xe9 at offset 30 is not UTF-8; a binary file?)\n", l.err());
        Run nodes = main(null, "nodes", "-f", jar.toString());
        assertEquals(1, nodes.code());
        assertFalse(nodes.err().contains("Exception"), nodes.err());
        assertTrue(nodes.err().contains(jar + ": not a text file"), nodes.err());
    }

    @Test
    void a_missing_file_an_unparsable_file_and_a_document_without_kind_are_named_with_exit_code_1(@TempDir Path dir) throws Exception {
        Run missing = main(null, "explain", "-f", dir.resolve("nope.yaml").toString());
        assertEquals(1, missing.code());
        assertEquals("explain: " + dir.resolve("nope.yaml") + ": no such file\n", missing.err());

        Path garbage = dir.resolve("garbage.yaml");
        Files.writeString(garbage, "kind: Pod\nspec: [\n");
        Run bad = main(null, "explain", "-f", garbage.toString());
        assertEquals(1, bad.code());
        assertTrue(bad.err().startsWith("explain: " + garbage + ": not valid YAML or JSON (line "), bad.err());
        assertFalse(bad.err().contains("Exception"), bad.err());

        Path nokind = dir.resolve("nokind.yaml");
        Files.writeString(nokind, Files.readString(Path.of("k8s/demo/llama-70b-tp4.yaml")) + "---\nfoo: bar\n");
        Run partly = main(null, "explain", "-f", nokind.toString());
        assertEquals(1, partly.code());
        assertTrue(partly.err().contains("document 2 is not a Kubernetes object (no kind)"), partly.err());
        assertTrue(partly.out().contains("(expected 0,1,2,3)"), "the good document is still explained");
    }

    @Test
    void usage_errors_exit_2_with_the_usage_line() {
        for (List<String> args : List.of(List.of("explain"), List.of("explain", "-f"), List.of("explain", "-f", "x.yaml", "--policy", "strict"),
                List.of("explain", "--frobnicate"))) {
            Run r = main(null, args.toArray(String[]::new));
            assertEquals(2, r.code(), args + ": " + r.err());
            assertTrue(r.err().contains(ExplainCommand.USAGE), r.err());
        }
    }

    @Test
    void a_broken_later_document_is_one_line_with_the_files_line_number_and_no_snakeyaml_class_names(@TempDir Path dir) throws Exception {
        // Document 2 is a Helm template left unrendered; its "{{" sits on file line 14, line 10 of the document.
        String good = Files.readString(Path.of("k8s/demo/llama-70b-tp4.yaml"));
        int goodLines = (int) good.lines().count();
        String templated = """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: chart
                  namespace: ml
                spec:
                  template:
                    spec:
                      containers:
                      - {{ include "chart.container" . }}
                """;
        Path f = dir.resolve("app.yaml");
        Files.writeString(f, good + "---\n" + templated);
        Run r = main(null, "explain", "-f", f.toString());
        assertEquals(1, r.code(), r.err());
        int fileLine = goodLines + 1 + 10;
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(lines.get(0).startsWith("explain: " + f + ": document 2 not valid YAML or JSON (line " + fileLine + ", column "), r.err());
        assertTrue(lines.get(0).endsWith("(it holds {{ ... }} template actions: render it first, e.g. helm template or kustomize build); "
                + "the others are explained"), r.err());
        assertFalse(r.err().contains("org.yaml.snakeyaml"), r.err());
        assertTrue(r.out().contains("(expected 0,1,2,3)"), "the good document is still explained");
    }

    @Test
    void snakeyaml_event_names_are_put_in_words() {
        assertEquals("Unexpected a mapping ({ or key: value) here",
                Inputs.events("Unexpected <org.yaml.snakeyaml.events.MappingStartEvent(anchor=null, tag=null, implicit=true)> here"));
    }

    @Test
    void policy_observe_previews_what_observe_records_not_left_untouched(@TempDir Path dir) throws Exception {
        Path job = dir.resolve("job.yaml");
        Files.writeString(job, FRACTURING_JOB);
        String observed = run(0, "-f", job.toString(), "--policy", "observe");
        assertTrue(observed.contains("decision:  observe: would deny: 3 GPUs batch job would fracture the 8-GPU NVLink domains"), observed);
        assertTrue(observed.contains("verdict:   allowed, unchanged (observe: recorded only)"), observed);
        assertFalse(observed.contains("left untouched"), observed);
        assertFalse(observed.contains("patch:"), "observe changes nothing:\n" + observed);
    }
}
