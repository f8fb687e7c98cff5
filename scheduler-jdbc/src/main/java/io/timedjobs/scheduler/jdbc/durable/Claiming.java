package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.TaskNotifications;

/**
 * Immutable; how one engine finds its work: its poll of the tasks table, the pace of that poll while
 * nothing can be due here, and what instances tell each other about tasks (sent, and heard).
 */
record Claiming(DurableTaskPoll poll, IdlePace pace, TaskAnnouncements announcements, TaskNotifications listener) {}
