package io.timedjobs.scheduler.jdbc.durable;

/**
 * Immutable; the two stores of one engine on the same database, which travel together.
 *
 * @param own the engine's own statements, each in its own transaction
 * @param joining statements that join the caller's transaction: a scheduling call's, or a
 *     handler's completion transaction
 */
record TaskStores(DurableTaskStore own, DurableTaskStore joining) {}
