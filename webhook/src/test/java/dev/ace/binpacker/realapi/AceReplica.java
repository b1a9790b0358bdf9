package dev.ace.binpacker.realapi;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One ACE replica: the packaged jar ({@code target/quarkus-app/quarkus-run.jar serve --kubeconfig ...}) as a
 * real process, authenticating as ACE's ServiceAccount with a TokenRequest token (so deploy/rbac.yaml is
 * what it may do), serving HTTPS with a certificate of the suite CA. Lease identity = {@code HOSTNAME} = name.
 */
public final class AceReplica {
    /** The webhook module's packaged jar; the tests run from the repository's root (test.build.dir: the pom's). */
    static final Path JAR = Path.of(System.getProperty("test.build.dir", "webhook/target"), "quarkus-app", "quarkus-run.jar");
    /** The node agent's own jar (module agent), packaged before the webhook's module runs its ITs. */
    static final Path AGENT_JAR = Path.of("agent", "target", "ace-agent.jar");

    private final String name;
    private final int httpsPort = ControlPlane.freePort();
    private final int managementPort = ControlPlane.freePort();
    private final ControlPlane cp;
    private final Path kubeconfig;
    private volatile Daemon process;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    AceReplica(String name, ControlPlane cp, Path kubeconfig, Map<String, String> extraProperties) throws IOException {
        this.name = name;
        this.cp = cp;
        this.kubeconfig = kubeconfig;
        process = daemon(extraProperties);
    }

    private Daemon daemon(Map<String, String> extraProperties) throws IOException {
        if (!Files.isRegularFile(JAR)) throw new IllegalStateException(JAR + " is missing: the real-API suite runs after `mvn package` (mvn verify)");
        Path cert = cp.pki().server(name).write(cp.dir(), name);
        Path key = cp.dir().resolve(name + ".key");
        List<String> cmd = new java.util.ArrayList<>(List.of("java", "-XX:+UseSerialGC", "-Xmx384m", "-Xss512k",
                "-Dquarkus.http.ssl-port=" + httpsPort, "-Dquarkus.management.port=" + managementPort,
                "-Dquarkus.tls.webhook.key-store.pem.0.cert=" + cert, "-Dquarkus.tls.webhook.key-store.pem.0.key=" + key));
        extraProperties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.addAll(List.of("-jar", JAR.toString(), "serve", "--kubeconfig", kubeconfig.toString()));
        return new Daemon(name, cmd, Map.of("HOSTNAME", name, "ACE_CONTROLLER_NAMESPACE", AceInstall.NAMESPACE), cp.dir());
    }

    /**
     * Stops the process (SIGTERM) and starts it again on the same ports with {@code properties} in place of the
     * settings it had (a scenario that needs other {@code ace.*} settings; restore {@link RealCluster#REPLICA_PROPERTIES}
     * after it). Does not wait for readiness.
     */
    public synchronized AceReplica restartWith(Map<String, String> properties) throws IOException {
        process.stop();
        process = daemon(properties);
        process.start();
        return this;
    }

    public String name() { return name; }

    public int httpsPort() { return httpsPort; }

    public int managementPort() { return managementPort; }

    public Daemon process() { return process; }

    public boolean alive() { return process.alive(); }

    /** Starts the process (again) on the same ports and waits for readiness. */
    public AceReplica start() throws IOException {
        process.start();
        return this;
    }

    public void awaitReady(Duration within) {
        Conditions.await(() -> name + " ready on :" + managementPort + "\n" + process.tail(30), within, () -> {
            if (!process.alive()) throw new IllegalStateException(name + " exited:\n" + process.tail(60));
            return get("/q/health/ready").statusCode() == 200;
        });
    }

    /** SIGKILL, as a node loss would. */
    public void kill() { process.kill(); }

    public void stop() { process.stop(); }

    /** The Prometheus text of /q/metrics. */
    public String metrics() throws IOException, InterruptedException { return get("/q/metrics").body(); }

    /** Sum of every sample of {@code metric} whose label text contains {@code labelFilter} ("" for all). */
    public double metric(String metric, String labelFilter) throws IOException, InterruptedException {
        double sum = 0;
        for (String line : metrics().split("\n")) {
            if (line.startsWith("#") || !line.startsWith(metric)) continue;
            String rest = line.substring(metric.length());
            if (!(rest.startsWith("{") || rest.startsWith(" "))) continue;
            if (!line.contains(labelFilter)) continue;
            sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        return sum;
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public String toString() { return name; }
}
