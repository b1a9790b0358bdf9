package dev.ace.binpacker.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the help-drift tests of each jar share (tests run from the repository's root): the options a command's source
 * parses, found as the string literals of its {@code case "--x"} labels and its {@code .equals("--x")} /
 * {@code .startsWith("--x=")} tests; which of them a text does not name; the part of docs/cli.md about one command;
 * and the repository paths a help text names that do not exist.
 */
public final class HelpDrift {
    private static final Pattern CASE = Pattern.compile("case\\s+((?:\"[^\"]*\"\\s*,\\s*)*\"[^\"]*\")\\s*->");
    private static final Pattern LITERAL = Pattern.compile("\"(-{1,2}[a-z][a-z0-9-]*)=?\"");
    private static final Pattern TEST = Pattern.compile("\\.(?:equals|startsWith)\\(\"(-{1,2}[a-z][a-z0-9-]*)=?\"\\)");
    /** Handled by {@link Tool} for every command, not by the command's own parser. */
    private static final Set<String> HELP_WORDS = Set.of("-h", "--help");

    private HelpDrift() {}

    /** Every option the source file parses, but the help words. */
    public static Set<String> parsedOptions(Path source) {
        return parsedOptionsOf(read(source));
    }

    static Set<String> parsedOptionsOf(String java) {
        Set<String> found = new TreeSet<>();
        Matcher c = CASE.matcher(java);
        while (c.find()) {
            Matcher l = LITERAL.matcher(c.group(1));
            while (l.find()) found.add(l.group(1));
        }
        Matcher t = TEST.matcher(java);
        while (t.find()) found.add(t.group(1));
        found.removeAll(HELP_WORDS);
        return found;
    }

    /** The options the text does not name as a word of its own ({@code --seed} is not named by {@code --seeds}). */
    public static Set<String> missing(Set<String> options, String text) {
        Set<String> out = new TreeSet<>();
        for (String o : options) {
            if (!Pattern.compile("(?<![\\w-])" + Pattern.quote(o) + "(?![\\w-])").matcher(text).find()) out.add(o);
        }
        return out;
    }

    /**
     * What docs/cli.md says of one command: the rows of its tables that start with the command (`| `name ...`) and
     * every section whose heading names it, up to the next heading of the same or a higher level.
     */
    public static String cliDoc(String command) {
        String doc = read(Path.of("docs/cli.md"));
        StringBuilder out = new StringBuilder();
        Pattern word = Pattern.compile("(?<![\\w-])" + Pattern.quote(command) + "(?![\\w-])");
        String[] lines = doc.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.startsWith("| `" + command + "`") || line.startsWith("| `" + command + " ")) out.append(line).append('\n');
            int level = headingLevel(line);
            if (level > 0 && word.matcher(line).find()) {
                for (int j = i + 1; j < lines.length; j++) {
                    int l = headingLevel(lines[j]);
                    if (l > 0 && l <= level) break;
                    out.append(lines[j]).append('\n');
                }
            }
        }
        return out.toString();
    }

    private static int headingLevel(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == '#') n++;
        return n > 0 && n < line.length() && line.charAt(n) == ' ' ? n : 0;
    }

    /**
     * The paths a text names under a folder at the repository's root ({@code docs/benchmarks.md},
     * {@code agent/Dockerfile}) that do not exist; build output ({@code target/}) is left out, it exists only after
     * a package.
     */
    public static Set<String> missingRepositoryPaths(String text) {
        Set<String> roots = new TreeSet<>();
        try (Stream<Path> s = Files.list(Path.of("."))) {
            s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).forEach(roots::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> out = new TreeSet<>();
        Matcher m = Pattern.compile("(?<![\\w/.~$-])((?:" + String.join("|", roots.stream().map(Pattern::quote).toList())
                + ")/[\\w./-]*[\\w])").matcher(text);
        while (m.find()) {
            String path = m.group(1);
            if (!path.contains("/target/") && !Files.exists(Path.of(path))) out.add(path);
        }
        return out;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
