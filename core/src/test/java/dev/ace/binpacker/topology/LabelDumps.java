package dev.ace.binpacker.topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the node-label dumps of tests/fixtures/nodes as published: JSON objects (some with
 * elisions, so not valid JSON), {@code key=value} lines, or a {@code kubectl} table with
 * NODE / LABEL / value columns (first node only).
 */
final class LabelDumps {
    static final Path DIR = Path.of("tests/fixtures/nodes");

    private static final Pattern JSON_PAIR = Pattern.compile("^\\s*\"([^\"]+)\"\\s*:\\s*\"([^\"]*)\"\\s*,?\\s*$");
    private static final Pattern KEY_VALUE = Pattern.compile("^\\s*([\\w.\\-]+/[\\w.\\-]+)=(\\S*)\\s*$");
    private static final Pattern TABLE_ROW = Pattern.compile("^\\s*(\\S+)\\s+([\\w.\\-]+/[\\w.\\-]+)\\s+(\\S+)\\s*$");

    private LabelDumps() {}

    static Map<String, String> read(String file) throws IOException {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String line : Files.readAllLines(DIR.resolve(file))) {
            Matcher m;
            if ((m = JSON_PAIR.matcher(line)).matches() || (m = KEY_VALUE.matcher(line)).matches()) {
                labels.put(m.group(1), m.group(2));
            } else if ((m = TABLE_ROW.matcher(line)).matches()) {
                labels.putIfAbsent(m.group(2), m.group(3));
            }
        }
        return labels;
    }
}
