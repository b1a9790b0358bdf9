package dev.ace.binpacker.workload;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A container's image, command line and environment, flattened for flag lookups. Arguments that
 * hold a whole shell script ({@code sh -c "vllm serve m --tp 4"}) are split into words too, since
 * that is how most Helm charts start servers.
 *
 * <p>Bounded work (issue 17: 200,000 {@code '} after {@code --tp} once cost 9 s per review): every
 * step is linear in what it reads, and it reads at most {@link #MAX_CHARS} characters of command
 * and arguments, {@link #MAX_TOKENS} words and {@link #MAX_ENV} environment variables of a
 * container. A server's command line is a few hundred characters; what lies past the caps is not
 * evidence, and a pod ACE does not recognise as a server obeys the shape rules of batch work, so
 * hiding a flag past them buys nothing.
 */
public final class CommandLine {
    /** Characters of command and arguments read per container. */
    public static final int MAX_CHARS = 64 * 1024;
    /** Words kept per container. */
    public static final int MAX_TOKENS = 2048;
    /** Environment variables read per container. */
    public static final int MAX_ENV = 256;
    /** Characters of an environment value kept. */
    static final int MAX_ENV_VALUE = 256;

    private final String image;
    private final List<String> tokens;
    private final List<String> lower;
    private final Set<String> tokenSet;
    private final Map<String, String> env;
    private final boolean truncated;

    private CommandLine(String image, List<String> tokens, Map<String, String> env, boolean truncated) {
        this.image = image;
        this.tokens = tokens;
        List<String> l = new ArrayList<>(tokens.size());
        for (String t : tokens) l.add(t.toLowerCase(Locale.ROOT));
        this.lower = List.copyOf(l);
        this.tokenSet = Set.copyOf(tokens);
        this.env = env;
        this.truncated = truncated;
    }

    public static CommandLine of(Container c) {
        Words words = new Words();
        words.addAll(c.getCommand());
        words.addAll(c.getArgs());
        Map<String, String> env = new java.util.HashMap<>();
        boolean truncated = words.truncated;
        if (c.getEnv() != null) {
            int n = 0;
            for (EnvVar e : c.getEnv()) {
                if (++n > MAX_ENV) {
                    truncated = true;
                    break;
                }
                if (e.getName() == null || e.getValue() == null) continue;
                String v = e.getValue();
                env.put(e.getName(), v.length() > MAX_ENV_VALUE ? v.substring(0, MAX_ENV_VALUE) : v);
            }
        }
        String image = c.getImage() == null ? "" : c.getImage();
        if (image.length() > MAX_ENV_VALUE) image = image.substring(0, MAX_ENV_VALUE);
        return new CommandLine(image.toLowerCase(Locale.ROOT), List.copyOf(words.out), Map.copyOf(env), truncated);
    }

    /** True when a cap cut what was read: the rest of the command line is not evidence. */
    public boolean truncated() { return truncated; }

    /** Words of a command line within the caps: one pass over each character read. */
    private static final class Words {
        final List<String> out = new ArrayList<>();
        int chars;
        boolean truncated;

        void addAll(List<String> words) {
            if (words == null) return;
            for (String w : words) {
                if (w == null) continue;
                if (chars >= MAX_CHARS || out.size() >= MAX_TOKENS) {
                    truncated = true;
                    return;
                }
                int len = Math.min(w.length(), MAX_CHARS - chars);
                if (len < w.length()) truncated = true;
                chars += len;
                if (hasSpace(w, len)) split(w, len);
                else add(w.substring(0, len));
            }
        }

        private static boolean hasSpace(String w, int len) {
            for (int i = 0; i < len; i++) {
                char ch = w.charAt(i);
                if (ch == ' ' || ch == '\n' || ch == '\t') return true;
            }
            return false;
        }

        /** A shell script as words: split at whitespace and {@code ; & |}, quotes and backslashes stripped at both ends. */
        private void split(String w, int len) {
            int i = 0;
            while (i < len) {
                while (i < len && separator(w.charAt(i))) i++;
                int start = i;
                while (i < len && !separator(w.charAt(i))) i++;
                if (i > start) {
                    String t = strip(w, start, i);
                    if (!t.isEmpty()) add(t);
                    if (truncated) return;
                }
            }
        }

        private void add(String t) {
            if (out.size() >= MAX_TOKENS) {
                truncated = true;
                return;
            }
            out.add(t);
        }

        private static boolean separator(char ch) {
            return Character.isWhitespace(ch) || ch == ';' || ch == '&' || ch == '|';
        }
    }

    /** {@code s[from, to)} without leading and trailing quotes and backslashes: index moves only, linear. */
    static String strip(String s, int from, int to) {
        int a = from;
        int b = to;
        while (a < b && quote(s.charAt(a))) a++;
        while (b > a && quote(s.charAt(b - 1))) b--;
        return s.substring(a, b);
    }

    static String strip(String s) { return strip(s, 0, s.length()); }

    private static boolean quote(char ch) { return ch == '"' || ch == '\'' || ch == '\\'; }

    public String image() { return image; }

    public List<String> tokens() { return tokens; }

    public String env(String name) { return env.get(name); }

    /** The integer after any of {@code flags} ({@code --flag 4} or {@code --flag=4}); the last one wins, as with argparse. */
    public OptionalInt intFlag(Set<String> flags) throws NumberFormatException {
        OptionalInt found = OptionalInt.empty();
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i);
            String value = null;
            int eq = t.indexOf('=');
            if (eq > 0 && flags.contains(t.substring(0, eq))) {
                value = t.substring(eq + 1);
            } else if (flags.contains(t) && i + 1 < tokens.size()) {
                value = tokens.get(i + 1);
            }
            if (value != null) {
                try {
                    found = OptionalInt.of(Integer.parseInt(strip(value).trim()));
                } catch (NumberFormatException e) {
                    // "--tp $(TP)" and friends: not a literal, so not evidence
                }
            }
        }
        return found;
    }

    /** The string after a flag, or null. */
    public String flagValue(String flag) {
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i);
            if (t.startsWith(flag + "=")) return t.substring(flag.length() + 1);
            if (t.equals(flag) && i + 1 < tokens.size()) return tokens.get(i + 1);
        }
        return null;
    }

    public boolean hasToken(String token) { return tokenSet.contains(token); }

    /** True when the image or any word contains one of the fragments (lower case). */
    public boolean mentions(String... fragments) {
        for (String f : fragments) {
            if (image.contains(f)) return true;
            for (String t : lower) {
                if (t.contains(f)) return true;
            }
        }
        return false;
    }
}
