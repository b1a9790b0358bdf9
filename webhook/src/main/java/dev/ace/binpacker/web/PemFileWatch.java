package dev.ace.binpacker.web;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Re-reads a set of mounted PEM files and installs their content when it changed. A Secret volume swaps
 * its files together (the kubelet moves one symlink), but other writers may not: a pair that does not
 * parse or does not belong together is refused, the current one stays, and the refusal is logged once
 * per content, so the next poll tries again only when a file changed again (the second half arrived).
 */
final class PemFileWatch {
    private static final Logger LOG = Logger.getLogger(PemFileWatch.class);

    /** What one re-read did. */
    enum Outcome { UNCHANGED, INSTALLED, REFUSED, UNREADABLE }

    /** Parses and installs the files' content (in the order given), or says why not; returns what to log. */
    @FunctionalInterface
    interface Installer {
        String install(List<byte[]> contents) throws ServingPair.Invalid;
    }

    private final String what;
    private final List<Path> files;
    private final Installer installer;
    private List<byte[]> installed;
    private List<byte[]> refused;
    private String unreadable;

    /** {@code initial}: the content already installed at start. */
    PemFileWatch(String what, List<Path> files, List<byte[]> initial, Installer installer) {
        this.what = what;
        this.files = List.copyOf(files);
        this.installer = installer;
        this.installed = List.copyOf(initial);
    }

    /** Reads every file; an error names the file. */
    static List<byte[]> read(List<Path> files) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (Path f : files) {
            try {
                out.add(Files.readAllBytes(f));
            } catch (IOException e) {
                throw new IOException(f + ": " + e, e);
            }
        }
        return out;
    }

    synchronized Outcome check() {
        List<byte[]> now;
        try {
            now = read(files);
        } catch (IOException e) {
            if (!e.getMessage().equals(unreadable)) LOG.warnf("%s not re-read, the current one stays: %s", what, e.getMessage());
            unreadable = e.getMessage();
            return Outcome.UNREADABLE;
        }
        unreadable = null;
        if (same(now, installed)) {
            refused = null;
            return Outcome.UNCHANGED;
        }
        if (same(now, refused)) return Outcome.REFUSED;
        try {
            String line = installer.install(now);
            installed = now;
            refused = null;
            LOG.infof("%s rotated: %s", what, line);
            return Outcome.INSTALLED;
        } catch (ServingPair.Invalid e) {
            refused = now;
            LOG.warnf("%s in %s refused, the current one stays: %s", what, files, e.getMessage());
            return Outcome.REFUSED;
        }
    }

    private static boolean same(List<byte[]> a, List<byte[]> b) {
        if (b == null || a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) return false;
        }
        return true;
    }
}
