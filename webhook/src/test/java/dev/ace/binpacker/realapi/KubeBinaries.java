package dev.ace.binpacker.realapi;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where the control-plane binaries are: {@code $KUBE_API_TEST_DIR/k8s/<version>-linux-amd64/} (the layout of
 * fabric8 kube-api-test, which {@code .ci/run} lays out), else {@code ~/.kubeapitest/k8s/...}.
 * Absent binaries skip the suite on a workstation, and fail it in CI ({@code CI=true} or
 * {@code -Dace.realapi.required=true}, which {@code .ci/run} sets).
 */
public record KubeBinaries(Path dir) {
    static final List<String> NEEDED = List.of("etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager");

    public Path etcd() { return dir.resolve("etcd"); }

    public Path apiserver() { return dir.resolve("kube-apiserver"); }

    public Path scheduler() { return dir.resolve("kube-scheduler"); }

    public Path controllerManager() { return dir.resolve("kube-controller-manager"); }

    /** kubectl beside the binaries (install.sh links it), else the one on PATH. */
    public Path kubectl() {
        Path beside = dir.resolve("kubectl");
        if (Files.isExecutable(beside)) return beside;
        for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path c = Path.of(p, "kubectl");
            if (Files.isExecutable(c)) return c;
        }
        throw new IllegalStateException("no kubectl beside " + dir + " or on PATH: the suite renders deploy/ with `kubectl kustomize`");
    }

    /** True in CI: a missing binary is then a failure, not a skip. */
    public static boolean required() {
        return "true".equalsIgnoreCase(System.getenv("CI")) || Boolean.getBoolean("ace.realapi.required");
    }

    /** The binaries, or why they are not there. */
    public static Result find() {
        String env = System.getenv("KUBE_API_TEST_DIR");
        Path root = env != null && !env.isBlank() ? Path.of(env) : Path.of(System.getProperty("user.home"), ".kubeapitest");
        Path k8s = root.resolve("k8s");
        List<Path> candidates;
        try (Stream<Path> s = Files.isDirectory(k8s) ? Files.list(k8s) : Stream.empty()) {
            candidates = s.filter(Files::isDirectory).sorted().toList();
        } catch (java.io.IOException e) {
            candidates = List.of();
        }
        Optional<Path> found = candidates.stream()
                .filter(d -> NEEDED.stream().allMatch(b -> Files.isExecutable(d.resolve(b))))
                .reduce((a, b) -> b);
        if (found.isPresent()) return new Result(new KubeBinaries(found.get()), null);
        return new Result(null, "no etcd, kube-apiserver, kube-scheduler and kube-controller-manager under " + k8s
                + "/<version>-linux-amd64/ (" + (env == null ? "KUBE_API_TEST_DIR not set" : "KUBE_API_TEST_DIR=" + env)
                + "); point KUBE_API_TEST_DIR at a folder laid out like fabric8 kube-api-test's (docs/real-api-suite.md)");
    }

    public record Result(KubeBinaries binaries, String missing) {}
}
