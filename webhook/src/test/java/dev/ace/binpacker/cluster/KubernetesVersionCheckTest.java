package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

/** Kubernetes 1.30+ at start: what /version strings real servers send, and refusing an old one. */
@EnableKubernetesMockClient
class KubernetesVersionCheckTest {
    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void versions_as_managed_clusters_report_them_are_read() {
        assertEquals(new KubernetesVersionCheck.Verdict.Supported("1.30"), KubernetesVersionCheck.judge("1", "30+", "v1.30.2-gke.1587003"));
        assertEquals(new KubernetesVersionCheck.Verdict.Supported("1.36"), KubernetesVersionCheck.judge("1", "36", "v1.36.0"));
        assertEquals(new KubernetesVersionCheck.Verdict.TooOld("1.29"), KubernetesVersionCheck.judge("1", "29+", "v1.29.10-eks-7f9249a"));
        assertEquals(new KubernetesVersionCheck.Verdict.Supported("1.31"), KubernetesVersionCheck.judge("", "", "v1.31.1+k3s1"));
        assertInstanceOf(KubernetesVersionCheck.Verdict.Unknown.class, KubernetesVersionCheck.judge(null, null, "devel"));
        // A kube-apiserver built without version stamps (and fabric8's mock server) reports 0.0: not judged.
        assertInstanceOf(KubernetesVersionCheck.Verdict.Unknown.class, KubernetesVersionCheck.judge("", "", "v0.0.0-master+$Format:%H$"));
        assertInstanceOf(KubernetesVersionCheck.Verdict.Unknown.class, KubernetesVersionCheck.judge("0", "0", null));
    }

    private void serverVersion(String minor) {
        server.setVersionInfo(new VersionInfo.Builder().withMajor("1").withMinor(minor).withGitVersion("v1." + minor.replace("+", "") + ".0").build());
    }

    @Test
    void an_api_server_older_than_1_30_is_refused_unless_told_to_warn() {
        serverVersion("28");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> KubernetesVersionCheck.verify(client, "refuse"));
        assertTrue(e.getMessage().startsWith("Kubernetes 1.28 is older than 1.30, the oldest ACE supports"), e.getMessage());
        assertTrue(e.getMessage().endsWith("set ACE_OLDER_KUBERNETES=warn to run anyway"), e.getMessage());
        assertEquals(new KubernetesVersionCheck.Verdict.TooOld("1.28"), KubernetesVersionCheck.verify(client, "warn"));
    }

    @Test
    void an_api_server_that_cannot_be_reached_is_not_judged_and_the_start_goes_on() {
        var config = new io.fabric8.kubernetes.client.ConfigBuilder().withMasterUrl("https://127.0.0.1:9").withRequestRetryBackoffLimit(0).build();
        try (KubernetesClient unreachable = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config).build()) {
            KubernetesVersionCheck.Verdict v = KubernetesVersionCheck.verify(unreachable, "refuse");
            assertInstanceOf(KubernetesVersionCheck.Verdict.Unknown.class, v);
            assertTrue(((KubernetesVersionCheck.Verdict.Unknown) v).why().startsWith("could not read the API server version"), v.toString());
        }
    }

    @Test
    void a_supported_server_passes() {
        serverVersion("30+");
        assertEquals(new KubernetesVersionCheck.Verdict.Supported("1.30"), KubernetesVersionCheck.verify(client, "refuse"));
    }
}
