package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which mode serve starts in, and the first log line that says so. */
class ClusterModeTest {

    private static Path kubeconfigIn(Path home) throws Exception {
        Path config = home.resolve(".kube").resolve("config");
        Files.createDirectories(config.getParent());
        Files.writeString(config, "apiVersion: v1\nkind: Config\nclusters: [{name: prod, cluster: {server: 'https://10.0.0.1:6443'}}]\n");
        return config;
    }

    @Test
    void a_kubeconfig_in_home_leaves_a_workstation_standalone_and_the_log_line_says_it_is_not_used(@TempDir Path home) throws Exception {
        Path config = kubeconfigIn(home);
        ClusterMode.Choice c = ClusterMode.choose("auto", null, Map.of(), home.resolve("no-token"), home);
        assertEquals(ClusterMode.STANDALONE, c.mode());
        assertEquals("standalone mode: not in a pod, and neither --cluster nor --kubeconfig given; the kubeconfig " + config
                + " is not used (serve --cluster would watch that cluster)", c.logLine());
    }

    @Test
    void a_kubeconfig_environment_variable_does_not_switch_modes_either(@TempDir Path home) throws Exception {
        Path config = kubeconfigIn(home);
        ClusterMode.Choice c = ClusterMode.choose("auto", null, Map.of("KUBECONFIG", config.toString()), home.resolve("no-token"), home);
        assertEquals(ClusterMode.STANDALONE, c.mode());
        assertEquals(true, c.why().contains(config + " (KUBECONFIG) is not used"), c.why());
    }

    @Test
    void in_a_pod_with_a_service_account_it_is_cluster_mode(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("token"), "eyJ...");
        ClusterMode.Choice c = ClusterMode.choose("auto", null, Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1"), token, dir);
        assertEquals(ClusterMode.IN_CLUSTER, c.mode());
        assertEquals("cluster mode: running in a pod (service account token and KUBERNETES_SERVICE_HOST present)", c.logLine());
    }

    @Test
    void a_service_host_without_a_token_is_not_a_pod_ace_can_act_from(@TempDir Path dir) {
        ClusterMode.Choice c = ClusterMode.choose("auto", null, Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1"), dir.resolve("token"), dir);
        assertEquals(ClusterMode.STANDALONE, c.mode());
    }

    @Test
    void cluster_or_kubeconfig_asked_for_explicitly_name_where_the_api_server_comes_from(@TempDir Path home) throws Exception {
        Path config = kubeconfigIn(home);
        assertEquals("cluster mode: ace.mode=cluster; API server from kubeconfig " + config,
                ClusterMode.choose("cluster", config.toString(), Map.of(), home.resolve("no-token"), home).logLine());
        assertEquals("cluster mode: ace.mode=cluster; API server from ~/.kube/config",
                ClusterMode.choose("cluster", null, Map.of(), home.resolve("no-token"), home).logLine());
    }

    @Test
    void standalone_asked_for_wins_even_in_a_pod(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("token"), "eyJ...");
        assertEquals(ClusterMode.STANDALONE,
                ClusterMode.choose("standalone", null, Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1"), token, dir).mode());
    }

    @Test
    void an_unknown_mode_is_an_error_not_a_guess(@TempDir Path dir) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClusterMode.choose("kubernetes", null, Map.of(), dir, dir));
        assertEquals("ace.mode must be auto, standalone or cluster, got 'kubernetes'", e.getMessage());
    }
}
