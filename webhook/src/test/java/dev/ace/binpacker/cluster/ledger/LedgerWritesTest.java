package dev.ace.binpacker.cluster.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.FakeCluster;
import dev.ace.binpacker.cluster.MockCluster;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * How the shared ledger writes (issue 15): from the newest version it knows, without a read first; one
 * compare-and-swap for the changes one replica makes to one node at once; and never an answer judged on a
 * copy that may be old (a refusal, or "nothing to remove", is read again first).
 */
class LedgerWritesTest {
    private static final String NODE = "hgx-h100-0";

    /** The fake API server's GpuLedger store, counting reads and writes; the first write can be held until released. */
    private static final class CountingStore implements LedgerStore {
        final LedgerStore inner;
        final AtomicInteger gets = new AtomicInteger();
        final AtomicInteger writes = new AtomicInteger();
        volatile CountDownLatch holdFirstWrite;
        final CountDownLatch firstWriteStarted = new CountDownLatch(1);

        CountingStore(LedgerStore inner) { this.inner = inner; }

        @Override
        public Optional<LedgerDoc> get(String node) {
            gets.incrementAndGet();
            return inner.get(node);
        }

        @Override
        public LedgerDoc create(LedgerDoc doc) {
            hold();
            return inner.create(doc);
        }

        @Override
        public LedgerDoc update(LedgerDoc doc) {
            hold();
            return inner.update(doc);
        }

        @Override
        public void delete(LedgerDoc doc) { inner.delete(doc); }

        private void hold() {
            if (writes.incrementAndGet() == 1 && holdFirstWrite != null) {
                firstWriteStarted.countDown();
                try {
                    holdFirstWrite.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static Reservation entry(String id, long mask) {
        return new Reservation(id, NODE, mask, 1000, 0, Long.bitCount(mask), null, 0, true, new Reservation.Owner("r-" + id, "ml", id, null));
    }

    private static SharedLedger ledger(LedgerStore store, AtomicInteger conflicts) {
        return new SharedLedger(store, n -> new LedgerDoc.Capacity(8, 8, 0), conflicts::incrementAndGet);
    }

    @Test
    void concurrent_commits_on_one_node_are_written_together_in_one_compare_and_swap() throws Exception {
        FakeCluster c = new FakeCluster(1);
        CountingStore store = new CountingStore(c.ledger);
        store.holdFirstWrite = new CountDownLatch(1);
        AtomicInteger conflicts = new AtomicInteger();
        SharedLedger shared = ledger(store, conflicts);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            Future<List<Reservation>> first = pool.submit(() -> shared.commit(entry("a", GpuBoard.mask(0, 1))));
            assertTrue(store.firstWriteStarted.await(30, TimeUnit.SECONDS), "the first commit is writing");
            List<Thread> waiting = new ArrayList<>();
            List<Future<List<Reservation>>> rest = new ArrayList<>();
            for (String id : List.of("b", "c", "d")) {
                int i = "bcd".indexOf(id);
                rest.add(pool.submit(() -> {
                    synchronized (waiting) { waiting.add(Thread.currentThread()); }
                    return shared.commit(entry(id, GpuBoard.mask(2 + 2 * i, 3 + 2 * i)));
                }));
            }
            MockCluster.eventually(() -> {
                synchronized (waiting) {
                    return waiting.size() == 3 && waiting.stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING
                            || t.getState() == Thread.State.WAITING);
                }
            }, "three more commits wait for the node's write turn");
            store.holdFirstWrite.countDown();
            assertEquals(List.of(), first.get(30, TimeUnit.SECONDS));
            for (Future<List<Reservation>> f : rest) assertEquals(List.of(), f.get(30, TimeUnit.SECONDS), "committed");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(4, c.docs.get(NODE).entries().size());
        assertEquals(2, store.writes.get(), "one create for the first, one update for the three that waited");
        assertEquals(0, store.gets.get(), "no read: the first write created the object, the second started from it");
        assertEquals(0, conflicts.get());
    }

    @Test
    void a_commit_starts_from_the_informers_copy_without_reading_the_object() {
        FakeCluster c = new FakeCluster(1);
        SharedLedger other = ledger(c.ledger, new AtomicInteger());
        other.commit(entry("theirs", GpuBoard.mask(0, 1)));
        CountingStore store = new CountingStore(c.ledger);
        SharedLedger shared = ledger(store, new AtomicInteger());
        shared.seen(c.docs.get(NODE)); // the watch event of the other replica's write
        assertEquals(List.of(), shared.commit(entry("mine", GpuBoard.mask(2, 3))));
        assertEquals(0, store.gets.get());
        assertEquals(1, store.writes.get());
        assertEquals(2, c.docs.get(NODE).entries().size());
    }

    @Test
    void nothing_is_refused_or_left_in_place_on_a_copy_that_may_be_old() {
        FakeCluster c = new FakeCluster(1);
        SharedLedger other = ledger(c.ledger, new AtomicInteger());
        other.commit(entry("first", GpuBoard.mask(6, 7)));
        LedgerDoc old = c.docs.get(NODE);
        Reservation theirs = entry("theirs", GpuBoard.mask(0, 1));
        other.commit(theirs); // this replica's informer has not shown it yet
        AtomicInteger conflicts = new AtomicInteger();
        CountingStore store = new CountingStore(c.ledger);
        SharedLedger shared = ledger(store, conflicts);
        shared.seen(old);
        assertEquals(List.of(theirs), shared.commit(entry("mine", GpuBoard.mask(1, 2))), "the overlap is found on the object read after the 409");
        assertEquals(2, conflicts.get(), "the lost compare-and-swap and the refusal are counted");
        assertEquals(2, c.docs.get(NODE).entries().size(), "nothing of mine was written");

        shared.seen(old); // the copy again lacks "theirs"
        shared.remove(theirs);
        assertTrue(c.docs.get(NODE).entry("theirs").isEmpty(), "'not on my copy' was read again, found and removed");
    }

    @Test
    void an_older_watch_event_never_replaces_the_version_this_replica_wrote() {
        FakeCluster c = new FakeCluster(1);
        CountingStore store = new CountingStore(c.ledger);
        SharedLedger shared = ledger(store, new AtomicInteger());
        shared.commit(entry("a", GpuBoard.mask(0, 1)));
        LedgerDoc afterA = c.docs.get(NODE);
        shared.commit(entry("b", GpuBoard.mask(2, 3)));
        shared.seen(afterA); // the watch event of the first write arrives after the second
        int gets = store.gets.get();
        assertEquals(List.of(), shared.commit(entry("c", GpuBoard.mask(4, 5))));
        assertEquals(gets, store.gets.get(), "written from the newer version: no 409, no read");
        assertEquals(3, c.docs.get(NODE).entries().size());
    }
}
