package dev.ace.binpacker.topology;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link GpuBoard} per distinct board: boards with the same link matrix, NUMA nodes and CPU
 * affinity are the same object, whatever node or file they were read from. The packer keys its
 * score tables and node groups by board identity, so 12,500 annotated HGX nodes must share one
 * board (issue 10: one board per node made every decision walk 12,500 index groups, 1 ms instead
 * of 0.1 µs). Boards no node uses any more are dropped (weak references), so a cluster whose
 * nodes come and go does not accumulate boards.
 *
 * <p>The first board seen keeps its name; the name is a label for people, never part of identity.
 * Thread-safe.
 */
public final class BoardInterner {
    private static final BoardInterner SHARED = new BoardInterner();

    private final ConcurrentHashMap<Key, Ref> boards = new ConcurrentHashMap<>();
    private final ReferenceQueue<GpuBoard> dropped = new ReferenceQueue<>();

    /** The process-wide interner (node mapping, board catalog lookups). */
    public static BoardInterner shared() { return SHARED; }

    /** The canonical board equal to {@code board}: an earlier equal one, or {@code board} itself. */
    public GpuBoard intern(GpuBoard board) {
        purge();
        Key key = Key.of(board);
        while (true) {
            Ref fresh = new Ref(board, key, dropped);
            Ref held = boards.putIfAbsent(key, fresh);
            if (held == null) return board;
            GpuBoard b = held.get();
            if (b != null) return b;
            boards.remove(key, held); // collected between lookups: take its place
        }
    }

    /** Distinct boards alive now. */
    public int size() {
        purge();
        return boards.size();
    }

    private void purge() {
        for (Object r; (r = dropped.poll()) != null; ) {
            Ref ref = (Ref) r;
            boards.remove(ref.key, ref);
        }
    }

    private static final class Ref extends WeakReference<GpuBoard> {
        final Key key;

        Ref(GpuBoard board, Key key, ReferenceQueue<GpuBoard> q) {
            super(board, q);
            this.key = key;
        }
    }

    /** The canonical form: every link token row by row, then NUMA nodes, then CPU affinity. */
    private record Key(String links, int[] numa, String[] cpu, int hash) {
        static Key of(GpuBoard b) {
            int n = b.gpuCount();
            StringBuilder s = new StringBuilder(n * n * 4);
            int[] numa = new int[n];
            String[] cpu = new String[n];
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) s.append(b.link(i, j).token()).append(' ');
                s.append('\n');
                numa[i] = b.numaNode(i);
                cpu[i] = b.cpuAffinity(i);
            }
            String links = s.toString();
            return new Key(links, numa, cpu, 31 * (31 * links.hashCode() + Arrays.hashCode(numa)) + Arrays.hashCode(cpu));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && hash == k.hash && links.equals(k.links)
                    && Arrays.equals(numa, k.numa) && Arrays.equals(cpu, k.cpu);
        }

        @Override
        public int hashCode() { return hash; }
    }
}
