package dev.ace.binpacker.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/** Decided once at startup: watch an API server, or serve on a file inventory. */
public enum ClusterMode {
    IN_CLUSTER, STANDALONE;

    /** {@code ace.mode}: standalone or cluster force it; auto looks for a service account host or a kubeconfig. */
    public static ClusterMode detect(String configured, Map<String, String> env, Path home) {
        String m = configured == null ? "auto" : configured.trim().toLowerCase(Locale.ROOT);
        if (m.equals("standalone")) return STANDALONE;
        if (m.equals("cluster")) return IN_CLUSTER;
        if (env.get("KUBERNETES_SERVICE_HOST") != null) return IN_CLUSTER;
        String kubeconfig = env.get("KUBECONFIG");
        if (kubeconfig != null && !kubeconfig.isBlank() && Files.exists(Path.of(kubeconfig.split(java.io.File.pathSeparator)[0]))) {
            return IN_CLUSTER;
        }
        return home != null && Files.exists(home.resolve(".kube").resolve("config")) ? IN_CLUSTER : STANDALONE;
    }
}
