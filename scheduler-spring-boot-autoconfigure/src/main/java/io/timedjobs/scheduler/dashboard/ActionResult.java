package io.timedjobs.scheduler.dashboard;

/**
 * Immutable, any thread: the answer to a write operation of the {@code timedjobs} endpoint.
 *
 * @param action what was asked: {@code run}, {@code pause}, {@code resume}, {@code retry} or
 *     {@code cancel}
 * @param target the job's name, or the durable task's {@code handler/key}
 * @param done whether it was done; false when it was refused
 * @param message what happened, or why it was refused
 */
public record ActionResult(String action, String target, boolean done, String message) {

    static ActionResult done(String action, String target, String message) {
        return new ActionResult(action, target, true, message);
    }

    static ActionResult refused(String action, String target, String message) {
        return new ActionResult(action, target, false, message);
    }
}
