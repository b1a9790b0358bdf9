package dev.ace.binpacker.cluster.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** A stand-in for nvidia-smi in a folder: prints the given query rows, {@code -L} text and {@code topo -m} file, or hangs first. */
public final class FakeNvidiaSmi {
    private FakeNvidiaSmi() {}

    /** @param topo a {@code nvidia-smi topo -m} fixture, or null when the test never asks for it */
    public static Path write(Path dir, String queryRows, String listText, Path topo, boolean hang) throws IOException {
        Path query = Files.writeString(dir.resolve("query.csv"), queryRows);
        Path list = Files.writeString(dir.resolve("list.txt"), listText);
        Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, "#!/bin/sh\n"
                + (hang ? "sleep 30\n" : "")
                + "case \"$1\" in\n"
                + "  --query-gpu=index,uuid,pci.bus_id) cat '" + query + "' ;;\n"
                + "  -L) cat '" + list + "' ;;\n"
                + (topo == null ? "" : "  topo) cat '" + topo.toAbsolutePath() + "' ;;\n")
                + "  *) echo \"fake nvidia-smi: $*\" >&2; exit 2 ;;\n"
                + "esac\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }
}
