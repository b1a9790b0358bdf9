package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * webhook-config/certs.sh against a stand-in kubectl that keeps the webhook configurations as files:
 * run too early it stops and says what to apply first; run in the documented order it puts the CA
 * into every webhook, the workloads webhook included.
 */
class CertsScriptTest {
    /** kubectl as far as certs.sh uses it; state in $STATE: one file per configuration listing its webhooks, patches appended. */
    private static final String FAKE_KUBECTL = """
            #!/usr/bin/env bash
            set -eu
            case "$1 $2" in
              "get namespace") exit 0 ;;
              "-n ace-system") [ "$3" = create ] && { cat <<'YAML'
            apiVersion: v1
            kind: Secret
            YAML
              exit 0; } ;;
              "apply -f") cat > /dev/null; echo "$*" >> "$STATE/calls"; exit 0 ;;
              "patch mutatingwebhookconfiguration"|"patch validatingwebhookconfiguration")
                echo "$2 $6" >> "$STATE/patches"; exit 0 ;;
              "get mutatingwebhookconfiguration"|"get validatingwebhookconfiguration")
                [ -f "$STATE/$2" ] || exit 1
                case "$*" in
                  *caBundle*) i=0; while read -r w; do
                      if grep -q "^$2 .*webhooks/$i/clientConfig/caBundle" "$STATE/patches" 2>/dev/null; then
                        echo "$w=set"; else echo "$w="; fi
                      i=$((i + 1))
                    done < "$STATE/$2" ;;
                  *name*) cat "$STATE/$2" ;;
                esac
                exit 0 ;;
            esac
            echo "fake kubectl: unexpected $*" >&2; exit 2
            """;

    private record Result(int code, String output) {}

    private static Result certs(Path state) throws Exception {
        Path bin = state.resolve("bin");
        Files.createDirectories(bin);
        Path kubectl = bin.resolve("kubectl");
        Files.writeString(kubectl, FAKE_KUBECTL);
        Files.setPosixFilePermissions(kubectl, PosixFilePermissions.fromString("rwx------"));
        ProcessBuilder pb = new ProcessBuilder("bash", "webhook-config/certs.sh").redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("STATE", state.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Result(p.exitValue(), out);
    }

    @Test
    void run_before_the_webhook_configurations_exist_it_stops_and_names_the_step_to_run_first(@TempDir Path state) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "needs openssl");
        Result r = certs(state);
        assertEquals(1, r.code(), r.output());
        assertEquals("certs.sh: mutatingwebhookconfiguration/ace-binpacker not found: run 'kubectl apply -k webhook-config' first, then this script\n",
                r.output());
        assertTrue(Files.notExists(state.resolve("patches")), "nothing patched");
    }

    @Test
    void run_in_order_it_writes_the_secret_and_patches_the_ca_into_every_webhook(@TempDir Path state) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "needs openssl");
        Files.writeString(state.resolve("mutatingwebhookconfiguration"), "mutate.ace.dev\n");
        Files.writeString(state.resolve("validatingwebhookconfiguration"), "validate.ace.dev\nvalidate-workloads.ace.dev\n");
        Result r = certs(state);
        assertEquals(0, r.code(), r.output());
        List<String> patches = Files.readAllLines(state.resolve("patches"));
        assertEquals(2, patches.size(), patches.toString());
        assertTrue(patches.get(0).startsWith("mutatingwebhookconfiguration [{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\""));
        assertTrue(patches.get(1).startsWith("validatingwebhookconfiguration [{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\""));
        assertTrue(patches.get(1).contains("{\"op\":\"add\",\"path\":\"/webhooks/1/clientConfig/caBundle\""), "the workloads webhook too");
        assertTrue(r.output().endsWith("certs.sh: Secret ace-system/ace-binpacker-tls written; every webhook of ace-binpacker trusts its CA\n"), r.output());
    }
}
