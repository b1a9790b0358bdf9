package dev.ace.binpacker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyCommandTest {
    private static final String FIXTURES = "tests/fixtures/topology/";

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(TopologyCommand command, String... args) {
        return command.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private int run(String... args) {
        return run(new TopologyCommand(new ByteArrayInputStream(new byte[0])), args);
    }

    private String out() { return out.toString(StandardCharsets.UTF_8); }

    private String err() { return err.toString(StandardCharsets.UTF_8); }

    @Test
    void textSummaryOfTheDgx1NamesTheCubeMeshItsDomainAndItsQuads() {
        assertEquals(0, run(FIXTURES + "dgx1-v100-8gpu.txt"));
        String text = out();
        assertTrue(text.contains("GPUs:            8"), text);
        assertTrue(text.contains("board class:     hybrid cube-mesh"), text);
        assertTrue(text.contains("NVLink domains:  [0,1,2,3,4,5,6,7]"), text);
        assertTrue(text.contains("largest clique:  4"), text);
        assertTrue(text.contains("4: [0,1,2,3] [4,5,6,7]"), text);
        assertTrue(text.contains("GPU4  NV2   SYS   SYS   SYS   X     NV1   NV1   NV2"), text);
        assertEquals("", err());
    }

    @Test
    void jsonOfTheHgxH200HasOneDomainOfEightAndNumaHalves() throws IOException {
        assertEquals(0, run(FIXTURES + "hgx-h200-8gpu.txt", "--json"));
        JsonNode json = new ObjectMapper().readTree(out());
        assertEquals(8, json.get("gpuCount").asInt());
        assertEquals("NVSwitch all-to-all", json.get("boardClass").asText());
        assertEquals("[[0,1,2,3,4,5,6,7]]", json.get("nvlinkDomains").toString());
        assertEquals(8, json.get("largestClique").asInt());
        assertEquals(28, json.get("cliquesBySize").get("2").asInt());
        assertEquals(70, json.get("cliquesBySize").get("4").asInt());
        assertEquals(1, json.get("cliquesBySize").get("8").asInt());
        assertEquals("[0,0,0,0,1,1,1,1]", json.get("numa").toString());
        assertEquals("[[0,1,2,3],[4,5,6,7]]", json.get("alignedBlocks").get("4").toString());
        assertEquals("NV18", json.get("matrix").get(0).get(7).asText());
        assertEquals("X", json.get("matrix").get(3).get(3).asText());
    }

    @Test
    void jsonFromStdinOfBridgedA100PcieHasTwoPairsAndUnknownNumaAsNull() throws IOException {
        byte[] pasted = Files.readAllBytes(Path.of(FIXTURES + "2gpu-nvlink-nv2-stas00.txt"));
        assertEquals(0, run(new TopologyCommand(new ByteArrayInputStream(pasted)), "-", "--json"));
        JsonNode json = new ObjectMapper().readTree(out());
        assertEquals("stdin", json.get("name").asText());
        assertEquals("bridged pairs", json.get("boardClass").asText());
        assertEquals("[[0,1]]", json.get("nvlinkDomains").toString());
        assertEquals("[null,null]", json.get("numa").toString());
    }

    @Test
    void garbageFileExitsOneWithTheLineNumberOnStderr(@TempDir Path dir) throws IOException {
        Path garbage = dir.resolve("notes.txt");
        Files.writeString(garbage, "my GPUs:\n  GPU0 is fast\n");
        assertEquals(1, run(garbage.toString()));
        assertTrue(err().startsWith("topology: notes.txt: line 1: no `nvidia-smi topo -m` header"), err());
        assertEquals("", out());
    }

    @Test
    void p2pOutputIsRefusedWithExitOneAndSaysWhichCommandToRun() {
        assertEquals(1, run(FIXTURES + "h100-sxm-8gpu-p2p-r.txt", "--json"));
        assertTrue(err().contains("line 2:") && err().contains("ACE needs `nvidia-smi topo -m`"), err());
    }

    @Test
    void missingFileArgumentOrUnknownOptionIsAUsageError() {
        assertEquals(2, run());
        assertEquals(2, run("--yaml", FIXTURES + "dgx1-v100-8gpu.txt"));
        assertEquals(2, run("a.txt", "b.txt"));
        assertTrue(err().contains("usage: topology FILE [--json]"), err());
    }

    @Test
    void unreadableFileExitsOne() {
        assertEquals(1, run("tests/fixtures/topology/no-such-file.txt"));
        assertEquals("topology: tests/fixtures/topology/no-such-file.txt: no such file\n", err());
    }

    @Test
    void aBinaryFileIsNamedAndCalledNotTextInsteadOfAnEncodingException(@TempDir Path dir) throws IOException {
        Path gz = dir.resolve("topo.txt.gz");
        Files.write(gz, new byte[] {0x1f, (byte) 0x8b, 0x08, 0x00, 0x12, 0x34});
        assertEquals(1, run(gz.toString()));
        assertEquals("topology: " + gz + ": not a text file (byte 0x8b at offset 1 is not UTF-8; a binary file?)\n", err());
        assertEquals("", out());
    }
}
