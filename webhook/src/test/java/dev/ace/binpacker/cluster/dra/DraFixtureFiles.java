package dev.ace.binpacker.cluster.dra;

import dev.ace.binpacker.truth.dra.DraSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The ResourceSlice fixtures of tests/fixtures/dra (their sources in SOURCES.md there). */
final class DraFixtureFiles {
    static final Path DIR = Path.of("tests/fixtures/dra");

    private DraFixtureFiles() {}

    static List<ResourceSlice> slices(String file) throws IOException {
        List<ResourceSlice> out = new ArrayList<>();
        for (String doc : Files.readString(DIR.resolve(file)).split("(?m)^---$")) {
            if (!doc.isBlank()) out.add(Serialization.unmarshal(doc, ResourceSlice.class));
        }
        return out;
    }

    static List<DraSlice> pure(String file) throws IOException {
        return slices(file).stream().map(ResourceSlices::of).toList();
    }

    static List<String> uuids(String file) throws IOException {
        return Files.readAllLines(DIR.resolve(file)).stream().filter(l -> !l.isBlank()).toList();
    }
}
