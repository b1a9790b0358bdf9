package dev.ace.binpacker.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The published {@code nvidia-smi} outputs under tests/fixtures/topology (see SOURCES.md there). */
final class TopologyFixtures {
    static final Path DIR = Path.of("tests/fixtures/topology");

    private TopologyFixtures() {}

    static String text(String file) {
        try {
            return Files.readString(DIR.resolve(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static GpuBoard parse(String file) {
        return TopologyParser.parse(text(file), file);
    }
}
