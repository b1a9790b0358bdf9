package dev.ace.binpacker.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A client CA and the certificates the tests present: one it issued (what the API server presents
 * through its AdmissionConfiguration kubeconfig) and a self-signed impostor with the same name.
 */
final class TestPki {
    record Identity(X509Certificate cert, PrivateKey key) {}

    static final Path DIR;
    static final Path CA_PEM;
    static final Identity CA;
    static final Identity APISERVER;
    static final Identity IMPOSTOR;

    static {
        try {
            DIR = Files.createTempDirectory("ace-test-pki-");
            CA = issue("CN=ace-test-client-ca", null, true);
            APISERVER = issue("CN=kube-apiserver-webhook-client", CA, false);
            IMPOSTOR = issue("CN=kube-apiserver-webhook-client", null, false);
            CA_PEM = DIR.resolve("client-ca.crt");
            Files.writeString(CA_PEM, "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(CA.cert().getEncoded())
                    + "\n-----END CERTIFICATE-----\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private TestPki() {}

    private static Identity issue(String subject, Identity issuer, boolean ca) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
        KeyPair kp = g.generateKeyPair();
        Instant now = Instant.now();
        X500Name issuerName = new X500Name(issuer == null ? subject : issuer.cert().getSubjectX500Principal().getName());
        var b = new JcaX509v3CertificateBuilder(issuerName, new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofMinutes(5))),
                Date.from(now.plus(Duration.ofDays(1))), new X500Name(subject), kp.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        if (!ca) b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
        PrivateKey signer = issuer == null ? kp.getPrivate() : issuer.key();
        var cert = new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
        return new Identity(cert, kp.getPrivate());
    }

    /** An HTTP/1.1 JDK client presenting {@code who} (null: no certificate), trusting any server certificate. */
    static java.net.http.HttpClient client(Identity who) {
        try {
            KeyManagerFactory kmf = null;
            if (who != null) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                ks.setKeyEntry("client", who.key(), new char[0], new java.security.cert.Certificate[] {who.cert()});
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, new char[0]);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), new TrustManager[] {new X509TrustManager() {
                @Override public void checkClientTrusted(X509Certificate[] c, String a) {}
                @Override public void checkServerTrusted(X509Certificate[] c, String a) {}
                @Override public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
            }}, new SecureRandom());
            SSLParameters params = new SSLParameters();
            params.setEndpointIdentificationAlgorithm(null);
            params.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            return java.net.http.HttpClient.newBuilder().sslContext(ctx).sslParameters(params)
                    .version(java.net.http.HttpClient.Version.HTTP_1_1).build();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
