package dev.ace.binpacker.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A throwaway EC P-256 serving certificate for localhost and the in-cluster service names, as PEM files. */
public final class SelfSignedCertificate {
    /** Paths of the PEM certificate and private key. */
    public record Files2(Path cert, Path key) {}

    private SelfSignedCertificate() {}

    public static Files2 write(Path dir, String... dnsNames) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
            KeyPair kp = g.generateKeyPair();
            Instant now = Instant.now();
            X500Name subject = new X500Name("CN=" + dnsNames[0] + ",O=ACE binpacker self-signed");
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, new BigInteger(64, new SecureRandom()),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(365))), subject, kp.getPublic());
            GeneralName[] names = new GeneralName[dnsNames.length + 1];
            for (int i = 0; i < dnsNames.length; i++) names[i] = new GeneralName(GeneralName.dNSName, dnsNames[i]);
            names[dnsNames.length] = new GeneralName(GeneralName.iPAddress, "127.0.0.1");
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate());
            X509Certificate cert = new JcaX509CertificateConverter().getCertificate(b.build(signer));
            Files.createDirectories(dir);
            Path certFile = dir.resolve("tls.crt");
            Path keyFile = dir.resolve("tls.key");
            Files.writeString(certFile, pem("CERTIFICATE", cert.getEncoded()));
            // PKCS#8 ("PRIVATE KEY"): the JDK's encoding of every private key, and what Vert.x reads for EC keys.
            Files.writeString(keyFile, pem("PRIVATE KEY", kp.getPrivate().getEncoded()));
            try {
                Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: the temp dir is private to the user anyway
            }
            return new Files2(certFile, keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot generate a self-signed certificate: " + e.getMessage(), e);
        }
    }

    private static String pem(String type, byte[] der) {
        String b64 = java.util.Base64.getMimeEncoder(64, "\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + b64 + "\n-----END " + type + "-----\n";
    }
}
