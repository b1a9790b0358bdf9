package dev.ace.binpacker.web;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * A serving certificate chain (leaf first) and its private key, read from the PEM files of a
 * {@code kubernetes.io/tls} Secret and proven to belong together (the key signs, the leaf's public key
 * verifies), so a half-written or mismatched pair never reaches a handshake.
 */
record ServingPair(List<X509Certificate> chain, PrivateKey key) {
    ServingPair {
        chain = List.copyOf(chain);
    }

    /** A pair that cannot be served, with the reason in words. */
    static final class Invalid extends Exception {
        Invalid(String reason) { super(reason); }
    }

    X509Certificate leaf() { return chain.get(0); }

    /** Subject and expiry, for the log. */
    String describe() { return leaf().getSubjectX500Principal().getName() + ", valid until " + leaf().getNotAfter().toInstant(); }

    /**
     * Parses {@code certPem} (one or more CERTIFICATE blocks) and {@code keyPem} (PKCS#8 {@code PRIVATE KEY},
     * SEC1 {@code EC PRIVATE KEY} or PKCS#1 {@code RSA PRIVATE KEY}: cert-manager writes the latter two by default).
     */
    static ServingPair parse(byte[] certPem, byte[] keyPem) throws Invalid {
        List<X509Certificate> chain = certificates(certPem);
        if (chain.isEmpty()) throw new Invalid("no certificate in the certificate file");
        PrivateKey key = privateKey(keyPem);
        if (!belongTogether(chain.get(0), key)) {
            throw new Invalid("the private key does not match the certificate " + chain.get(0).getSubjectX500Principal().getName()
                    + " (a half-written Secret, or a key from another pair)");
        }
        return new ServingPair(chain, key);
    }

    /** Every CERTIFICATE block of {@code pem}; an error names what is wrong with the file. */
    static List<X509Certificate> certificates(byte[] pem) throws Invalid {
        try {
            List<X509Certificate> out = new ArrayList<>();
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
                if (c instanceof X509Certificate x) out.add(x);
            }
            return out;
        } catch (CertificateException e) {
            throw new Invalid("unreadable certificate file: " + e.getMessage());
        }
    }

    private static PrivateKey privateKey(byte[] pem) throws Invalid {
        try (PEMParser parser = new PEMParser(new StringReader(new String(pem, StandardCharsets.US_ASCII)))) {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
                if (o instanceof PrivateKeyInfo info) return converter.getPrivateKey(info);
                if (o instanceof PEMKeyPair pair) return converter.getPrivateKey(pair.getPrivateKeyInfo()); // SEC1 and PKCS#1; the public part may be absent
            }
            throw new Invalid("no unencrypted private key (PRIVATE KEY, EC PRIVATE KEY or RSA PRIVATE KEY) in the key file");
        } catch (IOException | RuntimeException e) {
            throw new Invalid("unreadable key file: " + e.getMessage());
        }
    }

    /** Signs a random challenge with {@code key} and verifies it with the certificate's public key. */
    private static boolean belongTogether(X509Certificate cert, PrivateKey key) throws Invalid {
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
            default -> throw new Invalid("unsupported key algorithm " + key.getAlgorithm() + " (use EC, RSA or EdDSA)");
        };
        try {
            byte[] challenge = new byte[32];
            new SecureRandom().nextBytes(challenge);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(cert.getPublicKey());
            verifier.update(challenge);
            return verifier.verify(signature);
        } catch (Exception e) {
            return false; // a key of another algorithm or curve than the certificate's
        }
    }
}
