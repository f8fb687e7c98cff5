package io.timedjobs.scheduler.jdbc.durable;

import java.time.Instant;

/**
 * Any thread. What {@link DurableTasks} tells this instance's engine about a task it has just
 * scheduled, so that a task due within the lookahead is claimed and queued here right after the
 * scheduling transaction commits, with no poll in between.
 */
interface LocalClaims {

    /**
     * Called once the row with this id is written (not necessarily committed) with this due time, on
     * the writing thread and inside its transaction, if any.
     */
    void scheduled(String handler, long id, Instant due);

    /** Called once a task is cancelled, so that a local copy of it leaves the in-memory queue. */
    void cancelled(String handler, String key);

    /** No local engine: every task waits for a poll. */
    LocalClaims NONE = new LocalClaims() {
        @Override
        public void scheduled(String handler, long id, Instant due) {}

        @Override
        public void cancelled(String handler, String key) {}
    };
}
