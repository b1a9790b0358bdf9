package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExplainCommandTest {

    private static String run(int expectedExit, String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new ExplainCommand().run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(expectedExit, code, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void a_tp4_deployment_is_explained_as_a_clique_on_the_demo_inventory() throws Exception {
        String out = run(0, "-f", "k8s/demo/llama-70b-tp4.yaml");
        assertTrue(out.contains("class:     inference (server; LLM server vllm)"), out);
        assertTrue(out.contains("gpus:      4    tp: 4"), out);
        assertTrue(out.contains("decision:  reserved 4 GPUs of one NUMA node on hgx-h100-0 (expected 0,1,2,3) (NVLink clique nvl0)"), out);
        assertTrue(out.contains("\"path\" : \"/spec/affinity\""), out);
    }

    @Test
    void a_fracturing_job_is_denied_with_exit_code_3_and_warned_under_warn(@TempDir Path dir) throws Exception {
        Path job = dir.resolve("job.yaml");
        Files.writeString(job, """
                apiVersion: batch/v1
                kind: Job
                metadata: {name: ft, namespace: research}
                spec:
                  template:
                    spec:
                      restartPolicy: Never
                      containers:
                      - name: t
                        image: nvcr.io/nvidia/pytorch:24.05-py3
                        command: [torchrun, --nproc-per-node, "3", train.py]
                        resources: {limits: {nvidia.com/gpu: 3}}
                """);
        String denied = run(3, "-f", job.toString());
        assertTrue(denied.contains("verdict:   denied (enforce)"), denied);
        assertTrue(denied.contains("3 GPUs batch job would fracture the 8-GPU NVLink domains"), denied);
        String warned = run(0, "-f", job.toString(), "--policy", "warn");
        assertTrue(warned.contains("warning:   request 2, 4 or 8 GPUs"), warned);
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
}
