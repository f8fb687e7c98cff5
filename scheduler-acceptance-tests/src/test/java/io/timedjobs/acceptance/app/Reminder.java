package io.timedjobs.acceptance.app;

/** Immutable: the payload of a durable reminder. */
public record Reminder(String text) {}
