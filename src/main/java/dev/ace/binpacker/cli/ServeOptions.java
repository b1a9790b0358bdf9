package dev.ace.binpacker.cli;

/** Turns {@code serve} flags into configuration system properties before Quarkus starts. */
final class ServeOptions {
    private ServeOptions() {}

    static void apply(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--nodes") && i + 1 < args.length) {
                System.setProperty("ace.standalone.nodes", args[++i]);
            } else if (args[i].startsWith("--nodes=")) {
                System.setProperty("ace.standalone.nodes", args[i].substring("--nodes=".length()));
            }
        }
    }
}
