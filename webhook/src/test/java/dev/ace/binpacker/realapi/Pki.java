package dev.ace.binpacker.realapi;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The suite's own certificate authority: the API server's serving certificate, client certificates for
 * admins and tenants (the API server trusts this CA as {@code --client-ca-file}), the webhook replicas'
 * serving certificates (this CA is the webhooks' {@code caBundle}) and the ServiceAccount signing key.
 */
public final class Pki {
    /** A certificate with its key, and both as PEM. */
    public record Identity(X509Certificate cert, PrivateKey key) {
        public String certPem() { return pem("CERTIFICATE", encoded(cert)); }

        public String keyPem() { return pem("PRIVATE KEY", key.getEncoded()); }

        /** Writes {@code name.crt} and {@code name.key} into {@code dir}; returns the certificate's path. */
        public Path write(Path dir, String name) throws IOException {
            Files.writeString(dir.resolve(name + ".key"), keyPem());
            return Files.writeString(dir.resolve(name + ".crt"), certPem());
        }
    }

    private final Identity ca;
    private final KeyPair serviceAccountKey;

    public Pki() {
        try {
            ca = issue("CN=ace-realapi-ca", List.of(), true, null, List.of());
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            serviceAccountKey = g.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException("cannot create the test CA", e);
        }
    }

    public Identity ca() { return ca; }

    public String caPem() { return ca.certPem(); }

    public PrivateKey serviceAccountPrivateKey() { return serviceAccountKey.getPrivate(); }

    public PublicKey serviceAccountPublicKey() { return serviceAccountKey.getPublic(); }

    /** A serving certificate for 127.0.0.1 and localhost (plus {@code dnsNames}). */
    public Identity server(String cn, String... dnsNames) {
        List<GeneralName> sans = new ArrayList<>(List.of(new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                new GeneralName(GeneralName.dNSName, "localhost")));
        for (String d : dnsNames) {
            sans.add(d.matches("[0-9.]+") ? new GeneralName(GeneralName.iPAddress, d) : new GeneralName(GeneralName.dNSName, d));
        }
        return issueOrThrow("CN=" + cn, List.of(), sans, KeyPurposeId.id_kp_serverAuth);
    }

    /** A client certificate the API server maps to user {@code user} in {@code groups}. */
    public Identity client(String user, String... groups) {
        return issueOrThrow("CN=" + user, List.of(groups), List.of(), KeyPurposeId.id_kp_clientAuth);
    }

    private Identity issueOrThrow(String subject, List<String> orgs, List<GeneralName> sans, KeyPurposeId purpose) {
        try {
            return issue(subject, orgs, false, purpose, sans);
        } catch (Exception e) {
            throw new IllegalStateException("cannot issue " + subject, e);
        }
    }

    private Identity issue(String subject, List<String> orgs, boolean isCa, KeyPurposeId purpose, List<GeneralName> sans) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048, new SecureRandom());
        KeyPair kp = g.generateKeyPair();
        StringBuilder dn = new StringBuilder();
        for (String o : orgs) dn.append("O=").append(o).append(',');
        dn.append(subject);
        Instant now = Instant.now();
        X500Name issuerName = isCa ? new X500Name(dn.toString()) : new X500Name(ca.cert().getSubjectX500Principal().getName());
        var b = new JcaX509v3CertificateBuilder(issuerName, new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(2))), new X500Name(dn.toString()), kp.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
        if (isCa) {
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
        } else {
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
        }
        if (!sans.isEmpty()) b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans.toArray(GeneralName[]::new)));
        PrivateKey signer = isCa ? kp.getPrivate() : ca.key();
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(signer)));
        return new Identity(cert, kp.getPrivate());
    }

    static byte[] encoded(X509Certificate c) {
        try {
            return c.getEncoded();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    static String base64(String s) { return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8)); }

}
