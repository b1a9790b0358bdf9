package dev.ace.binpacker.admission;

/** An AdmissionReview that cannot be answered as such; the web layer maps it to an HTTP status. */
public final class BadReviewException extends Exception {
    private final int status;

    public BadReviewException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() { return status; }
}
