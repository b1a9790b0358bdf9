package dev.ace.binpacker.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reading the files commands are given, with errors that name the file and say what is wrong with it. */
final class Inputs {
    private static final YAMLFactory YAML = new YAMLFactory();
    private static final ObjectMapper MAPPER = new ObjectMapper(YAML);

    private Inputs() {}

    /**
     * One YAML or JSON document of a file, with its position (1-based) for messages.
     *
     * @param problem why the document could not be read (its node is then null), else null
     */
    record Document(int index, JsonNode node, String problem) {
        Document(int index, JsonNode node) { this(index, node, null); }
    }

    /**
     * The bytes of {@code file}; {@code -} is standard input. Every command reads text (YAML, JSON,
     * {@code nvidia-smi} output): anything else is refused here, naming the file and the first bad byte,
     * before a parser reports it as an encoding exception.
     */
    static byte[] read(String file, InputStream stdin) throws CliException {
        byte[] bytes = readBytes(file, stdin);
        requireText(bytes, file.equals("-") ? "standard input" : file);
        return bytes;
    }

    /** {@link #read} as a string. */
    static String text(String file, InputStream stdin) throws CliException {
        return new String(read(file, stdin), StandardCharsets.UTF_8);
    }

    /** UTF-8 text without NUL bytes, or a {@link CliException} that says where it stops being text. */
    static void requireText(byte[] bytes, String what) throws CliException {
        if (bytes.length >= 2 && ((bytes[0] == (byte) 0xff && bytes[1] == (byte) 0xfe) || (bytes[0] == (byte) 0xfe && bytes[1] == (byte) 0xff))) {
            throw CliException.input(what + ": UTF-16 text; save it as UTF-8");
        }
        int nul = -1;
        for (int i = 0; i < bytes.length && nul < 0; i++) if (bytes[i] == 0) nul = i;
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, nul < 0 ? bytes.length : nul);
        if (utf8.decode(in, CharBuffer.allocate(bytes.length + 1), true).isError()) {
            throw CliException.input(what + ": not a text file (byte 0x%02x at offset %d is not UTF-8; a binary file?)"
                    .formatted(bytes[in.position()] & 0xff, in.position()));
        }
        if (nul >= 0) throw CliException.input(what + ": not a text file (a NUL byte at offset " + nul + "; a binary file?)");
    }

    private static byte[] readBytes(String file, InputStream stdin) throws CliException {
        try {
            if (file.equals("-")) return stdin.readAllBytes();
            Path p = Path.of(file);
            if (Files.isDirectory(p)) throw CliException.input(file + ": is a directory, not a file");
            return Files.readAllBytes(p);
        } catch (NoSuchFileException e) {
            throw CliException.input(file + ": no such file");
        } catch (AccessDeniedException e) {
            throw CliException.input(file + ": permission denied");
        } catch (IOException e) {
            throw CliException.input(file + ": cannot read: " + e.getMessage());
        }
    }

    /**
     * Every document of a YAML or JSON file ({@code ---} separated), {@code kind: List} items expanded
     * in place; empty documents are dropped. Syntax errors name the line and column.
     */
    static List<Document> documents(byte[] bytes, String file) throws CliException {
        try {
            return parse(bytes, file, 0, 0);
        } catch (CliException whole) {
            // One bad document must not hide the others: read them one by one, each error kept with its document and
            // its line counted from the top of the file, not of the document.
            List<Part> parts = split(bytes);
            if (parts.size() < 2) throw whole;
            List<Document> out = new ArrayList<>();
            int index = 0;
            for (Part part : parts) {
                index++;
                try {
                    for (Document d : parse(part.bytes(), file, index - 1, part.firstLine() - 1)) out.add(d);
                } catch (CliException e) {
                    out.add(new Document(index, null, e.getMessage().replace(file + ": ", "")));
                }
            }
            return out;
        }
    }

    /** One document of a stream and the file line it starts on (1-based). */
    record Part(byte[] bytes, int firstLine) {}

    /** The documents of a YAML stream, split at its {@code ---} lines, each with the file line it starts on. */
    static List<Part> split(byte[] bytes) {
        List<Part> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int line = 0;
        int start = 1;
        for (String text : new String(bytes, java.nio.charset.StandardCharsets.UTF_8).split("\n", -1)) {
            line++;
            if (text.equals("---") || text.startsWith("--- ") || text.equals("---\r")) {
                out.add(new Part(cur.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8), start));
                cur.setLength(0);
                start = line + 1;
                continue;
            }
            cur.append(text).append('\n');
        }
        out.add(new Part(cur.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8), start));
        // A stream that starts with "---" has an empty first part: it is not a document.
        if (!out.isEmpty() && new String(out.get(0).bytes(), java.nio.charset.StandardCharsets.UTF_8).isBlank()) out.remove(0);
        return out;
    }

    private static List<Document> parse(byte[] bytes, String file, int offset, int lineOffset) throws CliException {
        List<Document> out = new ArrayList<>();
        int index = offset;
        try (YAMLParser parser = YAML.createParser(bytes); MappingIterator<JsonNode> it = MAPPER.readValues(parser, JsonNode.class)) {
            while (it.hasNextValue()) {
                JsonNode doc = it.nextValue();
                index++;
                if (doc == null || doc.isNull() || doc.isMissingNode()) continue;
                if (doc.isObject() && doc.path("kind").asText().equals("List") && doc.path("items").isArray()) {
                    for (JsonNode item : doc.path("items")) out.add(new Document(index, item));
                } else {
                    out.add(new Document(index, doc));
                }
            }
        } catch (JsonProcessingException e) {
            throw CliException.input(file + ": not valid YAML or JSON" + where(e.getLocation(), lineOffset) + ": "
                    + problem(e.getOriginalMessage()) + template(bytes));
        } catch (IOException | RuntimeException e) {
            throw CliException.input(file + ": not valid YAML or JSON: " + problem(e.getMessage()) + template(bytes));
        }
        return out;
    }

    /** A hint when the text still holds Helm/Go template actions: YAML cannot read {@code {{ ... }}}. */
    private static String template(byte[] bytes) {
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8).contains("{{")
                ? " (it holds {{ ... }} template actions: render it first, e.g. helm template or kustomize build)" : "";
    }

    private static String where(JsonLocation l, int lineOffset) {
        return l == null || l.getLineNr() < 1 ? "" : " (line " + (l.getLineNr() + lineOffset) + ", column " + l.getColumnNr() + ")";
    }

    /** SnakeYAML's message without its source excerpts and caret lines: "while parsing a flow node; expected the node content...". */
    static String problem(String s) {
        if (s == null) return "unreadable";
        String joined = String.join("; ", s.lines().filter(l -> !l.isBlank() && !Character.isWhitespace(l.charAt(0))).toList());
        return events(joined.isEmpty() ? firstLine(s) : joined);
    }

    private static final java.util.regex.Pattern EVENT = java.util.regex.Pattern.compile("<?org\\.yaml\\.snakeyaml\\.events\\.(\\w+?)Event(\\([^>]*\\))?>?");

    /** SnakeYAML's event class names ({@code <org.yaml.snakeyaml.events.MappingStartEvent(anchor=null, ...)>}) in words: "a mapping". */
    static String events(String s) {
        java.util.regex.Matcher m = EVENT.matcher(s);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String words = switch (m.group(1)) {
                case "MappingStart" -> "a mapping ({ or key: value)";
                case "SequenceStart" -> "a list ([ or -)";
                case "MappingEnd" -> "the end of a mapping";
                case "SequenceEnd" -> "the end of a list";
                case "Scalar" -> "a value";
                case "Alias" -> "an alias (*)";
                default -> m.group(1);
            };
            m.appendReplacement(b, java.util.regex.Matcher.quoteReplacement(words));
        }
        m.appendTail(b);
        return b.toString();
    }

    static String firstLine(String s) {
        if (s == null) return "unreadable";
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }
}
