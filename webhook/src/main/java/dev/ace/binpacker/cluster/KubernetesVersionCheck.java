package dev.ace.binpacker.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * At start in cluster mode: is the API server at least Kubernetes 1.30? ACE's scheduling gate, the
 * exemption guard (ValidatingAdmissionPolicy) and the webhooks' CEL matchConditions are GA from
 * 1.30; on older servers the guard is not installed and gated pods may never be released.
 */
public final class KubernetesVersionCheck {
    private static final Logger LOG = Logger.getLogger(KubernetesVersionCheck.class);
    public static final int MIN_MAJOR = 1;
    public static final int MIN_MINOR = 30;
    private static final Pattern DIGITS = Pattern.compile("^(\\d+)");
    private static final Pattern GIT = Pattern.compile("^v?(\\d+)\\.(\\d+)");
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(10);

    private KubernetesVersionCheck() {}

    /** The answer for one API server version. */
    public sealed interface Verdict {
        record Supported(String version) implements Verdict {}

        record TooOld(String version) implements Verdict {}

        record Unknown(String why) implements Verdict {}
    }

    /**
     * @param major      {@code /version} major ("1")
     * @param minor      {@code /version} minor; managed clusters append "+" ("30+")
     * @param gitVersion {@code /version} gitVersion ("v1.30.2-gke.1000"), used when major/minor do not parse
     */
    public static Verdict judge(String major, String minor, String gitVersion) {
        int ma = leadingNumber(major);
        int mi = leadingNumber(minor);
        if ((ma <= 0 || mi < 0) && gitVersion != null) {
            Matcher g = GIT.matcher(gitVersion.trim());
            if (g.find()) {
                ma = Integer.parseInt(g.group(1));
                mi = Integer.parseInt(g.group(2));
            }
        }
        // Major 0: a kube-apiserver built without version stamps (v0.0.0-master), or a test double; nothing to judge.
        if (ma <= 0 || mi < 0) return new Verdict.Unknown("unreadable version major='" + major + "' minor='" + minor + "' gitVersion='" + gitVersion + "'");
        String v = ma + "." + mi;
        return ma > MIN_MAJOR || (ma == MIN_MAJOR && mi >= MIN_MINOR) ? new Verdict.Supported(v) : new Verdict.TooOld(v);
    }

    /**
     * Reads {@code /version} and logs the verdict. On a server older than 1.30 throws (the start fails
     * with the message) unless {@code onOlder} is {@code warn}. An unreachable server is not judged here:
     * the informers keep retrying and readiness stays down until it answers.
     */
    public static Verdict verify(KubernetesClient client, String onOlder) {
        Verdict v;
        try {
            // Bounded: this runs on the startup thread, and an unreachable API server is retried by the client for minutes.
            VersionInfo info = CompletableFuture.supplyAsync(client::getKubernetesVersion).get(ANSWER_WITHIN.toSeconds(), TimeUnit.SECONDS);
            v = info == null ? new Verdict.Unknown("the API server sent no version")
                    : judge(info.getMajor(), info.getMinor(), info.getGitVersion());
        } catch (TimeoutException e) {
            v = new Verdict.Unknown("the API server did not answer /version within " + ANSWER_WITHIN.toSeconds() + " s");
        } catch (ExecutionException e) {
            v = new Verdict.Unknown("could not read the API server version: " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            v = new Verdict.Unknown("interrupted while reading the API server version");
        }
        if (v instanceof Verdict.Supported s) {
            LOG.infof("Kubernetes %s: at least %d.%d, supported", s.version(), MIN_MAJOR, MIN_MINOR);
        } else if (v instanceof Verdict.Unknown u) {
            LOG.warnf("Kubernetes version not checked (%s); ACE needs %d.%d or newer", u.why(), MIN_MAJOR, MIN_MINOR);
        } else if (v instanceof Verdict.TooOld t) {
            String msg = "Kubernetes " + t.version() + " is older than " + MIN_MAJOR + "." + MIN_MINOR + ", the oldest ACE supports"
                    + " (scheduling gates, ValidatingAdmissionPolicy and webhook matchConditions are GA from 1.30)";
            if (!"warn".equalsIgnoreCase(onOlder)) {
                throw new IllegalStateException(msg + "; refusing to start. Upgrade the cluster, or set ACE_OLDER_KUBERNETES=warn to run anyway");
            }
            LOG.warn(msg + "; running anyway because ace.older-kubernetes=warn");
        }
        return v;
    }

    private static int leadingNumber(String s) {
        if (s == null) return -1;
        Matcher m = DIGITS.matcher(s.trim());
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
}
