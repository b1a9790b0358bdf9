package dev.ace.binpacker.realapi;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * etcd, kube-apiserver, kube-scheduler and kube-controller-manager started from {@link KubeBinaries} as
 * plain processes, with what a real cluster has and kube-api-test does not set: the ServiceAccount
 * admission plugin, {@code --authorization-mode=Node,RBAC} with NodeRestriction, ServiceAccount token
 * signing (TokenRequest), client certificates from the suite's own {@link Pki}. No kubelet: see
 * {@link Kubelet}. Ports are free ones picked at start; data lives under {@code target/realapi/}.
 */
public final class ControlPlane {
    private final KubeBinaries bin;
    private final Path dir;
    private final Pki pki = new Pki();
    private final int etcdPort = freePort();
    private final int etcdPeerPort = freePort();
    private final int apiPort = freePort();
    private Daemon etcd;
    private Daemon apiserver;
    private Daemon scheduler;
    private Daemon controllerManager;
    private Path adminKubeconfig;
    private KubernetesClient admin;

    ControlPlane(KubeBinaries bin, Path dir) {
        this.bin = bin;
        this.dir = dir;
    }

    public Pki pki() { return pki; }

    public KubeBinaries binaries() { return bin; }

    public Path dir() { return dir; }

    public String server() { return "https://127.0.0.1:" + apiPort; }

    public Path adminKubeconfig() { return adminKubeconfig; }

    /** A cluster-admin client (user {@code realapi-admin}, group {@code system:masters}). */
    public KubernetesClient admin() { return admin; }

    public Daemon apiserver() { return apiserver; }

    void start() throws Exception {
        Files.createDirectories(dir);
        Path pkiDir = Files.createDirectories(dir.resolve("pki"));
        Path ca = Files.writeString(pkiDir.resolve("ca.crt"), pki.caPem());
        pki.server("kube-apiserver", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "10.0.0.1").write(pkiDir, "apiserver");
        Files.writeString(pkiDir.resolve("sa.key"), Pki.pem("PRIVATE KEY", pki.serviceAccountPrivateKey().getEncoded()));
        Files.writeString(pkiDir.resolve("sa.pub"), Pki.pem("PUBLIC KEY", pki.serviceAccountPublicKey().getEncoded()));
        adminKubeconfig = writeKubeconfig("admin", pki.client("realapi-admin", "system:masters"));

        etcd = new Daemon("etcd", List.of(bin.etcd().toString(), "--name", "realapi", "--data-dir", dir.resolve("etcd").toString(),
                "--listen-client-urls", "http://127.0.0.1:" + etcdPort, "--advertise-client-urls", "http://127.0.0.1:" + etcdPort,
                "--listen-peer-urls", "http://127.0.0.1:" + etcdPeerPort, "--initial-advertise-peer-urls", "http://127.0.0.1:" + etcdPeerPort,
                "--initial-cluster", "realapi=http://127.0.0.1:" + etcdPeerPort, "--unsafe-no-fsync", "--log-level", "warn"),
                Map.of(), dir).start();
        apiserver = new Daemon("kube-apiserver", apiserverCommand(pkiDir, ca), Map.of(), dir);
        startApiServer();
        admin = client(adminKubeconfig);

        List<String> common = List.of("--kubeconfig", adminKubeconfig.toString(), "--leader-elect=false", "--secure-port=0", "-v=1");
        List<String> sched = new ArrayList<>(List.of(bin.scheduler().toString()));
        sched.addAll(common);
        scheduler = new Daemon("kube-scheduler", sched, Map.of(), dir).start();
        List<String> kcm = new ArrayList<>(List.of(bin.controllerManager().toString()));
        kcm.addAll(common);
        kcm.addAll(List.of("--controllers=deployment-controller,replicaset-controller,job-controller,cronjob-controller,"
                        + "garbage-collector-controller,namespace-controller,serviceaccount-controller,root-ca-certificate-publisher-controller,clusterrole-aggregation-controller",
                "--service-account-private-key-file=" + pkiDir.resolve("sa.key"), "--root-ca-file=" + ca,
                "--use-service-account-credentials=false", "--concurrent-deployment-syncs=5", "--concurrent-replicaset-syncs=5"));
        controllerManager = new Daemon("kube-controller-manager", kcm, Map.of(), dir).start();
    }

