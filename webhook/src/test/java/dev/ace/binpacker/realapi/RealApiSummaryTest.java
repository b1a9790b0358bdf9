package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The end-of-run line says whether the real-API suite ran and why not. */
class RealApiSummaryTest {
    @Test
    void a_run_without_real_api_classes_prints_nothing() {
        assertNull(RealApiSummary.line(0, 0, 0, null));
    }

    @Test
    void every_class_skipped_says_the_suite_did_not_run_and_why() {
        assertEquals("[WARNING] real-API suite did NOT run: 15 classes skipped; real-API suite skipped: no binaries"
                + " (CI=true or -Dace.realapi.required=true makes this a failure)", RealApiSummary.line(0, 0, 15, "real-API suite skipped: no binaries"));
    }

    @Test
    void a_run_says_how_many_classes_passed_and_failed() {
        assertEquals("[INFO] real-API suite ran: 15 classes passed, 0 failed", RealApiSummary.line(15, 0, 0, null));
        assertEquals("[ERROR] real-API suite ran: 14 classes passed, 1 failed; first failure: boom", RealApiSummary.line(14, 1, 0, "boom"));
    }
}
