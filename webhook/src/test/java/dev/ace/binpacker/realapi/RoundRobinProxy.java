package dev.ace.binpacker.realapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the Service {@code ace-binpacker} does for the API server: each TCP connection goes to the next
 * replica in turn (TLS passes through untouched), and a replica that refuses connections (killed) is
 * skipped, as kube-proxy skips an endpoint that is not ready.
 */
public final class RoundRobinProxy implements AutoCloseable {
    private final ServerSocket server;
    private final List<Integer> backends = new CopyOnWriteArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final java.util.Set<Socket> open = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "realapi-proxy");
        t.setDaemon(true);
        return t;
    });

    RoundRobinProxy() throws IOException {
        server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        pool.execute(this::accept);
    }

    public int port() { return server.getLocalPort(); }

    void addBackend(int port) { backends.add(port); }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket in = server.accept();
                open.add(in);
                pool.execute(() -> connect(in));
            } catch (IOException e) {
                if (server.isClosed()) return;
            }
        }
    }

    private void connect(Socket in) {
        int n = backends.size();
        int first = Math.floorMod(next.getAndIncrement(), Math.max(1, n));
        for (int i = 0; i < n; i++) {
            int port = backends.get((first + i) % n);
            Socket out = new Socket();
            try {
                out.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
            } catch (IOException e) {
                closeQuietly(out);
                continue;
            }
            pool.execute(() -> pipe(in, out));
            pipe(out, in);
            forget(in);
            return;
        }
        forget(in);
        closeQuietly(in);
    }

    private static void pipe(Socket from, Socket to) {
        byte[] buf = new byte[16384];
        try (InputStream i = from.getInputStream(); OutputStream o = to.getOutputStream()) {
            for (int r; (r = i.read(buf)) >= 0; ) {
                o.write(buf, 0, r);
                o.flush();
            }
        } catch (IOException e) {
            // the other side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void forget(Socket s) {
        open.remove(s);
    }

    /**
     * Closes every connection through the proxy, as a replica rollout does: the API server dials again and its
     * new connections are spread over the replicas that are up now (after a restart, the old ones all lead to
     * the replica that stayed up).
     */
    public void dropConnections() {
        for (Socket s : open) {
            open.remove(s);
            closeQuietly(s);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        pool.shutdownNow();
    }
}
