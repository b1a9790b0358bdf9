package dev.ace.binpacker.cluster.ledger;

import java.util.Optional;

/**
 * The ledger objects on the API server, one per GPU node, written only with a precondition on the
 * version read ({@link LedgerDoc#resourceVersion}). The fabric8 adapter is {@link CrdLedgerStore};
 * tests drive the same protocol over an in-memory double with injected faults.
 */
public interface LedgerStore {
    Optional<LedgerDoc> get(String node);

    /** @throws StaleLedgerException when the object exists already (HTTP 409) */
    LedgerDoc create(LedgerDoc doc);

    /** @throws StaleLedgerException when the object changed since {@code doc.resourceVersion()} was read (HTTP 409) */
    LedgerDoc update(LedgerDoc doc);

    /** Deletes the object if it is still at {@code doc.resourceVersion()}; @throws StaleLedgerException otherwise. */
    void delete(LedgerDoc doc);

    /** The compare-and-swap lost: someone wrote the object since it was read. Re-read, re-check, retry. */
    final class StaleLedgerException extends RuntimeException {
        public StaleLedgerException(String message) { super(message); }
    }
}
