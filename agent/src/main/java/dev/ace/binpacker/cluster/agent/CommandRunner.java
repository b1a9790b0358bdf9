package dev.ace.binpacker.cluster.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs nvidia-smi (or what stands in for it) with a deadline. A GPU in a bad state can make
 * nvidia-smi hang in the driver for minutes; the agent must notice, kill it with everything it
 * started, and go on. Output is drained on side threads so a full pipe never blocks the child and a
 * hung child never blocks the agent.
 */
final class CommandRunner {
    private CommandRunner() {}

    static String run(List<String> command, Duration timeout) throws IOException, InterruptedException {
        String shown = "'" + String.join(" ", command) + "'";
        Process p;
        try {
            p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            throw new IOException(shown + " could not be started: " + e.getMessage(), e);
        }
        CompletableFuture<byte[]> out = drain(p.getInputStream());
        CompletableFuture<byte[]> err = drain(p.getErrorStream());
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            kill(p);
            throw new IOException(shown + " did not finish in " + timeout.toSeconds() + " s and was killed");
        }
        if (p.exitValue() != 0) {
            String e = text(err).trim();
            throw new IOException(shown + " exited with " + p.exitValue() + (e.isEmpty() ? "" : ": " + e));
        }
        return text(out);
    }

    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    private static CompletableFuture<byte[]> drain(InputStream in) {
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try (in) {
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                in.transferTo(b);
                f.complete(b.toByteArray());
            } catch (IOException e) {
                f.completeExceptionally(e);
            }
        }, "ace-agent-output");
        t.setDaemon(true);
        t.start();
        return f;
    }

    /** What a stream held; a child that left a grandchild holding the pipe open yields what was read by then. */
    private static String text(CompletableFuture<byte[]> f) throws IOException, InterruptedException {
        try {
            return new String(f.get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        } catch (TimeoutException e) {
            throw new IOException("the command exited but something it started still holds its output open");
        } catch (ExecutionException e) {
            throw new IOException("could not read the command's output: " + e.getCause().getMessage(), e.getCause());
        }
    }
}
