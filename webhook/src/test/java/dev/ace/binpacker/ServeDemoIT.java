package dev.ace.binpacker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ace.binpacker.web.Https;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar run as the README says, on a workstation that has a kubeconfig: the demo stays
 * the demo (standalone, ready, the documented answer), and CLI commands never start the server.
 */
class ServeDemoIT {
    private static final Path JAR = Path.of(System.getProperty("test.build.dir", "webhook/target"), "quarkus-app", "quarkus-run.jar");
    private static final Pattern PORTS = Pattern.compile("Listening on: https://[^:]+:(\\d+)\\. Management interface listening on http://[^:]+:(\\d+)");

    private static ProcessBuilder java(Path home, String... args) {
        List<String> cmd = new ArrayList<>(List.of("java", "-Duser.home=" + home, "-Dquarkus.http.ssl-port=0", "-Dquarkus.management.port=0",
                "-jar", JAR.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("HOME", home.toString());
        pb.environment().remove("KUBECONFIG");
        pb.environment().remove("KUBERNETES_SERVICE_HOST");
        return pb;
    }

    @Test
    void a_kubeconfig_in_home_does_not_change_the_demo(@TempDir Path home) throws Exception {
        Path kubeconfig = home.resolve(".kube").resolve("config");
        Files.createDirectories(kubeconfig.getParent());
        // A real-looking context whose API server does not answer: a cluster client would fail readiness and log stack traces.
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: prod, cluster: {server: 'https://127.0.0.1:9', insecure-skip-tls-verify: true}}]
                users: [{name: me, user: {token: not-a-real-token}}]
                contexts: [{name: prod, context: {cluster: prod, user: me}}]
                current-context: prod
                """);
        Process p = java(home, "serve").start();
        List<String> log = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            Matcher ports = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            for (String line; ports == null && System.nanoTime() < deadline && (line = out.readLine()) != null; ) {
                log.add(line);
                Matcher m = PORTS.matcher(line);
                if (m.find()) ports = m;
            }
            assertTrue(ports != null, "the server did not start:\n" + String.join("\n", log));
            assertTrue(log.get(0).endsWith("standalone mode: not in a pod, and neither --cluster nor --kubeconfig given; the kubeconfig "
                    + kubeconfig + " is not used (serve --cluster would watch that cluster)"), log.get(0));

            var client = Https.jdkClient();
            // Readiness goes up once the HTTPS handler has served its warm-up reviews (a few seconds after the port opens).
            HttpResponse<String> ready;
            do {
                ready = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + ports.group(2) + "/q/health/ready")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() != 200) Thread.sleep(250);
            } while (ready.statusCode() != 200 && System.nanoTime() < deadline);
            assertEquals(200, ready.statusCode(), ready.body());
            HttpResponse<byte[]> answer = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + ports.group(1) + "/mutate"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofFile(Path.of("k8s", "demo", "review-tp4.json"))).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, answer.statusCode());
            JsonNode expected = Https.file(Https.ADMISSION.resolve("responses/tp4.json"));
            assertEquals(expected, dev.ace.binpacker.web.GoldenFiles.withoutRandomIds(Https.readable(Https.read(answer.body()))),
                    "the README's Try-it answer (reservation ids are random)");
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        String all = String.join("\n", log);
        assertFalse(all.contains("Exception") || all.contains(" ERROR "), all);
    }

    @Test
    void help_and_explain_run_from_the_jar_and_from_bin_ace_without_starting_the_server(@TempDir Path home) throws Exception {
        List<String[]> calls = new ArrayList<>();
        for (String[] args : new String[][] {{"--help"}, {"serve", "--help"}, {"explain", "-f", "k8s/demo/llama-70b-tp4.yaml"}}) {
            calls.add(args);
            String[] wrapped = new String[args.length + 1];
            wrapped[0] = "bin/ace";
            System.arraycopy(args, 0, wrapped, 1, args.length);
            calls.add(wrapped);
        }
        for (String[] call : calls) {
            boolean wrapper = call[0].equals("bin/ace");
            String[] args = wrapper ? java.util.Arrays.copyOfRange(call, 1, call.length) : call;
            ProcessBuilder pb = wrapper ? new ProcessBuilder(call).redirectErrorStream(true) : java(home, args);
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), out);
            assertFalse(out.contains("Listening on") || out.contains("Quarkus"), String.join(" ", call) + " started the server:\n" + out);
            if (args[0].equals("explain")) assertTrue(out.contains("decision:  reserved 4 GPUs of one NUMA node on hgx-h100-0 (expected 0,1,2,3)"), out);
            else assertTrue(out.startsWith("usage: serve") || out.contains("\ncommands:\n"), out);
        }
    }
}
