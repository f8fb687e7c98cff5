package io.timedjobs.scheduler;

/**
 * Pure functions, callable from any thread: the encodings of where a task is queued, packed into
 * one int ({@code ScheduledTask.queuePosition}) so that a task carries no field per structure.
 *
 * <pre>
 *   encoding                               where                          written by
 *   0 and above                            index in the heap              TaskHeap
 *   -1                                     nowhere: taken, never queued,  the structure it left
 *                                          or removed
 *   -2 ... -2 - (BATCH_OFFSET - 1)         index in its wheel bucket      TimingWheel
 *   -2 - BATCH_OFFSET - slot               slot in the ready batch        ReadyBatch
 *                                          (slot &lt; 64)
 *   -2 - RUN_OFFSET - position             position in the sorted run     SortedRun
 *   -2 - STAGED_OFFSET - position          position on a producer's       HandoffStripes
 *                                          stripe
 * </pre>
 *
 * Each range is written, and checked, by the one structure that owns it: a stale position (the
 * task moved since it was read) names a slot that no longer holds the task, and the owner then
 * finds nothing to do. Anyone may read a position to ask the right owner.
 */
final class QueuePosition {

    /** Where a task is when it is in no structure. */
    static final int NONE = -1;

    /** Run positions are encoded below this, in {@code -2 - RUN_OFFSET - position}. */
    static final int RUN_OFFSET = 1 << 29;

    /** Batch slots are encoded between wheel indexes and run positions. */
    static final int BATCH_OFFSET = RUN_OFFSET - 64;

    /** Staged positions are encoded below this, in {@code -2 - STAGED_OFFSET - position}. */
    static final int STAGED_OFFSET = 1 << 30;

    /** Wheel bucket indexes stay below this, so that they never reach the batch's range. */
    static final int MAX_WHEEL_INDEX = BATCH_OFFSET - 1;

    /** Run positions stay below this, so that they never reach the stripes' range. */
    static final int MAX_RUN_POSITION = STAGED_OFFSET - RUN_OFFSET - 1;

    private QueuePosition() {}

    static boolean inHeap(int p) {
        return p >= 0;
    }

    static int wheel(int index) {
        return -2 - index;
    }

    static boolean inWheel(int p) {
        return p <= -2 && p > -2 - BATCH_OFFSET;
    }

    static int wheelIndex(int p) {
        return -2 - p;
    }

    static int batch(int slot) {
        return -2 - BATCH_OFFSET - slot;
    }

    static boolean inBatch(int p) {
        return p <= -2 - BATCH_OFFSET && p > -2 - RUN_OFFSET;
    }

    static int batchSlot(int p) {
        return -2 - BATCH_OFFSET - p;
    }

    static int run(int position) {
        return -2 - RUN_OFFSET - position;
    }

    static boolean inRun(int p) {
        return p <= -2 - RUN_OFFSET && p > -2 - STAGED_OFFSET;
    }

    static int runPosition(int p) {
        return -2 - RUN_OFFSET - p;
    }

    /** Returns the encoding of a position on a stripe; {@link #NONE} when too deep to encode. */
    static int staged(int position) {
        return position < Integer.MAX_VALUE - 1 - STAGED_OFFSET ? -2 - STAGED_OFFSET - position : NONE;
    }

    static boolean isStaged(int p) {
        return p <= -2 - STAGED_OFFSET;
    }

    static int stagedPosition(int p) {
        return -2 - STAGED_OFFSET - p;
    }
}