    private List<String> apiserverCommand(Path pkiDir, Path ca) {
        return List.of(bin.apiserver().toString(),
                "--etcd-servers=http://127.0.0.1:" + etcdPort,
                "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + apiPort,
                "--tls-cert-file=" + pkiDir.resolve("apiserver.crt"), "--tls-private-key-file=" + pkiDir.resolve("apiserver.key"),
                "--client-ca-file=" + ca,
                "--service-account-issuer=https://kubernetes.default.svc", "--service-account-key-file=" + pkiDir.resolve("sa.pub"),
                "--service-account-signing-key-file=" + pkiDir.resolve("sa.key"),
                "--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction",
                "--service-cluster-ip-range=10.0.0.0/24", "--allow-privileged=true", "--profiling=false",
                "--cert-dir=" + dir.resolve("apiserver-certs"), "-v=1");
    }

    /** Starts kube-apiserver (again, after {@link #stopApiServer()}) and waits until it is ready. */
    public void startApiServer() throws Exception {
        apiserver.start();
        waitReady(Duration.ofMinutes(3));
    }

    /** Stops kube-scheduler (SIGTERM): pods stay unbound until {@link #startScheduler()}. */
    public void stopScheduler() { scheduler.stop(); }

    /** Starts kube-scheduler again after {@link #stopScheduler()} (it runs without leader election). */
    public void startScheduler() throws IOException { scheduler.start(); }

    /** Stops kube-apiserver (SIGTERM); etcd and the data stay. */
    public void stopApiServer() { apiserver.stop(); }

    private void waitReady(Duration within) throws Exception {
        HttpClient http = HttpClient.newBuilder().sslContext(Tls.trusting(pki.ca(), pki.client("realapi-probe", "system:masters")))
                .connectTimeout(Duration.ofSeconds(2)).build();
        Conditions.await("kube-apiserver ready on " + server(), within, () -> {
            if (!apiserver.alive()) throw new IllegalStateException("kube-apiserver exited:\n" + apiserver.tail(40));
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server() + "/readyz")).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                return r.statusCode() == 200;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** A kubeconfig for a client certificate (user = CN, groups = O). */
    public Path writeKubeconfig(String name, Pki.Identity who) throws IOException {
        return Files.writeString(dir.resolve(name + ".kubeconfig"), kubeconfig("    client-certificate-data: " + Pki.base64(who.certPem()) + "\n"
                + "    client-key-data: " + Pki.base64(who.keyPem()) + "\n"));
    }

    /** A kubeconfig for a bearer token (a ServiceAccount's, from TokenRequest). */
    public Path writeTokenKubeconfig(String name, String token) throws IOException {
        return Files.writeString(dir.resolve(name + ".kubeconfig"), kubeconfig("    token: " + token + "\n"));
    }

    private String kubeconfig(String user) {
        return "apiVersion: v1\nkind: Config\nclusters:\n- name: realapi\n  cluster:\n    server: " + server() + "\n"
                + "    certificate-authority-data: " + Pki.base64(pki.caPem()) + "\n"
                + "users:\n- name: user\n  user:\n" + user
                + "contexts:\n- name: realapi\n  context: {cluster: realapi, user: user}\ncurrent-context: realapi\n";
    }

    /** A fabric8 client of a kubeconfig the suite wrote. */
    public static KubernetesClient client(Path kubeconfig) throws IOException {
        Config c = Config.fromKubeconfig(Files.readString(kubeconfig));
        c.setRequestTimeout(30_000);
        c.setConnectionTimeout(10_000);
        c.setRequestRetryBackoffLimit(3);
        return new KubernetesClientBuilder().withConfig(c).build();
    }

    /** A client for user {@code user} in {@code groups}, by client certificate: what RBAC and the policies see as a person. */
    public KubernetesClient userClient(String user, String... groups) throws IOException {
        return client(writeKubeconfig("user-" + user, pki.client(user, groups)));
    }

    void stop() {
        if (admin != null) admin.close();
        for (Daemon d : new Daemon[] {controllerManager, scheduler, apiserver, etcd}) {
            if (d != null) d.stop();
        }
    }

    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
