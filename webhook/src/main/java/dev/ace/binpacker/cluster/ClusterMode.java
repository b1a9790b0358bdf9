package dev.ace.binpacker.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Decided once at startup and said in the first log line: watch an API server, or serve on a file
 * inventory. A workstation that merely has a kubeconfig stays standalone: the demo must not turn
 * into a client of whatever cluster the user last logged into, with the user's credentials.
 */
public enum ClusterMode {
    IN_CLUSTER, STANDALONE;

    /** Mounted into every pod that has a service account: the sign that ACE runs inside a cluster. */
    public static final Path SERVICE_ACCOUNT_TOKEN = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");
    /** fabric8's system property for an explicit kubeconfig file; {@code serve --kubeconfig FILE} sets it. */
    public static final String KUBECONFIG_PROPERTY = "kubeconfig";

    /** The mode and, in words, why it was chosen. */
    public record Choice(ClusterMode mode, String why) {
        public String logLine() { return (mode == IN_CLUSTER ? "cluster mode: " : "standalone mode: ") + why; }
    }

    /**
     * @param configured          {@code ace.mode}: auto, standalone or cluster ({@code serve --cluster} and
     *                            {@code --kubeconfig} set cluster, {@code --standalone} standalone)
     * @param kubeconfig          the explicit kubeconfig file ({@code serve --kubeconfig}), null when none
     * @param env                 the process environment
     * @param serviceAccountToken where a pod's token would be mounted
     * @param home                the user's home directory, only to say which kubeconfig is left unused
     */
    public static Choice choose(String configured, String kubeconfig, Map<String, String> env, Path serviceAccountToken, Path home) {
        String m = configured == null ? "auto" : configured.trim().toLowerCase(Locale.ROOT);
        switch (m) {
            case "standalone":
                return new Choice(STANDALONE, "ace.mode=standalone; nodes from the configured inventory");
            case "cluster":
                return new Choice(IN_CLUSTER, "ace.mode=cluster; API server from " + apiSource(kubeconfig, env, serviceAccountToken));
            case "auto":
                break;
            default:
                throw new IllegalArgumentException("ace.mode must be auto, standalone or cluster, got '" + configured + "'");
        }
        if (env.get("KUBERNETES_SERVICE_HOST") != null && Files.exists(serviceAccountToken)) {
            return new Choice(IN_CLUSTER, "running in a pod (service account token and KUBERNETES_SERVICE_HOST present)");
        }
        String why = "not in a pod, and neither --cluster nor --kubeconfig given";
        String unused = existingKubeconfig(env, home);
        if (unused != null) why += "; the kubeconfig " + unused + " is not used (serve --cluster would watch that cluster)";
        return new Choice(STANDALONE, why);
    }

    private static String apiSource(String kubeconfig, Map<String, String> env, Path token) {
        if (kubeconfig != null && !kubeconfig.isBlank()) return "kubeconfig " + kubeconfig;
        if (env.get("KUBERNETES_SERVICE_HOST") != null && Files.exists(token)) return "the pod's service account";
        String k = env.get("KUBECONFIG");
        return k != null && !k.isBlank() ? "KUBECONFIG " + k : "~/.kube/config";
    }

    private static String existingKubeconfig(Map<String, String> env, Path home) {
        String k = env.get("KUBECONFIG");
        if (k != null && !k.isBlank()) {
            String first = k.split(java.io.File.pathSeparator)[0];
            if (Files.exists(Path.of(first))) return first + " (KUBECONFIG)";
        }
        if (home == null) return null;
        Path p = home.resolve(".kube").resolve("config");
        return Files.exists(p) ? p.toString() : null;
    }
}
