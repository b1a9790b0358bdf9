package dev.ace.binpacker.realapi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One process the suite started (etcd, kube-apiserver, a webhook replica...), its output in a log file
 * under {@code target/realapi/}. {@link #stop()} ends it (SIGTERM, then SIGKILL); {@link #kill()} is
 * SIGKILL at once, as a crashed node would. Every daemon is also stopped by the suite's shutdown hook.
 */
public final class Daemon {
    private final String name;
    private final List<String> command;
    private final Map<String, String> env;
    private final Path log;
    private Process process;

    Daemon(String name, List<String> command, Map<String, String> env, Path logDir) {
        this.name = name;
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.log = logDir.resolve(name + ".log");
    }

    public String name() { return name; }

    public Path log() { return log; }

    public synchronized Daemon start() throws IOException {
        if (process != null && process.isAlive()) throw new IllegalStateException(name + " is already running");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().remove("KUBECONFIG");
        pb.environment().remove("KUBERNETES_SERVICE_HOST");
        pb.environment().putAll(env);
        Files.writeString(log, "--- " + String.join(" ", command) + "\n", java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        process = pb.start();
        Suite.track(this);
        return this;
    }

    public synchronized boolean alive() { return process != null && process.isAlive(); }

    public synchronized long pid() { return process.pid(); }

    /** SIGTERM, then SIGKILL after 20 s. */
    public synchronized void stop() {
        if (process == null) return;
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** SIGKILL: no shutdown hook, no Lease release. */
    public synchronized void kill() {
        if (process == null) return;
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last {@code lines} lines of the log, for failure messages. */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    public String logText() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public String toString() { return name + (process == null ? "" : " (pid " + process.pid() + ")"); }
}
